// SPDX-License-Identifier: MIT
/*
 * page_test.c - the block-granular page format: geometry limits, round
 * trip at every page and block size, a single bit flip in any block is
 * caught at that block, a page torn at each block boundary is reported at
 * that block, zeroed and misplaced blocks, pages of another size; all of
 * it in both layouts (full block headers and compact ones).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "page/page.h"
#include "ktap.h"

static unsigned char disk[UT_PAGE_SIZE_MAX], disk2[UT_PAGE_SIZE_MAX];
static unsigned char area[UT_PAGE_SIZE_MAX], area2[UT_PAGE_SIZE_MAX];
static struct ut_page_meta meta, meta2;
static struct ut_page_report rep;
static enum ut_layout layout; /* the layout the tests below run in */

static int geom(struct ut_geom *g, uint32_t ps, uint32_t bs)
{
	return ut_geom_init_layout(g, ps, bs, layout);
}

/* What unpack gives as block b's LSN: its own, or in a compact block the
 * page LSN it was written with. */
static uint64_t expect_blk_lsn(const struct ut_page_meta *m, uint32_t b)
{
	return layout == UT_LAYOUT_COMPACT && b ? m->page_lsn : m->blk_lsn[b];
}

static void fill_random(unsigned char *p, size_t len)
{
	while (len--)
		*p++ = rand();
}

static void make_page(const struct ut_geom *g, uint32_t page_no, uint64_t lsn,
		      unsigned char *out)
{
	uint32_t i;

	ut_page_meta_init(g, &meta, page_no, UT_PAGE_BTREE, 0, lsn / 2);
	for (i = 0; i < g->n_blocks; i++)
		meta.blk_lsn[i] = lsn / 2 + rand() % (lsn / 2 + 1);
	meta.page_lsn = lsn;
	meta.blk_lsn[rand() % g->n_blocks] = lsn;
	fill_random(area, g->area_size);
	ut_page_pack(g, &meta, area, out);
}

static int test_geometry(void)
{
	struct ut_geom g;

	return ut_geom_init(&g, 3000, 512) == -EINVAL &&
	       ut_geom_init(&g, 16384, 1000) == -EINVAL &&
	       ut_geom_init(&g, 2048, 512) == -ERANGE &&
	       ut_geom_init(&g, 131072, 4096) == -ERANGE &&
	       ut_geom_init(&g, 16384, 256) == -ERANGE &&
	       ut_geom_init(&g, 16384, 32768) == -ERANGE &&
	       ut_geom_init(&g, 16384, 4096) == 0 && g.n_blocks == 4 &&
	       g.area_size ==
		       16384 - 4 * UT_BLOCK_HDR_SIZE - UT_PAGE_HDR_SIZE &&
	       ut_geom_init_layout(&g, 16384, 512, 7) == -EINVAL &&
	       ut_geom_init_layout(&g, 16384, 512, UT_LAYOUT_COMPACT) == 0 &&
	       g.area_size == 16384 - UT_BLOCK_HDR_SIZE - UT_PAGE_HDR_SIZE -
				      31 * UT_BLOCK_HDR_COMPACT &&
	       ut_geom_init_layout(&g, 16384, 16384, UT_LAYOUT_COMPACT) == 0 &&
	       g.area_size == 16384 - UT_BLOCK_HDR_SIZE - UT_PAGE_HDR_SIZE;
}

static int round_trip(uint32_t ps, uint32_t bs)
{
	struct ut_geom g;
	uint32_t i;

	if (geom(&g, ps, bs))
		return 0;
	make_page(&g, 77, 1000, disk);
	if (ut_page_unpack(&g, disk, 77, &meta2, area2, &rep))
		return 0;
	if (memcmp(area, area2, g.area_size) ||
	    meta2.page_lsn != meta.page_lsn || meta2.type != UT_PAGE_BTREE ||
	    meta2.page_no != 77)
		return 0;
	for (i = 0; i < g.n_blocks; i++)
		if (meta2.blk_lsn[i] != expect_blk_lsn(&meta, i))
			return 0;
	return 1;
}

/* Every logical byte lands where ut_page_locate says. */
static int locate_consistent(uint32_t ps, uint32_t bs)
{
	uint32_t off, block, boff, in_block;
	struct ut_geom g;

	geom(&g, ps, bs);
	make_page(&g, 5, 100, disk);
	for (off = 0; off < g.area_size; off++) {
		ut_page_locate(&g, off, &block, &boff, &in_block);
		if (disk[block * bs + boff] != area[off] || in_block == 0 ||
		    boff + in_block != bs)
			return 0;
	}
	return 1;
}

static int first_fault_is(enum ut_fault_kind kind, uint32_t block)
{
	return rep.n_faults > 0 && rep.fault[0].kind == kind &&
	       rep.fault[0].block == block;
}

/* Flips bits of every block; each flip must be caught at its block. */
static int bit_flips(uint32_t ps, uint32_t bs, int exhaustive, long *flips)
{
	uint32_t bit, nbits = bs * 8, b, i;
	struct ut_geom g;

	geom(&g, ps, bs);
	make_page(&g, 9, 500, disk);
	for (b = 0; b < g.n_blocks; b++) {
		for (i = 0; i < (exhaustive ? nbits : 256); i++) {
			bit = exhaustive ? i : (i < 192 ? i : rand() % nbits);
			disk[b * bs + bit / 8] ^= 1 << (bit % 8);
			if (ut_page_verify(&g, disk, 9, &rep) != -EBADMSG ||
			    rep.fault[0].block != b) {
				ktap_diag("flip of bit %u in block %u missed",
					  bit, b);
				return 0;
			}
			disk[b * bs + bit / 8] ^= 1 << (bit % 8);
			(*flips)++;
		}
	}
	return ut_page_verify(&g, disk, 9, &rep) == 0;
}

/* First k blocks from one image, the rest from another: torn at block k. */
static int torn_boundaries(uint32_t ps, uint32_t bs)
{
	struct ut_geom g;
	uint32_t k;

	geom(&g, ps, bs);
	make_page(&g, 3, 100, disk); /* old image */
	make_page(&g, 3, 200, disk2); /* new image */
	for (k = 1; k < g.n_blocks; k++) {
		unsigned char *mix = malloc(ps);

		memcpy(mix, disk2, k * bs);
		memcpy(mix + k * bs, disk + k * bs, ps - k * bs);
		if (ut_page_verify(&g, mix, 3, &rep) != -EBADMSG ||
		    !first_fault_is(UT_FAULT_TORN, k) ||
		    rep.fault[0].expected != 200 || rep.fault[0].found != 100) {
			ktap_diag("new..old tear at block %u of %u-byte page not reported there",
				  k, ps);
			free(mix);
			return 0;
		}
		memcpy(mix, disk, k * bs);
		memcpy(mix + k * bs, disk2 + k * bs, ps - k * bs);
		if (ut_page_verify(&g, mix, 3, &rep) != -EBADMSG ||
		    !first_fault_is(UT_FAULT_TORN, k)) {
			ktap_diag("old..new tear at block %u not reported there",
				  k);
			free(mix);
			return 0;
		}
		free(mix);
	}
	return 1;
}

/* A tear inside a block (one 512-byte sector new) fails that block's CRC. */
static int torn_inside_block(void)
{
	struct ut_geom g;
	uint32_t k;

	geom(&g, 16384, 4096);
	make_page(&g, 3, 100, disk);
	make_page(&g, 3, 200, disk2);
	for (k = 0; k < g.n_blocks; k++) {
		memcpy(area2, disk, 16384);
		memcpy(area2 + k * 4096, disk2 + k * 4096, 512);
		if (ut_page_verify(&g, area2, 3, &rep) != -EBADMSG ||
		    !first_fault_is(UT_FAULT_CHECKSUM, k))
			return 0;
	}
	return 1;
}

static int zero_and_misplaced(void)
{
	struct ut_geom g;

	geom(&g, 16384, 4096);
	memset(disk, 0, 16384);
	if (ut_page_verify(&g, disk, 4, &rep) != UT_PAGE_EMPTY)
		return 0;
	make_page(&g, 4, 100, disk);
	memset(disk + 2 * 4096, 0, 4096);
	if (ut_page_verify(&g, disk, 4, &rep) != -EBADMSG ||
	    !first_fault_is(UT_FAULT_ZERO_BLOCK, 2))
		return 0;
	make_page(&g, 4, 100, disk);
	if (ut_page_verify(&g, disk, 5, &rep) != -EBADMSG ||
	    !first_fault_is(UT_FAULT_PAGE_NO, 0) || rep.fault[0].found != 4)
		return 0;
	make_page(&g, 8, 100, disk2);
	memcpy(disk + 4096, disk2 + 4096, 4096); /* block of page 8 */
	if (layout == UT_LAYOUT_COMPACT) /* the page number is in the CRC */
		return ut_page_verify(&g, disk, 4, &rep) == -EBADMSG &&
		       first_fault_is(UT_FAULT_CHECKSUM, 1);
	return ut_page_verify(&g, disk, 4, &rep) == -EBADMSG &&
	       first_fault_is(UT_FAULT_PAGE_NO, 1) && rep.fault[0].found == 8;
}

/* Two 8 KiB pages read as one 16 KiB page: geometry fault at block 0. */
static int other_page_size(void)
{
	struct ut_geom g8, g16;

	geom(&g8, 8192, 4096);
	geom(&g16, 16384, 4096);
	make_page(&g8, 2, 100, disk);
	make_page(&g8, 3, 100, disk + 8192);
	return ut_page_verify(&g16, disk, 2, &rep) == -EBADMSG &&
	       first_fault_is(UT_FAULT_GEOMETRY, 0);
}

/* Recovery's view: torn and zeroed blocks are rebuildable, a checksum
 * failure is not. */
static int tolerate_torn(void)
{
	struct ut_geom g;
	int ret;

	geom(&g, 16384, 4096);
	make_page(&g, 6, 100, disk);
	make_page(&g, 6, 200, disk2);
	memcpy(disk + 8192, disk2 + 8192, 8192); /* torn */
	memset(disk + 12288, 0, 4096); /* and zeroed */
	ret = ut_page_unpack_inplace(&g, disk, 6, &meta2, &rep,
				     UT_UNPACK_TOLERATE_TORN);
	if (ret != UT_PAGE_TORN || meta2.blk_lsn[3] != 0 ||
	    meta2.page_lsn != 200)
		return 0;
	/* a compact block of the newer image counts from that image's LSN */
	if (layout == UT_LAYOUT_COMPACT && meta2.blk_lsn[2] != 200)
		return 0;
	make_page(&g, 6, 100, disk);
	if (ut_page_unpack_inplace(&g, disk, 6, &meta2, &rep, 0) != 0)
		return 0;
	make_page(&g, 6, 100, disk);
	disk[5000] ^= 1;
	return ut_page_unpack_inplace(&g, disk, 6, &meta2, &rep,
				      UT_UNPACK_TOLERATE_TORN) == -EBADMSG;
}

static int touch_marks_blocks(void)
{
	uint32_t block, boff, in_block;
	struct ut_geom g;

	geom(&g, 16384, 4096);
	ut_page_meta_init(&g, &meta, 1, UT_PAGE_BTREE, 0, 10);
	/* a range that ends 1 byte into block 2 */
	ut_page_locate(&g, 5000, &block, &boff, &in_block);
	ut_page_touch(&g, &meta, 5000, in_block + 1, 42);
	return block == 1 && meta.blk_lsn[0] == 10 && meta.blk_lsn[1] == 42 &&
	       meta.blk_lsn[2] == 42 && meta.blk_lsn[3] == 10 &&
	       meta.page_lsn == 42;
}

/* The tests that hold in either layout, as one KTAP line each. */
static void layout_tests(const char *name)
{
	static const uint32_t bsizes[] = { 512, 1024, 4096 };
	uint32_t ps, i;
	long flips = 0;
	int ok;

	ok = 1;
	for (ps = UT_PAGE_SIZE_MIN; ps <= UT_PAGE_SIZE_MAX; ps <<= 1)
		for (i = 0; i < 3; i++)
			ok &= round_trip(ps, bsizes[i]);
	ktap_ok(ok,
		"%s: round trip at every page size 4..64 KiB x block size 512/1k/4k",
		name);
	ok = 1;
	for (ps = UT_PAGE_SIZE_MIN; ps <= UT_PAGE_SIZE_MAX; ps <<= 1)
		ok &= locate_consistent(ps, 4096) && locate_consistent(ps, 512);
	ktap_ok(ok, "%s: every logical byte lands where ut_page_locate says",
		name);
	ok = bit_flips(16384, 4096, 1, &flips) &&
	     bit_flips(4096, 512, 1, &flips);
	ktap_ok(ok,
		"%s: every single-bit flip of a 16k/4k and a 4k/512 page is caught at its block (%ld flips)",
		name, flips);
	flips = 0;
	ok = 1;
	for (ps = UT_PAGE_SIZE_MIN; ps <= UT_PAGE_SIZE_MAX; ps <<= 1)
		ok &= bit_flips(ps, 4096, 0, &flips) &&
		      bit_flips(ps, 1024, 0, &flips) &&
		      bit_flips(ps, 512, 0, &flips);
	ktap_ok(ok,
		"%s: header and sampled payload bit flips caught in every block at every page size (%ld flips)",
		name, flips);
	ok = 1;
	for (ps = 8192; ps <= UT_PAGE_SIZE_MAX; ps <<= 1)
		ok &= torn_boundaries(ps, 4096) && torn_boundaries(ps, 512);
	ktap_ok(ok,
		"%s: a page torn at each block boundary is reported as torn at that block",
		name);
	ktap_ok(torn_inside_block(),
		"%s: a tear inside a block fails that block's checksum", name);
	ktap_ok(zero_and_misplaced(),
		"%s: all-zero page is empty; zeroed and misplaced blocks are reported",
		name);
	ktap_ok(other_page_size(),
		"%s: a page written with another page size is a geometry fault",
		name);
	ktap_ok(tolerate_torn(),
		"%s: recovery unpacks torn and zeroed blocks (LSN 0), never a checksum failure",
		name);
}

int main(void)
{
	srand(7);
	ktap_plan(20);
	ktap_ok(test_geometry(),
		"geometry: sizes that are not powers of two or out of range are refused; each layout's record area");
	layout = UT_LAYOUT_FULL;
	layout_tests("full");
	layout = UT_LAYOUT_COMPACT;
	layout_tests("compact");
	layout = UT_LAYOUT_FULL;
	ktap_ok(touch_marks_blocks(),
		"ut_page_touch moves the LSN of exactly the blocks it covers");
	return ktap_finish();
}
