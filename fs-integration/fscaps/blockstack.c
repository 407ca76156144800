// SPDX-License-Identifier: MIT
/*
 * blockstack.c - the unit the I/O stack under a filesystem writes whole:
 * a walk of sysfs from the filesystem's device to the disks, one rule per
 * kind of layer (blockstack.h says which and why).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "blockstack.h"
#include "fscaps.h"

#define UNIT_PASS UINT32_MAX /* a layer that adds no limit of its own */

struct walk {
	const char *sys, *mountinfo;
	struct ut_block_stack *st;
};

static uint32_t walk_dev(struct walk *w, unsigned major, unsigned minor,
			 int depth);

/* snprintf whose truncation is intended: names and reasons are cut. */
static void fmt(char *buf, size_t len, const char *f, ...)
	__attribute__((format(printf, 3, 4)));

static void fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, len, f, ap);
	va_end(ap);
}

/* dir/leaf's first line, without its newline: 0, or -1 unreadable. */
static int read_str(const char *dir, const char *leaf, char *buf, size_t len)
{
	if (ut_sysfs_read(dir, leaf, buf, len))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static uint32_t read_u32(const char *dir, const char *leaf)
{
	return (uint32_t)ut_sysfs_u64(dir, leaf, 0);
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static struct ut_stack_layer *add_layer(struct walk *w, const char *name,
					uint32_t unit)
{
	struct ut_stack_layer *l;

	if (w->st->n >= UT_STACK_LAYERS)
		return NULL;
	l = &w->st->layer[w->st->n++];
	fmt(l->name, sizeof(l->name), "%s", name);
	l->unit = unit;
	return l;
}

/* The walk stops here: unit unknown, and why (the first reason kept). */
static uint32_t unknown(struct walk *w, const char *name, const char *why)
{
	struct ut_stack_layer *l = add_layer(w, name, 0);

	if (l)
		fmt(l->what, sizeof(l->what), "%s", why);
	if (!w->st->unknown[0])
		fmt(w->st->unknown, sizeof(w->st->unknown), "%s: %s", name,
		    why);
	return 0;
}

static uint32_t min_unit(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Every device under dir/slaves; the smallest unit, 0 if any unknown. */
static uint32_t walk_slaves(struct walk *w, const char *dir, const char *name,
			    int depth)
{
	char path[PATH_MAX + 64], leaf[PATH_MAX + 320];
	uint32_t unit = UNIT_PASS, u;
	unsigned maj, mnr, n = 0;
	struct dirent *de;
	char buf[32];
	DIR *d;

	fmt(path, sizeof(path), "%s/slaves", dir);
	d = opendir(path);
	if (!d)
		return unknown(w, name, "its devices (slaves/) cannot be read");
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		fmt(leaf, sizeof(leaf), "%s/%s", path, de->d_name);
		if (read_str(leaf, "dev", buf, sizeof(buf)) ||
		    sscanf(buf, "%u:%u", &maj, &mnr) != 2) {
			closedir(d);
			return unknown(w, name,
				       "a device under it cannot be read");
		}
		u = walk_dev(w, maj, mnr, depth + 1);
		unit = min_unit(unit, u);
		n++;
	}
	closedir(d);
	if (!n)
		return unknown(w, name, "it has no devices under it");
	return unit;
}

/* A disk: its logical block, the write it does not tear. */
static uint32_t disk_unit(struct walk *w, const char *dir, const char *name)
{
	uint32_t lbs = read_u32(dir, "queue/logical_block_size");
	struct ut_stack_layer *l;

	if (!lbs)
		return unknown(w, name,
			       "its logical block size cannot be read");
	l = add_layer(w, name, lbs);
	if (l)
		fmt(l->what, sizeof(l->what),
		    "%s: one %u-byte logical block per write",
		    starts(name, "nvme") ? "NVMe namespace" : "disk", lbs);
	return lbs;
}

/*
 * The mount holding a file: its type and device.  A device number of 0
 * (btrfs's anonymous ones) is resolved through the mount's source.
 */
static int file_mount(struct walk *w, const char *file, struct ut_mount *out,
		      unsigned *maj, unsigned *mnr)
{
	struct ut_mount m;
	char line[4096];
	struct stat sb;
	int found = 0;
	FILE *f;

	if (stat(file, &sb))
		return -errno;
	f = fopen(w->mountinfo, "r");
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		if (!ut_mountinfo_parse(line, &m) &&
		    makedev(m.major, m.minor) == sb.st_dev) {
			*out = m;
			found = 1;
		}
	fclose(f);
	if (!found)
		return -ENOENT;
	ut_mount_device(out, maj, mnr);
	return 0;
}

/*
 * A loop device writes its blocks into a file: the smaller of its own
 * logical block and what the file's filesystem and device write whole.
 * ext4, XFS and btrfs write a loop's O_DIRECT or page-cache blocks in
 * place (or copy-on-write), adding no unit of their own; any other
 * filesystem under a loop is unknown.
 */
static uint32_t loop_unit(struct walk *w, const char *dir, const char *name,
			  int depth)
{
	static const char *const in_place[] = { "ext4", "ext3", "xfs",
						"btrfs" };
	char file[PATH_MAX], why[160];
	uint32_t lbs, below;
	struct ut_stack_layer *l;
	struct ut_mount m;
	unsigned maj = 0, mnr = 0, i;

	lbs = read_u32(dir, "queue/logical_block_size");
	if (read_str(dir, "loop/backing_file", file, sizeof(file)) || !lbs)
		return unknown(w, name, "a loop device with no backing file");
	l = add_layer(w, name, lbs);
	if (l)
		fmt(l->what, sizeof(l->what), "loop device, %u-byte blocks",
		    lbs);
	if (file_mount(w, file, &m, &maj, &mnr))
		return unknown(w, name,
			       "its backing file's filesystem cannot be found");
	for (i = 0; i < sizeof(in_place) / sizeof(in_place[0]); i++)
		if (!strcmp(m.fstype, in_place[i]))
			break;
	if (i == sizeof(in_place) / sizeof(in_place[0])) {
		fmt(why, sizeof(why),
		    "the backing file of %s is on %s, whose writes' atomicity untorn cannot tell",
		    name, m.fstype);
		return unknown(w, m.fstype, why);
	}
	l = add_layer(w, m.fstype, UNIT_PASS);
	if (l)
		fmt(l->what, sizeof(l->what),
		    "the backing file's filesystem, written in place");
	if (maj == 0)
		return unknown(w, m.fstype,
			       "the device under it cannot be found");
	below = walk_dev(w, maj, mnr, depth + 1);
	return min_unit(lbs, below);
}

/*
 * Device-mapper: the target types are in its table, which only dmsetup
 * reads.  linear, striped and log-writes (which logs each write and
 * passes it on unchanged: the power-cut replays' target) pass each block
 * through; crypt too, unless
 * its sectors are larger than what the devices under it write whole (a
 * torn crypt sector decrypts to garbage, every block in it).
 */
static uint32_t dm_unit(struct walk *w, const char *dir, const char *name,
			int depth)
{
	char dmname[128], cmd[256], line[1024], why[160], *p;
	uint32_t crypt_sector = 0, below;
	struct ut_stack_layer *l;
	int targets = 0, bad = 0;
	FILE *f;

	if (read_str(dir, "dm/name", dmname, sizeof(dmname)) ||
	    strpbrk(dmname, "'\\\"$`"))
		return unknown(w, name,
			       "its device-mapper name cannot be read");
	fmt(cmd, sizeof(cmd), "dmsetup table -- '%s' 2>/dev/null", dmname);
	f = popen(cmd, "r");
	if (!f)
		return unknown(w, name,
			       "dmsetup cannot be run to read its table");
	while (fgets(line, sizeof(line), f)) {
		char target[32];

		if (sscanf(line, "%*s %*s %31s", target) != 1)
			continue;
		targets++;
		if (!strcmp(target, "crypt")) {
			p = strstr(line, "sector_size:");
			crypt_sector = p ? (uint32_t)strtoul(p + 12, NULL, 10) :
					   512;
		} else if (strcmp(target, "linear") &&
			   strcmp(target, "striped") &&
			   strcmp(target, "log-writes")) {
			bad = 1;
		}
	}
	if (pclose(f) != 0 || !targets)
		return unknown(w, name,
			       "its table cannot be read (dmsetup, as root)");
	if (bad) {
		fmt(why, sizeof(why),
		    "device-mapper %s has a target other than linear, striped, log-writes or crypt",
		    dmname);
		return unknown(w, name, why);
	}
	l = add_layer(w, name, UNIT_PASS);
	if (l)
		fmt(l->what, sizeof(l->what), "device-mapper %s (%s)", dmname,
		    crypt_sector ? "crypt" : "linear/striped");
	below = walk_slaves(w, dir, name, depth);
	if (below && crypt_sector > below) {
		fmt(why, sizeof(why),
		    "dm-crypt %s's %u-byte sectors lie on devices that write %u bytes whole: a torn sector decrypts to garbage",
		    dmname, crypt_sector, below);
		return unknown(w, name, why);
	}
	return below;
}

/* md: RAID 0/1/10 and linear pass blocks through; 4/5/6 only with a
 * journal or a partial parity log, which close the write hole. */
static uint32_t md_unit(struct walk *w, const char *dir, const char *name,
			int depth)
{
	char level[32], policy[32] = "", why[160];
	struct ut_stack_layer *l;

	if (read_str(dir, "md/level", level, sizeof(level)))
		return unknown(w, name, "its RAID level cannot be read");
	if (starts(level, "raid4") || starts(level, "raid5") ||
	    starts(level, "raid6")) {
		read_str(dir, "md/consistency_policy", policy, sizeof(policy));
		if (strcmp(policy, "journal") && strcmp(policy, "ppl")) {
			fmt(why, sizeof(why),
			    "%s without a journal or PPL: a cut mid-stripe can damage blocks not being written (the write hole)",
			    level);
			return unknown(w, name, why);
		}
	} else if (strcmp(level, "raid0") && strcmp(level, "raid1") &&
		   strcmp(level, "raid10") && strcmp(level, "linear")) {
		fmt(why, sizeof(why), "md level %s is not one untorn knows",
		    level);
		return unknown(w, name, why);
	}
	l = add_layer(w, name, UNIT_PASS);
	if (l)
		fmt(l->what, sizeof(l->what), "md %s%s%s", level,
		    policy[0] ? " with " : "", policy);
	return walk_slaves(w, dir, name, depth);
}

static uint32_t walk_dev(struct walk *w, unsigned major, unsigned minor,
			 int depth)
{
	static const char *const disks[] = { "sd", "vd",   "xvd",
					     "hd", "nvme", "mmcblk" };
	char link[PATH_MAX], dir[PATH_MAX], name[64], buf[32];
	unsigned i;

	if (depth >= UT_STACK_LAYERS)
		return unknown(w, "stack", "more layers than untorn follows");
	fmt(link, sizeof(link), "%s/dev/block/%u:%u", w->sys, major, minor);
	if (!realpath(link, dir)) {
		fmt(name, sizeof(name), "%u:%u", major, minor);
		return unknown(w, name,
			       "not in sysfs: not a block device untorn can follow");
	}
	/* a partition: the disk is its parent */
	if (!read_str(dir, "partition", buf, sizeof(buf)))
		*strrchr(dir, '/') = '\0';
	fmt(name, sizeof(name), "%s", strrchr(dir, '/') + 1);
	if (starts(name, "loop"))
		return loop_unit(w, dir, name, depth);
	if (starts(name, "dm-"))
		return dm_unit(w, dir, name, depth);
	if (starts(name, "md"))
		return md_unit(w, dir, name, depth);
	for (i = 0; i < sizeof(disks) / sizeof(disks[0]); i++)
		if (starts(name, disks[i]))
			return disk_unit(w, dir, name);
	return unknown(w, name,
		       "a block device untorn does not know (zram, pmem, nbd, rbd ...): its write atomicity is not known");
}

int ut_block_stack_probe(const char *sys, const char *mountinfo, unsigned major,
			 unsigned minor, struct ut_block_stack *st)
{
	struct walk w = { .sys = sys, .mountinfo = mountinfo, .st = st };
	uint32_t unit;

	memset(st, 0, sizeof(*st));
	unit = walk_dev(&w, major, minor, 0);
	st->unit = unit == UNIT_PASS || st->unknown[0] ? 0 : unit;
	if (!st->unit && !st->unknown[0])
		fmt(st->unknown, sizeof(st->unknown),
		    "no disk found under the filesystem");
	return 0;
}

void ut_block_stack_describe(const struct ut_block_stack *st, char *out,
			     unsigned long len)
{
	size_t n;
	unsigned i;

	out[0] = '\0';
	for (i = 0; i < st->n; i++) {
		const struct ut_stack_layer *l = &st->layer[i];

		n = strlen(out);
		if (l->unit && l->unit != UNIT_PASS)
			fmt(out + n, len - n, "%s%s (%u)", i ? " > " : "",
			    l->name, l->unit);
		else
			fmt(out + n, len - n, "%s%s", i ? " > " : "", l->name);
	}
}
