/* SPDX-License-Identifier: MIT */
/*
 * readahead.h - read-ahead into the buffer pool: batches of merged reads
 * submitted at once (readahead.c).  Used by scans (engine/scan.c) and by
 * recovery (mtr/recover.c).
 */
#ifndef UT_READAHEAD_H
#define UT_READAHEAD_H

#include <stdint.h>
#include "io/ring.h"
#include "buf/bpool.h"

/* One batch of read-ahead in flight: runs of adjacent pages (and of pages
 * separated by holes of up to gap pages, read through and dropped), each
 * run read with one I/O into a staging buffer, all submitted together. */
struct ut_prefetch {
	struct ut_batch batch;
	struct ut_io *ios;
	struct ut_frame **frames; /* claimed, X-latched until finish */
	uint32_t *run_first; /* per I/O: index of its first frame */
	uint32_t *slot; /* per frame: its page in staging */
	unsigned n_frames, n_ios, cap, staging_cap;
	unsigned unpack_flags; /* UT_UNPACK_TOLERATE_TORN for recovery */
	unsigned char *staging;
	int active;
	int error;
	uint64_t ios_total, bytes_total, submits_total, pages_total;
	uint64_t hole_pages_total; /* read through, not used */
};

/* cap frames a batch; hole_cap pages of staging for the holes read
 * through (gap > 0), beyond one page a frame */
int ut_prefetch_init(struct ut_prefetch *pf, unsigned cap, unsigned hole_cap,
		     uint32_t page_size);
void ut_prefetch_free(struct ut_prefetch *pf);
/* Claims frames for the pages of page_nos[0..n) (sorted) not in the pool
 * (old end of the LRU), merges neighbours into reads of up to merge pages
 * -- neighbours with up to gap pages between them too, reading the hole
 * (one longer transfer is cheaper than another seek) -- and submits them
 * with one io_uring_submit.  unpack_flags: as for ut_bpool_get
 * (UT_UNPACK_TOLERATE_TORN for recovery). */
int ut_prefetch_start(struct ut_bpool *bp, struct ut_prefetch *pf,
		      const uint32_t *page_nos, unsigned n, unsigned merge,
		      unsigned gap, unsigned unpack_flags);
/* Waits for the batch, fills and releases its frames.  A page that could
 * not be read is dropped from the pool (its next access reads it again
 * and reports the error); returns the first error. */
int ut_prefetch_finish(struct ut_bpool *bp, struct ut_prefetch *pf);

#endif
