// SPDX-License-Identifier: MIT
/*
 * fuzz_dblwr.c - libFuzzer harness for doublewrite recovery: segment
 * headers (magic, checksum, count, page size, store UUID, sequence) and
 * the slot table of page numbers, and the copies they point at.
 *
 * Setup: a doublewrite file of 2 segments x 4 pages of 4 KiB (512-byte
 * blocks) and a data file of 8 pages, pages 1..7 sound.  Input: byte 0
 * flags (bit 0: segment 1 instead of 0; bit 1: give the header the right
 * magic, page size and UUID and seal its checksum, so that the slot table
 * and the copies are what is being tested; bit 2: tear the in-place page
 * 3; bit 3: make each copy a sound, newer image of the page its slot
 * names, so that the restore decisions are what is being tested), then
 * the segment: header and copies.
 *
 * Contract: ut_dblwr_restore returns 0; it never restores more pages than
 * it checked nor more than the segments hold; every page it restored
 * verifies in the data file afterwards; it never writes page 0 or past
 * the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/crc32c.h"
#include "page/page.h"
#include "guard/dblwr.h"

#define PS 4096u
#define BATCH 4u
#define N_PAGES 8u
#define SEG_BYTES (UT_DBLWR_HDR + BATCH * PS)

static struct ut_dblwr dblwr;
static struct ut_geom geom;
static int data_fd;
static unsigned char pristine[N_PAGES * PS], page0[PS];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t uuid[16] = { 9, 8, 7, 6 };
	char dir[] = "/tmp/untorn-fuzz-dblwr-XXXXXX", path[64];
	static unsigned char area[PS];
	struct ut_page_meta meta;
	struct ut_err err;
	uint32_t p;

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir) || ut_geom_init(&geom, PS, 512))
		abort();
	snprintf(path, sizeof(path), "%s/untorn.dblwr", dir);
	if (ut_dblwr_create(path, 2, BATCH, PS, &err) ||
	    ut_dblwr_open(&dblwr, path, PS, uuid, &err))
		abort();
	unlink(path);
	snprintf(path, sizeof(path), "%s/untorn.dat", dir);
	data_fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (data_fd < 0)
		abort();
	unlink(path);
	rmdir(dir);
	for (p = 1; p < N_PAGES; p++) {
		memset(area, p, sizeof(area));
		ut_page_meta_init(&geom, &meta, p, 1, 0, 100 + p);
		ut_page_pack(&geom, &meta, area, pristine + p * PS);
	}
	memset(page0, 0xa5, sizeof(page0));
	memcpy(pristine, page0, PS);
	return 0;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* each slot's copy: a sound image of the page it names, newer than the
 * data file's (slots naming no page of the file keep their bytes) */
static void sound_copies(unsigned char *seg)
{
	static unsigned char area[PS];
	struct ut_page_meta meta;
	uint32_t page_no;
	unsigned i;

	for (i = 0; i < BATCH; i++) {
		page_no = seg[48 + 4 * i] | seg[49 + 4 * i] << 8 |
			  seg[50 + 4 * i] << 16 |
			  (uint32_t)seg[51 + 4 * i] << 24;
		if (page_no == 0 || page_no >= N_PAGES)
			continue;
		memset(area, 0x40 + i, sizeof(area));
		ut_page_meta_init(&geom, &meta, page_no, 1, 0, 200 + i);
		ut_page_pack(&geom, &meta, area, seg + UT_DBLWR_HDR + i * PS);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char seg[SEG_BYTES], after[N_PAGES * PS];
	struct ut_dblwr_restore rep;
	struct ut_err err;
	unsigned s, i;
	int ret;

	if (size < 1 || size > SEG_BYTES + 1)
		return 0;
	s = data[0] & 1;
	memset(seg, 0, sizeof(seg));
	memcpy(seg, data + 1, size - 1);
	if (data[0] & 8)
		sound_copies(seg);
	if (data[0] & 2) {
		memcpy(seg, "UNTORNDW", 8);
		put_le32(seg + 24, PS);
		memcpy(seg + 28, dblwr.uuid, 16);
		put_le32(seg + 8, ut_crc32c(0, seg + 12, UT_DBLWR_HDR - 12));
	}
	if (pwrite(dblwr.fd, seg, SEG_BYTES, UT_DBLWR_HDR + s * SEG_BYTES) !=
	    SEG_BYTES)
		abort();
	memset(seg, 0, sizeof(seg)); /* the other segment: empty */
	if (pwrite(dblwr.fd, seg, SEG_BYTES, UT_DBLWR_HDR + !s * SEG_BYTES) !=
	    SEG_BYTES)
		abort();
	if (pwrite(data_fd, pristine, sizeof(pristine), 0) != sizeof(pristine))
		abort();
	if ((data[0] & 4) && pwrite(data_fd, "torn", 4, 3 * PS + 600) != 4)
		abort();

	ret = ut_dblwr_restore(&dblwr, &geom, data_fd, N_PAGES, &rep, &err);
	if (ret)
		abort();
	if (rep.pages_restored > rep.pages_checked ||
	    rep.pages_checked > 2 * BATCH)
		abort();
	if (pread(data_fd, after, sizeof(after), 0) != sizeof(after) ||
	    memcmp(after, page0, PS))
		abort(); /* page 0 is never restored */
	for (i = 0; i < rep.pages_restored && i < 64; i++)
		if (rep.restored[i] == 0 || rep.restored[i] >= N_PAGES ||
		    ut_page_verify(&geom, after + rep.restored[i] * PS,
				   rep.restored[i], NULL))
			abort();
	return 0;
}
