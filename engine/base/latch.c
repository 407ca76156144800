// SPDX-License-Identifier: MIT
/*
 * latch.c - the counting mutex/rwlock/condition wrapper.
 */
#include <errno.h>
#include <stdatomic.h>
#include <time.h>
#include "base/latch.h"
#include "base/probes.h"

static struct {
	atomic_uint_fast64_t acquisitions;
	atomic_uint_fast64_t waits;
	atomic_uint_fast64_t wait_ns;
} latch_stats[UT_LATCH_NCLASSES];

static const char *const latch_names[UT_LATCH_NCLASSES] = {
	[UT_LATCH_PAGE] = "page",
	[UT_LATCH_TREE] = "tree",
	[UT_LATCH_POOL] = "pool",
	[UT_LATCH_FLUSH_LIST] = "flush_list",
	[UT_LATCH_LOG] = "log",
	[UT_LATCH_LOG_FLUSH] = "log_flush",
	[UT_LATCH_COPY_SLOT] = "copy_slot",
	[UT_LATCH_ALLOC] = "alloc",
	[UT_LATCH_CLEANER] = "cleaner",
};

uint64_t ut_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void latch_count(unsigned cls, uint64_t wait_ns, int waited)
{
	if (cls >= UT_LATCH_NCLASSES)
		return; /* an idle wait: not contention */
	atomic_fetch_add_explicit(&latch_stats[cls].acquisitions, 1,
				  memory_order_relaxed);
	if (!waited)
		return;
	atomic_fetch_add_explicit(&latch_stats[cls].waits, 1,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&latch_stats[cls].wait_ns, wait_ns,
				  memory_order_relaxed);
}

void ut_latch_account(enum ut_latch_class cls, uint64_t wait_ns)
{
	latch_count(cls, wait_ns, 1);
}

void ut_mutex_init(struct ut_mutex *m, enum ut_latch_class cls)
{
	pthread_mutex_init(&m->m, NULL);
	m->cls = cls;
	m->waiters = 0;
	m->held_since = 0;
}

void ut_mutex_destroy(struct ut_mutex *m)
{
	pthread_mutex_destroy(&m->m);
}

/*
 * Probe helpers.  A contended acquisition fires latch__wait__start and
 * latch__wait__done (class, latch, wait ns, mode: 0 shared, 1 exclusive).
 * An exclusive holder that made somebody wait fires latch__release (class,
 * latch, hold ns) when it lets go: the holder time behind the waits.
 */
static void hold_begin(uint64_t *held_since)
{
	if (UT_PROBE_ENABLED(latch__release))
		*held_since = ut_now_ns();
}

static void hold_end(unsigned cls, void *latch, uint64_t *held_since,
		     uint32_t *waiters)
{
	if (!*held_since)
		return;
	if (__atomic_load_n(waiters, __ATOMIC_RELAXED))
		UT_PROBE(latch__release, cls, latch, ut_now_ns() - *held_since,
			 ut_latch_class_name(cls));
	*held_since = 0;
}

static uint64_t wait_begin(unsigned cls, void *latch, uint32_t *waiters,
			   int exclusive)
{
	__atomic_fetch_add(waiters, 1, __ATOMIC_RELAXED);
	UT_PROBE(latch__wait__start, cls, latch, exclusive,
		 ut_latch_class_name(cls));
	return ut_now_ns();
}

static void wait_end(unsigned cls, void *latch, uint32_t *waiters,
		     int exclusive, uint64_t t0)
{
	uint64_t wait_ns = ut_now_ns() - t0;

	__atomic_fetch_sub(waiters, 1, __ATOMIC_RELAXED);
	latch_count(cls, wait_ns, 1);
	UT_PROBE(latch__wait__done, cls, latch, wait_ns, exclusive,
		 ut_latch_class_name(cls));
}

void ut_mutex_lock(struct ut_mutex *m)
{
	uint64_t t0;

	if (pthread_mutex_trylock(&m->m) == 0) {
		latch_count(m->cls, 0, 0);
	} else {
		t0 = wait_begin(m->cls, m, &m->waiters, 1);
		pthread_mutex_lock(&m->m);
		wait_end(m->cls, m, &m->waiters, 1, t0);
	}
	hold_begin(&m->held_since);
}

int ut_mutex_trylock(struct ut_mutex *m)
{
	if (pthread_mutex_trylock(&m->m))
		return -EBUSY;
	latch_count(m->cls, 0, 0);
	hold_begin(&m->held_since);
	return 0;
}

void ut_mutex_unlock(struct ut_mutex *m)
{
	hold_end(m->cls, m, &m->held_since, &m->waiters);
	pthread_mutex_unlock(&m->m);
}

void ut_rwlock_init(struct ut_rwlock *l, enum ut_latch_class cls)
{
	pthread_rwlockattr_t attr;

	pthread_rwlockattr_init(&attr);
	/* writers must not starve behind a stream of readers */
	pthread_rwlockattr_setkind_np(&attr,
				      PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&l->rw, &attr);
	pthread_rwlockattr_destroy(&attr);
	l->cls = cls;
	l->wr_held = 0;
	l->waiters = 0;
	l->held_since = 0;
}

void ut_rwlock_destroy(struct ut_rwlock *l)
{
	pthread_rwlock_destroy(&l->rw);
}

void ut_rwlock_rdlock(struct ut_rwlock *l)
{
	uint64_t t0;

	if (pthread_rwlock_tryrdlock(&l->rw) == 0) {
		latch_count(l->cls, 0, 0);
		return;
	}
	t0 = wait_begin(l->cls, l, &l->waiters, 0);
	pthread_rwlock_rdlock(&l->rw);
	wait_end(l->cls, l, &l->waiters, 0, t0);
}

void ut_rwlock_wrlock(struct ut_rwlock *l)
{
	uint64_t t0;

	if (pthread_rwlock_trywrlock(&l->rw) == 0) {
		latch_count(l->cls, 0, 0);
	} else {
		t0 = wait_begin(l->cls, l, &l->waiters, 1);
		pthread_rwlock_wrlock(&l->rw);
		wait_end(l->cls, l, &l->waiters, 1, t0);
	}
	l->wr_held = 1;
	hold_begin(&l->held_since);
}

int ut_rwlock_tryrdlock(struct ut_rwlock *l)
{
	if (pthread_rwlock_tryrdlock(&l->rw))
		return -EBUSY;
	latch_count(l->cls, 0, 0);
	return 0;
}

/* Readers see wr_held 0: no writer can hold the lock while they do. */
void ut_rwlock_unlock(struct ut_rwlock *l)
{
	if (l->wr_held) {
		l->wr_held = 0;
		hold_end(l->cls, l, &l->held_since, &l->waiters);
	}
	pthread_rwlock_unlock(&l->rw);
}

void ut_cond_init(pthread_cond_t *c)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(c, &attr);
	pthread_condattr_destroy(&attr);
}

int ut_cond_wait(pthread_cond_t *c, struct ut_mutex *m, enum ut_latch_class cls,
		 uint64_t timeout_ns)
{
	uint64_t t0 = ut_now_ns(), until;
	struct timespec ts;
	int ret = 0;

	/* the mutex is released while waiting: end its hold */
	hold_end(m->cls, m, &m->held_since, &m->waiters);
	if (cls < UT_LATCH_NCLASSES)
		UT_PROBE(latch__wait__start, cls, m, 1,
			 ut_latch_class_name(cls));
	if (!timeout_ns) {
		pthread_cond_wait(c, &m->m);
	} else {
		until = t0 + timeout_ns;
		ts.tv_sec = until / 1000000000ull;
		ts.tv_nsec = until % 1000000000ull;
		if (pthread_cond_timedwait(c, &m->m, &ts) == ETIMEDOUT)
			ret = -ETIMEDOUT;
	}
	latch_count(cls, ut_now_ns() - t0, 1);
	if (cls < UT_LATCH_NCLASSES)
		UT_PROBE(latch__wait__done, cls, m, ut_now_ns() - t0, 1,
			 ut_latch_class_name(cls));
	hold_begin(&m->held_since);
	return ret;
}

void ut_latch_stats_get(struct ut_latch_stats out[UT_LATCH_NCLASSES])
{
	int i;

	for (i = 0; i < UT_LATCH_NCLASSES; i++) {
		out[i].acquisitions = atomic_load(&latch_stats[i].acquisitions);
		out[i].waits = atomic_load(&latch_stats[i].waits);
		out[i].wait_ns = atomic_load(&latch_stats[i].wait_ns);
	}
}

void ut_latch_stats_reset(void)
{
	int i;

	for (i = 0; i < UT_LATCH_NCLASSES; i++) {
		atomic_store(&latch_stats[i].acquisitions, 0);
		atomic_store(&latch_stats[i].waits, 0);
		atomic_store(&latch_stats[i].wait_ns, 0);
	}
}

const char *ut_latch_class_name(enum ut_latch_class cls)
{
	return cls < UT_LATCH_NCLASSES ? latch_names[cls] : "unknown";
}
