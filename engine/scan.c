// SPDX-License-Identifier: MIT
/*
 * scan.c - full scans with read-ahead: none (one read per leaf), linear
 * (InnoDB-style: a run of sequential leaves reads the rest of the
 * extent), logical (the next N leaves in key order, from the level-1
 * pages, sorted by page number, merged into reads of up to M pages,
 * submitted together and consumed while the next batch is in flight),
 * a window of leaves (innodb_lra_size) sorted and read at once, the next
 * in flight from half way through it, a pause between windows
 * (innodb_lra_sleep) or one that yields to other work (scan_yield.c);
 * and the tree's shape a scan meets
 * (ut_engine_tree_shape: its fragmentation).  What a device could do
 * with it is scan_model.c's; the defaults and their reasons are
 * scan_defaults.h's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <untorn/engine.h>
#include "buf/readahead.h"
#include "tree/btree.h"
#include "tree/scan_bound.h"
#include "tree/shape.h"
#include "engine_int.h"
#include "scan_defaults.h"
#include "scan_yield.h"

#define HOLE_STAGING_MAX (256u << 20) /* at most, for holes read through */

struct scan_ra {
	struct ut_engine *eng;
	const struct ut_scan_opts *o;
	struct ut_prefetch pf;
	uint32_t *leaves; /* logical: leaf page numbers in key order */
	size_t n_leaves, pos;
	size_t ready_start, ready_end; /* the window read ahead */
	size_t next_start, inflight_end; /* the batch in flight */
	uint32_t *sorted;
	uint32_t last_page;
	unsigned run;
	int early; /* two windows fit: the next goes in flight at once */
	int queued; /* the window [next_start, inflight_end) is in flight
		     * or read, and not yet the ready one */
	struct ut_scan_yield *y; /* NULL: no yielding */
	struct scan_yield yc;
	int err;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts pages[0..n) and submits them as one merged batch. */
static int submit_sorted(struct scan_ra *ra, const uint32_t *pages, size_t n)
{
	memcpy(ra->sorted, pages, n * sizeof(*pages));
	qsort(ra->sorted, n, sizeof(*ra->sorted), cmp_u32);
	return ut_prefetch_start(&ra->eng->pool, &ra->pf, ra->sorted, n,
				 ra->o->merge_pages, ra->o->gap_pages, 0);
}

/* Where leaf page lies in the list, from the scan's position on; the
 * list was taken before the scan and writers may have split leaves
 * since: a leaf not in it (a split's new half) leaves the position. */
static int leaf_index(const struct scan_ra *ra, uint32_t page, size_t *at)
{
	/* the scan moves a leaf at a time: a listed leaf is close ahead,
	 * and a split's new half is not looked for to the end each time */
	size_t i, end = ra->pos + 2 * (size_t)ra->o->batch + 2;

	for (i = ra->pos; i < ra->n_leaves && i < end; i++)
		if (ra->leaves[i] == page) {
			*at = i;
			return 1;
		}
	return 0;
}

static void pause_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000),
			       (long)(ns % 1000000000) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Before a window after the first, no read of the scan's in flight: the
 * pause asked for, or the one that yields to other work. */
static void pause_before_window(struct scan_ra *ra)
{
	struct ut_scan_yield *y = ra->y;
	uint64_t ns;

	if (ra->o->sleep_ms) {
		pause_ns(ra->o->sleep_ms * 1000000ull);
		return;
	}
	if (!y)
		return;
	ns = scan_yield_pause(&ra->yc, ut_now_ns(), y->other_work(y->arg));
	while (ns) {
		pause_ns(ns);
		ns = scan_yield_resumed(&ra->yc, ut_now_ns(),
					y->other_work(y->arg));
	}
}

/* What the yielding saw, for the caller. */
static void yield_report(struct scan_ra *ra)
{
	struct ut_scan_yield *y = ra->y;
	const struct scan_yield *yc = &ra->yc;

	if (!y)
		return;
	scan_yield_end(&ra->yc, ut_now_ns(), y->other_work(y->arg));
	y->paused_seconds = yc->paused_ns / 1e9;
	y->pauses = yc->pauses;
	y->other_rate_reading =
		yc->active_ns ? yc->active_work * 1e9 / yc->active_ns : 0;
	y->other_rate_paused =
		yc->paused_ns ? yc->paused_work * 1e9 / yc->paused_ns : 0;
}

/* The window in flight has been read: it is the one ready now. */
static void inflight_done(struct scan_ra *ra)
{
	ut_prefetch_finish(&ra->eng->pool, &ra->pf);
	ra->ready_start = ra->next_start;
	ra->ready_end = ra->inflight_end;
	ra->queued = 0;
}

/*
 * The head of a window read before the rest, so that a scan does not
 * wait for a whole window before its first row: an eighth, where a
 * positioning costs less than a page's transfer (no hole is read
 * through: --gap-pages 0).  Where it costs more (a disk) the head's own
 * sweep over the file costs more positionings than the wait it saves:
 * there the window is read whole (HDD model, random layout: 0.85 of the
 * bound whole, 0.73-0.77 with the head first).
 */
static size_t ramp_leaves(const struct scan_ra *ra, size_t window)
{
	if (ra->o->gap_pages || window < 8)
		return window;
	return window / 8;
}

/* Puts the leaves from the ready window's end to `end` in flight. */
static void queue_window(struct scan_ra *ra, size_t end)
{
	ra->next_start = ra->ready_end;
	ra->inflight_end = end;
	ra->queued = 1;
	if (submit_sorted(ra, ra->leaves + ra->next_start,
			  ra->inflight_end - ra->next_start))
		ut_prefetch_finish(&ra->eng->pool, &ra->pf);
}

/* Logical: the window of leaves about to be read is ready, and the next
 * window is in flight -- from half way through this one when two would
 * not fit in the pool's half, so at most a window and a half of
 * read-ahead leaves are in the pool.  A leaf in an in-flight
 * window is never touched before it is finished: its frame is X-latched
 * by this thread.  Each page is once in the list, so the leaf's index
 * says whether it is. */
static int logical_hook(struct scan_ra *ra, uint32_t next)
{
	size_t b = ra->o->batch, n = ra->n_leaves, head;

	if (!leaf_index(ra, next, &ra->pos))
		return 0;
	if (ra->queued && ra->pos >= ra->next_start)
		inflight_done(ra);
	if (ra->pos >= ra->ready_end) {
		/* not read ahead (the first window, or the scan jumped): read
		 * the window (or its head) and wait for it, the rest of it in
		 * flight at once */
		head = ramp_leaves(ra, b);
		ra->ready_start = ra->pos;
		ra->ready_end = ra->pos + head < n ? ra->pos + head : n;
		submit_sorted(ra, ra->leaves + ra->pos,
			      ra->ready_end - ra->pos);
		ut_prefetch_finish(&ra->eng->pool, &ra->pf);
		if (ra->ready_end < n && ra->ready_end < ra->pos + b) {
			queue_window(ra, ra->pos + b < n ? ra->pos + b : n);
			return 0;
		}
	}
	if (!ra->queued && ra->ready_end < n &&
	    (ra->early ||
	     ra->pos >=
		     ra->ready_start + (ra->ready_end - ra->ready_start) / 2)) {
		pause_before_window(ra);
		queue_window(ra, ra->ready_end + b < n ? ra->ready_end + b : n);
	}
	return 0;
}

/* Linear: after UT_SCAN_LINEAR_RUN leaves in ascending page order, read
 * the following extent in one go. */
static int linear_hook(struct scan_ra *ra, uint32_t next)
{
	uint32_t pages[UT_SCAN_LINEAR_EXTENT], i;
	uint32_t n_pages = ut_space_pages(&ra->eng->space);

	ra->run = next == ra->last_page + 1 ? ra->run + 1 : 0;
	ra->last_page = next;
	if (ra->run != UT_SCAN_LINEAR_RUN)
		return 0;
	ra->run = 0;
	for (i = 0; i < UT_SCAN_LINEAR_EXTENT && next + 1 + i < n_pages; i++)
		pages[i] = next + 1 + i;
	if (!i)
		return 0;
	if (ut_prefetch_start(&ra->eng->pool, &ra->pf, pages, i,
			      ra->o->merge_pages, 0, 0) == 0)
		ut_prefetch_finish(&ra->eng->pool, &ra->pf);
	return 0;
}

static int ra_next_leaf(uint32_t next, void *user)
{
	struct scan_ra *ra = user;

	if (ra->o->readahead == UT_RA_LOGICAL)
		return logical_hook(ra, next);
	return linear_hook(ra, next);
}

/* A split waits for the tree latch, and may wait for a frame this scan
 * has in flight: finish the reads first.  The window stays queued: it
 * becomes the ready one when the scan gets there, not before, or each
 * wait would start yet another window. */
static void ra_before_wait(void *user)
{
	struct scan_ra *ra = user;

	ut_prefetch_finish(&ra->eng->pool, &ra->pf);
}

unsigned ut_scan_window_max(const struct ut_engine *eng)
{
	return eng->pool.n_frames / 2;
}

/* The window opts ask for, within the pool. */
static unsigned scan_batch(const struct ut_engine *eng,
			   const struct ut_scan_opts *o)
{
	unsigned b = o->window_pages ? o->window_pages : o->batch;
	unsigned most = ut_scan_window_max(eng);

	if (!b)
		b = UT_SCAN_WINDOW_DEFAULT;
	if (b > most)
		b = most;
	return b ? b : 1;
}

unsigned ut_scan_window(const struct ut_engine *eng,
			const struct ut_scan_opts *o)
{
	return scan_batch(eng, o);
}

/*
 * Staging for the holes logical read-ahead reads through: what its most
 * demanding window needs, within HOLE_STAGING_MAX.  Sized to the need,
 * not to the most a window could want (gap pages a leaf): memory is
 * zeroed when first read into, at ~1 GB/s here.  A window that finds the
 * staging full reads the far side of a hole as a read of its own.
 */
static int hole_pages(const struct scan_ra *ra, unsigned *pages)
{
	uint64_t most = HOLE_STAGING_MAX / ra->eng->geom.page_size;
	struct ut_leaf_bound sw;
	int ret;

	*pages = 0;
	if (!ra->o->gap_pages || !ra->n_leaves)
		return 0;
	ret = ut_leaf_sweeps(ra->leaves, ra->n_leaves, ra->o->batch,
			     ra->o->gap_pages, &sw);
	if (!ret)
		*pages = sw.window_holes_max < most ?
				 (unsigned)sw.window_holes_max :
				 (unsigned)most;
	return ret;
}

/* A yield the scan can take: logical, no fixed pause, a share and a count. */
static int yield_valid(const struct ut_scan_opts *o,
		       const struct ut_scan_yield *y)
{
	return !y || (o->readahead == UT_RA_LOGICAL && !o->sleep_ms &&
		      y->spare_pct >= 1 && y->spare_pct <= UT_SCAN_SPARE_MAX &&
		      y->other_work && y->floor_per_s >= 0);
}

void ut_scan_opts_default(struct ut_scan_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->readahead = UT_RA_LOGICAL;
	o->batch = UT_SCAN_WINDOW_DEFAULT;
	o->merge_pages = UT_SCAN_MERGE_DEFAULT;
}

void ut_scan_yield_default(struct ut_scan_yield *y, enum ut_yield_count what)
{
	memset(y, 0, sizeof(*y));
	y->spare_pct = UT_SCAN_SPARE_DEFAULT;
	if (what == UT_YIELD_SECTORS)
		y->floor_per_s = UT_SCAN_SECTORS_FLOOR;
}

int ut_scan_readahead(struct ut_engine *eng, uint64_t from, ut_scan_fn fn,
		      void *user, const struct ut_scan_opts *o,
		      struct ut_scan_stats *st)
{
	return ut_scan_readahead_yield(eng, from, fn, user, o, NULL, st);
}

int ut_scan_readahead_yield(struct ut_engine *eng, uint64_t from, ut_scan_fn fn,
			    void *user, const struct ut_scan_opts *o,
			    struct ut_scan_yield *y, struct ut_scan_stats *st)
{
	struct ut_scan_opts opts = *o;
	struct scan_ra ra = { .eng = eng, .o = &opts, .y = y };
	struct ut_scan_stats none;
	struct ut_scan_hooks hooks = { ra_next_leaf, ra_before_wait, &ra };
	struct ut_ring *ring = ut_ring_thread();
	const struct ut_ring_stats *rs;
	struct ut_bpool_stats ps;
	uint64_t t0 = ut_now_ns(), sqes0, sub0, reads0;
	unsigned holes = 0;
	int ret = 0;

	if (!yield_valid(o, y))
		return -EINVAL;
	if (!st) /* the page says it may be NULL */
		st = &none;
	if (!ring)
		return -ENOMEM;
	opts.batch = scan_batch(eng, o);
	ra.early = 2 * opts.batch <= ut_scan_window_max(eng);
	if (!opts.merge_pages)
		opts.merge_pages = UT_SCAN_MERGE_DEFAULT;
	memset(st, 0, sizeof(*st));
	rs = ut_ring_stats(ring);
	sqes0 = rs->sqes;
	sub0 = rs->submits;
	ut_bpool_get_stats(&eng->pool, &ps);
	reads0 = ps.reads;
	if (opts.readahead == UT_RA_LOGICAL)
		ret = ut_btree_leaf_list(&eng->tree, &ra.leaves, &ra.n_leaves);
	if (!ret)
		ret = hole_pages(&ra, &holes);
	if (!ret)
		ret = ut_prefetch_init(&ra.pf,
				       opts.batch > UT_SCAN_LINEAR_EXTENT ?
					       opts.batch :
					       UT_SCAN_LINEAR_EXTENT,
				       holes, eng->geom.page_size);
	if (ret) {
		free(ra.leaves);
		return ret;
	}
	ra.sorted = calloc(opts.batch, sizeof(*ra.sorted));
	if (!ra.sorted)
		ret = -ENOMEM;
	if (y)
		scan_yield_start(&ra.yc, y->spare_pct / 100.0,
				 y->floor_per_s / 1e9, ut_now_ns(),
				 y->other_work(y->arg));
	if (!ret)
		ret = ut_btree_scan_hooked(&eng->tree, from, fn, user,
					   UT_GET_SCAN,
					   opts.readahead == UT_RA_NONE ?
						   NULL :
						   &hooks);
	ut_prefetch_finish(&eng->pool, &ra.pf);
	yield_report(&ra);
	st->seconds = (ut_now_ns() - t0) / 1e9;
	ut_bpool_get_stats(&eng->pool, &ps);
	st->pages_read = ps.reads - reads0;
	st->page_size = eng->geom.page_size;
	st->batch = opts.batch;
	/* what the device read: pages kept, and holes read through */
	st->bytes_read =
		(st->pages_read + ra.pf.hole_pages_total) * eng->geom.page_size;
	st->submits = rs->submits - sub0;
	/* synchronous reads are one SQE each; merged read-ahead is counted
	 * per merged request */
	st->ios = (rs->sqes - sqes0);
	free(ra.leaves);
	free(ra.sorted);
	ut_prefetch_free(&ra.pf);
	return ret;
}

int ut_engine_tree_shape(struct ut_engine *eng, struct ut_tree_shape *s)
{
	struct ut_leaf_steps ls;
	uint32_t *leaves;
	size_t n;
	int ret;

	ret = ut_btree_leaf_list(&eng->tree, &leaves, &n);
	if (ret)
		return ret;
	ut_leaf_steps_of(leaves, n, &ls);
	free(leaves);
	s->leaves = ls.leaves;
	s->steps = ls.steps;
	s->jumps = ls.jumps;
	s->fragmentation = ls.steps ? (double)ls.jumps / ls.steps : 0;
	s->mean_jump_pages = ls.jumps ? (double)ls.jump_pages / ls.jumps : 0;
	return 0;
}
