// SPDX-License-Identifier: MIT
/*
 * flush.c - the page cleaners (flush.h): batches of the oldest dirty
 * pages, the WAL rule, the batch handed to the store's guard (guard.h),
 * the requests (free frames, log space) that wake the cleaners, and the
 * writers' wait for log space.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/mem.h"
#include "base/probes.h"
#include "buf/flush.h"

#define DIRTY_HIGH_PCT 75
/* how often adaptive flushing recomputes its target */
#define FLUSH_TICK_NS 10000000ull

int ut_cleaner_alloc(struct ut_flush *fl, struct ut_cleaner *c)
{
	unsigned batch = fl->batch;

	memset(c, 0, sizeof(*c));
	c->fl = fl;
	c->buf = ut_io_alloc(fl->guard->ops->batch_hdr +
			     (size_t)batch * fl->pool->geom.page_size);
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	c->frames = calloc(batch, sizeof(*c->frames));
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

/* Takes up to batch of the oldest dirty frames nobody else holds,
 * S-latched until copied. */
static unsigned batch_collect(struct ut_flush *fl, struct ut_cleaner *c)
{
	struct ut_bpool *bp = fl->pool;
	struct ut_frame *f;
	unsigned n = 0;

	ut_mutex_lock(&bp->fl_mutex);
	for (f = bp->fl_tail; f && n < fl->batch; f = f->fl_prev) {
		if (f->io_fix || ut_rwlock_tryrdlock(&f->latch))
			continue;
		f->io_fix = 1;
		atomic_fetch_add(&f->fix, 1);
		c->frames[n++] = f;
	}
	ut_mutex_unlock(&bp->fl_mutex);
	return n;
}

static void batch_finish(struct ut_flush *fl, struct ut_cleaner *c, unsigned n,
			 int ok)
{
	struct ut_bpool *bp = fl->pool;
	struct ut_frame *f;
	unsigned i;

	ut_mutex_lock(&bp->fl_mutex);
	for (i = 0; i < n; i++) {
		f = c->frames[i];
		if (ok)
			ut_bpool_flushed_locked(bp, f);
		f->redirty_lsn = 0;
		f->io_fix = 0;
	}
	ut_mutex_unlock(&bp->fl_mutex);
	for (i = 0; i < n; i++)
		ut_bpool_unfix(bp, c->frames[i]);
}

/* The guard writes the batch in place, whole, and makes it durable. */
static int batch_write(struct ut_flush *fl, struct ut_cleaner *c, unsigned n)
{
	struct ut_guard_batch b = {
		.ring = ut_ring_thread(),
		.ios = c->ios,
		.buf = c->buf,
		.pages = c->buf + fl->guard->ops->batch_hdr,
		.page_nos = c->page_nos,
		.n = n,
	};

	if (!b.ring)
		return -ENOMEM;
	return fl->guard->ops->write(fl->guard, &b);
}

static const char *guard_name(const struct ut_flush *fl)
{
	return fl->guard->ops->name;
}

int ut_flush_batch(struct ut_flush *fl, struct ut_cleaner *c)
{
	const struct ut_geom *g = &fl->pool->geom;
	uint32_t ps = g->page_size;
	uint64_t newest = 0, t0;
	struct ut_frame *f;
	unsigned n, i;
	int ret;

	if (fl->fatal)
		return fl->fatal;
	n = batch_collect(fl, c);
	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		f = c->frames[i];
		f->meta.page_no = f->page_no;
		ut_page_pack(g, &f->meta, f->area,
			     c->buf + fl->guard->ops->batch_hdr +
				     (size_t)i * ps);
		c->page_nos[i] = f->page_no;
		if (f->newest_lsn > newest)
			newest = f->newest_lsn;
		/* copied: writers may change the frame while the copy is
		 * written; io_fix and the fix keep it in the pool and out of
		 * other batches, and ut_bpool_flushed_locked keeps it dirty
		 * if they do */
		ut_rwlock_unlock(&f->latch);
	}
	t0 = UT_PROBE_ENABLED(flush__batch__done) ? ut_now_ns() : 0;
	UT_PROBE(flush__batch__start, guard_name(fl), n);
	ret = ut_redo_flush_to(fl->log, newest); /* the WAL rule */
	if (!ret)
		ret = batch_write(fl, c, n);
	batch_finish(fl, c, n, !ret);
	if (t0)
		UT_PROBE(flush__batch__done, guard_name(fl), n,
			 ut_now_ns() - t0, ret);
	if (ret) {
		fl->fatal = ret;
		return ret;
	}
	atomic_fetch_add(&fl->pages_written, n);
	ut_bpool_wake_free(fl->pool);
	return n;
}

/* with every dirty page latched, a flusher waits this long for a change,
 * and ut_flush_all gives up after FLUSH_ALL_LATCHED_NS of such waits */
#define FLUSH_LATCHED_WAIT_NS 10000000ull
#define FLUSH_ALL_LATCHED_NS 10000000000ull

int ut_flush_all(struct ut_flush *fl)
{
	uint64_t latched_ns = 0;
	struct ut_cleaner c;
	int ret;

	ret = ut_cleaner_alloc(fl, &c);
	if (ret)
		return ret;
	while (ut_bpool_dirty_count(fl->pool)) {
		ret = ut_flush_batch(fl, &c);
		if (ret < 0)
			break;
		if (ret == 0) {
			/* every dirty page is latched by a writer or in
			 * another cleaner's batch: wait for a change, as a
			 * cleaner does, rather than call the pool busy */
			if (latched_ns >= FLUSH_ALL_LATCHED_NS) {
				ret = -EBUSY;
				break;
			}
			ut_mutex_lock(&fl->mutex);
			ut_cond_wait(&fl->progress_cond, &fl->mutex,
				     UT_LATCH_IDLE, FLUSH_LATCHED_WAIT_NS);
			ut_mutex_unlock(&fl->mutex);
			latched_ns += FLUSH_LATCHED_WAIT_NS;
			continue;
		}
		latched_ns = 0;
		ret = 0;
	}
	ut_cleaner_free(&c);
	return ret;
}

/* ---- cleaner threads ------------------------------------------------ */

/* Adaptive flushing's tick, at most every FLUSH_TICK_NS: moves the
 * target LSN to where flush_rate.h says; under fl->mutex. */
static void flush_rate_tick(struct ut_flush *fl)
{
	uint64_t now = ut_now_ns(), cur, target;

	if (now - fl->rate_tick_ns < FLUSH_TICK_NS)
		return;
	fl->rate_tick_ns = now;
	cur = ut_redo_current(fl->log);
	target = ut_flush_rate_tick(&fl->rate, now, cur,
				    cur - ut_redo_age(fl->log),
				    ut_bpool_oldest_lsn(fl->pool));
	if (target > fl->target_lsn)
		fl->target_lsn = target;
}

static int cleaner_has_work(struct ut_flush *fl)
{
	uint64_t oldest;

	if (fl->free_wanted)
		return 1;
	if (ut_bpool_dirty_count(fl->pool) * 100 >
	    fl->pool->n_frames * DIRTY_HIGH_PCT)
		return 1;
	if (fl->adaptive)
		flush_rate_tick(fl);
	oldest = ut_bpool_oldest_lsn(fl->pool);
	if (oldest && oldest < fl->target_lsn)
		return 1;
	if (fl->adaptive)
		return 0;
	/* eager: flat out while the redo between checkpoint and head is
	 * over a tenth of the log */
	return ut_redo_age(fl->log) > UT_LOG_EAGER_AGE(fl->log->capacity) &&
	       ut_bpool_dirty_count(fl->pool) > 0;
}

/* Writers wait for log space, or (forecast mode) the age is near it. */
static int checkpoint_urgent(struct ut_flush *fl)
{
	if (atomic_load(&fl->log_waiters) > 0)
		return 1;
	return fl->forecast &&
	       ut_redo_age(fl->log) > UT_PACE_URGENT(fl->log->capacity);
}

/* A checkpoint when due; one written here means the page writes counted
 * before it began are on the device (the forecast's count_at_sync). */
static int checkpoint_if_due(struct ut_flush *fl)
{
	uint64_t written = atomic_load(&fl->pages_written), synced;
	int ret;

	ret = ut_checkpoint_if_due(fl->ckpt, checkpoint_urgent(fl));
	if (ret <= 0)
		return ret;
	synced = atomic_load(&fl->pages_synced);
	while (synced < written &&
	       !atomic_compare_exchange_weak(&fl->pages_synced, &synced,
					     written))
		;
	return 0;
}

static void *cleaner_main(void *arg)
{
	struct ut_cleaner *c = arg;
	struct ut_flush *fl = c->fl;
	uint64_t wait_ns = fl->adaptive ? FLUSH_TICK_NS :
			   fl->forecast ? UT_PACE_POLL_NS :
					  UT_CLEANER_IDLE_NS;
	uint64_t idle_ns;
	int n, timed_out, ret;

	for (;;) {
		ut_mutex_lock(&fl->mutex);
		timed_out = 0;
		idle_ns = 0;
		/* adaptive flushing looks again every tick */
		while (!fl->stopping && !timed_out && !cleaner_has_work(fl)) {
			atomic_fetch_add(&fl->idle_waits, 1);
			if (ut_cond_wait(&fl->work_cond, &fl->mutex,
					 UT_LATCH_IDLE, wait_ns) == -ETIMEDOUT)
				idle_ns += wait_ns;
			timed_out = idle_ns >= UT_CLEANER_IDLE_NS;
		}
		fl->free_wanted = 0;
		if (fl->stopping) {
			ut_mutex_unlock(&fl->mutex);
			break;
		}
		ut_mutex_unlock(&fl->mutex);
		n = ut_flush_batch(fl, c);
		ret = n > 0 || timed_out ? checkpoint_if_due(fl) : 0;
		ut_mutex_lock(&fl->mutex);
		if (ret && !fl->fatal)
			/* the data file's sync failed: what it held may be
			 * gone from the page cache, so nothing more is written */
			fl->fatal = ret;
		pthread_cond_broadcast(&fl->progress_cond);
		if (n == 0 && !timed_out && !fl->stopping)
			/* everything dirty is latched right now: wait for a
			 * change rather than spin */
			ut_cond_wait(&fl->work_cond, &fl->mutex, UT_LATCH_IDLE,
				     FLUSH_LATCHED_WAIT_NS);
		ut_mutex_unlock(&fl->mutex);
		if (n < 0)
			break;
	}
	return NULL;
}

void ut_flush_init(struct ut_flush *fl, struct ut_bpool *pool,
		   struct ut_redo *log, struct ut_open_guard *guard,
		   struct ut_checkpointer *ckpt, unsigned batch)
{
	memset(fl, 0, sizeof(*fl));
	fl->pool = pool;
	fl->log = log;
	fl->guard = guard;
	fl->ckpt = ckpt;
	fl->batch = batch;
	ut_mutex_init(&fl->mutex, UT_LATCH_CLEANER);
	ut_cond_init(&fl->work_cond);
	ut_cond_init(&fl->progress_cond);
	atomic_init(&fl->pages_written, 0);
	atomic_init(&fl->pages_synced, 0);
	atomic_init(&fl->log_space_waits, 0);
	atomic_init(&fl->log_space_wait_ns, 0);
	ut_mutex_init(&fl->pace_mutex, UT_LATCH_CLEANER);
	ut_redo_pace_init(&fl->pace, log->capacity);
	atomic_init(&fl->pacing, 0);
	atomic_init(&fl->log_pace_waits, 0);
	atomic_init(&fl->log_pace_ns, 0);
	atomic_init(&fl->log_waiters, 0);
	atomic_init(&fl->idle_waits, 0);
	fl->adaptive = 0;
	ut_flush_rate_init(&fl->rate, log->capacity);
}

void ut_flush_set_adaptive(struct ut_flush *fl, int adaptive)
{
	fl->adaptive = adaptive;
}

void ut_flush_set_pacing(struct ut_flush *fl, int pacing)
{
	fl->no_pacing = !pacing;
}

void ut_flush_set_forecast(struct ut_flush *fl, int buffered)
{
	uint64_t cap = fl->log->capacity;

	fl->forecast = 1;
	fl->count_at_sync = buffered;
	/* paced from where the cleaners go flat out */
	ut_redo_pace_forecast(&fl->pace, fl->adaptive ? UT_FLUSH_LWM(cap) :
							UT_LOG_EAGER_AGE(cap));
	ut_checkpointer_set_due(fl->ckpt, UT_PACE_CKPT_SHARE, UT_PACE_CKPT_NS);
}

int ut_cleaners_start(struct ut_flush *fl, unsigned n)
{
	unsigned i;
	int ret = 0;

	if (!n) /* pages are written by ut_flush_all only */
		return 0;
	fl->cleaners = calloc(n, sizeof(*fl->cleaners));
	if (!fl->cleaners)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ret = ut_cleaner_alloc(fl, &fl->cleaners[i]);
		if (!ret)
			ret = -pthread_create(&fl->cleaners[i].thread, NULL,
					      cleaner_main, &fl->cleaners[i]);
		if (ret) {
			ut_cleaner_free(&fl->cleaners[i]);
			break;
		}
		fl->n_cleaners++;
	}
	return fl->n_cleaners ? 0 : ret;
}

void ut_cleaners_stop(struct ut_flush *fl)
{
	unsigned i;

	ut_mutex_lock(&fl->mutex);
	fl->stopping = 1;
	pthread_cond_broadcast(&fl->work_cond);
	ut_mutex_unlock(&fl->mutex);
	for (i = 0; i < fl->n_cleaners; i++) {
		pthread_join(fl->cleaners[i].thread, NULL);
		ut_cleaner_free(&fl->cleaners[i]);
	}
	free(fl->cleaners);
	fl->cleaners = NULL;
	fl->n_cleaners = 0;
}

/* ---- requests and waits --------------------------------------------- */

void ut_flush_want_log_space(void *arg)
{
	struct ut_flush *fl = arg;
	uint64_t target =
		ut_redo_current(fl->log) - UT_FLUSH_LWM(fl->log->capacity);

	ut_mutex_lock(&fl->mutex);
	if (target > fl->target_lsn)
		fl->target_lsn = target;
	pthread_cond_broadcast(&fl->work_cond);
	ut_mutex_unlock(&fl->mutex);
}

void ut_flush_want_free(void *arg)
{
	struct ut_flush *fl = arg;

	ut_mutex_lock(&fl->mutex);
	fl->free_wanted = 1;
	pthread_cond_broadcast(&fl->work_cond);
	ut_mutex_unlock(&fl->mutex);
}

/* The forecast mode's sample, every UT_PACE_ADJUST_NS; under pace_mutex.
 * With buffered page writes the cleaners' rate is the page cache's; what
 * the device took is what the checkpoints' syncs covered. */
static void pace_sample(struct ut_flush *fl, uint64_t now, uint64_t cur,
			uint64_t age)
{
	struct ut_pace_sample s = { .now_ns = now, .cur_lsn = cur, .age = age };
	unsigned n, idle = atomic_load(&fl->idle_waits);
	uint64_t oldest, newest;

	ut_bpool_flush_list_ends(fl->pool, &n, &oldest, &newest);
	s.flush_age = oldest && cur > oldest ? cur - oldest : 0;
	s.head_lsn = newest;
	s.n_dirty = n;
	if (fl->count_at_sync) {
		/* a page written but not yet synced is still to be made
		 * durable: dirty, for the forecast (rewrites counted too);
		 * synced read first, as it only takes values written had */
		uint64_t synced = atomic_load(&fl->pages_synced);

		s.n_dirty += atomic_load(&fl->pages_written) - synced;
		s.pages_written = synced;
	} else {
		s.pages_written = atomic_load(&fl->pages_written);
	}
	s.cleaners_idle = idle != fl->idle_seen;
	fl->idle_seen = idle;
	ut_redo_pace_adjust(&fl->pace, &s);
}

/* How long a row write waits now, by the mode's rate; under pace_mutex. */
static uint64_t pace_admit(struct ut_flush *fl, uint64_t age)
{
	uint64_t now = ut_now_ns(), cur = ut_redo_current(fl->log);

	if (!fl->forecast)
		return ut_redo_pace_admit(&fl->pace, now, cur, age);
	if (ut_redo_pace_due(&fl->pace, now))
		pace_sample(fl, now, cur, age);
	return ut_redo_pace_wait(&fl->pace, now, cur);
}

/* While the log holds writers back, a row write waits for its turn at
 * the paced redo rate (redo_pace.h). */
static void log_pace(struct ut_flush *fl)
{
	uint64_t ns, slept = 0, age = ut_redo_age(fl->log);
	uint64_t on = fl->forecast ? fl->pace.on_age :
				     UT_PACE_AGE_ON(fl->log->capacity);
	struct timespec ts;

	if (fl->fatal || !fl->n_cleaners || fl->no_pacing)
		return;
	/* pacing starts above half the log (forecast: where the cleaners
	 * go flat out): below it, off, nothing to ask */
	if (!atomic_load_explicit(&fl->pacing, memory_order_relaxed) &&
	    age <= on)
		return;
	for (;;) {
		ut_mutex_lock(&fl->pace_mutex);
		ns = pace_admit(fl, age);
		atomic_store_explicit(&fl->pacing, fl->pace.rate != 0,
				      memory_order_relaxed);
		ut_mutex_unlock(&fl->pace_mutex);
		if (!ns || fl->fatal)
			break;
		ts.tv_sec = ns / 1000000000ull;
		ts.tv_nsec = ns % 1000000000ull;
		nanosleep(&ts,
			  NULL); /* the writer's turn, not synchronisation */
		slept += ns;
		age = ut_redo_age(fl->log);
	}
	if (slept) {
		atomic_fetch_add(&fl->log_pace_waits, 1);
		atomic_fetch_add(&fl->log_pace_ns, slept);
	}
}

void ut_flush_log_free_check(struct ut_flush *fl)
{
	uint64_t limit = UT_FLUSH_STOP(fl->log->capacity), t0 = 0;

	log_pace(fl);

	while (ut_redo_age(fl->log) > limit && !fl->fatal && fl->n_cleaners) {
		if (!t0) {
			t0 = ut_now_ns();
			atomic_fetch_add(&fl->log_waiters, 1);
		}
		ut_flush_want_log_space(fl);
		ut_mutex_lock(&fl->mutex);
		ut_cond_wait(&fl->progress_cond, &fl->mutex, UT_LATCH_CLEANER,
			     100000000ull);
		ut_mutex_unlock(&fl->mutex);
	}
	if (t0) {
		atomic_fetch_sub(&fl->log_waiters, 1);
		atomic_fetch_add(&fl->log_space_waits, 1);
		atomic_fetch_add(&fl->log_space_wait_ns, ut_now_ns() - t0);
	}
}

int ut_flush_wait_progress(struct ut_flush *fl, uint64_t ns)
{
	int stopping;

	ut_mutex_lock(&fl->mutex);
	if (!fl->stopping)
		ut_cond_wait(&fl->progress_cond, &fl->mutex, UT_LATCH_IDLE, ns);
	stopping = fl->stopping;
	ut_mutex_unlock(&fl->mutex);
	return stopping;
}

void ut_flush_get_log_waits(struct ut_flush *fl, uint64_t *waits,
			    uint64_t *wait_ns)
{
	*waits = atomic_load(&fl->log_space_waits);
	*wait_ns = atomic_load(&fl->log_space_wait_ns);
}

void ut_flush_get_log_pacing(struct ut_flush *fl, uint64_t *paced,
			     uint64_t *pace_ns)
{
	*paced = atomic_load(&fl->log_pace_waits);
	*pace_ns = atomic_load(&fl->log_pace_ns);
}

int ut_flush_fatal(const struct ut_flush *fl)
{
	return fl->fatal;
}

uint64_t ut_flush_pages_written(struct ut_flush *fl)
{
	return atomic_load(&fl->pages_written);
}
