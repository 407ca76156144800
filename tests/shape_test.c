// SPDX-License-Identifier: MIT
/*
 * shape_test.c - a tree's fragmentation (ut_leaf_steps_of and
 * ut_engine_tree_shape, what bench scan prints): exact on hand-built leaf
 * lists (one leaf, all sequential,
 * jumps forward and back, an empty tree), and on trees of load's layouts:
 * sequential nearly unfragmented, random mostly jumps, split (key order,
 * then appends to random users) in between; the least time a device
 * could read the leaves in windows (ut_leaf_bound_of, bench scan's
 * bound), exact on hand-built lists with a device of known costs; and
 * that a tree grown by random inserts has as many leaves per row at every
 * size (its nodes split at unequal shares, so they do not fill in step
 * and split in waves).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/engine.h>
#include <untorn/store.h>
#include <math.h>
#include "tree/scan_bound.h"
#include "tree/shape.h"
#include "layout.h"
#include "ktap.h"
#include "testlib.h"

#define ROWS 20000

static int shape_is(const uint32_t *leaves, size_t n, uint64_t steps,
		    uint64_t jumps, uint64_t jump_pages)
{
	struct ut_leaf_steps s;

	ut_leaf_steps_of(leaves, n, &s);
	if (s.leaves == n && s.steps == steps && s.jumps == jumps &&
	    s.jump_pages == jump_pages)
		return 1;
	ktap_diag("got leaves %llu steps %llu jumps %llu jump pages %llu",
		  (unsigned long long)s.leaves, (unsigned long long)s.steps,
		  (unsigned long long)s.jumps,
		  (unsigned long long)s.jump_pages);
	return 0;
}

static int hand_built(void)
{
	static const uint32_t one[] = { 5 };
	static const uint32_t seq[] = { 3, 4, 5, 6 };
	static const uint32_t mixed[] = { 1, 2, 10, 11, 3 }; /* +1 +8 +1 -8 */
	static const uint32_t back[] = { 9, 8,
					 7 }; /* backwards: two jumps of 1 */

	return shape_is(one, 1, 0, 0, 0) && shape_is(NULL, 0, 0, 0, 0) &&
	       shape_is(seq, 4, 3, 0, 0) && shape_is(mixed, 5, 4, 2, 16) &&
	       shape_is(back, 3, 2, 2, 2);
}

/* a device where a positioning costs 1 ms and a page 0.1 ms: a hole of up
 * to 9 pages is cheaper to read through than to seek over */
static const struct ut_read_cost dev_1ms = { 1e-3, 1e-4 };

static int bound_is(const uint32_t *leaves, size_t n, size_t window,
		    uint64_t runs, uint64_t holes, double ms)
{
	struct ut_leaf_bound b;

	if (ut_leaf_bound_of(leaves, n, window, &dev_1ms, &b))
		return 0;
	if (b.runs == runs && b.hole_pages == holes && b.pages == n &&
	    fabs(b.seconds * 1e3 - ms) < 1e-9)
		return 1;
	ktap_diag("window %zu: got %llu runs, %llu hole pages, %.6f ms; wanted %llu, %llu, %.6f",
		  window, (unsigned long long)b.runs,
		  (unsigned long long)b.hole_pages, b.seconds * 1e3,
		  (unsigned long long)runs, (unsigned long long)holes, ms);
	return 0;
}

static int bound_hand_built(void)
{
	static const uint32_t seq[] = { 0, 1, 2, 3 };
	static const uint32_t far[] = { 0, 100, 1,
					101 }; /* two interleaved runs */
	static const uint32_t near[] = { 0, 5,
					 10 }; /* holes of 4: read through */
	static const uint32_t nine[] = { 10, 20 }; /* 0.9 ms < 1 ms: through */
	static const uint32_t ten[] = { 10,
					21 }; /* 1.0 ms: not cheaper, a seek */
	struct ut_read_cost c;
	struct ut_leaf_bound b;

	return bound_is(seq, 4, 4, 1, 0, 1.4) &&
	       bound_is(seq, 4, 2, 2, 0, 2.4) &&
	       bound_is(far, 4, 4, 2, 0, 2.4) &&
	       bound_is(far, 4, 2, 4, 0, 4.4) &&
	       bound_is(far, 4, 1000, 2, 0, 2.4) &&
	       bound_is(near, 3, 3, 1, 8, 2.1) &&
	       bound_is(nine, 2, 8, 1, 9, 2.1) &&
	       bound_is(ten, 2, 8, 2, 0, 2.2) &&
	       bound_is(NULL, 0, 8, 0, 0, 0) &&
	       ut_leaf_bound_of(seq, 4, 0, &dev_1ms, &b) == -EINVAL &&
	       /* 1000 random 4 KiB reads a second at 40.96 MB/s: 0.1 ms a
		* page, the rest of each read's millisecond a positioning */
	       !ut_read_cost_of(1000, 40.96, 4096, &c) &&
	       fabs(c.page_s - 1e-4) < 1e-12 &&
	       fabs(c.position_s - 9e-4) < 1e-12 &&
	       ut_read_cost_of(0, 40.96, 4096, &c) == -EINVAL &&
	       ut_read_cost_of(1000, -1, 4096, &c) == -EINVAL;
}

/* the staging logical read-ahead sizes its holes by: the most hole pages
 * one window reads through, holes of up to `through` pages */
static int sweeps_hand_built(void)
{
	/* windows of 3: {0, 5, 10} holes 4 + 4; {20, 22, 40} hole 1 (17 is
	 * a seek); {41} none */
	static const uint32_t leaves[] = { 0, 10, 5, 22, 20, 40, 41 };
	struct ut_leaf_bound b;

	if (ut_leaf_sweeps(leaves, 7, 3, 9, &b) || b.window_holes_max != 8 ||
	    b.hole_pages != 9 || b.runs != 4 || b.windows != 3)
		return 0;
	/* nothing read through: no staging */
	if (ut_leaf_sweeps(leaves, 7, 3, 0, &b) || b.window_holes_max != 0 ||
	    b.runs != 7)
		return 0;
	return ut_leaf_sweeps(leaves, 7, 0, 9, &b) == -EINVAL;
}

/* a store of ROWS rows loaded in one of load's layouts; its shape */
static int loaded_shape(const char *name, enum layout_kind layout,
			uint64_t rows, uint32_t page_size,
			struct ut_tree_shape *s)
{
	struct ut_init_opts io = { .page_size = page_size,
				   .guard = UT_GUARD_DOUBLEWRITE };
	char dir[300];
	struct ut_engine_opts o;
	struct ut_engine *eng;
	struct ut_err err = { "" };
	struct layout_gen gen;
	unsigned char val[100];
	uint64_t k = 0;
	int ret = -1;

	snprintf(dir, sizeof(dir), "%s/%s", test_scratch, name);
	if (ut_store_init(dir, &io, &err) || layout_init(&gen, layout, rows))
		return -1;
	ut_engine_opts_default(&o);
	o.commit = UT_COMMIT_LAZY;
	if (ut_engine_open(dir, &o, &eng, NULL, &err))
		goto out_free;
	memset(val, 0x61, sizeof(val));
	while (!layout_next(&gen, &k))
		if (ut_put(eng, k, val, sizeof(val), &err))
			goto out_close;
	ret = ut_engine_tree_shape(eng, s);
out_close:
	ut_engine_close(eng, &err);
out_free:
	layout_free(&gen);
	return ret;
}

/*
 * Leaves per row of random loads of WAVE_ROWS, 1.25 and 1.5 times as many
 * rows of 16 KiB pages: the largest over the smallest.  Nodes all cut in
 * the middle fill in step and split in waves (a node of 130 rows grows
 * in proportion to its size, like every other): their leaves per row
 * swung from 10.3 to 8.3 and back to 10.5 per 1 000 rows over these sizes.
 */
#define WAVE_ROWS 200000

static double leaves_per_row_swing(void)
{
	double lo = 1e9, hi = 0, per_row;
	struct ut_tree_shape s;
	char name[32];
	uint64_t rows;

	for (rows = WAVE_ROWS; rows <= WAVE_ROWS * 3 / 2;
	     rows += WAVE_ROWS / 4) {
		snprintf(name, sizeof(name), "wave%llu",
			 (unsigned long long)rows);
		if (loaded_shape(name, LAYOUT_RANDOM, rows, 16384, &s) ||
		    !s.leaves)
			return -1;
		per_row = (double)s.leaves / rows;
		lo = per_row < lo ? per_row : lo;
		hi = per_row > hi ? per_row : hi;
	}
	ktap_diag("random loads of %u..%u rows: %.2f to %.2f leaves per 1 000 rows",
		  WAVE_ROWS, WAVE_ROWS * 3 / 2, lo * 1000, hi * 1000);
	return hi / lo;
}

int main(void)
{
	double swing;
	struct ut_tree_shape seq, rnd, spl;
	int ok_seq, ok_rnd, ok_spl;

	test_scratch_dir("shape");
	ktap_plan(7);
	ktap_ok(hand_built(),
		"hand-built leaf lists: steps, jumps and their distances exact");
	ktap_ok(bound_hand_built(),
		"the scan bound on hand-built leaf lists: runs, holes read through and time exact");
	ktap_ok(sweeps_hand_built(),
		"the windows' sweeps on a hand-built leaf list: the most hole pages one window reads through, exact");
	ok_seq = !loaded_shape("seq", LAYOUT_SEQUENTIAL, ROWS, 4096, &seq);
	ok_rnd = !loaded_shape("rnd", LAYOUT_RANDOM, ROWS, 4096, &rnd);
	ok_spl = !loaded_shape("spl", LAYOUT_SPLIT, ROWS, 4096, &spl);
	if (ok_seq && ok_rnd && ok_spl)
		ktap_diag("sequential: %llu leaves, %.3f fragmented; random: %llu leaves, %.3f, mean jump %.1f pages; split: %llu leaves, %.3f, mean jump %.1f pages",
			  (unsigned long long)seq.leaves, seq.fragmentation,
			  (unsigned long long)rnd.leaves, rnd.fragmentation,
			  rnd.mean_jump_pages, (unsigned long long)spl.leaves,
			  spl.fragmentation, spl.mean_jump_pages);
	/* 20 000 rows of 100 bytes in 4 KiB pages: 500 to 1 000 leaves */
	ktap_ok(ok_seq && seq.leaves >= 500 && seq.leaves <= 1000 &&
			seq.fragmentation < 0.05,
		"a sequential load: leaves in file order but for the internal pages between them (< 5 %% jumps)");
	ktap_ok(ok_rnd && rnd.leaves >= 500 && rnd.leaves <= 1000 &&
			rnd.fragmentation > 0.5 && rnd.mean_jump_pages > 10,
		"a random load: most steps jump, far");
	ktap_ok(ok_spl && spl.leaves >= 500 && spl.leaves <= 1000 &&
			spl.fragmentation > 0.2 &&
			spl.fragmentation < rnd.fragmentation,
		"a split load (key order, then appends to random users): fragmented, less than random");
	swing = leaves_per_row_swing();
	ktap_ok(swing > 0 && swing < 1.06,
		"random loads of 200 000..300 000 rows: leaves per row within 6 %% (%.3f; no split waves)",
		swing);
	return ktap_finish();
}
