// SPDX-License-Identifier: MIT
/*
 * scan_test.c - scans with read-ahead: each policy returns exactly the
 * keys of a reference scan, in order, on trees of every load layout
 * (random inserts, sequential, and split: Facebook's (user, object)
 * appends) at 4 KiB and 16 KiB pages, logical read-ahead also with a
 * window and merging fitted to a disk's figures; logical
 * read-ahead reads a batch per submit; an injected EIO in the middle of a
 * batch gives an error and leaves the pool consistent; a hot set stays
 * resident through a full scan of a tree larger than the pool.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/engine.h>
#include <untorn/store.h>
#include "scan_model.h"
#include "io/sysio.h"
#include "layout.h"
#include "rowgen.h"
#include "ktap.h"
#include "testlib.h"

#define ROWS 30000

static char dir[300];
static uint64_t *ref;
static size_t n_ref;

struct collect {
	uint64_t *keys;
	size_t n, cap;
};

static int collect_fn(uint64_t key, const void *val, uint32_t len, void *user)
{
	struct collect *c = user;
	uint64_t ver;

	if (row_check(val, len, key, &ver))
		return 1;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->keys = realloc(c->keys, c->cap * sizeof(uint64_t));
	}
	c->keys[c->n++] = key;
	return 0;
}

static struct ut_engine *open_store(const char *name, uint32_t ps,
				    enum layout_kind layout, uint64_t pool)
{
	struct ut_init_opts io = { .page_size = ps,
				   .guard = UT_GUARD_DOUBLEWRITE };
	struct ut_engine_opts o;
	struct ut_engine *eng;
	struct ut_err err = { "" };
	struct layout_gen gen;
	unsigned char val[100];
	uint64_t k = 0;

	snprintf(dir, sizeof(dir), "%s/%s", test_scratch, name);
	if (ut_store_init(dir, &io, &err))
		return NULL;
	ut_engine_opts_default(&o);
	o.commit = UT_COMMIT_LAZY;
	o.pool_bytes = pool;
	if (ut_engine_open(dir, &o, &eng, NULL, &err))
		return NULL;
	if (layout_init(&gen, layout, ROWS))
		return NULL;
	while (!layout_next(&gen, &k)) {
		row_value(val, sizeof(val), k * 3, 1, 0);
		if (ut_put(eng, k * 3, val, sizeof(val), &err)) {
			layout_free(&gen);
			return NULL;
		}
	}
	layout_free(&gen);
	/* cold: everything on disk, nothing in the pool */
	double resident;

	ut_engine_drop_caches(eng, &resident);
	return eng;
}

static unsigned gap_pages; /* holes read through by logical read-ahead */

/* A cold scan from `from` with so returns the reference's keys from there. */
static int same_with(struct ut_engine *eng, const struct ut_scan_opts *so,
		     uint64_t from, struct ut_scan_stats *st)
{
	struct collect c = { 0 };
	double resident;
	size_t i, first = 0;
	int ok;

	ut_engine_drop_caches(eng, &resident);
	if (ut_scan_readahead(eng, from, collect_fn, &c, so, st))
		return 0;
	while (first < n_ref && ref[first] < from)
		first++;
	ok = c.n == n_ref - first;
	for (i = 0; ok && i < c.n; i++)
		ok = c.keys[i] == ref[first + i];
	free(c.keys);
	return ok;
}

static int same_as_reference(struct ut_engine *eng, enum ut_readahead ra,
			     uint64_t from, struct ut_scan_stats *st)
{
	struct ut_scan_opts so = { .readahead = ra,
				   .batch = 32,
				   .merge_pages = 8,
				   .gap_pages = gap_pages };

	return same_with(eng, &so, from, st);
}

/* Logical read-ahead as bench scan runs it on a disk: a window of a
 * quarter of the pool, merged by a disk's figures (holes of ~20 pages
 * read through, reads of up to 1024 pages). */
static int windowed_as_reference(struct ut_engine *eng, uint64_t from)
{
	struct ut_scan_device disk = { 400, 160 };
	struct ut_scan_opts so = { .readahead = UT_RA_LOGICAL };
	struct ut_scan_stats st;

	so.window_pages = ut_scan_window_max(eng) / 2;
	return !ut_scan_fit_device(eng, &disk, &so) && so.gap_pages > 10 &&
	       same_with(eng, &so, from, &st) && st.batch == so.window_pages;
}

/* The plain scan's keys: the reference every policy must return. */
static void take_reference(struct ut_engine *eng)
{
	struct collect c = { 0 };

	ut_scan(eng, 0, collect_fn, &c);
	ref = c.keys;
	n_ref = c.n;
}

static int policies_agree(const char *name, uint32_t ps,
			  enum layout_kind layout)
{
	struct ut_engine *eng = open_store(name, ps, layout, 2 << 20);
	struct ut_scan_stats st;
	struct ut_err err;
	int ok = 1, ra;

	if (!eng)
		return 0;
	take_reference(eng);
	ok = n_ref == ROWS;
	for (ra = UT_RA_NONE; ra <= UT_RA_LOGICAL && ok; ra++)
		ok = same_as_reference(eng, ra, 0, &st) &&
		     same_as_reference(eng, ra, 3 * 12345, &st);
	ok = ok && windowed_as_reference(eng, 0) &&
	     windowed_as_reference(eng, 3 * 12345);
	free(ref);
	ut_engine_close(eng, &err);
	return ok;
}

/* logical read-ahead reading through holes of up to 8 pages: the same
 * keys, fewer reads, and more bytes than the pages it kept */
static int holes_read_through(void)
{
	struct ut_engine *eng =
		open_store("holes", 16384, LAYOUT_RANDOM, 4 << 20);
	struct ut_scan_stats exact, holes, part;
	struct ut_err err;
	int ok;

	if (!eng)
		return 0;
	take_reference(eng);
	ok = same_as_reference(eng, UT_RA_LOGICAL, 0, &exact);
	gap_pages = 8;
	ok = ok && same_as_reference(eng, UT_RA_LOGICAL, 0, &holes) &&
	     same_as_reference(eng, UT_RA_LOGICAL, 3 * 12345, &part);
	gap_pages = 0;
	ktap_diag("exact merges: %llu reads, %llu bytes for %llu pages; through holes: %llu reads, %llu bytes for %llu pages",
		  (unsigned long long)exact.ios,
		  (unsigned long long)exact.bytes_read,
		  (unsigned long long)exact.pages_read,
		  (unsigned long long)holes.ios,
		  (unsigned long long)holes.bytes_read,
		  (unsigned long long)holes.pages_read);
	ok = ok && holes.ios < exact.ios &&
	     holes.bytes_read > holes.pages_read * 16384;
	free(ref);
	ut_engine_close(eng, &err);
	return ok;
}

/* logical read-ahead: far fewer submits than leaves read */
static int batched_submits(void)
{
	struct ut_engine *eng =
		open_store("submits", 16384, LAYOUT_RANDOM, 4 << 20);
	struct ut_scan_stats none, logical;
	struct ut_err err;
	int ok;

	if (!eng)
		return 0;
	take_reference(eng);
	ok = same_as_reference(eng, UT_RA_NONE, 0, &none) &&
	     same_as_reference(eng, UT_RA_LOGICAL, 0, &logical);
	ktap_diag("none: %llu pages, %llu submits; logical: %llu pages, %llu reads, %llu submits",
		  (unsigned long long)none.pages_read,
		  (unsigned long long)none.submits,
		  (unsigned long long)logical.pages_read,
		  (unsigned long long)logical.ios,
		  (unsigned long long)logical.submits);
	ok = ok && none.submits >= none.pages_read &&
	     logical.pages_read >= 100 &&
	     logical.submits * 8 < logical.pages_read;
	free(ref);
	ut_engine_close(eng, &err);
	return ok;
}

static int eio_after;
static off_t eio_off = -1;

/* The 40th read fails, and so does every later read of that place: a
 * bad sector under a read-ahead batch. */
static ssize_t eio_reads(enum ut_op op, int fd, size_t len, off_t off)
{
	(void)fd;
	if (op != UT_OP_READ)
		return len;
	if (eio_after-- == 0)
		eio_off = off;
	if (eio_off >= 0 && off <= eio_off && eio_off < off + (off_t)len)
		return -EIO;
	return len;
}

static int eio_mid_batch(void)
{
	struct ut_engine *eng =
		open_store("eio", 16384, LAYOUT_RANDOM, 4 << 20);
	struct ut_scan_opts so = { .readahead = UT_RA_LOGICAL,
				   .batch = 32,
				   .merge_pages = 4 };
	struct ut_scan_stats st;
	struct collect c = { 0 }, c2 = { 0 };
	struct ut_err err;
	double resident;
	int ret, ok;

	if (!eng)
		return 0;
	ut_scan(eng, 0, collect_fn, &c2);
	ut_engine_drop_caches(eng, &resident);
	eio_after = 40;
	eio_off = -1;
	ut_sys.io_admit = eio_reads;
	ret = ut_scan_readahead(eng, 0, collect_fn, &c, &so, &st);
	ut_sys_reset();
	ktap_diag("scan with EIO after 40 reads: %d (%s), %zu rows", ret,
		  strerror(-ret), c.n);
	ok = ret == -EIO && c.n < c2.n;
	free(c.keys);
	c.keys = NULL;
	c.n = c.cap = 0;
	/* the pool holds no half-read page: the same scan now succeeds */
	ok = ok && !ut_scan_readahead(eng, 0, collect_fn, &c, &so, &st) &&
	     c.n == c2.n && !memcmp(c.keys, c2.keys, c.n * sizeof(uint64_t));
	free(c.keys);
	free(c2.keys);
	ut_engine_close(eng, &err);
	return ok;
}

/* A hot set (the first rows) read again and again stays in the pool while
 * a scan reads a tree 4x larger than the pool. */
static int hot_set_survives(void)
{
	struct ut_engine *eng = open_store("hot", 4096, LAYOUT_RANDOM, 1 << 20);
	struct ut_scan_opts so = { .readahead = UT_RA_LOGICAL };
	struct ut_scan_stats st;
	struct ut_engine_stats s0, s1;
	struct collect c = { 0 };
	unsigned char val[200];
	uint32_t len;
	struct ut_err err;
	uint64_t k = 0;
	int round, ok;

	if (!eng)
		return 0;
	for (round = 0; round < 3; round++)
		for (k = 0; k < 150; k++)
			ut_get(eng, k * 3, val, sizeof(val), &len);
	ok = !ut_scan_readahead(eng, 0, collect_fn, &c, &so, &st);
	ut_engine_stats(eng, &s0);
	for (k = 0; k < 150; k++)
		ut_get(eng, k * 3, val, sizeof(val), &len);
	ut_engine_stats(eng, &s1);
	ktap_diag("scan read %llu pages through a 256-page pool; re-reading the hot set missed %llu times",
		  (unsigned long long)st.pages_read,
		  (unsigned long long)(s1.pool_misses - s0.pool_misses));
	ok = ok && st.pages_read > 1024 && s1.pool_misses == s0.pool_misses;
	free(c.keys);
	ut_engine_close(eng, &err);
	return ok;
}

int main(void)
{
	test_scratch_dir("scan");
	ktap_plan(10);
	ktap_ok(policies_agree("frag16", 16384, LAYOUT_RANDOM),
		"fragmented tree, 16 KiB pages: none, linear, logical return the reference keys");
	ktap_ok(policies_agree("seq16", 16384, LAYOUT_SEQUENTIAL),
		"sequential tree, 16 KiB pages: all policies agree");
	ktap_ok(policies_agree("frag4", 4096, LAYOUT_RANDOM),
		"fragmented tree, 4 KiB pages: all policies agree");
	ktap_ok(policies_agree("seq4", 4096, LAYOUT_SEQUENTIAL),
		"sequential tree, 4 KiB pages: all policies agree");
	ktap_ok(policies_agree("split16", 16384, LAYOUT_SPLIT),
		"split tree (load --layout split), 16 KiB pages: all policies agree");
	ktap_ok(policies_agree("split4", 4096, LAYOUT_SPLIT),
		"split tree, 4 KiB pages: all policies agree");
	ktap_ok(batched_submits(),
		"logical read-ahead reads many pages per io_uring_submit");
	ktap_ok(holes_read_through(),
		"reading through holes of up to 8 pages: the same keys in fewer, longer reads");
	ktap_ok(eio_mid_batch(),
		"EIO in the middle of a read-ahead batch: the scan fails, the pool stays consistent");
	ktap_ok(hot_set_survives(),
		"a hot set stays resident through a scan of a tree 4x the pool");
	return ktap_finish();
}
