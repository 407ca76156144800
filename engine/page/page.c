// SPDX-License-Identifier: MIT
/*
 * page.c - packing, unpacking and verifying block-granular pages.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "base/crc32c.h"
#include "page/page.h"
#include "base/bytes.h"

#define BH_CRC 0
#define BH_PAGE_NO 4
#define BH_BLK_LSN 8
#define BH_PAGE_LSN 16
#define PH_TYPE (UT_BLOCK_HDR_SIZE + 0)
#define PH_LEVEL (UT_BLOCK_HDR_SIZE + 2)
#define PH_PAGE_SHIFT (UT_BLOCK_HDR_SIZE + 4)
#define PH_BLOCK_SHIFT (UT_BLOCK_HDR_SIZE + 5)
#define PH_FLAGS (UT_BLOCK_HDR_SIZE + 6)
#define BLOCK0_PAYLOAD_OFF (UT_BLOCK_HDR_SIZE + UT_PAGE_HDR_SIZE)
#define CH_PAGE_LSN 4 /* compact header of a block after the first */

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int ut_geom_init_layout(struct ut_geom *g, uint32_t page_size,
			uint32_t block_size, enum ut_layout layout)
{
	if (!is_pow2(page_size) || !is_pow2(block_size))
		return -EINVAL;
	if (layout != UT_LAYOUT_FULL && layout != UT_LAYOUT_COMPACT)
		return -EINVAL;
	if (page_size < UT_PAGE_SIZE_MIN || page_size > UT_PAGE_SIZE_MAX)
		return -ERANGE;
	if (block_size < UT_BLOCK_SIZE_MIN || block_size > page_size)
		return -ERANGE;
	g->page_size = page_size;
	g->block_size = block_size;
	g->n_blocks = page_size / block_size;
	g->layout = layout;
	g->hdr_rest = layout == UT_LAYOUT_COMPACT ? UT_BLOCK_HDR_COMPACT :
						    UT_BLOCK_HDR_SIZE;
	g->area_size = page_size - BLOCK0_PAYLOAD_OFF -
		       (g->n_blocks - 1) * g->hdr_rest;
	g->page_shift = ilog2_u32(page_size);
	g->block_shift = ilog2_u32(block_size);
	return 0;
}

int ut_geom_init(struct ut_geom *g, uint32_t page_size, uint32_t block_size)
{
	return ut_geom_init_layout(g, page_size, block_size, UT_LAYOUT_FULL);
}

static int compact_block(const struct ut_geom *g, uint32_t block)
{
	return block && g->layout == UT_LAYOUT_COMPACT;
}

/* Where a block keeps the page LSN it was written with. */
static uint32_t page_lsn_off(const struct ut_geom *g, uint32_t block)
{
	return compact_block(g, block) ? CH_PAGE_LSN : BH_PAGE_LSN;
}

static uint32_t block_payload(const struct ut_geom *g, uint32_t block)
{
	return g->block_size - (block ? g->hdr_rest : BLOCK0_PAYLOAD_OFF);
}

void ut_page_locate(const struct ut_geom *g, uint32_t off, uint32_t *block,
		    uint32_t *block_off, uint32_t *in_block)
{
	uint32_t first = block_payload(g, 0);
	uint32_t rest = block_payload(g, 1);
	uint32_t b, o;

	if (off < first) {
		b = 0;
		o = off;
	} else {
		b = 1 + (off - first) / rest;
		o = (off - first) % rest;
	}
	*block = b;
	*block_off = g->block_size - block_payload(g, b) + o;
	*in_block = block_payload(g, b) - o;
}

uint32_t ut_page_logical(const struct ut_geom *g, uint32_t block,
			 uint32_t block_off)
{
	uint32_t hdr = g->block_size - block_payload(g, block);

	if (block >= g->n_blocks || block_off < hdr ||
	    block_off >= g->block_size)
		return UINT32_MAX;
	if (!block)
		return block_off - hdr;
	return block_payload(g, 0) + (block - 1) * block_payload(g, 1) +
	       block_off - hdr;
}

void ut_page_block_span(const struct ut_geom *g, uint32_t block, uint32_t *off,
			uint32_t *len)
{
	*off = block ? block_payload(g, 0) + (block - 1) * block_payload(g, 1) :
		       0;
	*len = block_payload(g, block);
}

void ut_page_touch(const struct ut_geom *g, struct ut_page_meta *m,
		   uint32_t off, uint32_t len, uint64_t lsn)
{
	uint32_t block, block_off, in_block;

	while (len && off < g->area_size) {
		ut_page_locate(g, off, &block, &block_off, &in_block);
		m->blk_lsn[block] = lsn;
		if (in_block >= len)
			break;
		off += in_block;
		len -= in_block;
	}
	if (lsn > m->page_lsn)
		m->page_lsn = lsn;
}

void ut_page_meta_init(const struct ut_geom *g, struct ut_page_meta *m,
		       uint32_t page_no, uint16_t type, uint16_t level,
		       uint64_t lsn)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	m->page_no = page_no;
	m->type = type;
	m->level = level;
	m->page_lsn = lsn;
	for (i = 0; i < g->n_blocks; i++)
		m->blk_lsn[i] = lsn;
}

uint32_t ut_block_crc(const void *block, uint32_t block_size,
		      uint32_t block_index)
{
	unsigned char idx[4];

	put_le32(idx, block_index);
	return ut_crc32c(ut_crc32c(0, idx, sizeof(idx)),
			 (const unsigned char *)block + 4, block_size - 4);
}

/* A compact block has no page_no field: the page it belongs to is in its
 * CRC, so a block of another page fails the check. */
static uint32_t compact_crc(const void *block, uint32_t block_size,
			    uint32_t block_index, uint32_t page_no)
{
	unsigned char seed[8];

	put_le32(seed, block_index);
	put_le32(seed + 4, page_no);
	return ut_crc32c(ut_crc32c(0, seed, sizeof(seed)),
			 (const unsigned char *)block + 4, block_size - 4);
}

static uint32_t block_crc(const struct ut_geom *g, const void *block,
			  uint32_t block_index, uint32_t page_no)
{
	if (compact_block(g, block_index))
		return compact_crc(block, g->block_size, block_index, page_no);
	return ut_block_crc(block, g->block_size, block_index);
}

void ut_page_pack(const struct ut_geom *g, const struct ut_page_meta *m,
		  const void *area, void *disk)
{
	const unsigned char *src = area;
	unsigned char *blk;
	uint32_t i, hdr, payload;

	for (i = 0; i < g->n_blocks; i++) {
		blk = (unsigned char *)disk + (size_t)i * g->block_size;
		payload = block_payload(g, i);
		hdr = g->block_size - payload;
		if (compact_block(g, i)) {
			put_le64(blk + CH_PAGE_LSN, m->page_lsn);
		} else {
			put_le32(blk + BH_PAGE_NO, m->page_no);
			put_le64(blk + BH_BLK_LSN, m->blk_lsn[i]);
			put_le64(blk + BH_PAGE_LSN, m->page_lsn);
		}
		if (i == 0) {
			put_le16(blk + PH_TYPE, m->type);
			put_le16(blk + PH_LEVEL, m->level);
			blk[PH_PAGE_SHIFT] = g->page_shift;
			blk[PH_BLOCK_SHIFT] = g->block_shift;
			put_le16(blk + PH_FLAGS, m->flags);
			memset(blk + PH_FLAGS + 2, 0, 8);
		}
		memcpy(blk + hdr, src, payload);
		src += payload;
		put_le32(blk + BH_CRC, block_crc(g, blk, i, m->page_no));
	}
}

static void report_add(struct ut_page_report *r, enum ut_fault_kind kind,
		       uint32_t block, struct ut_page_fault **out)
{
	struct ut_page_fault *f;

	*out = NULL;
	if (!r || r->n_faults >= UT_MAX_BLOCKS)
		return;
	f = &r->fault[r->n_faults++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->block = block;
	*out = f;
}

/* Checks one block by itself; returns 0 when sound. */
static int verify_block(const struct ut_geom *g, const unsigned char *blk,
			uint32_t i, uint32_t page_no, struct ut_page_report *r)
{
	struct ut_page_fault *f;
	uint32_t stored, computed;

	if (is_zero(blk, g->block_size)) {
		report_add(r, UT_FAULT_ZERO_BLOCK, i, &f);
		return -EBADMSG;
	}
	stored = get_le32(blk + BH_CRC);
	computed = block_crc(g, blk, i, page_no);
	if (stored != computed) {
		report_add(r, UT_FAULT_CHECKSUM, i, &f);
		if (f) {
			f->expected = computed;
			f->found = stored;
		}
		return -EBADMSG;
	}
	if (compact_block(g, i))
		return 0;
	if (get_le32(blk + BH_PAGE_NO) != page_no) {
		report_add(r, UT_FAULT_PAGE_NO, i, &f);
		if (f) {
			f->expected = page_no;
			f->found = get_le32(blk + BH_PAGE_NO);
		}
		return -EBADMSG;
	}
	if (get_le64(blk + BH_BLK_LSN) > get_le64(blk + BH_PAGE_LSN)) {
		report_add(r, UT_FAULT_BLOCK_LSN, i, &f);
		if (f) {
			f->expected = get_le64(blk + BH_PAGE_LSN);
			f->found = get_le64(blk + BH_BLK_LSN);
		}
		return -EBADMSG;
	}
	return 0;
}

static int verify_header(const struct ut_geom *g, const unsigned char *blk0,
			 struct ut_page_report *r)
{
	struct ut_page_fault *f;
	uint16_t type = get_le16(blk0 + PH_TYPE);

	if (blk0[PH_PAGE_SHIFT] != g->page_shift ||
	    blk0[PH_BLOCK_SHIFT] != g->block_shift) {
		report_add(r, UT_FAULT_GEOMETRY, 0, &f);
		if (f) {
			f->expected = g->page_shift;
			f->found = blk0[PH_PAGE_SHIFT];
		}
		return -EBADMSG;
	}
	if (type == 0 || type > UT_PAGE_TYPE_MAX) {
		report_add(r, UT_FAULT_TYPE, 0, &f);
		if (f)
			f->found = type;
		return -EBADMSG;
	}
	return 0;
}

int ut_page_verify(const struct ut_geom *g, const void *disk, uint32_t page_no,
		   struct ut_page_report *r)
{
	const unsigned char *base = disk, *blk;
	struct ut_page_fault *f;
	uint64_t prev_lsn = 0, lsn;
	int have_prev = 0, ret = 0;
	uint32_t i;

	if (r)
		r->n_faults = 0;
	if (is_zero(disk, g->page_size))
		return UT_PAGE_EMPTY;
	for (i = 0; i < g->n_blocks; i++) {
		blk = base + (size_t)i * g->block_size;
		if (verify_block(g, blk, i, page_no, r)) {
			ret = -EBADMSG;
			continue;
		}
		if (i == 0 && verify_header(g, blk, r))
			ret = -EBADMSG;
		lsn = get_le64(blk + page_lsn_off(g, i));
		if (have_prev && lsn != prev_lsn) {
			report_add(r, UT_FAULT_TORN, i, &f);
			if (f) {
				f->expected = prev_lsn;
				f->found = lsn;
			}
			ret = -EBADMSG;
		}
		prev_lsn = lsn;
		have_prev = 1;
	}
	return ret;
}

/* What redo may skip in a block: its own LSN, or a compact block's page
 * LSN (the image it was written with holds every change up to it). */
static uint64_t block_lsn(const struct ut_geom *g, const unsigned char *blk,
			  uint32_t block)
{
	return get_le64(blk +
			(compact_block(g, block) ? CH_PAGE_LSN : BH_BLK_LSN));
}

int ut_page_unpack(const struct ut_geom *g, const void *disk, uint32_t page_no,
		   struct ut_page_meta *m, void *area, struct ut_page_report *r)
{
	const unsigned char *blk = disk;
	unsigned char *dst = area;
	uint32_t i, payload;
	int ret;

	ret = ut_page_verify(g, disk, page_no, r);
	if (ret)
		return ret;
	memset(m, 0, sizeof(*m));
	m->page_no = page_no;
	m->type = get_le16(blk + PH_TYPE);
	m->level = get_le16(blk + PH_LEVEL);
	m->flags = get_le16(blk + PH_FLAGS);
	m->page_lsn = get_le64(blk + BH_PAGE_LSN);
	for (i = 0; i < g->n_blocks; i++) {
		blk = (const unsigned char *)disk + (size_t)i * g->block_size;
		payload = block_payload(g, i);
		m->blk_lsn[i] = block_lsn(g, blk, i);
		memcpy(dst, blk + g->block_size - payload, payload);
		dst += payload;
	}
	return 0;
}

/* Faults recovery can rebuild from redo: blocks from another write of
 * the page, and zeroed blocks (a new page whose write stopped early). */
static int only_torn(const struct ut_page_report *r)
{
	unsigned i;

	for (i = 0; i < r->n_faults; i++)
		if (r->fault[i].kind != UT_FAULT_TORN &&
		    r->fault[i].kind != UT_FAULT_ZERO_BLOCK)
			return 0;
	return r->n_faults > 0;
}

int ut_page_unpack_inplace(const struct ut_geom *g, void *buf, uint32_t page_no,
			   struct ut_page_meta *m, struct ut_page_report *r,
			   unsigned flags)
{
	unsigned char *base = buf, *blk;
	uint32_t i, payload, pos = 0;
	uint64_t lsn;
	int ret, torn;

	ret = ut_page_verify(g, buf, page_no, r);
	memset(m, 0, sizeof(*m));
	m->page_no = page_no;
	if (ret == UT_PAGE_EMPTY)
		return ret;
	if (ret && !((flags & UT_UNPACK_TOLERATE_TORN) && r && only_torn(r)))
		return ret;
	torn = ret != 0;
	m->type = get_le16(base + PH_TYPE);
	m->level = get_le16(base + PH_LEVEL);
	m->flags = get_le16(base + PH_FLAGS);
	for (i = 0; i < g->n_blocks; i++) {
		blk = base + (size_t)i * g->block_size;
		m->blk_lsn[i] = block_lsn(g, blk, i); /* 0: zeroed */
		lsn = get_le64(blk + page_lsn_off(g, i));
		if (lsn > m->page_lsn)
			m->page_lsn = lsn;
		payload = block_payload(g, i);
		memmove(base + pos, blk + g->block_size - payload, payload);
		pos += payload;
	}
	memset(base + pos, 0, g->page_size - pos);
	return torn ? UT_PAGE_TORN : 0;
}

const char *ut_fault_name(enum ut_fault_kind kind)
{
	switch (kind) {
	case UT_FAULT_CHECKSUM:
		return "checksum";
	case UT_FAULT_ZERO_BLOCK:
		return "zeroed";
	case UT_FAULT_PAGE_NO:
		return "misplaced";
	case UT_FAULT_GEOMETRY:
		return "geometry";
	case UT_FAULT_TORN:
		return "torn";
	case UT_FAULT_BLOCK_LSN:
		return "lsn";
	case UT_FAULT_TYPE:
		return "type";
	}
	return "unknown";
}

int ut_fault_describe(const struct ut_page_fault *f, char *buf, size_t len)
{
	switch (f->kind) {
	case UT_FAULT_CHECKSUM:
		return snprintf(buf, len,
				"checksum mismatch (stored %08llx, computed %08llx)",
				(unsigned long long)f->found,
				(unsigned long long)f->expected);
	case UT_FAULT_ZERO_BLOCK:
		return snprintf(buf, len,
				"block is all zeros in a written page");
	case UT_FAULT_PAGE_NO:
		return snprintf(buf, len, "block belongs to page %llu",
				(unsigned long long)f->found);
	case UT_FAULT_GEOMETRY:
		return snprintf(buf, len,
				"page written with %llu-byte pages, store uses %llu",
				1ULL << (f->found & 63),
				1ULL << (f->expected & 63));
	case UT_FAULT_TORN:
		return snprintf(buf, len,
				"torn: page LSN %llu here, %llu in the blocks before",
				(unsigned long long)f->found,
				(unsigned long long)f->expected);
	case UT_FAULT_BLOCK_LSN:
		return snprintf(buf, len,
				"block LSN %llu newer than page LSN %llu",
				(unsigned long long)f->found,
				(unsigned long long)f->expected);
	case UT_FAULT_TYPE:
		return snprintf(buf, len, "unknown page type %llu",
				(unsigned long long)f->found);
	}
	return snprintf(buf, len, "unknown fault");
}
