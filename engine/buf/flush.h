/* SPDX-License-Identifier: MIT */
/*
 * flush.h - the page cleaners: threads that write batches of the oldest
 * dirty pages through the store's guard, obeying the WAL rule, when
 * frames run short, when the redo log needs a checkpoint, or when too
 * much of the pool is dirty; then they take the checkpoint.  Writers
 * wait here (ut_flush_log_free_check) when the log is nearly full.
 */
#ifndef UNTORN_FLUSH_H
#define UNTORN_FLUSH_H

#include <pthread.h>
#include <stdatomic.h>
#include "base/latch.h"
#include "io/ring.h"
#include "buf/bpool.h"
#include "buf/checkpoint.h"
#include "buf/flush_rate.h"
#include "buf/redo_pace.h"
#include "guard/guard.h"

#include "log/redo.h"

/* pages per flush batch at most (ut_engine_opts.batch; a guard may take
 * fewer: its max_batch) */
#define UT_FLUSH_BATCH_MAX 1012u

/*
 * Pages per flush batch by default (ut_engine_opts_default): an extent of
 * InnoDB's, what one segment of a new store's doublewrite file holds, so
 * that a batch takes one segment.  A larger batch syncs less often for a
 * guard that syncs per batch, and keeps more pages io-fixed while it is
 * written.
 */
#define UT_FLUSH_BATCH_DEFAULT 64u

/* Page cleaner threads by default: one per segment of a new store's
 * doublewrite file (more cleaners than segments wait for a slot). */
#define UT_FLUSH_CLEANERS_DEFAULT 2u

/* An idle cleaner looks for work again this often (InnoDB's page
 * cleaner: once a second); the forecast mode's more often
 * (UT_PACE_POLL_NS). */
#define UT_CLEANER_IDLE_NS 1000000000ull

struct ut_flush;

/* One batch's buffers: a cleaner thread's, or a caller's (flush_all). */
struct ut_cleaner {
	struct ut_flush *fl;
	pthread_t thread;
	unsigned char *buf; /* the guard's batch header + page images */
	struct ut_frame **frames;
	uint32_t *page_nos;
	struct ut_io *ios;
};

struct ut_flush {
	struct ut_bpool *pool;
	struct ut_redo *log;
	struct ut_open_guard *guard;
	struct ut_checkpointer *ckpt;
	unsigned batch; /* pages per batch at most */
	struct ut_mutex mutex; /* everything below */
	pthread_cond_t work_cond; /* cleaners wait for work */
	pthread_cond_t progress_cond; /* waiters for a batch to be done */
	uint64_t target_lsn; /* flush pages older than this */
	int adaptive; /* flush_rate.h's controller; else eager: flat out
		       * while the age is above a tenth of the log */
	struct ut_flush_rate rate;
	uint64_t rate_tick_ns; /* the controller's last tick */
	int free_wanted;
	int stopping;
	int fatal; /* a failed page write: no more */
	struct ut_cleaner *cleaners;
	unsigned n_cleaners;
	atomic_uint_fast64_t pages_written;
	atomic_uint_fast64_t log_space_waits; /* writers stopped by the */
	atomic_uint_fast64_t log_space_wait_ns; /* log-free check, and how long */
	struct ut_mutex pace_mutex; /* pace */
	struct ut_redo_pace pace; /* writer pacing (redo_pace.h) */
	atomic_int pacing; /* pace.rate != 0, read without the mutex */
	int no_pacing; /* writers only stopped at 5/8 (comparisons) */
	int forecast; /* pacing's forecast mode and its flushing */
	int count_at_sync; /* forecast: page writes count once synced */
	atomic_uint_fast64_t pages_synced; /* pages_written when the last
					    * checkpoint's sync began */
	atomic_uint idle_waits; /* cleaners' waits for work (forecast) */
	unsigned idle_seen; /* idle_waits at the last sample, pace_mutex */
	atomic_uint_fast64_t log_pace_waits; /* row writes paced, and */
	atomic_uint_fast64_t log_pace_ns; /* the time they slept */
	atomic_int
		log_waiters; /* writers stopped right now: a checkpoint is urgent */
};

void ut_flush_init(struct ut_flush *fl, struct ut_bpool *pool,
		   struct ut_redo *log, struct ut_open_guard *guard,
		   struct ut_checkpointer *ckpt, unsigned batch);
/* Adaptive flushing or eager (the default); before ut_cleaners_start. */
void ut_flush_set_adaptive(struct ut_flush *fl, int adaptive);
/* Writer pacing on (the default) or off; before ut_cleaners_start. */
void ut_flush_set_pacing(struct ut_flush *fl, int pacing);
/* Writer pacing's forecast mode (redo_pace.h), with its flushing: idle
 * eager cleaners look for work every 10 ms, the checkpoint is due at
 * 1/32 of the log or 500 ms and urgent above 39/64.  After
 * ut_flush_set_adaptive, before ut_cleaners_start. */
/* buffered: page writes reach the page cache only, so the forecast counts
 * a page written when a checkpoint's sync has covered it. */
void ut_flush_set_forecast(struct ut_flush *fl, int buffered);
int ut_cleaners_start(struct ut_flush *fl, unsigned n);
void ut_cleaners_stop(struct ut_flush *fl);

int ut_cleaner_alloc(struct ut_flush *fl, struct ut_cleaner *c);
void ut_cleaner_free(struct ut_cleaner *c);
/* Flushes one batch of the oldest dirty pages with c's buffer; returns
 * the pages written, 0 when none could be taken, or -errno (then every
 * later call fails too: ut_flush_fatal). */
int ut_flush_batch(struct ut_flush *fl, struct ut_cleaner *c);
/* Every dirty page, by the calling thread. */
int ut_flush_all(struct ut_flush *fl);

/* Callbacks for the log (need_space: flush up to half the log behind
 * its head) and the pool (need_free: flush so frames come free); arg is
 * the struct ut_flush. */
void ut_flush_want_log_space(void *arg);
void ut_flush_want_free(void *arg);
/* Called before a row operation latches anything: while the log holds
 * writers back, waits for its turn at the paced redo rate (redo_pace.h);
 * when the log is 5/8 full, asks the cleaners for a checkpoint and waits
 * until there is room again, instead of failing later with the log full
 * (InnoDB's log_free_check). */
void ut_flush_log_free_check(struct ut_flush *fl);
/* Waits up to ns for a cleaner to finish a batch; nonzero once the
 * cleaners are stopping. */
int ut_flush_wait_progress(struct ut_flush *fl, uint64_t ns);
/* Row operations the log-free check stopped, and the time they waited. */
void ut_flush_get_log_waits(struct ut_flush *fl, uint64_t *waits,
			    uint64_t *wait_ns);
/* Row operations paced near the stop, and the time they slept. */
void ut_flush_get_log_pacing(struct ut_flush *fl, uint64_t *paced,
			     uint64_t *pace_ns);
/* The error that stopped page writes, or 0. */
int ut_flush_fatal(const struct ut_flush *fl);
uint64_t ut_flush_pages_written(struct ut_flush *fl);

#endif
