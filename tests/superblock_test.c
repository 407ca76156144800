// SPDX-License-Identifier: MIT
/*
 * superblock_test.c - page 0: encoding round trip, a damaged checkpoint
 * slot (either one) falls back to the other, both damaged or a damaged
 * header refuse to open, a checkpoint repairs the damaged slot, slots from
 * another store are refused.
 */
#include <errno.h>
#include <string.h>
#include "store/store.h"
#include "ktap.h"
#include "testlib.h"

static char dir[300], dat[340];

static int open_ckpt(struct ut_ckpt *ck, int *slot, int slot_err[2],
		     struct ut_err *err)
{
	struct ut_store *st;
	int ret;

	ret = ut_store_open(dir, 0, &st, err);
	if (ret)
		return ret;
	*ck = st->ckpt;
	*slot = st->ckpt_slot;
	memcpy(slot_err, st->slot_err, sizeof(st->slot_err));
	ut_store_close(st);
	return 0;
}

static int write_ckpt(uint64_t lsn)
{
	struct ut_store *st;
	struct ut_err err;
	struct ut_ckpt ck;
	int ret;

	ret = ut_store_open(dir, 0, &st, &err);
	if (ret)
		return ret;
	ck = st->ckpt;
	ck.checkpoint_lsn = lsn;
	ret = ut_store_write_checkpoint(st, &ck, &err);
	ut_store_close(st);
	return ret;
}

static int encode_round_trip(void)
{
	unsigned char sec[UT_SB_SECTOR];
	struct ut_sb sb = {
		.version = UT_FORMAT_VERSION, .page_size = 16384,
		.block_size = 4096, .extent_pages = 64,
		.guard = UT_GUARD_DOUBLEWRITE, .created = 12345,
	}, out;
	struct ut_ckpt ck = { .seq = 9,
			      .checkpoint_lsn = 77,
			      .n_pages = 5,
			      .root_page = 3 },
		       ck2;

	memset(sb.uuid, 0xab, 16);
	ut_sb_encode(&sb, sec);
	if (ut_sb_decode(sec, &out) || memcmp(&sb, &out, sizeof(sb)))
		return 0;
	sec[8] = 2; /* version 2 */
	if (ut_sb_decode(sec, &out) != UT_SB_ECRC)
		return 0;
	/* the compact layout is version 2 with its flag, never one alone */
	sb.version = UT_FORMAT_COMPACT;
	sb.flags = UT_SB_COMPACT;
	ut_sb_encode(&sb, sec);
	if (ut_sb_decode(sec, &out) || ut_sb_layout(&out) != UT_LAYOUT_COMPACT)
		return 0;
	sb.flags = 0;
	ut_sb_encode(&sb, sec);
	if (ut_sb_decode(sec, &out) != UT_SB_EFIELD)
		return 0;
	sb.version = UT_FORMAT_VERSION;
	sb.flags = UT_SB_COMPACT;
	ut_sb_encode(&sb, sec);
	if (ut_sb_decode(sec, &out) != UT_SB_EFIELD)
		return 0;
	sb.version = 3;
	sb.flags = 0;
	ut_sb_encode(&sb, sec);
	if (ut_sb_decode(sec, &out) != UT_SB_EVERSION)
		return 0;
	ut_ckpt_encode(&ck, sb.uuid, 1, sec);
	if (ut_ckpt_decode(sec, sb.uuid, 1, &ck2) || ck2.seq != 9 ||
	    ck2.checkpoint_lsn != 77 || ck2.n_pages != 5 || ck2.root_page != 3)
		return 0;
	if (ut_ckpt_decode(sec, sb.uuid, 0, &ck2) != UT_SB_EFIELD)
		return 0;
	sb.uuid[0] ^= 1;
	return ut_ckpt_decode(sec, sb.uuid, 1, &ck2) == UT_SB_EFIELD;
}

int main(void)
{
	struct ut_init_opts opts = { .page_size = 16384,
				     .guard = UT_GUARD_DOUBLEWRITE };
	struct ut_ckpt ck = { 0 };
	struct ut_err err;
	int slot = -1, slot_err[2], ret;

	test_scratch_dir("superblock");
	test_path(dir, sizeof(dir), "store");
	snprintf(dat, sizeof(dat), "%s/%s", dir, UT_DATA_FILE);
	ktap_plan(8);
	ktap_ok(encode_round_trip(),
		"header and slot encode/decode round trip; version change, wrong slot and foreign store refused");

	ret = ut_store_init(dir, &opts, &err);
	if (!ret)
		ret = write_ckpt(500); /* slot 0, seq 3 */
	if (!ret)
		ret = open_ckpt(&ck, &slot, slot_err, &err);
	ktap_ok(!ret && slot == 0 && ck.seq == 3 && ck.checkpoint_lsn == 500,
		"checkpoint goes to the slot that was not current (slot 0, seq 3)");

	file_flip_byte(dat, UT_SB_SECTOR + 30);
	ret = open_ckpt(&ck, &slot, slot_err, &err);
	ktap_ok(!ret && slot == 1 && ck.checkpoint_lsn == UT_LSN_START &&
			slot_err[0] == UT_SB_ECRC && slot_err[1] == 0,
		"damaged slot 0 falls back to slot 1");

	ret = write_ckpt(900); /* must go to slot 0 and repair it */
	if (!ret)
		ret = open_ckpt(&ck, &slot, slot_err, &err);
	ktap_ok(!ret && slot == 0 && ck.checkpoint_lsn == 900 && !slot_err[0],
		"the next checkpoint rewrites the damaged slot");

	file_flip_byte(dat, UT_SB_SECTOR + 30);
	file_flip_byte(dat, 2 * UT_SB_SECTOR + 30);
	file_flip_byte(dat, UT_SB_SECTOR + 30); /* slot 0 sound again */
	ret = open_ckpt(&ck, &slot, slot_err, &err);
	ktap_ok(!ret && slot == 0 && ck.checkpoint_lsn == 900 &&
			slot_err[1] == UT_SB_ECRC,
		"damaged slot 1 falls back to slot 0");

	file_flip_byte(dat, UT_SB_SECTOR + 30);
	ret = open_ckpt(&ck, &slot, slot_err, &err);
	ktap_ok(ret == -EBADMSG &&
			strstr(err.msg, "both checkpoint slots are damaged"),
		"both slots damaged: refused (%s)", ret ? err.msg : "opened");
	file_flip_byte(dat, UT_SB_SECTOR + 30);
	file_flip_byte(dat, 2 * UT_SB_SECTOR + 30);

	file_flip_byte(dat, 20);
	ret = open_ckpt(&ck, &slot, slot_err, &err);
	ktap_ok(ret == UT_SB_ECRC &&
			strstr(err.msg, "superblock checksum mismatch"),
		"damaged header: refused (%s)", ret ? err.msg : "opened");
	file_flip_byte(dat, 20);
	ret = open_ckpt(&ck, &slot, slot_err, &err);
	ktap_ok(!ret && ck.checkpoint_lsn == 900,
		"store opens again once the header is restored");
	return ktap_finish();
}
