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
#include <stdio.h>
#include <string.h>
#include "fscaps.h"
#include "guard/guard.h"

static int sector_write(struct ut_open_guard *g, struct ut_guard_batch *b)
{
	return ut_guard_write_in_place(g, b, 0);
}

/*
 * Safe when each block lies within the unit every layer under the
 * filesystem writes whole (blockstack.c) and within one filesystem block,
 * on a filesystem that writes O_DIRECT in place (ext4 without data
 * journalling, XFS, btrfs NOCOW) or copies on write (btrfs).
 */
static void sector_verdict(const struct ut_fscaps *c, uint32_t page_size,
			   uint32_t block_size, struct ut_verdict *v)
{
	const char *t = c->mnt.fstype;
	char layers[512], fix[160];

	ut_block_stack_describe(&c->stack, layers, sizeof(layers));
	if (strcmp(t, "ext4") && strcmp(t, "ext3") && strcmp(t, "xfs") &&
	    strcmp(t, "btrfs")) {
		ut_verdict_say(c, v, 0, "use --guard doublewrite",
			       "untorn cannot tell how %s writes a block in place (it knows ext4, XFS and btrfs)",
			       t);
		return;
	}
	if (ut_fscaps_data_journalled(c)) {
		ut_verdict_say(c, v, 0,
			       "use --guard journal, which this mount makes safe",
			       "ext4 %s turns the sector guard's O_DIRECT writes into buffered ones, journalled like the journal guard's",
			       ut_fscaps_journalled_how(c));
		return;
	}
	if (block_size > c->fs_block) {
		snprintf(fix, sizeof(fix),
			 "make the store with --block-size %u or less",
			 c->fs_block);
		ut_verdict_say(c, v, 0, fix,
			       "a %u-byte block spans two %u-byte filesystem blocks, which need not lie side by side on the device",
			       block_size, c->fs_block);
		return;
	}
	if (c->cow && !c->scan_incomplete) {
		ut_verdict_say(c, v, 1, NULL,
			       "%s is copy-on-write: a page is never overwritten in place, and a page torn between blocks is rebuilt from redo",
			       t);
		return;
	}
	if (!c->stack.unit) {
		ut_verdict_say(c, v, 0,
			       "use --guard doublewrite (or journal on ext4 data=journal)",
			       "the devices under %s cannot be shown to write any block whole: %s",
			       t, c->stack.unknown);
		return;
	}
	if (block_size > c->stack.unit) {
		if (c->stack.unit >= 512)
			snprintf(fix, sizeof(fix),
				 "make the store with --block-size %u (init picks it when --block-size is not given), or use --guard doublewrite",
				 c->stack.unit);
		else
			snprintf(fix, sizeof(fix), "use --guard doublewrite");
		ut_verdict_say(c, v, 0, fix,
			       "the devices write %u bytes whole (%s): a %u-byte block can tear inside itself, which redo cannot rebuild",
			       c->stack.unit, layers, block_size);
		return;
	}
	ut_verdict_say(c, v, 1, NULL,
		       "each %u-byte block of a %u-byte page lies within the %u bytes the devices write whole (%s); a page torn between blocks is rebuilt block by block from redo",
		       block_size, page_size, c->stack.unit, layers);
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
	.verdict = sector_verdict,
	.block_size = sector_block_size,
	.write = sector_write,
};
