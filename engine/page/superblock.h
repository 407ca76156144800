/* SPDX-License-Identifier: MIT */
/*
 * superblock.h - page 0 of the data file: the store's fixed facts and two
 * checkpoint slots.
 *
 * Page 0 is not a block-format page: it must be readable before the page
 * size is known.  Its first 1536 bytes are three 512-byte sectors, each
 * checksummed on its own, so a torn write of page 0 damages at most the
 * slot being written:
 *
 *   sector 0: header   "UNTORNSB", le32 version, le32 crc, le32 page_size,
 *                       le32 block_size, le32 extent_pages, le32 guard,
 *                       le32 flags, le32 reserved, uuid[16], le64 created
 *   sector 1: slot 0   "UNTORNCK", le32 slot, le32 crc, le64 seq,
 *   sector 2: slot 1    le64 checkpoint_lsn, le32 n_pages, le32 root_page,
 *                       uuid[16]
 *
 * The crc of a sector is CRC32C of the sector with its crc field skipped.
 * The valid slot with the higher seq is current; a checkpoint writes the
 * other one, so a crash while writing it leaves the previous one intact.
 */
#ifndef UNTORN_SUPERBLOCK_H
#define UNTORN_SUPERBLOCK_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include "page/page.h"

#define UT_FORMAT_VERSION 1u
/* A store whose pages use the compact layout (page/page.h) is version 2,
 * so a build that knows only version 1 refuses it instead of reading its
 * blocks as damaged. */
#define UT_FORMAT_COMPACT 2u
#define UT_SB_SECTOR 512u
#define UT_SB_REGION (3 * UT_SB_SECTOR)
#define UT_SB_MAGIC "UNTORNSB"
#define UT_CKPT_MAGIC "UNTORNCK"
#define UT_LSN_START 524u /* first byte after the header of log block 1 */

/* The guard field: a guard's id (<untorn/guard.h>), 1 to this; which ids
 * a build knows is its guard table's, and an open refuses another. */
#define UT_GUARD_ID_MAX 255u

#define UT_SB_SINGLE_LSN (1u << 0) /* one block per page: InnoDB's design */
#define UT_SB_UNSAFE (1u << 1) /* made with --unsafe: no re-check */
#define UT_SB_COMPACT (1u << 2) /* pages in the compact layout */

struct ut_sb {
	uint32_t version;
	uint32_t page_size;
	uint32_t block_size;
	uint32_t extent_pages;
	uint32_t guard;
	uint32_t flags;
	uint8_t uuid[16];
	uint64_t created; /* seconds since the epoch */
};

struct ut_ckpt {
	uint64_t seq;
	uint64_t checkpoint_lsn;
	uint32_t n_pages; /* pages in use, page 0 included */
	uint32_t root_page;
};

/* Why a sector was refused (errno-style, negative). */
#define UT_SB_EMAGIC (-EPROTO) /* not an untorn superblock */
#define UT_SB_ECRC (-EBADMSG) /* checksum mismatch */
#define UT_SB_EVERSION (-ENOTSUP) /* format version unknown */
#define UT_SB_EFIELD (-EINVAL) /* a field out of range */

void ut_sb_encode(const struct ut_sb *sb, void *sector);
/* Decodes sector 0; a version-2 store must carry UT_SB_COMPACT and a
 * version-1 store must not (UT_SB_EFIELD otherwise). */
int ut_sb_decode(const void *sector, struct ut_sb *sb);
/* The page layout a superblock's flags give. */
enum ut_layout ut_sb_layout(const struct ut_sb *sb);

void ut_ckpt_encode(const struct ut_ckpt *ck, const uint8_t uuid[16],
		    unsigned slot, void *sector);
int ut_ckpt_decode(const void *sector, const uint8_t uuid[16], unsigned slot,
		   struct ut_ckpt *ck);

/*
 * Decodes both slots of a superblock region (UT_SB_REGION bytes) and
 * picks the current one.  slot_err[i] gets 0 or the slot's error.
 * Returns the current slot's index, or -EBADMSG when both are bad.
 */
int ut_ckpt_pick(const void *region, const uint8_t uuid[16], struct ut_ckpt *ck,
		 int slot_err[2]);

#endif
