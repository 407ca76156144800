// SPDX-License-Identifier: MIT
/*
 * engine_test.c - the engine against a reference model: random puts,
 * updates, deletes and gets with a buffer pool of 64 pages and an 8 MiB
 * log (so pages are evicted and flushed and the log wraps and forces
 * checkpoints), range scans in key order, everything still there after a
 * clean restart, four writer threads and a reader at once,
 * extreme keys and value sizes, ENOSPC while growing the data file, and
 * a transaction of several writes durable at its one commit.
 */
#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/engine.h>
#include <untorn/store.h>
#include "io/sysio.h"
#include "rowgen.h"
#include "ktap.h"
#include "testlib.h"
#include "teststore.h"

#define NKEYS 30000

static char dir[300];
static uint32_t model_len[NKEYS]; /* 0: absent */
static uint64_t model_ver[NKEYS];

static int make_store(const char *name, uint32_t page_size)
{
	return test_store_make(dir, sizeof(dir), name, page_size, 8 << 20);
}

static struct ut_engine *open_engine(uint64_t pool)
{
	return test_engine_open(dir, pool, UT_COMMIT_LAZY);
}

static int model_matches(struct ut_engine *eng)
{
	unsigned char val[4096];
	uint64_t k, ver;
	uint32_t len;
	int ret;

	for (k = 0; k < NKEYS; k++) {
		ret = ut_get(eng, k, val, sizeof(val), &len);
		if (!model_len[k] != (ret == -ENOENT))
			return 0;
		if (!ret &&
		    (len != model_len[k] || row_check(val, len, k, &ver) ||
		     ver != model_ver[k]))
			return 0;
	}
	return 1;
}

static int random_ops(struct ut_engine *eng, unsigned n)
{
	unsigned char val[2048];
	struct ut_err err = { "" };
	uint64_t k;
	uint32_t len;
	unsigned i;

	for (i = 0; i < n; i++) {
		k = rand() % NKEYS;
		if (rand() % 5 == 0) {
			int ret = ut_delete(eng, k, &err);

			if (ret != (model_len[k] ? 0 : -ENOENT))
				return 0;
			model_len[k] = 0;
			continue;
		}
		len = ROW_VALUE_MIN + rand() % 990;
		row_value(val, len, k, i + 1, 0);
		if (ut_put(eng, k, val, len, &err)) {
			ktap_diag("put: %s", err.msg);
			return 0;
		}
		model_len[k] = len;
		model_ver[k] = i + 1;
	}
	return 1;
}

struct scan_check {
	uint64_t last, n;
	int ordered;
};

static int scan_fn(uint64_t key, const void *val, uint32_t len, void *user)
{
	struct scan_check *s = user;

	(void)val;
	if (s->n && key <= s->last)
		s->ordered = 0;
	if (key >= NKEYS || model_len[key] != len)
		s->ordered = 0;
	s->last = key;
	s->n++;
	return 0;
}

static int scan_matches(struct ut_engine *eng, uint64_t from)
{
	struct scan_check s = { .ordered = 1 };
	uint64_t k, want = 0;

	for (k = from; k < NKEYS; k++)
		want += model_len[k] != 0;
	ut_scan(eng, from, scan_fn, &s);
	return s.ordered && s.n == want;
}

/* ---- threads ---------------------------------------------------------- */

struct writer {
	struct ut_engine *eng;
	unsigned id, n;
	int ok;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	unsigned char val[256];
	struct ut_err err = { "" };
	uint64_t k;
	unsigned i;

	w->ok = 1;
	for (i = 0; i < w->n && w->ok; i++) {
		k = 100000 + (uint64_t)i * 4 + w->id;
		row_value(val, 100, k, 7, w->id);
		w->ok = !ut_put(w->eng, k, val, 100, &err);
	}
	return NULL;
}

static void *reader_main(void *arg)
{
	struct writer *w = arg;
	unsigned char val[4096];
	uint64_t ver;
	uint32_t len;
	unsigned i;

	w->ok = 1;
	for (i = 0; i < w->n && w->ok; i++) {
		uint64_t k = rand() % NKEYS;
		int ret = ut_get(w->eng, k, val, sizeof(val), &len);

		/* the reader races nobody on these keys */
		if ((ret == 0) != (model_len[k] != 0) ||
		    (!ret && row_check(val, len, k, &ver)))
			w->ok = 0;
	}
	return NULL;
}

static int threads_ok(struct ut_engine *eng)
{
	pthread_t th[5];
	struct writer w[5];
	unsigned char val[256];
	uint64_t k, ver;
	uint32_t len;
	int i, ok = 1;

	for (i = 0; i < 5; i++) {
		w[i].eng = eng;
		w[i].id = i;
		w[i].n = 5000;
		pthread_create(&th[i], NULL, i < 4 ? writer_main : reader_main,
			       &w[i]);
	}
	for (i = 0; i < 5; i++) {
		pthread_join(th[i], NULL);
		ok &= w[i].ok;
	}
	for (k = 100000; k < 100000 + 4 * 5000 && ok; k++)
		ok = !ut_get(eng, k, val, sizeof(val), &len) &&
		     !row_check(val, len, k, &ver);
	return ok;
}

/* Extreme keys and value sizes; a value over the limit is refused. */
static int edges(void)
{
	static unsigned char val[8192], got[8192];
	struct ut_engine *eng;
	struct ut_err err = { "" };
	uint64_t keys[] = { 0, 1, UINT64_MAX, UINT64_MAX - 1, 1ull << 63 };
	uint32_t max, len;
	uint64_t ver;
	unsigned i;
	int ok = 1;

	if (make_store("edges", 16384) || !(eng = open_engine(8 << 20)))
		return 0;
	max = ut_engine_value_max(eng);
	for (i = 0; i < 5; i++) {
		row_value(val, i % 2 ? ROW_VALUE_MIN : max, keys[i], 3, 0);
		ok &= !ut_put(eng, keys[i], val, i % 2 ? ROW_VALUE_MIN : max,
			      &err);
	}
	ok &= ut_put(eng, 5, val, max + 1, &err) == -E2BIG;
	ut_engine_close(eng, &err);
	eng = open_engine(8 << 20);
	for (i = 0; eng && i < 5; i++)
		ok &= !ut_get(eng, keys[i], got, sizeof(got), &len) &&
		      len == (i % 2 ? ROW_VALUE_MIN : max) &&
		      !row_check(got, len, keys[i], &ver);
	if (eng)
		ut_engine_close(eng, &err);
	return ok && eng;
}

/*
 * A transaction of four writes and a delete of an absent key (refused,
 * the transaction goes on), sync commit: one commit counted, and a copy
 * of the store taken the moment the commit returns (the page cache, what
 * kill -9 leaves behind) holds all four writes.
 */
static int txn_commit(void)
{
	struct ut_engine_opts o;
	struct ut_engine_stats s0, s1;
	struct ut_engine *eng, *copy;
	struct ut_err err = { "" };
	unsigned char val[200];
	char cmd[700], copy_dir[320];
	struct ut_txn t;
	uint64_t k, ver;
	uint32_t len;
	int ok = 1;

	if (make_store("txn", 16384))
		return 0;
	ut_engine_opts_default(&o);
	o.commit = UT_COMMIT_SYNC;
	if (ut_engine_open(dir, &o, &eng, NULL, &err))
		return 0;
	ut_engine_stats(eng, &s0);
	ut_txn_begin(eng, &t);
	for (k = 0; k < 4; k++) {
		row_value(val, sizeof(val), k * 1000, 7, 0);
		ok &= !ut_txn_put(&t, k * 1000, val, sizeof(val), &err);
	}
	ok &= ut_txn_delete(&t, 99, &err) == -ENOENT;
	ok &= !ut_txn_commit(&t, &err) && t.writes == 4;
	ut_engine_stats(eng, &s1);
	ok &= s1.commits == s0.commits + 1;
	snprintf(copy_dir, sizeof(copy_dir), "%s.copy", dir);
	snprintf(cmd, sizeof(cmd), "cp -a '%s' '%s'", dir, copy_dir);
	ok &= !system(cmd);
	ut_engine_close(eng, &err);
	if (ut_engine_open(copy_dir, &o, &copy, NULL, &err)) {
		ktap_diag("the copy: %s", err.msg);
		return 0;
	}
	for (k = 0; k < 4; k++)
		ok &= !ut_get(copy, k * 1000, val, sizeof(val), &len) &&
		      !row_check(val, len, k * 1000, &ver) && ver == 7;
	ut_engine_close(copy, &err);
	return ok;
}

/* the table is set before the engine's threads start and reset after
 * they stop (they read it without a lock); in between, a flag arms it */
static atomic_int enospc_armed, enospc_left;

static int enospc_after(int fd, int mode, off_t off, off_t len)
{
	if (!atomic_load(&enospc_armed) ||
	    atomic_fetch_sub(&enospc_left, 1) > 0)
		return fallocate(fd, mode, off, len) ? -errno : 0;
	return -ENOSPC;
}

static int enospc_load(void)
{
	struct ut_engine *eng;
	unsigned char val[1000], got[1000];
	struct ut_err err = { "" };
	uint64_t k, done = 0, ver;
	uint32_t len;
	int ret = 0, ok;

	if (make_store("enospc", 16384))
		return 0;
	ut_sys.fallocate = enospc_after;
	eng = open_engine(4 << 20);
	if (!eng) {
		ut_sys_reset();
		return 0;
	}
	atomic_store(&enospc_left, 3);
	atomic_store(&enospc_armed, 1);
	for (k = 0; k < 100000 && !ret; k++) {
		row_value(val, 900, k, 1, 0);
		ret = ut_put(eng, k, val, 900, &err);
		if (!ret)
			done++;
	}
	atomic_store(&enospc_armed, 0);
	ktap_diag("after %llu rows: %s", (unsigned long long)done, err.msg);
	ok = ret == -ENOSPC && strstr(err.msg, "no space left");
	ut_engine_close(eng, &err);
	ut_sys_reset();
	eng = open_engine(4 << 20);
	if (!eng)
		return 0;
	for (k = 0; k < done && ok; k++)
		ok = !ut_get(eng, k, got, sizeof(got), &len) &&
		     !row_check(got, len, k, &ver);
	ok = ok && !ut_engine_close(eng, &err);
	return ok;
}

int main(void)
{
	struct ut_engine *eng;
	struct ut_err err = { "" };
	int ok;

	srand(11);
	test_scratch_dir("engine");
	ktap_plan(9);
	if (make_store("model", 8192) || !(eng = open_engine(64 * 8192)))
		return ktap_finish();
	ok = random_ops(eng, 60000);
	ktap_ok(ok && model_matches(eng),
		"60000 random puts/updates/deletes on 8k pages with a 64-page pool match the model");
	ktap_ok(scan_matches(eng, 0) && scan_matches(eng, NKEYS / 3),
		"range scans return every live key once, in key order");
	ktap_ok(!ut_engine_close(eng, &err),
		"clean shutdown flushes everything (%s)", err.msg);
	eng = open_engine(64 * 8192);
	ktap_ok(eng && model_matches(eng) && scan_matches(eng, 0),
		"after reopening, the store matches the model");
	ktap_ok(eng && random_ops(eng, 20000) && model_matches(eng),
		"20000 more operations after the restart");
	ktap_ok(eng && threads_ok(eng),
		"four writer threads and a reader at once");
	if (eng)
		ut_engine_close(eng, &err);
	ktap_ok(edges(),
		"keys 0, 2^63 and 2^64-1, values of 24 bytes and of the 1/8-page limit; over the limit refused");
	ktap_ok(enospc_load(),
		"ENOSPC growing the data file: clear error, committed rows survive, store reopens");
	ktap_ok(txn_commit(),
		"a transaction of four writes, sync commit: counted once, all four in the page cache when the commit returns");
	return ktap_finish();
}
