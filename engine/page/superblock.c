// SPDX-License-Identifier: MIT
/*
 * superblock.c - encoding and decoding page 0: header and checkpoint slots.
 */
#include <errno.h>
#include <string.h>
#include "base/crc32c.h"
#include "page/page.h"
#include "page/superblock.h"
#include "base/bytes.h"

#define SEC_MAGIC 0
#define SEC_ID 8 /* header: version; slot: slot index */
#define SEC_CRC 12

#define SB_PAGE_SIZE 16
#define SB_BLOCK_SIZE 20
#define SB_EXTENT 24
#define SB_GUARD 28
#define SB_FLAGS 32
#define SB_UUID 40
#define SB_CREATED 56

#define CK_SEQ 16
#define CK_LSN 24
#define CK_N_PAGES 32
#define CK_ROOT 36
#define CK_UUID 40

static uint32_t sector_crc(const unsigned char *sec)
{
	uint32_t crc = ut_crc32c(0, sec, SEC_CRC);

	return ut_crc32c(crc, sec + SEC_CRC + 4, UT_SB_SECTOR - SEC_CRC - 4);
}

static void sector_seal(unsigned char *sec)
{
	put_le32(sec + SEC_CRC, sector_crc(sec));
}

static int sector_check(const unsigned char *sec, const char *magic)
{
	if (memcmp(sec + SEC_MAGIC, magic, 8))
		return UT_SB_EMAGIC;
	if (get_le32(sec + SEC_CRC) != sector_crc(sec))
		return UT_SB_ECRC;
	return 0;
}

void ut_sb_encode(const struct ut_sb *sb, void *sector)
{
	unsigned char *sec = sector;

	memset(sec, 0, UT_SB_SECTOR);
	memcpy(sec + SEC_MAGIC, UT_SB_MAGIC, 8);
	put_le32(sec + SEC_ID, sb->version);
	put_le32(sec + SB_PAGE_SIZE, sb->page_size);
	put_le32(sec + SB_BLOCK_SIZE, sb->block_size);
	put_le32(sec + SB_EXTENT, sb->extent_pages);
	put_le32(sec + SB_GUARD, sb->guard);
	put_le32(sec + SB_FLAGS, sb->flags);
	memcpy(sec + SB_UUID, sb->uuid, 16);
	put_le64(sec + SB_CREATED, sb->created);
	sector_seal(sec);
}

int ut_sb_decode(const void *sector, struct ut_sb *sb)
{
	const unsigned char *sec = sector;
	struct ut_geom geom;
	int ret;

	ret = sector_check(sec, UT_SB_MAGIC);
	if (ret)
		return ret;
	memset(sb, 0, sizeof(*sb));
	sb->version = get_le32(sec + SEC_ID);
	if (sb->version != UT_FORMAT_VERSION &&
	    sb->version != UT_FORMAT_COMPACT)
		return UT_SB_EVERSION;
	sb->page_size = get_le32(sec + SB_PAGE_SIZE);
	sb->block_size = get_le32(sec + SB_BLOCK_SIZE);
	sb->extent_pages = get_le32(sec + SB_EXTENT);
	sb->guard = get_le32(sec + SB_GUARD);
	sb->flags = get_le32(sec + SB_FLAGS);
	memcpy(sb->uuid, sec + SB_UUID, 16);
	sb->created = get_le64(sec + SB_CREATED);
	if (!(sb->flags & UT_SB_COMPACT) != (sb->version == UT_FORMAT_VERSION))
		return UT_SB_EFIELD;
	if (ut_geom_init_layout(&geom, sb->page_size, sb->block_size,
				ut_sb_layout(sb)))
		return UT_SB_EFIELD;
	/* which ids name a guard is the guard table's (store_open.c) */
	if (!sb->guard || sb->guard > UT_GUARD_ID_MAX)
		return UT_SB_EFIELD;
	if (sb->extent_pages == 0 || sb->extent_pages > (1u << 20))
		return UT_SB_EFIELD;
	return 0;
}

void ut_ckpt_encode(const struct ut_ckpt *ck, const uint8_t uuid[16],
		    unsigned slot, void *sector)
{
	unsigned char *sec = sector;

	memset(sec, 0, UT_SB_SECTOR);
	memcpy(sec + SEC_MAGIC, UT_CKPT_MAGIC, 8);
	put_le32(sec + SEC_ID, slot);
	put_le64(sec + CK_SEQ, ck->seq);
	put_le64(sec + CK_LSN, ck->checkpoint_lsn);
	put_le32(sec + CK_N_PAGES, ck->n_pages);
	put_le32(sec + CK_ROOT, ck->root_page);
	memcpy(sec + CK_UUID, uuid, 16);
	sector_seal(sec);
}

int ut_ckpt_decode(const void *sector, const uint8_t uuid[16], unsigned slot,
		   struct ut_ckpt *ck)
{
	const unsigned char *sec = sector;
	int ret;

	ret = sector_check(sec, UT_CKPT_MAGIC);
	if (ret)
		return ret;
	if (get_le32(sec + SEC_ID) != slot || memcmp(sec + CK_UUID, uuid, 16))
		return UT_SB_EFIELD;
	ck->seq = get_le64(sec + CK_SEQ);
	ck->checkpoint_lsn = get_le64(sec + CK_LSN);
	ck->n_pages = get_le32(sec + CK_N_PAGES);
	ck->root_page = get_le32(sec + CK_ROOT);
	if (ck->n_pages < 2 || ck->root_page == 0 ||
	    ck->root_page >= ck->n_pages || ck->seq == UINT64_MAX)
		return UT_SB_EFIELD;
	return 0;
}

int ut_ckpt_pick(const void *region, const uint8_t uuid[16], struct ut_ckpt *ck,
		 int slot_err[2])
{
	const unsigned char *base = region;
	struct ut_ckpt slot[2];
	unsigned i;
	int best = -EBADMSG;

	for (i = 0; i < 2; i++) {
		slot_err[i] = ut_ckpt_decode(base + (1 + i) * UT_SB_SECTOR,
					     uuid, i, &slot[i]);
		if (slot_err[i])
			continue;
		if (best < 0 || slot[i].seq > slot[best].seq)
			best = i;
	}
	if (best >= 0)
		*ck = slot[best];
	return best;
}

enum ut_layout ut_sb_layout(const struct ut_sb *sb)
{
	return sb->flags & UT_SB_COMPACT ? UT_LAYOUT_COMPACT : UT_LAYOUT_FULL;
}
