// SPDX-License-Identifier: MIT
/*
 * latch.c - the counting mutex/rwlock/condition wrapper.
 */
#include <errno.h>
#include <stdatomic.h>
#include <time.h>
#include <untorn/latch.h>

static struct {
	atomic_uint_fast64_t acquisitions;
	atomic_uint_fast64_t waits;
	atomic_uint_fast64_t wait_ns;
} latch_stats[UT_LATCH_NCLASSES];

static const char *const latch_names[UT_LATCH_NCLASSES] = {
	[UT_LATCH_PAGE]		= "page",
	[UT_LATCH_TREE]		= "tree",
	[UT_LATCH_POOL]		= "pool",
	[UT_LATCH_FLUSH_LIST]	= "flush_list",
	[UT_LATCH_LOG]		= "log",
	[UT_LATCH_LOG_FLUSH]	= "log_flush",
	[UT_LATCH_DBLWR]	= "dblwr",
	[UT_LATCH_ALLOC]	= "alloc",
	[UT_LATCH_CLEANER]	= "cleaner",
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
		return;	/* an idle wait: not contention */
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
}

void ut_mutex_destroy(struct ut_mutex *m)
{
	pthread_mutex_destroy(&m->m);
}

void ut_mutex_lock(struct ut_mutex *m)
{
	uint64_t t0;

	if (pthread_mutex_trylock(&m->m) == 0) {
		latch_count(m->cls, 0, 0);
		return;
	}
	t0 = ut_now_ns();
	pthread_mutex_lock(&m->m);
	latch_count(m->cls, ut_now_ns() - t0, 1);
}

void ut_mutex_unlock(struct ut_mutex *m)
{
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
	t0 = ut_now_ns();
	pthread_rwlock_rdlock(&l->rw);
	latch_count(l->cls, ut_now_ns() - t0, 1);
}

void ut_rwlock_wrlock(struct ut_rwlock *l)
{
	uint64_t t0;

	if (pthread_rwlock_trywrlock(&l->rw) == 0) {
		latch_count(l->cls, 0, 0);
		return;
	}
	t0 = ut_now_ns();
	pthread_rwlock_wrlock(&l->rw);
	latch_count(l->cls, ut_now_ns() - t0, 1);
}

int ut_rwlock_tryrdlock(struct ut_rwlock *l)
{
	if (pthread_rwlock_tryrdlock(&l->rw))
		return -EBUSY;
	latch_count(l->cls, 0, 0);
	return 0;
}

void ut_rwlock_unlock(struct ut_rwlock *l)
{
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

int ut_cond_wait(pthread_cond_t *c, struct ut_mutex *m,
		 enum ut_latch_class cls, uint64_t timeout_ns)
{
	uint64_t t0 = ut_now_ns(), until;
	struct timespec ts;
	int ret = 0;

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
