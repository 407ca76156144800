// SPDX-License-Identifier: MIT
/*
 * fuzz_superblock.c - libFuzzer harness for page 0: the superblock sector
 * and the two checkpoint slots (UT_SB_REGION bytes).
 *
 * Contract: decode returns 0 or one of the four documented errors; a
 * superblock that decodes encodes back to a sector that decodes to the
 * same fields; ut_ckpt_pick returns a slot it found sound or -EBADMSG
 * with both slots' errors set.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "page/superblock.h"

static int sb_error(int ret)
{
	return ret == 0 || ret == UT_SB_EMAGIC || ret == UT_SB_ECRC ||
	       ret == UT_SB_EVERSION || ret == UT_SB_EFIELD;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char region[UT_SB_REGION] = { 0 }, sector[UT_SB_SECTOR];
	struct ut_sb sb, sb2;
	struct ut_ckpt ck;
	int slot_err[2] = { 1, 1 };
	int ret;

	memcpy(region, data, size < sizeof(region) ? size : sizeof(region));
	ret = ut_sb_decode(region, &sb);
	if (!sb_error(ret))
		abort();
	if (ret == 0) {
		ut_sb_encode(&sb, sector);
		if (ut_sb_decode(sector, &sb2) || memcmp(&sb, &sb2, sizeof(sb)))
			abort();
	}
	ret = ut_ckpt_pick(region, ret == 0 ? sb.uuid : region + 16, &ck,
			   slot_err);
	if (ret != 0 && ret != 1 && ret != -EBADMSG)
		abort();
	if (ret >= 0 && slot_err[ret] != 0)
		abort();
	if (ret == -EBADMSG && (slot_err[0] == 0 || slot_err[1] == 0))
		abort();
	return 0;
}
