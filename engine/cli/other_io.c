// SPDX-License-Identifier: MIT
/*
 * other_io.c - the I/O other processes do on a store's disk (other_io.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "fscaps.h"
#include "other_io.h"

int dev_stat_dir(const char *path, char dir[DEV_STAT_DIR_LEN],
		 unsigned *major_out, unsigned *minor_out)
{
	struct stat sb;

	if (stat(path, &sb))
		return -errno;
	*major_out = major(sb.st_dev);
	*minor_out = minor(sb.st_dev);
	snprintf(dir, DEV_STAT_DIR_LEN, "/sys/dev/block/%u:%u", *major_out,
		 *minor_out);
	return 0;
}

int dev_stat_sectors(const char *dir, uint64_t *rd, uint64_t *wr)
{
	unsigned long long f[7];
	char buf[512];

	/* reads, merged, sectors read, ms, writes, merged, sectors written */
	if (ut_sysfs_read(dir, "stat", buf, sizeof(buf)) ||
	    sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1],
		   &f[2], &f[3], &f[4], &f[5], &f[6]) != 7)
		return -1;
	*rd = f[2];
	*wr = f[6];
	return 0;
}

/* This process's bytes read from and written to storage: 0, or -1. */
static int self_io_bytes(uint64_t *bytes)
{
	unsigned long long rb, wb;
	char buf[1024], *r, *w;

	if (ut_sysfs_read("/proc/self", "io", buf, sizeof(buf)))
		return -1;
	r = strstr(buf, "\nread_bytes:");
	w = strstr(buf, "\nwrite_bytes:");
	if (!r || sscanf(r, "\nread_bytes: %llu", &rb) != 1 || !w ||
	    sscanf(w, "\nwrite_bytes: %llu", &wb) != 1)
		return -1;
	*bytes = rb + wb;
	return 0;
}

int other_io_open(struct other_io *o, const char *path, char *why,
		  size_t why_len)
{
	uint64_t rd, wr, own;
	struct stat sb;
	int ret;

	memset(o, 0, sizeof(*o));
	ret = dev_stat_dir(path, o->dev_dir, &o->major, &o->minor);
	if (ret) {
		snprintf(why, why_len, "cannot stat the store's data file: %s",
			 strerror(-ret));
		return ret;
	}
	if (dev_stat_sectors(o->dev_dir, &rd, &wr)) {
		ret = stat(o->dev_dir, &sb) && errno == ENOENT ? -ENOENT : -EIO;
		if (ret == -ENOENT)
			snprintf(why, why_len,
				 "the store's filesystem has no block device of its own (device %u:%u: btrfs, FUSE, tmpfs or a network filesystem)",
				 o->major, o->minor);
		else
			snprintf(why, why_len,
				 "cannot read the statistics of the store's device %u:%u in /sys/dev/block",
				 o->major, o->minor);
		return ret;
	}
	if (self_io_bytes(&own)) {
		snprintf(why, why_len,
			 "cannot read this process's I/O in /proc/self/io (a kernel without task I/O accounting?)");
		return -EIO;
	}
	return 0;
}

uint64_t other_io_sectors(void *arg)
{
	struct other_io *o = arg;
	uint64_t rd, wr, own, dev;

	if (dev_stat_sectors(o->dev_dir, &rd, &wr) || self_io_bytes(&own))
		return o->last;
	dev = rd + wr;
	own /= 512;
	if (dev > own && dev - own > o->last)
		o->last = dev - own;
	return o->last;
}
