// SPDX-License-Identifier: MIT
/*
 * write_load.c - writers beside a scan (write_load.h): each thread picks
 * a random existing key three times in four and updates it, otherwise
 * inserts a new key above the store's largest, one commit per write.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/latch.h"
#include "rowgen.h"
#include "write_load.h"

#define UPDATE_PCT 75

static int key_fn(uint64_t key, const void *val, uint32_t len, void *user)
{
	struct write_load *wl = user;
	uint64_t *grown;

	(void)val;
	(void)len;
	if (wl->n_keys == wl->cap_keys) {
		wl->cap_keys = wl->cap_keys ? wl->cap_keys * 2 : 4096;
		grown = realloc(wl->keys, wl->cap_keys * sizeof(*grown));
		if (!grown) {
			wl->nomem = 1;
			return 1;
		}
		wl->keys = grown;
	}
	wl->keys[wl->n_keys++] = key;
	return 0;
}

int write_load_init(struct write_load *wl, struct ut_engine *eng,
		    unsigned threads, uint32_t value_size)
{
	int ret;

	memset(wl, 0, sizeof(*wl));
	if (!threads || threads > WRITE_LOAD_THREADS_MAX ||
	    value_size < ROW_VALUE_MIN || value_size > ut_engine_value_max(eng))
		return -EINVAL;
	wl->eng = eng;
	wl->threads = threads;
	wl->value_size = value_size;
	wl->n_keys = 0;
	ret = ut_scan(eng, 0, key_fn, wl);
	if (ret)
		return ret;
	if (wl->nomem)
		return -ENOMEM;
	atomic_store(&wl->next_new,
		     wl->n_keys ? wl->keys[wl->n_keys - 1] + 1 : 0);
	return 0;
}

static unsigned lat_bucket(uint64_t ns)
{
	double k = 8 * log2(ns / 1000.0 + 1);

	return k >= WRITE_LOAD_LAT_BUCKETS - 1 ? WRITE_LOAD_LAT_BUCKETS - 1 :
						 (unsigned)k;
}

/* A bucket's upper end, in microseconds. */
static double lat_upper_us(unsigned k)
{
	return exp2((k + 1) / 8.0) - 1;
}

static void *writer(void *arg)
{
	struct write_load *wl = arg;
	unsigned char val[65536];
	uint64_t rng =
		0x9e3779b97f4a7c15ull * (atomic_fetch_add(&wl->seeds, 1) + 1);
	uint64_t key, version = 1, t0;
	struct ut_err err = { "" };
	struct ut_txn t;
	int ret;

	while (!atomic_load(&wl->stop)) {
		if (wl->n_keys && row_rng(&rng) % 100 < UPDATE_PCT)
			key = wl->keys[row_rng(&rng) % wl->n_keys];
		else
			key = atomic_fetch_add(&wl->next_new, 1);
		row_value(val, wl->value_size, key, ++version, 0);
		t0 = ut_now_ns();
		ut_txn_begin(wl->eng, &t);
		ret = ut_txn_put(&t, key, val, wl->value_size, &err);
		if (!ret)
			ret = ut_txn_commit(&t, &err);
		if (ret) {
			if (!atomic_exchange(&wl->failed, 1))
				wl->err = err;
			break;
		}
		atomic_fetch_add(&wl->lat[lat_bucket(ut_now_ns() - t0)], 1);
		atomic_fetch_add(&wl->txns, 1);
	}
	return NULL;
}

int write_load_start(struct write_load *wl)
{
	wl->t0_ns = ut_now_ns();
	for (wl->started = 0; wl->started < wl->threads; wl->started++)
		if (pthread_create(&wl->tids[wl->started], NULL, writer, wl)) {
			atomic_store(&wl->stop, 1);
			return -EAGAIN;
		}
	return 0;
}

int write_load_stop(struct write_load *wl, uint64_t *txns, double *tps)
{
	double s;
	unsigned i;

	atomic_store(&wl->stop, 1);
	for (i = 0; i < wl->started; i++)
		pthread_join(wl->tids[i], NULL);
	wl->started = 0;
	s = (ut_now_ns() - wl->t0_ns) / 1e9;
	*txns = atomic_load(&wl->txns);
	*tps = s > 0 ? *txns / s : 0;
	return atomic_load(&wl->failed) ? -EIO : 0;
}

uint64_t write_load_txns(void *arg)
{
	struct write_load *wl = arg;

	return atomic_load(&wl->txns);
}

void write_load_mark(struct write_load *wl, struct write_load_mark *m)
{
	unsigned k;

	m->ns = ut_now_ns();
	m->txns = atomic_load(&wl->txns);
	for (k = 0; k < WRITE_LOAD_LAT_BUCKETS; k++)
		m->lat[k] = atomic_load(&wl->lat[k]);
}

void write_load_between(const struct write_load_mark *a,
			const struct write_load_mark *b, double *tps,
			double *p99_us)
{
	uint64_t n = 0, seen = 0, rank;
	unsigned k;

	for (k = 0; k < WRITE_LOAD_LAT_BUCKETS; k++)
		n += b->lat[k] - a->lat[k];
	*tps = b->ns > a->ns ? (b->txns - a->txns) * 1e9 / (b->ns - a->ns) : 0;
	*p99_us = 0;
	if (!n)
		return;
	rank = n - n / 100; /* the commits at or below the 99th percentile */
	for (k = 0; k < WRITE_LOAD_LAT_BUCKETS; k++) {
		seen += b->lat[k] - a->lat[k];
		if (seen >= rank) {
			*p99_us = lat_upper_us(k);
			return;
		}
	}
}

void write_load_free(struct write_load *wl)
{
	free(wl->keys);
	wl->keys = NULL;
}
