/* SPDX-License-Identifier: MIT */
/*
 * engine_int.h - the engine: one of each layer's parts, wired together
 * by engine.c, as the engine's own files (engine.c, scan.c) see it.  Each
 * part's fields are its own file's; the engine calls their functions.
 */
#ifndef UNTORN_ENGINE_INT_H
#define UNTORN_ENGINE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <untorn/engine.h>
#include "store/store.h"
#include "buf/bpool.h"
#include "buf/checkpoint.h"
#include "buf/flush.h"
#include "guard/guard.h"
#include "log/redo.h"
#include "store/space.h"
#include "tree/btree.h"
#include "txn_keys.h"

struct ut_engine {
	struct ut_store *store;
	struct ut_geom geom;
	struct ut_engine_opts opts;
	struct ut_space space;
	struct ut_bpool pool;
	struct ut_redo log;
	struct ut_open_guard guard; /* how pages reach the disk whole */
	struct ut_checkpointer ckpt;
	struct ut_flush flush;
	struct ut_tree tree;
	pthread_t log_writer; /* lazy commit: the redo every 100 ms */
	int log_writer_running;
	atomic_uint_fast64_t commits;
	struct ut_txn_keys txn_keys; /* the large commits' keys (txn.c) */
	/* a large commit that could not be applied: no more row writes */
	atomic_int txn_broken;
};

/* txn.c: the commit files an open finds, applied and removed */
int ut_txn_files_recover(struct ut_engine *eng, unsigned *applied,
			 unsigned *bad, struct ut_err *err);

#endif
