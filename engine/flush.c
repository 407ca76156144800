// SPDX-License-Identifier: MIT
/*
 * flush.c - the page cleaners: batches of the oldest dirty pages, the WAL
 * rule, the batch handed to the store's guard (guard.h), and the requests
 * (free frames, log space) that wake the cleaners.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/ring.h>
#include "engine_int.h"
#include "fscaps.h"
#include "mem.h"
#include "probes.h"

#define CLEANER_IDLE_NS		1000000000ull
#define DIRTY_HIGH_PCT		75

int ut_cleaner_alloc(struct ut_engine *eng, struct ut_cleaner *c)
{
	unsigned batch = eng->opts.batch;

	memset(c, 0, sizeof(*c));
	c->eng = eng;
	c->buf = ut_io_alloc(UT_DBLWR_HDR + (size_t)batch * eng->geom.page_size);
	c->frames = calloc(batch, sizeof(*c->frames));	/* NOLINT(bugprone-sizeof-expression): pointers */
	c->page_nos = calloc(batch, sizeof(*c->page_nos));
	c->ios = calloc(batch + 1, sizeof(*c->ios));
	if (!c->buf || !c->frames || !c->page_nos || !c->ios) {
		ut_cleaner_free(c);
		return -ENOMEM;
	}
	return 0;
}

void ut_cleaner_free(struct ut_cleaner *c)
{
	free(c->buf);
	free(c->frames);
	free(c->page_nos);
	free(c->ios);
	c->buf = NULL;
	c->frames = NULL;
	c->page_nos = NULL;
	c->ios = NULL;
}

/* Takes up to batch of the oldest dirty frames nobody else holds. */
static unsigned batch_collect(struct ut_engine *eng, struct ut_cleaner *c)
{
	struct ut_bpool *bp = &eng->pool;
	struct ut_frame *f;
	unsigned n = 0;

	ut_mutex_lock(&bp->fl_mutex);
	for (f = bp->fl_tail; f && n < eng->opts.batch; f = f->fl_prev) {
		if (f->io_fix || ut_rwlock_tryrdlock(&f->latch))
			continue;
		f->io_fix = 1;
		atomic_fetch_add(&f->fix, 1);
		c->frames[n++] = f;
	}
	ut_mutex_unlock(&bp->fl_mutex);
	return n;
}

static void batch_finish(struct ut_engine *eng, struct ut_cleaner *c,
			 unsigned n, int ok)
{
	struct ut_bpool *bp = &eng->pool;
	struct ut_frame *f;
	unsigned i;

	ut_mutex_lock(&bp->fl_mutex);
	for (i = 0; i < n; i++) {
		f = c->frames[i];
		if (ok)
			ut_bpool_clean_locked(bp, f);
		f->io_fix = 0;
	}
	ut_mutex_unlock(&bp->fl_mutex);
	for (i = 0; i < n; i++)
		ut_bpool_release(bp, c->frames[i], UT_S);
}

/* The guard writes the batch in place, whole, and makes it durable. */
static int batch_write(struct ut_engine *eng, struct ut_cleaner *c,
		       unsigned n)
{
	struct ut_guard_batch b = {
		.ring = ut_ring_thread(),
		.ios = c->ios,
		.buf = c->buf,
		.page_nos = c->page_nos,
		.n = n,
	};

	if (!b.ring)
		return -ENOMEM;
	return eng->guard.ops->write(&eng->guard, &b);
}

int ut_flush_batch(struct ut_engine *eng, struct ut_cleaner *c)
{
	uint32_t ps = eng->geom.page_size;
	uint64_t newest = 0, t0;
	struct ut_frame *f;
	unsigned n, i;
	int ret;

	if (eng->fatal)
		return eng->fatal;
	n = batch_collect(eng, c);
	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		f = c->frames[i];
		f->meta.page_no = f->page_no;
		ut_page_pack(&eng->geom, &f->meta, f->area,
			     c->buf + UT_DBLWR_HDR + (size_t)i * ps);
		c->page_nos[i] = f->page_no;
		if (f->newest_lsn > newest)
			newest = f->newest_lsn;
	}
	t0 = UT_PROBE_ENABLED(flush__batch__done) ? ut_now_ns() : 0;
	UT_PROBE(flush__batch__start, ut_engine_guard(eng), n);
	ret = ut_redo_flush_to(&eng->log, newest);	/* the WAL rule */
	if (!ret)
		ret = batch_write(eng, c, n);
	batch_finish(eng, c, n, !ret);
	if (t0)
		UT_PROBE(flush__batch__done, ut_engine_guard(eng), n,
			 ut_now_ns() - t0, ret);
	if (ret) {
		eng->fatal = ret;
		return ret;
	}
	atomic_fetch_add(&eng->pages_written, n);
	ut_bpool_wake_free(&eng->pool);
	return n;
}

int ut_flush_all(struct ut_engine *eng)
{
	struct ut_cleaner c;
	int ret;

	ret = ut_cleaner_alloc(eng, &c);
	if (ret)
		return ret;
	while (ut_bpool_dirty_count(&eng->pool)) {
		ret = ut_flush_batch(eng, &c);
		if (ret <= 0) {
			ret = ret ? ret : -EBUSY;
			break;
		}
		ret = 0;
	}
	ut_cleaner_free(&c);
	return ret;
}

/* ---- cleaner threads ------------------------------------------------ */

static int cleaner_has_work(struct ut_engine *eng)
{
	uint64_t oldest;

	if (eng->free_wanted)
		return 1;
	if (ut_bpool_dirty_count(&eng->pool) * 100 >
	    eng->pool.n_frames * DIRTY_HIGH_PCT)
		return 1;
	oldest = ut_bpool_oldest_lsn(&eng->pool);
	if (oldest && oldest < eng->flush_target_lsn)
		return 1;
	/* like InnoDB's adaptive flushing low-water mark: keep the redo
	 * between checkpoint and head under a tenth of the log */
	return ut_redo_age(&eng->log) > eng->log.capacity / 10 &&
	       ut_bpool_dirty_count(&eng->pool) > 0;
}

static void *cleaner_main(void *arg)
{
	struct ut_cleaner *c = arg;
	struct ut_engine *eng = c->eng;
	int n, timed_out;

	for (;;) {
		ut_mutex_lock(&eng->cleaner_mutex);
		timed_out = 0;
		while (!eng->stopping && !timed_out && !cleaner_has_work(eng))
			timed_out = ut_cond_wait(&eng->cleaner_cond,
						 &eng->cleaner_mutex,
						 UT_LATCH_IDLE,
						 CLEANER_IDLE_NS) == -ETIMEDOUT;
		eng->free_wanted = 0;
		if (eng->stopping) {
			ut_mutex_unlock(&eng->cleaner_mutex);
			break;
		}
		ut_mutex_unlock(&eng->cleaner_mutex);
		n = ut_flush_batch(eng, c);
		if (n > 0 || timed_out)
			ut_engine_checkpoint(eng);
		ut_mutex_lock(&eng->cleaner_mutex);
		pthread_cond_broadcast(&eng->progress_cond);
		if (n == 0 && !timed_out && !eng->stopping)
			/* everything dirty is latched right now: wait for a
			 * change rather than spin */
			ut_cond_wait(&eng->cleaner_cond, &eng->cleaner_mutex,
				     UT_LATCH_IDLE, 10000000ull);
		ut_mutex_unlock(&eng->cleaner_mutex);
		if (n < 0)
			break;
	}
	return NULL;
}

int ut_cleaners_start(struct ut_engine *eng)
{
	unsigned i;
	int ret;

	eng->cleaners = calloc(eng->opts.cleaners, sizeof(*eng->cleaners));
	if (!eng->cleaners)
		return -ENOMEM;
	for (i = 0; i < eng->opts.cleaners; i++) {
		ret = ut_cleaner_alloc(eng, &eng->cleaners[i]);
		if (!ret)
			ret = -pthread_create(&eng->cleaners[i].thread, NULL,
					      cleaner_main, &eng->cleaners[i]);
		if (ret) {
			ut_cleaner_free(&eng->cleaners[i]);
			break;
		}
		eng->n_cleaners++;
	}
	return eng->n_cleaners ? 0 : ret;
}

void ut_cleaners_stop(struct ut_engine *eng)
{
	unsigned i;

	ut_mutex_lock(&eng->cleaner_mutex);
	eng->stopping = 1;
	pthread_cond_broadcast(&eng->cleaner_cond);
	ut_mutex_unlock(&eng->cleaner_mutex);
	for (i = 0; i < eng->n_cleaners; i++) {
		pthread_join(eng->cleaners[i].thread, NULL);
		ut_cleaner_free(&eng->cleaners[i]);
	}
	free(eng->cleaners);
	eng->cleaners = NULL;
	eng->n_cleaners = 0;
}
