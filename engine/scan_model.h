/* SPDX-License-Identifier: MIT */
/*
 * scan_model.h - what a device could do with a scan: its read
 * figures, the least time it could read the tree's leaves in, logical
 * read-ahead's merging fitted to them, and the cold start a scan
 * benchmark begins with.  For measuring scans (untorn bench scan,
 * scripts/scan-matrix), not for reading rows: <untorn/engine.h> has those.
 */
#ifndef UNTORN_SCAN_MODEL_H
#define UNTORN_SCAN_MODEL_H

#include <untorn/engine.h>

/* A device's read figures (fio's, or a model's calibration). */
struct ut_scan_device {
	double iops; /* random page-sized reads a second, at queue depth 32 */
	double mbps; /* sequential reads, MB/s (1e6 bytes) */
};

/* The least time any policy reading at most a window of leaves ahead
 * could take to read this tree's leaves from the device: each window's
 * pages in one ascending sweep, a positioning per run of pages (or the
 * hole read through, when cheaper), every page at the sequential rate.
 * A model, not a measurement: a policy may beat it where positionings
 * within a sweep are shorter than the device's random reads. */
struct ut_scan_bound {
	double seconds;
	uint64_t windows, runs, pages, hole_pages;
	double position_ms, page_ms; /* the device's costs it used */
};

/* -EINVAL for figures that are not positive or a window of 0. */
int ut_engine_scan_bound(struct ut_engine *eng, unsigned window_pages,
			 const struct ut_scan_device *d,
			 struct ut_scan_bound *b);

/* Fits logical read-ahead's merging to a device as the bound does: holes
 * read through where that costs less than a positioning (gap_pages), reads
 * of up to UT_SCAN_MERGE_MAX pages; -EINVAL for figures not positive. */
int ut_scan_fit_device(const struct ut_engine *eng,
		       const struct ut_scan_device *d, struct ut_scan_opts *o);

/* Cold start: writes every dirty page, empties the buffer pool and asks
 * the kernel to drop the data file's page cache; *resident gets the
 * fraction of the file still cached afterwards (mincore). */
int ut_engine_drop_caches(struct ut_engine *eng, double *resident);

#endif
