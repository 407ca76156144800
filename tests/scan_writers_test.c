// SPDX-License-Identifier: MIT
/*
 * scan_writers_test.c - a long scan and writers at the same time: between
 * two leaves a scan holds no latch, so a split ahead of it goes through
 * while it waits (it would wait for the whole scan if the scan kept the
 * tree latch); a scan with logical read-ahead while a writer splits leaves
 * all along returns every key once, in order, with no deadlock on the
 * frames it has in flight; the read-ahead window is one sweep and never
 * more than half the pool.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <untorn/engine.h>
#include <untorn/store.h>
#include "scan_model.h"
#include "engine_int.h"
#include "tree/btree.h"
#include "rowgen.h"
#include "ktap.h"
#include "testlib.h"

#define ROWS 20000
#define SMALL 100 /* the loaded rows' values */
#define LARGE \
	480 /* an update too large for a full leaf: a split
		    * (4 KiB pages take values up to 1/8 of the page) */

static struct ut_engine *open_store(const char *name, uint64_t pool)
{
	struct ut_init_opts io = { .page_size = 4096,
				   .guard = UT_GUARD_DOUBLEWRITE };
	struct ut_engine_opts o;
	struct ut_engine *eng;
	struct ut_err err = { "" };
	unsigned char val[SMALL];
	char dir[300];
	uint64_t k;

	snprintf(dir, sizeof(dir), "%s/%s", test_scratch, name);
	if (ut_store_init(dir, &io, &err))
		return NULL;
	ut_engine_opts_default(&o);
	o.commit = UT_COMMIT_LAZY;
	o.pool_bytes = pool;
	if (ut_engine_open(dir, &o, &eng, NULL, &err))
		return NULL;
	for (k = 0; k < ROWS; k++) {
		row_value(val, sizeof(val), k, 1, 0);
		if (ut_put(eng, k, val, sizeof(val), &err)) {
			ut_engine_close(eng, &err);
			return NULL;
		}
	}
	return eng;
}

/* A scan's keys: every one once and in order, each value whole. */
struct seen {
	uint64_t next; /* the key expected next */
	int bad;
};

static int seen_fn(uint64_t key, const void *val, uint32_t len, void *user)
{
	struct seen *s = user;
	uint64_t ver;

	if (key != s->next || row_check(val, len, key, &ver))
		s->bad = 1;
	s->next = key + 1;
	return s->bad;
}

/* --- a split while the scan is between two leaves ------------------------ */

struct handoff {
	struct ut_engine *eng;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int go, done, result;
	unsigned leaves;
};

/* The writer: told to go, it grows a row far ahead of the scan so that
 * its leaf splits, and says when it is done. */
static void *split_writer(void *arg)
{
	struct handoff *h = arg;
	unsigned char val[LARGE];
	struct ut_err err;
	uint64_t k;
	int ret = 0;

	pthread_mutex_lock(&h->mu);
	while (!h->go)
		pthread_cond_wait(&h->cv, &h->mu);
	pthread_mutex_unlock(&h->mu);
	for (k = ROWS - 2000; k < ROWS - 1990 && !ret; k++) {
		row_value(val, sizeof(val), k, 2, 1);
		ret = ut_put(h->eng, k, val, sizeof(val), &err);
	}
	pthread_mutex_lock(&h->mu);
	h->done = 1;
	h->result = ret;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* At the third leaf boundary, let the writer go and wait for it: a scan
 * that held the tree latch here would make the split wait (30 s, then the
 * hook fails the scan). */
static int wait_for_split(uint32_t next, void *user)
{
	struct handoff *h = user;
	struct timespec until;
	int ret = 0;

	(void)next;
	if (++h->leaves != 3)
		return 0;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	pthread_mutex_lock(&h->mu);
	h->go = 1;
	pthread_cond_broadcast(&h->cv);
	while (!h->done && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&h->cv, &h->mu, &until);
	pthread_mutex_unlock(&h->mu);
	return h->done ? 0 : -ETIMEDOUT;
}

static int split_between_leaves(void)
{
	struct handoff h = { .mu = PTHREAD_MUTEX_INITIALIZER,
			     .cv = PTHREAD_COND_INITIALIZER };
	struct ut_scan_hooks hooks = { wait_for_split, NULL, &h };
	struct seen s = { 0 };
	struct ut_err err;
	uint64_t smo0, smo1;
	pthread_t w;
	int ret, ok;

	h.eng = open_store("split", 8 << 20);
	if (!h.eng)
		return 0;
	smo0 = h.eng->tree.smo_seq;
	if (pthread_create(&w, NULL, split_writer, &h)) {
		ut_engine_close(h.eng, &err);
		return 0;
	}
	ret = ut_btree_scan_hooked(&h.eng->tree, 0, seen_fn, &s, 0, &hooks);
	if (!h.go) { /* the scan failed before it let the writer go */
		pthread_mutex_lock(&h.mu);
		h.go = 1;
		pthread_cond_broadcast(&h.cv);
		pthread_mutex_unlock(&h.mu);
	}
	pthread_join(w, NULL);
	smo1 = h.eng->tree.smo_seq;
	ktap_diag("scan: %s; the writer %s (%llu splits) while the scan waited",
		  ret ? strerror(-ret) : "ok",
		  h.done ? "finished" : "did not finish",
		  (unsigned long long)(smo1 - smo0));
	ok = !ret && h.done && !h.result && !s.bad && s.next == ROWS &&
	     smo1 > smo0;
	ut_engine_close(h.eng, &err);
	return ok;
}

/* --- read-ahead while a writer splits leaves all along ---------------------- */

struct grower {
	struct ut_engine *eng;
	atomic_int stop;
	atomic_int started; /* its first row grown: it is running */
	uint64_t splits_during; /* rows grown while the scan ran */
	int result;
};

/* Grows rows all over the key space, each update a split, until told to
 * stop; its keys are spread so they land in leaves the scan has yet to
 * read, in its in-flight batch, and behind it. */
static void *grow_writer(void *arg)
{
	struct grower *g = arg;
	unsigned char val[LARGE];
	struct ut_err err;
	uint64_t k = 7;

	while (!atomic_load(&g->stop) && !g->result) {
		k = (k * 7919 + 13) % ROWS;
		row_value(val, sizeof(val), k, 2, 1);
		g->result = ut_put(g->eng, k, val, sizeof(val), &err);
		if (atomic_load(&g->started))
			g->splits_during++;
		atomic_store(&g->started, 1);
	}
	atomic_store(&g->started, 1);
	return NULL;
}

static int readahead_with_splits(void)
{
	struct ut_scan_opts so = { .readahead = UT_RA_LOGICAL,
				   .batch = 32,
				   .merge_pages = 8 };
	struct grower g = { 0 };
	struct ut_scan_stats st;
	struct seen s = { 0 };
	struct ut_err err;
	double resident;
	pthread_t w;
	int ret, ok;

	/* a 2 MiB pool: the scan reads the tree from disk, evicting */
	g.eng = open_store("grow", 2 << 20);
	if (!g.eng || ut_engine_drop_caches(g.eng, &resident))
		return 0;
	if (pthread_create(&w, NULL, grow_writer, &g)) {
		ut_engine_close(g.eng, &err);
		return 0;
	}
	/* the scan starts once the writer runs: on a loaded machine a
	 * thread just made could otherwise miss the whole scan */
	while (!atomic_load(&g.started))
		sched_yield();
	ret = ut_scan_readahead(g.eng, 0, seen_fn, &s, &so, &st);
	atomic_store(&g.stop, 1);
	pthread_join(w, NULL);
	ktap_diag("scan: %s, %llu pages read; %llu rows grown meanwhile, %llu splits",
		  ret ? strerror(-ret) : "ok",
		  (unsigned long long)st.pages_read,
		  (unsigned long long)g.splits_during,
		  (unsigned long long)g.eng->tree.smo_seq);
	ok = !ret && !g.result && !s.bad && s.next == ROWS &&
	     g.splits_during > 0;
	ut_engine_close(g.eng, &err);
	return ok;
}

/* --- the window ------------------------------------------------------------- */

static int window_is_one_sweep(void)
{
	struct ut_engine *eng = open_store("window", 4 << 20);
	struct ut_scan_opts so = { .readahead = UT_RA_LOGICAL,
				   .window_pages = 200 };
	struct ut_scan_stats st;
	struct seen s = { 0 };
	struct ut_err err;
	unsigned most;
	int ok;

	if (!eng)
		return 0;
	most = ut_scan_window_max(eng); /* 1024 frames: 512 */
	ok = most == 512 && !ut_scan_readahead(eng, 0, seen_fn, &s, &so, &st) &&
	     st.batch == 200 && !s.bad && s.next == ROWS;
	so.window_pages = 100000;
	s = (struct seen){ 0 };
	ok = ok && !ut_scan_readahead(eng, 0, seen_fn, &s, &so, &st) &&
	     st.batch == most && s.next == ROWS;
	ktap_diag("window max %u pages, batch for a window of 100000: %u", most,
		  st.batch);
	ut_engine_close(eng, &err);
	return ok;
}

int main(void)
{
	test_scratch_dir("scanw");
	ktap_plan(3);
	ktap_ok(split_between_leaves(),
		"a split ahead of a scan goes through while the scan is between two leaves");
	ktap_ok(readahead_with_splits(),
		"logical read-ahead while a writer splits leaves: every key once, in order");
	ktap_ok(window_is_one_sweep(),
		"a read-ahead window is read in one sweep, at most half the pool");
	return ktap_finish();
}
