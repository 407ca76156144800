// SPDX-License-Identifier: MIT
/*
 * mtr.c - mini-transactions: latching, logged page changes, commit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/bytes.h"
#include "mtr/mtr.h"

void ut_mtr_start(struct ut_mtr *m, const struct ut_mtr_ctx *ctx)
{
	m->ctx = ctx;
	m->len = 0;
	m->n_recs = 0;
	m->n_pages = 0;
	m->err = 0;
	if (m->cap)
		m->len = UT_LOG_GROUP_HDR;
	if (!m->pages) {
		m->pages = m->inline_pages;
		m->cap_pages = UT_MTR_INLINE_PAGES;
	}
}

void ut_mtr_free(struct ut_mtr *m)
{
	free(m->rec);
	m->rec = NULL;
	m->cap = 0;
	if (m->pages != m->inline_pages)
		free(m->pages);
	m->pages = NULL;
	m->cap_pages = 0;
}

/* Room in the page array for more pages. */
static int pages_reserve(struct ut_mtr *m, unsigned more)
{
	unsigned cap = m->cap_pages ? m->cap_pages : UT_MTR_INLINE_PAGES;
	struct ut_mtr_page *grown;

	if (m->pages && m->n_pages + more <= m->cap_pages)
		return 0;
	while (cap < m->n_pages + more)
		cap *= 2;
	if (m->pages == m->inline_pages) {
		grown = malloc(cap * sizeof(*grown));
		if (grown)
			memcpy(grown, m->pages, m->n_pages * sizeof(*grown));
	} else {
		grown = realloc(m->pages, cap * sizeof(*grown));
	}
	if (!grown)
		return -ENOMEM;
	m->pages = grown;
	m->cap_pages = cap;
	return 0;
}

/* The slot of page_no, if the mtr holds it. */
static struct ut_mtr_page *mtr_held(struct ut_mtr *m, uint32_t page_no)
{
	unsigned i;

	if (m->hint < m->n_pages && m->pages[m->hint].f->page_no == page_no)
		return &m->pages[m->hint];
	for (i = 0; i < m->n_pages; i++)
		if (m->pages[i].f->page_no == page_no) {
			m->hint = i;
			return &m->pages[i];
		}
	return NULL;
}

/* The slot of a frame the mtr holds (a frame holds one page while
 * latched). */
static struct ut_mtr_page *mtr_slot(struct ut_mtr *m, const struct ut_frame *f)
{
	return mtr_held(m, f->page_no);
}

/* The caller made room (pages_reserve). */
static void mtr_track(struct ut_mtr *m, struct ut_frame *f,
		      enum ut_latch_mode mode)
{
	struct ut_mtr_page *p = &m->pages[m->n_pages++];

	memset(p, 0, sizeof(*p));
	p->f = f;
	p->mode = mode;
	p->refs = 1;
}

int ut_mtr_get_flags(struct ut_mtr *m, uint32_t page_no,
		     enum ut_latch_mode mode, unsigned get_flags,
		     struct ut_frame **fp)
{
	struct ut_mtr_page *p = mtr_held(m, page_no);
	int ret;

	if (p) {
		if (mode == UT_X && p->mode != UT_X)
			return -EDEADLK;
		p->refs++;
		*fp = p->f;
		return 0;
	}
	ret = pages_reserve(m, 1);
	if (ret)
		return ret;
	ret = ut_bpool_get(m->ctx->pool, page_no, mode, get_flags, fp);
	if (ret)
		return ret;
	mtr_track(m, *fp, mode);
	return 0;
}

int ut_mtr_get(struct ut_mtr *m, uint32_t page_no, enum ut_latch_mode mode,
	       struct ut_frame **fp)
{
	return ut_mtr_get_flags(m, page_no, mode, 0, fp);
}

void ut_mtr_release(struct ut_mtr *m, struct ut_frame *f)
{
	struct ut_mtr_page *p = mtr_slot(m, f);

	if (!p)
		return;
	if (p->refs > 1) {
		p->refs--;
		return;
	}
	if (p->modified)
		return;
	ut_bpool_release(m->ctx->pool, f, p->mode);
	*p = m->pages[--m->n_pages];
}

static int rec_reserve(struct ut_mtr *m, size_t n)
{
	unsigned char *grown;
	size_t cap;

	if (m->len + n <= m->cap)
		return 0;
	cap = m->cap ? m->cap * 2 : 4096;
	while (cap < m->len + n + UT_LOG_GROUP_HDR)
		cap *= 2;
	grown = realloc(m->rec, cap);
	if (!grown) {
		m->err = -ENOMEM;
		return -ENOMEM;
	}
	if (!m->cap)
		m->len = UT_LOG_GROUP_HDR; /* room for the group header */
	m->rec = grown;
	m->cap = cap;
	return 0;
}

int ut_mtr_reserve(struct ut_mtr *m, size_t rec_bytes, unsigned pages)
{
	int ret = rec_reserve(m, rec_bytes);

	return ret ? ret : pages_reserve(m, pages);
}

static void mark_block(struct ut_mtr *m, struct ut_frame *f, uint32_t block)
{
	struct ut_mtr_page *p = mtr_slot(m, f);

	if (!p)
		return;
	p->modified = 1;
	p->touched[block / 64] |= 1ull << (block % 64);
}

void ut_rec_apply_write(const struct ut_geom *g, struct ut_frame *f,
			uint32_t block, uint32_t block_off,
			const unsigned char *bytes, uint32_t len)
{
	memcpy(f->area + ut_page_logical(g, block, block_off), bytes, len);
}

void ut_rec_apply_init(const struct ut_geom *g, struct ut_frame *f,
		       uint16_t type, uint16_t level)
{
	memset(f->area, 0, g->area_size);
	f->meta.type = type;
	f->meta.level = level;
}

/*
 * Appends a record of size bytes for block of f: its type, page, block
 * and offset in the block filled in, the block marked; NULL (m->err set)
 * when memory runs out.
 */
static unsigned char *rec_append(struct ut_mtr *m, struct ut_frame *f,
				 unsigned char type, uint32_t block,
				 uint32_t boff, size_t size)
{
	unsigned char *r;

	if (rec_reserve(m, size))
		return NULL;
	r = m->rec + m->len;
	r[0] = type;
	put_le32(r + 1, f->page_no);
	r[5] = block;
	put_le16(r + 6, boff);
	m->len += size;
	m->n_recs++;
	mark_block(m, f, block);
	return r;
}

void ut_mtr_write(struct ut_mtr *m, struct ut_frame *f, uint32_t off,
		  const void *src, uint32_t len)
{
	const struct ut_geom *g = &m->ctx->pool->geom;
	uint32_t block, boff, in_block, n;
	unsigned char *r;

	memmove(f->area + off, src, len);
	while (len) {
		ut_page_locate(g, off, &block, &boff, &in_block);
		n = len < in_block ? len : in_block;
		r = rec_append(m, f, UT_REC_WRITE, block, boff,
			       UT_REC_WRITE_HDR + n);
		if (!r)
			return;
		put_le16(r + 8, n);
		memcpy(r + UT_REC_WRITE_HDR, f->area + off, n);
		off += n;
		len -= n;
	}
}

void ut_rec_apply_move(const struct ut_geom *g, struct ut_frame *f,
		       uint32_t block, uint32_t dst_off, uint32_t src_off,
		       uint32_t len)
{
	memmove(f->area + ut_page_logical(g, block, dst_off),
		f->area + ut_page_logical(g, block, src_off), len);
}

/* Logs a MOVE of len bytes within block, at block offsets dst and src. */
static void log_move(struct ut_mtr *m, struct ut_frame *f, uint32_t block,
		     uint32_t dst, uint32_t src, uint32_t len)
{
	unsigned char *r =
		rec_append(m, f, UT_REC_MOVE, block, dst, UT_REC_MOVE_SIZE);

	if (!r)
		return;
	put_le16(r + 8, src);
	put_le16(r + 10, len);
}

/*
 * Logs area bytes [dst, dst + len), just moved there from src, block by
 * block: a MOVE for the part whose source lies in the same block, then a
 * WRITE of the bytes that came from a neighbouring block (recovery
 * applies the MOVE to the block as it was, then the WRITE over it).  A
 * part too short to gain by a MOVE is written.
 */
static void log_moved(struct ut_mtr *m, struct ut_frame *f, uint32_t dst,
		      uint32_t src, uint32_t len)
{
	const struct ut_geom *g = &m->ctx->pool->geom;
	int64_t delta = (int64_t)src - dst, lo, hi;
	uint32_t block, boff, in_block, span, span_len, n;

	while (len) {
		ut_page_locate(g, dst, &block, &boff, &in_block);
		n = len < in_block ? len : in_block;
		ut_page_block_span(g, block, &span, &span_len);
		lo = (int64_t)span - delta > dst ? (int64_t)span - delta : dst;
		hi = (int64_t)span + span_len - delta < (int64_t)dst + n ?
			     (int64_t)span + span_len - delta :
			     (int64_t)dst + n;
		if (hi - lo <= (int64_t)(UT_REC_MOVE_SIZE - UT_REC_WRITE_HDR)) {
			ut_mtr_write(m, f, dst, f->area + dst, n);
		} else {
			log_move(m, f, block, boff + (uint32_t)(lo - dst),
				 (uint32_t)(boff + (lo - dst) + delta),
				 (uint32_t)(hi - lo));
			if (lo > dst)
				ut_mtr_write(m, f, dst, f->area + dst,
					     (uint32_t)(lo - dst));
			if (hi < (int64_t)dst + n)
				ut_mtr_write(m, f, (uint32_t)hi, f->area + hi,
					     (uint32_t)(dst + n - hi));
		}
		dst += n;
		len -= n;
	}
}

void ut_mtr_move(struct ut_mtr *m, struct ut_frame *f, uint32_t dst,
		 uint32_t src, uint32_t len)
{
	if (!len)
		return;
	memmove(f->area + dst, f->area + src, len);
	if (m->ctx->log->moves)
		log_moved(m, f, dst, src, len);
	else
		ut_mtr_write(m, f, dst, f->area + dst, len);
}

void ut_mtr_write16(struct ut_mtr *m, struct ut_frame *f, uint32_t off,
		    uint16_t v)
{
	unsigned char b[2];

	put_le16(b, v);
	ut_mtr_write(m, f, off, b, 2);
}

void ut_mtr_write32(struct ut_mtr *m, struct ut_frame *f, uint32_t off,
		    uint32_t v)
{
	unsigned char b[4];

	put_le32(b, v);
	ut_mtr_write(m, f, off, b, 4);
}

/* Logs INIT for a page this mtr holds X-latched and applies it. */
static int mtr_init_page(struct ut_mtr *m, struct ut_frame *f, uint16_t type,
			 uint16_t level)
{
	const struct ut_geom *g = &m->ctx->pool->geom;
	struct ut_mtr_page *p = mtr_slot(m, f);
	unsigned char *r;
	uint32_t i;

	if (!p)
		return -EINVAL;
	if (rec_reserve(m, UT_REC_INIT_SIZE))
		return -ENOMEM;
	ut_rec_apply_init(g, f, type, level);
	r = m->rec + m->len;
	r[0] = UT_REC_INIT;
	put_le32(r + 1, f->page_no);
	put_le16(r + 5, type);
	put_le16(r + 7, level);
	m->len += UT_REC_INIT_SIZE;
	m->n_recs++;
	p->modified = 1;
	for (i = 0; i < g->n_blocks; i++)
		p->touched[i / 64] |= 1ull << (i % 64);
	return 0;
}

int ut_mtr_create(struct ut_mtr *m, uint32_t page_no, uint16_t type,
		  uint16_t level, struct ut_frame **fp)
{
	int ret;

	if (pages_reserve(m, 1) || rec_reserve(m, UT_REC_INIT_SIZE))
		return -ENOMEM;
	ret = ut_bpool_create(m->ctx->pool, page_no, fp);
	if (ret)
		return ret;
	mtr_track(m, *fp, UT_X);
	return mtr_init_page(m, *fp, type, level);
}

int ut_mtr_reinit(struct ut_mtr *m, struct ut_frame *f, uint16_t type,
		  uint16_t level)
{
	return mtr_init_page(m, f, type, level);
}

static void mtr_release_all(struct ut_mtr *m)
{
	unsigned i;

	for (i = m->n_pages; i-- > 0;)
		ut_bpool_release(m->ctx->pool, m->pages[i].f, m->pages[i].mode);
	m->n_pages = 0;
}

static void stamp_page(struct ut_mtr_page *p, uint32_t n_blocks, uint64_t end)
{
	uint32_t b;

	for (b = 0; b < n_blocks; b++)
		if (p->touched[b / 64] & (1ull << (b % 64)))
			p->f->meta.blk_lsn[b] = end;
	p->f->meta.page_lsn = end;
}

uint64_t ut_mtr_commit(struct ut_mtr *m)
{
	const struct ut_mtr_ctx *ctx = m->ctx;
	uint64_t start, end;
	unsigned i;
	int ret;

	if (m->n_recs > 0xffff) /* the group header's count */
		m->err = -EUCLEAN;
	if (!m->n_recs || m->err) {
		mtr_release_all(m);
		return 0;
	}
	put_le32(m->rec, m->len - UT_LOG_GROUP_HDR);
	put_le16(m->rec + 4, m->n_recs);
	ret = ut_redo_reserve(ctx->log, m->len);
	if (ret) {
		m->err = ret;
		mtr_release_all(m);
		return 0;
	}
	ut_redo_append_locked(ctx->log, m->rec, m->len, &start, &end);
	ut_bpool_flush_list_lock(ctx->pool);
	for (i = 0; i < m->n_pages; i++) {
		if (!m->pages[i].modified)
			continue;
		stamp_page(&m->pages[i], ctx->pool->geom.n_blocks, end);
		ut_bpool_dirty_locked(ctx->pool, m->pages[i].f, start, end);
	}
	ut_bpool_flush_list_unlock(ctx->pool);
	ut_redo_release(ctx->log);
	mtr_release_all(m);
	m->len = UT_LOG_GROUP_HDR;
	m->n_recs = 0;
	return end;
}

void ut_mtr_abort(struct ut_mtr *m)
{
	mtr_release_all(m);
	m->len = m->cap ? UT_LOG_GROUP_HDR : 0;
	m->n_recs = 0;
}
