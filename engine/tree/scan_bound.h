/* SPDX-License-Identifier: MIT */
/*
 * scan_bound.h - the least time a device could take to read a tree's
 * leaves in key order when at most a window of them may be read ahead:
 * each window's pages sorted into one sweep, a positioning for every run
 * of pages read in one request, every page (and every hole read through,
 * where that costs less than a positioning) at the sequential rate.
 */
#ifndef UNTORN_TREE_SCAN_BOUND_H
#define UNTORN_TREE_SCAN_BOUND_H

#include <stddef.h>
#include <stdint.h>

struct ut_read_cost {
	double position_s; /* to start a request elsewhere on the device */
	double page_s; /* to transfer one page in a sequential read */
};

struct ut_leaf_bound {
	uint64_t windows;
	uint64_t runs; /* positionings */
	uint64_t pages; /* leaves */
	uint64_t hole_pages; /* read through: cheaper than a positioning */
	uint64_t window_holes_max; /* the most one window reads through */
	double seconds;
};

/* The cost of a page read from a device's random reads a second (of one
 * page each, at the queue depth a batch gives) and sequential MB/s;
 * -EINVAL when either is not positive. */
int ut_read_cost_of(double iops, double mbps, uint32_t page_size,
		    struct ut_read_cost *c);

/* The longest hole, in pages, cheaper to read through than to position
 * over: the rule the bound sweeps by, and logical read-ahead merges by. */
uint64_t ut_read_through_max(const struct ut_read_cost *c);

/* The windows' sweeps alone, holes of up to `through` pages read
 * through: runs, pages and holes, no seconds (the staging a read-ahead
 * window needs for its holes is window_holes_max pages); -ENOMEM, or
 * -EINVAL for a window of 0. */
int ut_leaf_sweeps(const uint32_t *leaves, size_t n, size_t window,
		   uint64_t through, struct ut_leaf_bound *b);

/* The bound for leaves[0..n) (page numbers in key order) in windows of
 * `window` leaves; -ENOMEM, or -EINVAL for a window of 0. */
int ut_leaf_bound_of(const uint32_t *leaves, size_t n, size_t window,
		     const struct ut_read_cost *c, struct ut_leaf_bound *b);

#endif
