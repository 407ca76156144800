/* SPDX-License-Identifier: MIT */
/*
 * write_load.h - writers to run beside a scan (`bench scan --writers T`):
 * T threads commit one row write at a time, most updates of keys the store
 * holds (taken from it before the scan, whatever its layout), the rest
 * inserts above its largest key, until stopped; their transactions a
 * second are what the scan cost them.
 */
#ifndef UNTORN_CLI_WRITE_LOAD_H
#define UNTORN_CLI_WRITE_LOAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <untorn/engine.h>

#define WRITE_LOAD_THREADS_MAX 64
/* commit latencies: 8 buckets a doubling of microseconds (9 % apart) */
#define WRITE_LOAD_LAT_BUCKETS 256

struct write_load {
	struct ut_engine *eng;
	uint64_t *keys; /* the store's keys, ascending */
	size_t n_keys, cap_keys;
	int nomem;
	atomic_uint_fast64_t next_new; /* the next key to insert */
	unsigned threads;
	uint32_t value_size;
	pthread_t tids[WRITE_LOAD_THREADS_MAX];
	unsigned started;
	atomic_uint seeds; /* each writer its own random keys */
	atomic_int stop;
	atomic_uint_fast64_t txns;
	atomic_uint_fast64_t lat[WRITE_LOAD_LAT_BUCKETS];
	atomic_int failed;
	struct ut_err err; /* the first failure's */
	uint64_t t0_ns;
};

/* The writers' counts at one moment: two of them say how they went in
 * between. */
struct write_load_mark {
	uint64_t ns, txns, lat[WRITE_LOAD_LAT_BUCKETS];
};

/* Collects the store's keys (a scan: before a cold start). */
int write_load_init(struct write_load *wl, struct ut_engine *eng,
		    unsigned threads, uint32_t value_size);
int write_load_start(struct write_load *wl);
/* Stops the writers; *tps gets their transactions a second since the
 * start.  -EIO when a writer failed (wl->err says why). */
int write_load_stop(struct write_load *wl, uint64_t *txns, double *tps);
void write_load_free(struct write_load *wl);
/* Transactions committed so far (a scan's count of other work: arg is
 * the struct write_load). */
uint64_t write_load_txns(void *arg);
void write_load_mark(struct write_load *wl, struct write_load_mark *m);
/* Between marks a and b: transactions a second and the 99th percentile
 * of their commit times, in microseconds (0 with none). */
void write_load_between(const struct write_load_mark *a,
			const struct write_load_mark *b, double *tps,
			double *p99_us);

#endif
