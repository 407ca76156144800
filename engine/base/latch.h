/* SPDX-License-Identifier: MIT */
/*
 * latch.h - every mutex, rwlock and condition wait of the engine goes
 * through this wrapper, which counts per latch class how often a thread
 * had to wait and for how long, so that `untorn bench` and the probes can
 * show where threads queue.
 *
 * The uncontended path is one trylock; only a failed trylock reads the
 * clock.
 */
#ifndef UNTORN_LATCH_H
#define UNTORN_LATCH_H

#include <pthread.h>
#include <stdint.h>

enum ut_latch_class {
	UT_LATCH_PAGE, /* page frame rwlock */
	UT_LATCH_TREE, /* B+tree index lock (structure changes) */
	UT_LATCH_POOL, /* buffer pool: page hash, LRU, free list */
	UT_LATCH_FLUSH_LIST, /* dirty pages ordered by oldest LSN */
	UT_LATCH_LOG, /* redo log buffer */
	UT_LATCH_LOG_FLUSH, /* waiting for the group-commit writer */
	UT_LATCH_COPY_SLOT, /* a slot of a guard's copy (the doublewrite's
			     * segments) */
	UT_LATCH_ALLOC, /* page allocation, file growth */
	UT_LATCH_CLEANER, /* page cleaner coordination */
	UT_LATCH_NCLASSES,
	UT_LATCH_IDLE = UT_LATCH_NCLASSES, /* waits for work: not counted */
};
/* The copy slot's old name, kept for one release. */
#define UT_LATCH_DBLWR UT_LATCH_COPY_SLOT

struct ut_latch_stats {
	uint64_t acquisitions;
	uint64_t waits;
	uint64_t wait_ns;
};

struct ut_mutex {
	pthread_mutex_t m;
	uint8_t cls;
	uint32_t waiters; /* threads blocked in ut_mutex_lock (probes) */
	uint64_t held_since; /* set while the latch__release probe is on */
};

struct ut_rwlock {
	pthread_rwlock_t rw;
	uint8_t cls;
	uint8_t wr_held; /* an exclusive holder (for the probes) */
	uint32_t waiters;
	uint64_t held_since;
};

void ut_mutex_init(struct ut_mutex *m, enum ut_latch_class cls);
void ut_mutex_destroy(struct ut_mutex *m);
void ut_mutex_lock(struct ut_mutex *m);
/* 0 with the mutex held, or -EBUSY at once when another holds it. */
int ut_mutex_trylock(struct ut_mutex *m);
void ut_mutex_unlock(struct ut_mutex *m);

void ut_rwlock_init(struct ut_rwlock *l, enum ut_latch_class cls);
void ut_rwlock_destroy(struct ut_rwlock *l);
void ut_rwlock_rdlock(struct ut_rwlock *l);
void ut_rwlock_wrlock(struct ut_rwlock *l);
int ut_rwlock_tryrdlock(struct ut_rwlock *l); /* 0 or -EBUSY */
void ut_rwlock_unlock(struct ut_rwlock *l);

/* Waits on c (with m held), the time counted as a wait of class cls.
 * timeout_ns 0: no timeout.  Returns 0 or -ETIMEDOUT. */
int ut_cond_wait(pthread_cond_t *c, struct ut_mutex *m, enum ut_latch_class cls,
		 uint64_t timeout_ns);
void ut_cond_init(pthread_cond_t *c);

/* Adds a wait measured elsewhere (e.g. a slot wait) to a class. */
void ut_latch_account(enum ut_latch_class cls, uint64_t wait_ns);

void ut_latch_stats_get(struct ut_latch_stats out[UT_LATCH_NCLASSES]);
void ut_latch_stats_reset(void);
const char *ut_latch_class_name(enum ut_latch_class cls);
uint64_t ut_now_ns(void);

#endif
