/* SPDX-License-Identifier: MIT */
/*
 * mtr.h - mini-transactions: the unit of atomic page change.
 *
 * An mtr latches pages, changes them only through ut_mtr_write() (which
 * also writes the redo records, split at page-block boundaries), and on
 * commit appends its records as one redo group, stamps the touched blocks
 * with the group's end LSN, puts newly dirty pages on the flush list in
 * LSN order, and releases its latches.
 */
#ifndef UNTORN_MTR_H
#define UNTORN_MTR_H

#include <stdint.h>
#include "buf/bpool.h"
#include "log/redo.h"
#include "store/space.h"

/* Pages an mtr holds without allocating; more grow on the heap (a
 * transaction's commit holds one leaf per key it writes). */
#define UT_MTR_INLINE_PAGES 16

struct ut_mtr_page {
	struct ut_frame *f;
	enum ut_latch_mode mode;
	int modified;
	unsigned refs; /* ut_mtr_get()s of it not yet released */
	uint64_t touched[UT_MAX_BLOCKS / 64]; /* blocks changed */
};

/* What mini-transactions work on: pages in the pool, records in the
 * log, new pages from the space.  A user of mtrs embeds it (struct
 * ut_tree) and finds itself again with container_of. */
struct ut_mtr_ctx {
	struct ut_bpool *pool;
	struct ut_redo *log;
	struct ut_space *space;
};

struct ut_mtr {
	const struct ut_mtr_ctx *ctx;
	unsigned char *rec;
	size_t len, cap;
	unsigned n_recs;
	unsigned n_pages, cap_pages;
	unsigned hint; /* the slot found last: writes come page by page */
	struct ut_mtr_page *pages; /* inline_pages or the heap */
	struct ut_mtr_page inline_pages[UT_MTR_INLINE_PAGES];
	int err;
};

/* The mtr must be zeroed before the first start; its buffers are kept
 * across mtrs until ut_mtr_free(). */
void ut_mtr_start(struct ut_mtr *m, const struct ut_mtr_ctx *ctx);
void ut_mtr_free(struct ut_mtr *m);
/* Room for rec_bytes more redo and pages more latched pages, so that
 * nothing after it can fail for memory (-ENOMEM, nothing changed). */
int ut_mtr_reserve(struct ut_mtr *m, size_t rec_bytes, unsigned pages);
/* Latches and fixes page_no for the rest of the mtr.  A page the mtr
 * holds already is returned again (re-entrant: a second descent to a
 * leaf it changed), if it holds it in a mode that covers mode (X covers
 * S; S held and X asked is -EDEADLK). */
int ut_mtr_get(struct ut_mtr *m, uint32_t page_no, enum ut_latch_mode mode,
	       struct ut_frame **fp);
int ut_mtr_get_flags(struct ut_mtr *m, uint32_t page_no,
		     enum ut_latch_mode mode, unsigned get_flags,
		     struct ut_frame **fp);
/* Lets go of an unmodified page early (latch coupling), once every
 * ut_mtr_get() of it is released. */
void ut_mtr_release(struct ut_mtr *m, struct ut_frame *f);
/* A new page: X-latched, area zeroed, INIT logged. */
int ut_mtr_create(struct ut_mtr *m, uint32_t page_no, uint16_t type,
		  uint16_t level, struct ut_frame **fp);
/* Empties a page the mtr holds X-latched, with a new type and level,
 * logging INIT so that recovery redoes the level too. */
int ut_mtr_reinit(struct ut_mtr *m, struct ut_frame *f, uint16_t type,
		  uint16_t level);
/* Changes bytes of a page's logical area and logs them. */
void ut_mtr_write(struct ut_mtr *m, struct ut_frame *f, uint32_t off,
		  const void *src, uint32_t len);
/* memmove within a page's area, logged as a MOVE a block in a format 3
 * log (the bytes from a neighbouring block written), else as the bytes
 * that changed. */
void ut_mtr_move(struct ut_mtr *m, struct ut_frame *f, uint32_t dst,
		 uint32_t src, uint32_t len);
void ut_mtr_write16(struct ut_mtr *m, struct ut_frame *f, uint32_t off,
		    uint16_t v);
void ut_mtr_write32(struct ut_mtr *m, struct ut_frame *f, uint32_t off,
		    uint32_t v);
/* Returns the end LSN of the group (0 when nothing was changed), or
 * -errno through m->err. */
uint64_t ut_mtr_commit(struct ut_mtr *m);
/* Releases everything without logging (nothing may have been changed). */
void ut_mtr_abort(struct ut_mtr *m);

/* Applies one WRITE/INIT/MOVE record (recovery and the mtr share them). */
void ut_rec_apply_write(const struct ut_geom *g, struct ut_frame *f,
			uint32_t block, uint32_t block_off,
			const unsigned char *bytes, uint32_t len);
void ut_rec_apply_move(const struct ut_geom *g, struct ut_frame *f,
		       uint32_t block, uint32_t dst_off, uint32_t src_off,
		       uint32_t len);
void ut_rec_apply_init(const struct ut_geom *g, struct ut_frame *f,
		       uint16_t type, uint16_t level);

#endif
