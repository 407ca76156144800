/* SPDX-License-Identifier: MIT */
/*
 * engine_int.h - the engine's parts, as the engine's own files see them.
 */
#ifndef UNTORN_ENGINE_INT_H
#define UNTORN_ENGINE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <untorn/engine.h>
#include <untorn/ring.h>
#include <untorn/store.h>
#include "bpool.h"
#include "guard.h"
#include "redo.h"

struct ut_cleaner {
	struct ut_engine *eng;
	pthread_t thread;
	unsigned char *buf;		/* dblwr header + batch page images */
	struct ut_frame **frames;
	uint32_t *page_nos;
	struct ut_io *ios;
};

struct ut_engine {
	struct ut_store *store;
	struct ut_geom geom;
	struct ut_engine_opts opts;
	struct ut_bpool pool;
	struct ut_redo log;
	struct ut_page_guard guard;		/* how pages reach the disk whole */
	struct ut_rwlock tree_latch;
	uint32_t root;

	struct ut_mutex alloc_mutex;	/* n_pages, file growth */
	uint32_t n_pages;

	struct ut_mutex cleaner_mutex;	/* requests to the cleaners */
	pthread_cond_t cleaner_cond;	/* cleaners wait for work */
	pthread_cond_t progress_cond;	/* waiters for a checkpoint */
	uint64_t flush_target_lsn;	/* flush pages older than this */
	int free_wanted;
	int stopping;
	int fatal;			/* a failed page write: engine is dead */
	struct ut_cleaner *cleaners;
	unsigned n_cleaners;
	pthread_t log_writer;
	int log_writer_running;

	struct ut_mutex ckpt_mutex;	/* writing checkpoints */
	atomic_uint_fast64_t commits, pages_written, checkpoints;
};

/* alloc / checkpoint (engine.c) */
int ut_engine_alloc_page(struct ut_engine *eng, uint32_t *page_no);
int ut_engine_reserve_pages(struct ut_engine *eng, unsigned n);
int ut_engine_checkpoint(struct ut_engine *eng);
void ut_engine_log_free_check(struct ut_engine *eng);

/* cleaners (flush.c) */
int ut_cleaners_start(struct ut_engine *eng);
void ut_cleaners_stop(struct ut_engine *eng);
/* Flushes one batch of the oldest dirty pages with c's buffer; returns
 * pages written (0: nothing to do) or -errno. */
int ut_flush_batch(struct ut_engine *eng, struct ut_cleaner *c);
int ut_flush_all(struct ut_engine *eng);
int ut_cleaner_alloc(struct ut_engine *eng, struct ut_cleaner *c);
void ut_cleaner_free(struct ut_cleaner *c);

/* recovery (recover.c) */
int ut_recover(struct ut_engine *eng, struct ut_recovery_report *rep,
	       struct ut_err *err);

#endif
