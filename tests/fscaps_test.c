// SPDX-License-Identifier: MIT
/*
 * fscaps_test.c - the filesystem facts parsers (mountinfo lines with
 * escapes and optional fields, ext4 options, jbd2 info) and the verdict
 * rules for every guard on synthetic filesystems: ext4 data=ordered and
 * data=journal, XFS with and without atomic units, nobarrier, tmpfs,
 * btrfs; InnoDB's 16k and 4k pages.
 */
#include <string.h>
#include "fscaps.h"
#include "guard/guard.h"
#include "ktap.h"

static int parse_mountinfo(void)
{
	struct ut_mount m;
	const char *l1 =
		"36 35 98:0 /mnt1 /mnt\\040with\\040space rw,noatime master:1 shared:7 - ext4 /dev/loop3 rw,data=journal,commit=5\n";
	const char *l2 = "22 1 0:21 / /dev/shm rw,nosuid - tmpfs tmpfs rw\n";

	return !ut_mountinfo_parse(l1, &m) && m.major == 98 && m.minor == 0 &&
	       !strcmp(m.mount_point, "/mnt with space") &&
	       !strcmp(m.fstype, "ext4") && !strcmp(m.source, "/dev/loop3") &&
	       !strcmp(m.super_opts, "rw,data=journal,commit=5") &&
	       !ut_mountinfo_parse(l2, &m) && !strcmp(m.fstype, "tmpfs") &&
	       ut_mountinfo_parse("36 35 98:0 /a /b rw\n", &m) == -22 &&
	       ut_mountinfo_parse("", &m) == -22 &&
	       ut_mountinfo_parse("x y zz /a /b rw - ext4 /dev/x rw\n", &m) ==
		       -22;
}

static int parse_opts(void)
{
	enum ut_data_mode mode;
	int commit, barrier;

	ut_mount_opts_parse("rw,data=journal,commit=5", &mode, &commit,
			    &barrier);
	if (mode != UT_DATA_JOURNAL || commit != 5 || barrier != 1)
		return 0;
	ut_mount_opts_parse("rw,relatime", &mode, &commit, &barrier);
	if (mode != UT_DATA_ORDERED || commit != -1 || barrier != 1)
		return 0;
	ut_mount_opts_parse("rw,nobarrier,data=writeback", &mode, &commit,
			    &barrier);
	if (mode != UT_DATA_WRITEBACK || barrier != 0)
		return 0;
	ut_mount_opts_parse("rw,barrier=0,journal_checksum", &mode, &commit,
			    &barrier);
	return barrier == 0 && mode == UT_DATA_ORDERED;
}

static int parse_jbd2(void)
{
	return ut_jbd2_info_parse(
		       "12 transactions (10 requested), each up to 8192 blocks\naverage: ...") ==
		       8192 &&
	       ut_jbd2_info_parse("garbage") == 0 &&
	       ut_jbd2_info_parse("each up to 99999999999999 blocks") == 0;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* An ext4 superblock's journal: its size from the inode's backup, and 0
 * for no journal flag, an external journal, no backup, another magic. */
static int ext4_journal(void)
{
	unsigned char sb[1024] = { 0 };
	int ok;

	sb[0x38] = 0x53;
	sb[0x39] = 0xef;
	put_le32(sb + 0x5c, 0x4 | 0x10); /* has_journal, resize_inode */
	put_le32(sb + 0xe0, 8);
	sb[0xfd] = 1;
	put_le32(sb + 0x10c + 15 * 4, 1); /* 4 GiB + ... */
	put_le32(sb + 0x10c + 16 * 4, 1u << 30); /* ... 1 GiB */
	ok = ut_ext4_journal_bytes(sb) == (5ull << 30);
	sb[0xfd] = 0;
	ok &= ut_ext4_journal_bytes(sb) == 0;
	sb[0xfd] = 1;
	put_le32(sb + 0xe0, 0); /* an external journal */
	ok &= ut_ext4_journal_bytes(sb) == 0;
	put_le32(sb + 0xe0, 8);
	put_le32(sb + 0x5c, 0x10);
	ok &= ut_ext4_journal_bytes(sb) == 0;
	put_le32(sb + 0x5c, 0x4);
	sb[0x38] = 0x58; /* XFS's superblock is not ext4's */
	return ok && ut_ext4_journal_bytes(sb) == 0;
}

static void fs(struct ut_fscaps *c, const char *type, enum ut_data_mode mode)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->mnt.fstype, sizeof(c->mnt.fstype), "%s", type);
	c->data_mode = mode;
	c->durable = strcmp(type, "tmpfs") != 0;
	c->cow = !strcmp(type, "btrfs");
	c->barrier = 1;
	c->fs_block = 4096;
}

static int safe(const struct ut_fscaps *c, const char *guard, uint32_t ps,
		uint32_t bs)
{
	struct ut_verdict v;

	ut_guard_verdict(ut_guard_find(guard), c, ps, bs, &v);
	if (!v.safe && (!v.reason[0] || !v.fix[0]))
		return -1; /* an unsafe verdict always says why and what to do */
	return v.safe;
}

static int innodb(const struct ut_fscaps *c, uint32_t ps)
{
	struct ut_verdict v;

	ut_fscaps_innodb_verdict(c, ps, &v);
	return v.safe;
}

/* The verdict's reason and fix hold these words. */
static int says(const struct ut_fscaps *c, const char *who, uint32_t ps,
		uint32_t bs, const char *reason, const char *fix)
{
	struct ut_verdict v;

	if (!strcmp(who, "innodb"))
		ut_fscaps_innodb_verdict(c, ps, &v);
	else
		ut_guard_verdict(ut_guard_find(who), c, ps, bs, &v);
	if (strstr(v.reason, reason) && strstr(v.fix, fix))
		return 1;
	ktap_diag("%s: reason '%s', fix '%s'", who, v.reason, v.fix);
	return 0;
}

/* The InnoDB verdict's fix does not hold these words. */
static int fix_lacks(const struct ut_fscaps *c, uint32_t ps, const char *words)
{
	struct ut_verdict v;

	ut_fscaps_innodb_verdict(c, ps, &v);
	if (!strstr(v.fix, words))
		return 1;
	ktap_diag("innodb %u: fix '%s' has '%s'", ps, v.fix, words);
	return 0;
}

int main(void)
{
	struct ut_fscaps c;
	int ok;

	ktap_plan(17);
	ktap_ok(parse_mountinfo(),
		"mountinfo: escaped spaces, optional fields, malformed lines refused");
	ktap_ok(parse_opts(),
		"ext4 options: data=, commit=, nobarrier, barrier=0");
	ktap_ok(parse_jbd2(),
		"jbd2 info: transaction size, garbage and overflow refused");
	ktap_ok(ext4_journal(),
		"ext4 superblock: the journal's size from its inode's backup; none without the flag, external, unbacked, not ext4");

	fs(&c, "ext4", UT_DATA_ORDERED);
	ktap_ok(safe(&c, "doublewrite", 16384, 4096) == 1 &&
			safe(&c, "journal", 16384, 4096) == 0 &&
			safe(&c, "atomic", 16384, 4096) == 0 &&
			safe(&c, "none", 16384, 4096) == 0 &&
			!innodb(&c, 16384) && !innodb(&c, 4096),
		"ext4 data=ordered: doublewrite only; InnoDB doublewrite off unsafe");
	/* per-file data journaling: chattr +j, honoured only on nodelalloc */
	fs(&c, "ext4", UT_DATA_ORDERED);
	c.journal_flag = 1;
	c.delalloc = 1;
	ok = safe(&c, "journal", 16384, 4096) == 0 &&
	     says(&c, "journal", 16384, 4096, "delays allocation",
		  "nodelalloc");
	c.delalloc = 0;
	ok = ok && safe(&c, "journal", 16384, 4096) == 1 &&
	     says(&c, "journal", 16384, 4096, "chattr +j", "") &&
	     safe(&c, "atomic", 16384, 4096) == 0 && !innodb(&c, 16384) &&
	     innodb(&c, 4096);
	c.journal_flag = 0;
	ok = ok && says(&c, "journal", 16384, 4096, "data=ordered",
			"CAP_SYS_RESOURCE");
	ktap_ok(ok,
		"ext4 data=ordered with chattr +j: journal safe only on nodelalloc (the fix says so); without +j the fix offers it and names CAP_SYS_RESOURCE");
	fs(&c, "ext4", UT_DATA_JOURNAL);
	ktap_ok(safe(&c, "journal", 16384, 4096) == 1 &&
			safe(&c, "journal", 16384, 16384) == 0 &&
			safe(&c, "journal", 4096, 4096) == 1 &&
			safe(&c, "atomic", 16384, 4096) == 0 &&
			!innodb(&c, 16384) && innodb(&c, 4096),
		"ext4 data=journal: untorn journal safe, single-LSN 16k unsafe, 4k on 4k blocks safe (InnoDB too)");
	c.jw_module = 1;
	ktap_ok(!innodb(&c, 16384) && innodb(&c, 4096) &&
			safe(&c, "journal", 16384, 16384) == 1,
		"ext4 data=journal with untorn_jw loaded: untorn's one-LSN 16k pages (written through it) safe, stock InnoDB's still not");
	fs(&c, "xfs", UT_DATA_NA);
	c.atomic_min = 4096;
	c.atomic_max = 65536;
	ktap_ok(safe(&c, "atomic", 16384, 4096) == 1 &&
			safe(&c, "atomic", 131072 / 2, 4096) == 1 &&
			safe(&c, "journal", 16384, 4096) == 0 &&
			(c.atomic_max = 8192,
			 safe(&c, "atomic", 16384, 4096) == 0) &&
			(c.atomic_max = 0, safe(&c, "atomic", 4096, 4096) == 0),
		"XFS: atomic safe only when statx's unit range holds the page");
	c.atomic_max = 2 << 20;
	ktap_ok(safe(&c, "atomic", 16384, 4096) == 1 &&
			says(&c, "atomic", 16384, 4096,
			     "XFS's software atomic writes", "") &&
			(c.atomic_max_opt = 65536,
			 says(&c, "atomic", 16384, 4096,
			      "hardware atomic writes", "")) &&
			says(&c, "atomic", 131072, 4096,
			     "XFS's software atomic writes", "") &&
			(c.atomic_max_opt = 0, c.dev_atomic_unit_max = 16384,
			 says(&c, "atomic", 16384, 4096,
			      "hardware atomic writes", "")) &&
			(fs(&c, "ext4", UT_DATA_ORDERED), c.atomic_min = 4096,
			 c.atomic_max = 16384,
			 safe(&c, "atomic", 16384, 4096) == 1 &&
				 says(&c, "atomic", 16384, 4096,
				      "hardware atomic writes", "")),
		"atomic: the verdict says hardware where the device writes the page itself (statx unit_max_opt, or the device's unit before 6.16; ext4 always), XFS's software path where not");
	fs(&c, "ext4", UT_DATA_JOURNAL);
	c.barrier = 0;
	ktap_ok(safe(&c, "doublewrite", 16384, 4096) == 0 &&
			safe(&c, "journal", 16384, 4096) == 0,
		"nobarrier: nothing is safe");
	fs(&c, "tmpfs", UT_DATA_NA);
	ktap_ok(safe(&c, "doublewrite", 16384, 4096) == 0 &&
			(fs(&c, "btrfs", UT_DATA_NA),
			 innodb(&c, 16384) &&
				 safe(&c, "none", 16384, 4096) == 1),
		"tmpfs: nothing is safe; btrfs (copy-on-write): doublewrite off is safe");
	fs(&c, "ext4", UT_DATA_ORDERED);
	c.no_journal = 1;
	ktap_ok(safe(&c, "doublewrite", 16384, 4096) == 1 &&
			safe(&c, "journal", 16384, 4096) == 0 &&
			safe(&c, "none", 4096, 4096) == 0 &&
			!innodb(&c, 4096) &&
			says(&c, "innodb", 16384, 16384, "has no journal",
			     "tune2fs -O has_journal"),
		"ext4 without a journal: only doublewrite; the fix adds a journal, not data=journal");
	fs(&c, "btrfs", UT_DATA_NA);
	c.cow = 0;
	c.nocow = 1;
	c.nocow_files = 3;
	c.files_seen = 7;
	snprintf(c.nocow_first, sizeof(c.nocow_first), "db/t.ibd");
	ktap_ok(!innodb(&c, 16384) && safe(&c, "none", 16384, 4096) == 0 &&
			safe(&c, "doublewrite", 16384, 4096) == 1 &&
			says(&c, "innodb", 16384, 16384,
			     "3 of 7 files under the path are NOCOW",
			     "innodb_doublewrite=ON"),
		"btrfs with NOCOW files (chattr +C): overwritten in place, InnoDB unsafe");
	fs(&c, "xfs", UT_DATA_NA);
	ok = fix_lacks(&c, 16384, "fix-journal") &&
	     fix_lacks(&c, 4096, "fix-journal") &&
	     says(&c, "innodb", 16384, 16384, "overwrites",
		  "a new filesystem would") &&
	     says(&c, "innodb", 4096, 4096, "overwrites", "dump and reload");
	fs(&c, "ext4", UT_DATA_ORDERED);
	ok = ok && fix_lacks(&c, 16384, "or mount with data=journal") &&
	     says(&c, "innodb", 16384, 16384, "overwrites",
		  "no mount keeps pages larger than the block whole") &&
	     says(&c, "innodb", 16384, 16384, "overwrites",
		  "a new instance and a dump and reload") &&
	     says(&c, "innodb", 4096, 4096, "overwrites",
		  "or mount with data=journal: ") &&
	     says(&c, "innodb", 4096, 4096, "overwrites", "fix-journal");
	ktap_ok(ok,
		"InnoDB's fix works where it is given: XFS never sent to fix-journal, 16k ext4 told no mount helps (a new page size is a new instance, then fix-journal), 4k ext4 sent to fix-journal");
	fs(&c, "btrfs", UT_DATA_NA);
	c.scan_incomplete = 1;
	ktap_ok(!innodb(&c, 16384) && safe(&c, "none", 16384, 4096) == 0 &&
			says(&c, "innodb", 16384, 16384,
			     "not every directory under the path could be read",
			     "run the check as root"),
		"btrfs whose walk for NOCOW entries was incomplete: copy-on-write unproven, unsafe");
	fs(&c, "ext4", UT_DATA_JOURNAL);
	c.fs_block = 1024;
	ktap_ok(!innodb(&c, 4096) && safe(&c, "journal", 16384, 1024) == 1 &&
			says(&c, "innodb", 16384, 16384, "1024-byte blocks",
			     "mkfs.ext4 -b 4096"),
		"ext4 data=journal with 1 KiB blocks: InnoDB told the block size and to remake with -b 4096; untorn's 1 KiB blocks safe");
	return ktap_finish();
}
