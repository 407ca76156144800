/* SPDX-License-Identifier: MIT */
/*
 * page.h - the block-granular page format.
 *
 * A page of page_size bytes is n_blocks = page_size / block_size blocks,
 * block_size being the filesystem block size recorded at init.  Every
 * block starts with its own 24-byte header:
 *
 *   0  le32 crc       CRC32C of (le32 block index, bytes 4..block_size)
 *   4  le32 page_no   the page this block belongs to
 *   8  le64 blk_lsn   LSN of the last change to this block
 *  16  le64 page_lsn  LSN of the page image this block was written with
 *
 * Block 0 then carries the 16-byte page header:
 *
 *  24  le16 type, 26 le16 level, 28 u8 page_shift, 29 u8 block_shift,
 *  30  le16 flags, 32 8 bytes reserved (zero)
 *
 * The compact layout (UT_LAYOUT_COMPACT, for blocks smaller than 4 KiB,
 * where 24 bytes a block cost 4.7 % of a page at 512 bytes) keeps
 * block 0 as above and gives every other block a 12-byte header:
 *
 *   0  le32 crc       CRC32C of (le32 block index, le32 page_no,
 *                     bytes 4..block_size): a block of another page fails it
 *   4  le64 page_lsn  LSN of the page image this block was written with
 *
 * It has no block LSN: an image written at page_lsn holds every change up
 * to page_lsn, so that LSN is as good a lower bound for redo as the
 * block's own (recovery skips no more than it may).
 *
 * A block is all-or-nothing on a journalled filesystem, so a page whose
 * blocks carry different page_lsn values was torn between blocks; recovery
 * rebuilds such a page block by block from redo (a record is applied to a
 * block only when blk_lsn is older than the record).
 *
 * Callers never see block headers: a page is unpacked into a contiguous
 * logical area of area_size bytes plus a struct ut_page_meta, and packed
 * back when written.  An all-zero page is a page that was allocated and
 * never written (UT_PAGE_EMPTY).
 */
#ifndef UNTORN_PAGE_H
#define UNTORN_PAGE_H

#include <stddef.h>
#include <stdint.h>

#define UT_PAGE_SIZE_MIN 4096u
#define UT_PAGE_SIZE_DEFAULT 16384u /* InnoDB's; a zeroed ut_init_opts */
#define UT_PAGE_SIZE_MAX 65536u
#define UT_BLOCK_SIZE_MIN 512u
#define UT_BLOCK_HDR_SIZE 24u
#define UT_BLOCK_HDR_COMPACT 12u /* blocks after the first, compact layout */
#define UT_PAGE_HDR_SIZE 16u
#define UT_MAX_BLOCKS (UT_PAGE_SIZE_MAX / UT_BLOCK_SIZE_MIN)

enum ut_layout {
	UT_LAYOUT_FULL = 0, /* a 24-byte header in every block */
	UT_LAYOUT_COMPACT = 1, /* 12 bytes in every block but the first */
};

struct ut_geom {
	uint32_t page_size;
	uint32_t block_size;
	uint32_t n_blocks;
	uint32_t area_size; /* logical bytes a page holds */
	uint8_t page_shift;
	uint8_t block_shift;
	uint8_t layout; /* enum ut_layout */
	uint32_t hdr_rest; /* header bytes of a block after the first */
};

enum ut_page_type {
	UT_PAGE_SUPER = 1, /* page 0: superblock + checkpoint slots */
	UT_PAGE_BTREE = 2, /* B+tree node; level 0 is a leaf */
	UT_PAGE_TYPE_MAX = 2,
};

struct ut_page_meta {
	uint32_t page_no;
	uint16_t type;
	uint16_t level;
	uint16_t flags;
	uint64_t page_lsn; /* newest change on the page */
	/* per block; read from a compact block: its page_lsn */
	uint64_t blk_lsn[UT_MAX_BLOCKS];
};

enum ut_fault_kind {
	UT_FAULT_CHECKSUM = 1, /* block content does not match its CRC */
	UT_FAULT_ZERO_BLOCK, /* block is all zeros in a written page */
	UT_FAULT_PAGE_NO, /* block belongs to another page */
	UT_FAULT_GEOMETRY, /* page written with another page/block size */
	UT_FAULT_TORN, /* block from another image of the page */
	UT_FAULT_BLOCK_LSN, /* block LSN newer than its page LSN */
	UT_FAULT_TYPE, /* unknown page type */
};

/*
 * expected/found hold, per kind: CHECKSUM the computed/stored CRC;
 * PAGE_NO the page numbers; GEOMETRY the page shifts; TORN the page LSN of
 * the blocks before / of this block; BLOCK_LSN the page LSN / block LSN;
 * TYPE 0 / the type found.
 */
struct ut_page_fault {
	enum ut_fault_kind kind;
	uint32_t block;
	uint64_t expected;
	uint64_t found;
};

struct ut_page_report {
	unsigned n_faults;
	struct ut_page_fault fault[UT_MAX_BLOCKS];
};

#define UT_PAGE_EMPTY 1
#define UT_PAGE_TORN 2 /* unpacked although torn between blocks */

/* page_size: 4..64 KiB, power of two; block_size: 512..page_size, power
 * of two.  Returns -EINVAL for a size that is not a power of two, -ERANGE
 * for one out of range. */
int ut_geom_init(struct ut_geom *g, uint32_t page_size, uint32_t block_size);
/* The same, in either layout (-EINVAL for an unknown one).  A store's
 * geometry is ut_geom_init_layout(sb.page_size, sb.block_size,
 * ut_sb_layout(&sb)): ut_geom_init alone reads a compact store's blocks
 * as damaged. */
int ut_geom_init_layout(struct ut_geom *g, uint32_t page_size,
			uint32_t block_size, enum ut_layout layout);

/* Where logical byte off of the area lives: block, offset in that block,
 * and how many logical bytes from off stay in that block. */
void ut_page_locate(const struct ut_geom *g, uint32_t off, uint32_t *block,
		    uint32_t *block_off, uint32_t *in_block);

/* The logical offset of byte block_off of block (the inverse of
 * ut_page_locate), or UINT32_MAX when that byte is a header byte. */
uint32_t ut_page_logical(const struct ut_geom *g, uint32_t block,
			 uint32_t block_off);

/* The logical bytes block b holds: [*off, *off + *len). */
void ut_page_block_span(const struct ut_geom *g, uint32_t block, uint32_t *off,
			uint32_t *len);

/* Records a change of logical bytes [off, off + len) at lsn. */
void ut_page_touch(const struct ut_geom *g, struct ut_page_meta *m,
		   uint32_t off, uint32_t len, uint64_t lsn);

/* Starts the meta of a new page (all block LSNs = lsn). */
void ut_page_meta_init(const struct ut_geom *g, struct ut_page_meta *m,
		       uint32_t page_no, uint16_t type, uint16_t level,
		       uint64_t lsn);

/* Builds the on-disk image (page_size bytes) from meta and area. */
void ut_page_pack(const struct ut_geom *g, const struct ut_page_meta *m,
		  const void *area, void *disk);

/*
 * Checks an on-disk image that should hold page_no.  Returns 0 when every
 * block is sound, UT_PAGE_EMPTY for an all-zero (never written) page, and
 * -EBADMSG with the faults in report (may be NULL) otherwise.
 */
int ut_page_verify(const struct ut_geom *g, const void *disk, uint32_t page_no,
		   struct ut_page_report *report);

/* ut_page_verify, then fills meta and area from a sound image. */
int ut_page_unpack(const struct ut_geom *g, const void *disk, uint32_t page_no,
		   struct ut_page_meta *m, void *area,
		   struct ut_page_report *report);

#define UT_UNPACK_TOLERATE_TORN (1u << 0)

/*
 * Unpacks an on-disk image in place: buf (page_size bytes) starts with the
 * logical area afterwards.  With UT_UNPACK_TOLERATE_TORN a page whose only
 * faults are TORN or ZERO_BLOCK is unpacked too (each block keeps its own
 * LSN, 0 for a zeroed block; the page LSN is the newest), which is what
 * recovery needs to rebuild it block by block.  An empty page unpacks to zeros with meta type 0 and all LSNs 0.
 * Returns 0, UT_PAGE_EMPTY, UT_PAGE_TORN (tolerated) or -EBADMSG (buf
 * untouched).
 */
int ut_page_unpack_inplace(const struct ut_geom *g, void *buf, uint32_t page_no,
			   struct ut_page_meta *m,
			   struct ut_page_report *report, unsigned flags);

/* The CRC32C of one block as stored in its header (the full layout's, and
 * block 0's in either layout). */
uint32_t ut_block_crc(const void *block, uint32_t block_size,
		      uint32_t block_index);

const char *ut_fault_name(enum ut_fault_kind kind);
/* One human-readable sentence for a fault, e.g. for `untorn check`. */
int ut_fault_describe(const struct ut_page_fault *f, char *buf, size_t len);

#endif
