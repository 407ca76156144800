// SPDX-License-Identifier: MIT
/*
 * blockstack_test.c - the unit the devices under a filesystem write
 * whole, on fake sysfs trees (a directory laid out as /sys is, and a
 * mount table of its own): disks and partitions, NVMe, md RAID 1 and
 * RAID 5 with and without a partial parity log, devices untorn does not
 * know, a loop device over a file on ext4 and on tmpfs; and the sector
 * guard's verdict from those facts.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "blockstack.h"
#include "fscaps.h"
#include "guard/guard.h"
#include "ktap.h"

/* paths here are short: a cut one fails its case, never silently */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static char root[PATH_MAX], sys[PATH_MAX], mountinfo[PATH_MAX];

static int put(const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes root/sys/rel (its directories made), from fmt. */
static int put(const char *rel, const char *fmt, ...)
{
	char path[PATH_MAX * 2], cmd[PATH_MAX * 2 + 16];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sys, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	return fclose(f);
}

/* A block device NAME (under PARENT/, or at the top) as major:minor. */
static int dev(const char *name, unsigned maj, unsigned mnr, unsigned lbs)
{
	char rel[256], link[PATH_MAX * 2], target[256];

	snprintf(rel, sizeof(rel), "block/%s/dev", name);
	if (put(rel, "%u:%u\n", maj, mnr))
		return -1;
	snprintf(rel, sizeof(rel), "block/%s/queue/logical_block_size", name);
	if (put(rel, "%u\n", lbs))
		return -1;
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys, maj, mnr);
	snprintf(target, sizeof(target), "../../block/%s", name);
	mkdir(sys, 0755);
	snprintf(rel, sizeof(rel), "%s/dev", sys);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/dev/block", sys);
	mkdir(rel, 0755);
	return symlink(target, link);
}

/* A partition NAME of disk DISK. */
static int part(const char *disk, const char *name, unsigned maj, unsigned mnr)
{
	char rel[256], link[PATH_MAX * 2], target[256];

	snprintf(rel, sizeof(rel), "block/%s/%s/partition", disk, name);
	if (put(rel, "1\n"))
		return -1;
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys, maj, mnr);
	snprintf(target, sizeof(target), "../../block/%s/%s", disk, name);
	return symlink(target, link);
}

/* SLAVE under holder HOLDER (a symlink as sysfs has it). */
static int slave(const char *holder, const char *name)
{
	char link[PATH_MAX * 2], target[256], rel[256];

	snprintf(rel, sizeof(rel), "block/%s/slaves/.keep", holder);
	if (put(rel, "\n"))
		return -1;
	snprintf(link, sizeof(link), "%s/block/%s/slaves/%s", sys, holder,
		 name);
	snprintf(target, sizeof(target), "../../%s", name);
	return symlink(target, link);
}

static uint32_t unit_of(unsigned maj, unsigned mnr, struct ut_block_stack *st)
{
	char layers[512];

	ut_block_stack_probe(sys, mountinfo, maj, mnr, st);
	ut_block_stack_describe(st, layers, sizeof(layers));
	ktap_diag("%u:%u: unit %u, %s%s%s", maj, mnr, st->unit, layers,
		  st->unknown[0] ? "; " : "", st->unknown);
	return st->unit;
}

/* The sector guard's verdict for a filesystem of type t over stack st. */
static int sector_says(const struct ut_block_stack *st, const char *t,
		       enum ut_data_mode mode, uint32_t block, int safe,
		       const char *words)
{
	struct ut_fscaps c;
	struct ut_verdict v;

	memset(&c, 0, sizeof(c));
	snprintf(c.mnt.fstype, sizeof(c.mnt.fstype), "%s", t);
	c.data_mode = mode;
	c.durable = 1;
	c.barrier = 1;
	c.fs_block = 4096;
	c.cow = !strcmp(t, "btrfs");
	c.stack = *st;
	memset(&v, 0, sizeof(v));
	ut_guard_find("sector")->verdict(&c, 16384, block, &v);
	if (v.safe == safe && strstr(v.reason, words) && (safe || v.fix[0]))
		return 1;
	ktap_diag("sector, %s, %u-byte blocks: %s: %s; fix: %s", t, block,
		  v.safe ? "safe" : "unsafe", v.reason, v.fix);
	return 0;
}

int main(void)
{
	struct ut_block_stack st, s512, unknown_st;
	char file[PATH_MAX * 2], rel[PATH_MAX * 2];
	struct stat sb;
	FILE *f;
	int ok;

	ktap_plan(8);
	snprintf(root, sizeof(root), "%s/untorn-blockstack-%d-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", getpid());
	if (!mkdtemp(root)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return KTAP_EXIT_FAIL;
	}
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(mountinfo, sizeof(mountinfo), "%s/mountinfo", root);

	ok = !dev("sda", 8, 0, 512) && !part("sda", "sda1", 8, 1) &&
	     !dev("nvme0n1", 259, 0, 4096) && !dev("sdb", 8, 16, 4096);
	ktap_ok(ok && unit_of(8, 0, &s512) == 512 &&
			unit_of(8, 1, &st) == 512 &&
			!strcmp(st.layer[0].name, "sda") &&
			unit_of(8, 16, &st) == 4096,
		"a disk writes its logical block whole (512 and 4096), a partition its disk's");
	ktap_ok(unit_of(259, 0, &st) == 4096 &&
			strstr(st.layer[0].what, "NVMe"),
		"an NVMe namespace: one 4096-byte logical block");

	ok = !dev("md0", 9, 0, 512) && !put("block/md0/md/level", "raid1\n") &&
	     !slave("md0", "sda") && !slave("md0", "sdb");
	ktap_ok(ok && unit_of(9, 0, &st) == 512 && st.n == 3,
		"md RAID 1 over 512- and 4096-byte disks: the smaller, 512");

	ok = !dev("md1", 9, 1, 4096) && !put("block/md1/md/level", "raid5\n") &&
	     !put("block/md1/md/consistency_policy", "resync\n") &&
	     !slave("md1", "sdb") && !slave("md1", "nvme0n1");
	ok = ok && unit_of(9, 1, &st) == 0 &&
	     strstr(st.unknown, "md1: raid5 without a journal or PPL");
	ok = ok && !put("block/md1/md/consistency_policy", "ppl\n") &&
	     unit_of(9, 1, &st) == 4096;
	ktap_ok(ok,
		"md RAID 5: unknown (the write hole) without a journal or PPL, 4096 with PPL");

	ok = !dev("zram0", 252, 0, 4096) && unit_of(252, 0, &unknown_st) == 0 &&
	     strstr(unknown_st.unknown,
		    "zram0: a block device untorn does not know") &&
	     unit_of(1, 99, &st) == 0 &&
	     strstr(st.unknown, "1:99: not in sysfs");
	ktap_ok(ok,
		"a device untorn does not know, and one not in sysfs: unknown, named");

	/*
	 * loop0 (4096) over a real file: the fake mount table gives the
	 * file's own device number an ext4 mount, and that number leads to
	 * the fake 512-byte sda
	 */
	snprintf(file, sizeof(file), "%s/backing.img", root);
	f = fopen(file, "w");
	ok = f && !fclose(f) && !stat(file, &sb) && !dev("loop0", 7, 0, 4096) &&
	     !put("block/loop0/loop/backing_file", "%s\n", file);
	f = fopen(mountinfo, "w");
	ok = ok && f &&
	     fprintf(f, "36 1 %u:%u / %s rw - ext4 /dev/sda rw\n",
		     major(sb.st_dev), minor(sb.st_dev), root) > 0 &&
	     !fclose(f);
	snprintf(rel, sizeof(rel), "%s/dev/block/%u:%u", sys, major(sb.st_dev),
		 minor(sb.st_dev));
	ok = ok && !symlink("../../block/sda", rel);
	ktap_ok(ok && unit_of(7, 0, &st) == 512 && st.n == 3 &&
			!strcmp(st.layer[1].name, "ext4"),
		"a 4096-byte loop device over a file on ext4 on a 512-byte disk: 512");
	f = fopen(mountinfo, "w");
	ok = f &&
	     fprintf(f, "36 1 %u:%u / %s rw - tmpfs tmpfs rw\n",
		     major(sb.st_dev), minor(sb.st_dev), root) > 0 &&
	     !fclose(f);
	ktap_ok(ok && unit_of(7, 0, &st) == 0 &&
			strstr(st.unknown,
			       "tmpfs: the backing file of loop0 is on tmpfs"),
		"a loop device over a file on tmpfs: unknown, tmpfs named");

	ok = sector_says(&s512, "ext4", UT_DATA_ORDERED, 512, 1,
			 "each 512-byte block") &&
	     sector_says(&s512, "ext4", UT_DATA_ORDERED, 4096, 0,
			 "can tear inside itself") &&
	     sector_says(&unknown_st, "xfs", UT_DATA_NA, 512, 0, "zram0") &&
	     sector_says(&s512, "ext4", UT_DATA_JOURNAL, 512, 0, "buffered") &&
	     sector_says(&unknown_st, "btrfs", UT_DATA_NA, 4096, 1,
			 "copy-on-write") &&
	     sector_says(&s512, "f2fs", UT_DATA_NA, 512, 0,
			 "cannot tell how f2fs") &&
	     sector_says(&s512, "ext4", UT_DATA_ORDERED, 16384, 0, "spans two");
	ktap_ok(ok,
		"the sector guard: safe for blocks within the unit, refused (with the reason) above it, on an unknown stack, on data=journal, on an unknown filesystem, for blocks larger than the filesystem's; btrfs copy-on-write safe");

	snprintf(file, sizeof(file), "rm -rf '%s'", root);
	if (system(file))
		ktap_diag("could not remove %s", root);
	return ktap_finish();
}
