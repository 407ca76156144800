// SPDX-License-Identifier: MIT
/*
 * scan_bound.c - the least time a device could read a tree's leaves in
 * windows (scan_bound.h).  Within a window any policy may read the pages
 * in any order, so the best it can do is one ascending sweep: a run of
 * consecutive pages costs one positioning and its transfer; between two
 * runs a policy either positions again or reads through the hole, and the
 * bound takes the cheaper.  Across windows nothing is shared: the next
 * window's leaves are not known to be needed until the scan gets there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tree/scan_bound.h"

int ut_read_cost_of(double iops, double mbps, uint32_t page_size,
		    struct ut_read_cost *c)
{
	if (!(iops > 0) || !(mbps > 0) || !page_size)
		return -EINVAL;
	c->page_s = page_size / (mbps * 1e6);
	/* a random read is a positioning and a transfer */
	c->position_s = 1 / iops - c->page_s;
	if (c->position_s < 0)
		c->position_s = 0;
	return 0;
}

uint64_t ut_read_through_max(const struct ut_read_cost *c)
{
	double most = c->page_s > 0 ? c->position_s / c->page_s : 0;
	uint64_t h = most < UINT32_MAX ? (uint64_t)most : UINT32_MAX;

	/* the exact test, whatever the division rounded to */
	while (h && h * c->page_s >= c->position_s)
		h--;
	while (h < UINT32_MAX && (h + 1) * c->page_s < c->position_s)
		h++;
	return h;
}

static int cmp_page(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One window's sweep: pages sorted in place; holes of up to `through`
 * pages are read through. */
static void sweep(uint32_t *pages, size_t n, uint64_t through,
		  struct ut_leaf_bound *b)
{
	uint64_t hole;
	size_t i;

	qsort(pages, n, sizeof(*pages), cmp_page);
	b->runs++;
	for (i = 1; i < n; i++) {
		if (pages[i] <= pages[i - 1] + 1)
			continue;
		hole = pages[i] - pages[i - 1] - 1;
		if (hole <= through)
			b->hole_pages += hole;
		else
			b->runs++;
	}
}

int ut_leaf_sweeps(const uint32_t *leaves, size_t n, size_t window,
		   uint64_t through, struct ut_leaf_bound *b)
{
	uint64_t holes_before;
	uint32_t *pages;
	size_t at, len;

	if (!window)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->pages = n;
	if (!n)
		return 0;
	pages = malloc((window < n ? window : n) * sizeof(*pages));
	if (!pages)
		return -ENOMEM;
	for (at = 0; at < n; at += len) {
		len = n - at < window ? n - at : window;
		memcpy(pages, leaves + at, len * sizeof(*pages));
		holes_before = b->hole_pages;
		sweep(pages, len, through, b);
		if (b->hole_pages - holes_before > b->window_holes_max)
			b->window_holes_max = b->hole_pages - holes_before;
		b->windows++;
	}
	free(pages);
	return 0;
}

int ut_leaf_bound_of(const uint32_t *leaves, size_t n, size_t window,
		     const struct ut_read_cost *c, struct ut_leaf_bound *b)
{
	int ret = ut_leaf_sweeps(leaves, n, window, ut_read_through_max(c), b);

	if (ret)
		return ret;
	b->seconds = b->runs * c->position_s +
		     (b->pages + b->hole_pages) * c->page_s;
	return 0;
}
