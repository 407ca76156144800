// SPDX-License-Identifier: MIT
/*
 * guard_sector.c - the guard that writes nothing extra: pages are written
 * in place with O_DIRECT, as with no guard, and made durable before each
 * checkpoint; what keeps them whole is the block-granular page format and
 * the device.  A power cut can tear a page between its blocks, and
 * recovery rebuilds such a page block by block from redo, as for the
 * journal guard; what no redo can repair is a block torn inside itself,
 * and a device does not tear inside the unit it writes whole (a disk's
 * logical block; blockstack.c finds the smallest unit of every layer
 * under the filesystem).  So the store's blocks are made no larger than
 * that unit: init picks the block size when --block-size is not given,
 * and the verdict refuses a larger one, or a stack untorn cannot follow.
 *
 * O_DIRECT is required, not a speed-up: a buffered write is copied into
 * the page cache while writeback may already be writing that page out,
 * so a block can reach the disk half new and half old, torn inside
 * itself whatever the device guarantees.
 */
#include "guard/guard.h"

static int sector_write(struct ut_open_guard *g, struct ut_guard_batch *b)
{
	return ut_guard_write_in_place(g, b, 0);
}

/*
 * The block size a new store gets: the unit the devices write whole, no
 * larger than a filesystem block or the page.  Where the unit is unknown
 * (or btrfs copies on write), *bsize stays 0: the filesystem's block, and
 * the verdict says whether that is safe.
 */
static int sector_block_size(const struct ut_fscaps *caps, uint32_t page_size,
			     const struct ut_guard_args *a, uint32_t *bsize,
			     struct ut_err *err)
{
	uint32_t unit = caps->stack.unit;

	(void)a;
	(void)err;
	if (unit < 512 || (caps->cow && !caps->scan_incomplete))
		return 0;
	if (caps->fs_block && unit > caps->fs_block)
		unit = caps->fs_block;
	*bsize = unit < page_size ? unit : page_size;
	return 0;
}

const struct ut_guard_ops ut_guard_sector = {
	.id = UT_GUARD_SECTOR,
	.name = "sector",
	.help = "in place with O_DIRECT, nothing extra: each block fits in what the device writes whole, a page torn between blocks is rebuilt from redo",
	.bench_fs = "ext4-ordered",
	.direct = UT_DIRECT_MUST,
	.direct_why =
		"a buffered write can reach the disk half copied, tearing a block inside itself",
	.verdict = ut_verdict_sector,
	.block_size = sector_block_size,
	.write = sector_write,
};
