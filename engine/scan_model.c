// SPDX-License-Identifier: MIT
/*
 * scan_model.c - what a device could do with a scan (scan_model.h):
 * the least time it could read the tree's leaves in (the bound), read-ahead's
 * merging fitted to its figures, and the cold start a scan benchmark
 * begins with (every page written, the pool and the page cache emptied).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "scan_model.h"
#include "io/sysio.h"
#include "tree/btree.h"
#include "tree/scan_bound.h"
#include "engine_int.h"

int ut_scan_fit_device(const struct ut_engine *eng,
		       const struct ut_scan_device *d, struct ut_scan_opts *o)
{
	struct ut_read_cost cost;
	uint64_t gap;
	int ret;

	ret = ut_read_cost_of(d->iops, d->mbps, eng->geom.page_size, &cost);
	if (ret)
		return ret;
	/* the bound's rule: a hole is read through when its transfer costs
	 * less than a positioning */
	gap = ut_read_through_max(&cost);
	o->gap_pages = gap < UT_SCAN_MERGE_MAX ? (unsigned)gap :
						 UT_SCAN_MERGE_MAX;
	o->merge_pages = UT_SCAN_MERGE_MAX;
	return 0;
}

static double file_resident(int fd, uint64_t size)
{
	size_t page = sysconf(_SC_PAGESIZE), chunk = 64ull << 20, i, pages;
	uint64_t off, resident = 0, total = 0;
	unsigned char *vec;
	void *map;

	vec = malloc(chunk / page);
	if (!vec)
		return -1;
	for (off = 0; off < size; off += chunk) {
		size_t len = size - off < chunk ? size - off : chunk;

		map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
		if (map == MAP_FAILED)
			break;
		pages = (len + page - 1) / page;
		if (!mincore(map, len, vec))
			for (i = 0; i < pages; i++)
				resident += vec[i] & 1;
		total += pages;
		munmap(map, len);
	}
	free(vec);
	return total ? (double)resident / total : 0;
}

int ut_engine_drop_caches(struct ut_engine *eng, double *resident)
{
	int fd = eng->store->data_fd;
	int ret;

	ret = ut_flush_all(&eng->flush);
	if (ret)
		return ret;
	ut_bpool_evict_clean(&eng->pool);
	ret = ut_sys.fdatasync(fd);
	if (ret)
		return ret;
	ret = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (ret)
		return -ret;
	*resident =
		file_resident(fd, eng->store->file_pages * eng->geom.page_size);
	return 0;
}

int ut_engine_scan_bound(struct ut_engine *eng, unsigned window_pages,
			 const struct ut_scan_device *d,
			 struct ut_scan_bound *b)
{
	struct ut_read_cost cost;
	struct ut_leaf_bound lb;
	uint32_t *leaves;
	size_t n;
	int ret;

	ret = ut_read_cost_of(d->iops, d->mbps, eng->geom.page_size, &cost);
	if (ret || !window_pages)
		return -EINVAL;
	ret = ut_btree_leaf_list(&eng->tree, &leaves, &n);
	if (ret)
		return ret;
	ret = ut_leaf_bound_of(leaves, n, window_pages, &cost, &lb);
	free(leaves);
	if (ret)
		return ret;
	b->seconds = lb.seconds;
	b->windows = lb.windows;
	b->runs = lb.runs;
	b->pages = lb.pages;
	b->hole_pages = lb.hole_pages;
	b->position_ms = cost.position_s * 1e3;
	b->page_ms = cost.page_s * 1e3;
	return 0;
}
