// SPDX-License-Identifier: MIT
/*
 * fuzz_page.c - libFuzzer harness for the page format: block headers,
 * block CRCs and the page verify/unpack paths, on bytes a crash or a bad
 * disk left.  The first input byte picks the geometry (4..64 KiB pages,
 * 512..4096-byte blocks) and the page number, the second the layout (full
 * or compact block headers); the rest is the image.
 *
 * Contract: verify returns 0, UT_PAGE_EMPTY or -EBADMSG and never reads
 * outside the image; a page that verifies unpacks, and packing what it
 * unpacked gives the same image back; the in-place unpack with torn pages
 * tolerated returns one of its documented values.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "page/page.h"

static const uint32_t page_sizes[] = { 4096, 8192, 16384, 65536 };
static const uint32_t block_sizes[] = { 512, 1024, 4096, 4096 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ut_page_report report;
	struct ut_page_meta meta;
	struct ut_geom g;
	unsigned char *disk, *area, *again, *inplace;
	uint32_t page_no;
	int ret;

	if (size < 3)
		return 0;
	if (ut_geom_init_layout(&g, page_sizes[data[0] & 3],
				block_sizes[(data[0] >> 2) & 3],
				data[1] & 1 ? UT_LAYOUT_COMPACT :
					      UT_LAYOUT_FULL))
		return 0;
	page_no = data[0] >> 4;
	disk = calloc(1, g.page_size);
	area = calloc(1, g.page_size);
	again = calloc(1, g.page_size);
	inplace = malloc(g.page_size);
	if (!disk || !area || !again || !inplace)
		abort();
	memcpy(disk, data + 2, size - 2 < g.page_size ? size - 2 : g.page_size);

	ret = ut_page_verify(&g, disk, page_no, &report);
	if (ret != 0 && ret != UT_PAGE_EMPTY && ret != -EBADMSG)
		abort();
	if (ret == 0) {
		if (ut_page_unpack(&g, disk, page_no, &meta, area, NULL))
			abort();
		ut_page_pack(&g, &meta, area, again);
		if (memcmp(disk, again, g.page_size))
			abort(); /* a sound page must round-trip */
	}
	memcpy(inplace, disk, g.page_size);
	ret = ut_page_unpack_inplace(&g, inplace, page_no, &meta, &report,
				     UT_UNPACK_TOLERATE_TORN);
	if (ret != 0 && ret != UT_PAGE_EMPTY && ret != UT_PAGE_TORN &&
	    ret != -EBADMSG)
		abort();
	if (ret == -EBADMSG && memcmp(inplace, disk, g.page_size))
		abort(); /* documented: buf untouched */
	free(disk);
	free(area);
	free(again);
	free(inplace);
	return 0;
}
