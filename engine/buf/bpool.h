/* SPDX-License-Identifier: MIT */
/*
 * bpool.h - the buffer pool: page frames (4 KiB-aligned, so reads can go
 * straight into them with O_DIRECT), a page hash, an LRU list, a free
 * list, and the flush list of dirty frames ordered by their oldest
 * modification LSN; pages read ahead wait on a list of their own until
 * first used.
 *
 * A frame holds the page's logical area (block headers stripped, see
 * page.h) plus its struct ut_page_meta; it is unpacked in place after a
 * read and packed into a separate I/O buffer when flushed.  A frame is
 * buffer-fixed (fix > 0) while anyone uses it and latched (rwlock) while
 * read or modified.
 */
#ifndef UNTORN_BPOOL_H
#define UNTORN_BPOOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <untorn/err.h>
#include "base/latch.h"
#include "page/page.h"
#include "io/ring.h"

enum ut_frame_state {
	UT_FRAME_FREE,
	UT_FRAME_READING,
	UT_FRAME_READY,
	UT_FRAME_ERROR,
};

struct ut_frame {
	struct ut_rwlock latch;
	uint32_t page_no;
	uint8_t state;
	uint8_t io_fix; /* being flushed: cleaners skip it */
	uint8_t torn; /* read torn (recovery rewrites it) */
	uint8_t ra_unused; /* read ahead, not yet accessed: on the ra list */
	int error; /* state ERROR: why the read failed */
	atomic_int fix;
	uint64_t oldest_lsn; /* 0: clean */
	uint64_t newest_lsn;
	/* io_fix: start LSN of the first change made after the cleaner
	 * copied the page (writers need not wait for its write); 0: none */
	uint64_t redirty_lsn;
	struct ut_page_meta meta;
	unsigned char *area;
	struct ut_frame *hash_next;
	struct ut_frame *lru_prev, *lru_next;
	struct ut_frame *fl_prev, *fl_next;
	struct ut_frame *free_next;
};

struct ut_bpool_stats {
	uint64_t hits, misses, reads, evictions, free_waits;
};

struct ut_bpool {
	struct ut_geom geom;
	int data_fd;
	const char *data_path;
	unsigned n_frames;
	struct ut_frame *frames;
	unsigned char *mem;
	struct ut_mutex mutex; /* hash, LRU, free list */
	pthread_cond_t free_cond;
	struct ut_frame **hash;
	unsigned hash_mask;
	struct ut_frame *lru_head, *lru_tail;
	/* pages read ahead and not yet used, off the LRU (newest at the
	 * tail): they go to it when first used, and are evicted last */
	struct ut_frame *ra_head, *ra_tail;
	struct ut_frame *free_list;
	struct ut_mutex fl_mutex; /* flush list */
	struct ut_frame *fl_head, *fl_tail; /* newest .. oldest */
	unsigned n_dirty;
	void (*need_free)(void *arg); /* asks the cleaner to flush */
	void *need_free_arg;
	struct ut_bpool_stats stats;
};

#define UT_BPOOL_MIN_FRAMES 64

/* The buffer pool by default (ut_engine_opts_default): InnoDB's default
 * innodb_buffer_pool_size; --pool, or pool_bytes, for more. */
#define UT_BPOOL_BYTES_DEFAULT (128ull << 20)

enum ut_latch_mode { UT_S, UT_X };

/* ut_bpool_get flag: a scan's access: a hit stays where it is in the LRU,
 * a miss enters at the old end, so a scan does not evict the hot set. */
#define UT_GET_SCAN (1u << 8)

/* Drops every clean, unused frame (the pool's cold start). */
void ut_bpool_evict_clean(struct ut_bpool *bp);

/* For read-ahead (readahead.h): a frame claimed for page_no, X-latched
 * and fixed, in the old end of the LRU, for the caller to read into;
 * NULL when the page is in the pool (or no frame is free right now:
 * read-ahead never waits for one). */
struct ut_frame *ut_bpool_claim_read(struct ut_bpool *bp, uint32_t page_no);
/* The read into a claimed frame ended with ret (0: the page is in its
 * area): unpacked (flags as for ut_bpool_get), or dropped from the pool
 * on an error (its next access reads it again and reports it); the
 * frame released.  Returns the page's error. */
int ut_bpool_read_done(struct ut_bpool *bp, struct ut_frame *f, int ret,
		       unsigned flags);

int ut_bpool_init(struct ut_bpool *bp, const struct ut_geom *g, uint64_t bytes,
		  int data_fd, const char *data_path, struct ut_err *err);
void ut_bpool_destroy(struct ut_bpool *bp);

/*
 * Fixes and latches page_no, reading it if needed.  flags: 0, or
 * UT_UNPACK_TOLERATE_TORN for recovery.  Returns 0, or -errno (-EBADMSG
 * for a page that fails verification).
 */
int ut_bpool_get(struct ut_bpool *bp, uint32_t page_no, enum ut_latch_mode mode,
		 unsigned flags, struct ut_frame **framep);
/* A fresh, X-latched, zeroed frame for a page not yet on disk. */
int ut_bpool_create(struct ut_bpool *bp, uint32_t page_no,
		    struct ut_frame **framep);
void ut_bpool_release(struct ut_bpool *bp, struct ut_frame *f,
		      enum ut_latch_mode mode);

/* need_free(arg) is called when a reader waits for a free frame. */
void ut_bpool_set_need_free(struct ut_bpool *bp, void (*need_free)(void *arg),
			    void *arg);
/* The flush list's mutex, held around the _locked calls below. */
void ut_bpool_flush_list_lock(struct ut_bpool *bp);
void ut_bpool_flush_list_unlock(struct ut_bpool *bp);
/* A copy of the counters, taken under the pool mutex. */
void ut_bpool_get_stats(struct ut_bpool *bp, struct ut_bpool_stats *st);

/* Under the flush list's mutex: mark a frame dirty / clean. */
void ut_bpool_dirty_locked(struct ut_bpool *bp, struct ut_frame *f,
			   uint64_t start_lsn, uint64_t end_lsn);
void ut_bpool_clean_locked(struct ut_bpool *bp, struct ut_frame *f);
/* Under the flush list's mutex, for a frame whose flush has ended: clean
 * if unchanged since it was copied, else dirty from its redirty_lsn, in
 * the flush list's order. */
void ut_bpool_flushed_locked(struct ut_bpool *bp, struct ut_frame *f);
/* Drops a fix taken without a latch (a cleaner's, after its copy). */
void ut_bpool_unfix(struct ut_bpool *bp, struct ut_frame *f);
/* Oldest modification LSN of any dirty page, or 0 when none. */
uint64_t ut_bpool_oldest_lsn(struct ut_bpool *bp);
unsigned ut_bpool_dirty_count(struct ut_bpool *bp);
/* In one look at the flush list: the dirty pages, the oldest LSN of the
 * oldest and of the newest (0 when none is dirty). */
void ut_bpool_flush_list_ends(struct ut_bpool *bp, unsigned *n_dirty,
			      uint64_t *oldest, uint64_t *newest);
/* Wakes threads waiting for a free frame (after a flush). */
void ut_bpool_wake_free(struct ut_bpool *bp);

#endif
