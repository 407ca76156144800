/* SPDX-License-Identifier: MIT */
/*
 * dblwr.h - the doublewrite buffer, built the way MySQL 8.0.20+ does it:
 * a file of segments, one batch each.  A flush batch takes a segment (the
 * wait for a free one is counted as a DBLWR latch wait), writes a
 * checksummed batch header plus the page images there in one sequential
 * write linked to its fdatasync, and only then writes the pages in place.
 * After the data file's fdatasync the segment is released.
 *
 * Segment layout: a 4 KiB header
 *   "UNTORNDW", le32 crc (of the rest of the header), le32 n_pages,
 *   le64 batch seq, le32 page_size, uuid[16], le32 page_no[n_pages]
 * followed by n_pages page images.
 */
#ifndef UNTORN_DBLWR_H
#define UNTORN_DBLWR_H

#include <pthread.h>
#include <stdint.h>
#include <untorn/err.h>
#include "base/latch.h"
#include "page/page.h"

#define UT_DBLWR_FILE "untorn.dblwr"
#define UT_DBLWR_HDR 4096u
#define UT_DBLWR_MAX_BATCH ((UT_DBLWR_HDR - 48) / 4)

struct ut_dblwr {
	int fd;
	char path[4200];
	uint32_t page_size;
	unsigned n_segments;
	unsigned batch; /* pages per segment */
	uint8_t uuid[16];
	struct ut_mutex mutex;
	pthread_cond_t free_cond;
	uint64_t busy; /* bit i: segment i in use */
	uint64_t seq;
	uint64_t waits, wait_ns;
	uint64_t acquired_ns[64]; /* per segment, while probes are on */
};

struct ut_dblwr_restore {
	uint64_t pages_checked; /* in-place pages compared with a copy */
	uint64_t pages_restored;
	uint32_t restored[64]; /* the first restored page numbers */
};

int ut_dblwr_create(const char *path, unsigned n_segments, unsigned batch,
		    uint32_t page_size, struct ut_err *err);
int ut_dblwr_open(struct ut_dblwr *d, const char *path, uint32_t page_size,
		  const uint8_t uuid[16], struct ut_err *err);
void ut_dblwr_close(struct ut_dblwr *d);

/* Waits for a free segment; returns its index. */
unsigned ut_dblwr_acquire(struct ut_dblwr *d);
void ut_dblwr_release(struct ut_dblwr *d, unsigned seg);

/*
 * buf: UT_DBLWR_HDR bytes of header space followed by n packed pages.
 * Fills the header and writes header + pages to segment seg, then
 * fdatasyncs, as one linked submission.
 */
int ut_dblwr_write(struct ut_dblwr *d, unsigned seg, unsigned char *buf,
		   const uint32_t *page_nos, unsigned n);

/*
 * Recovery: for every page copy in a valid segment whose in-place page in
 * data_fd fails verification, writes the copy in place (then fdatasyncs).
 */
int ut_dblwr_restore(struct ut_dblwr *d, const struct ut_geom *g, int data_fd,
		     uint64_t file_pages, struct ut_dblwr_restore *rep,
		     struct ut_err *err);

#endif
