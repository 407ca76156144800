// SPDX-License-Identifier: MIT
/*
 * other_io.c - the I/O other processes do on a store's disk (other_io.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
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

/* This process's bytes read from storage: 0, or -1. */
static int self_read_bytes(uint64_t *bytes)
{
	unsigned long long rb;
	char buf[1024], *r;

	if (ut_sysfs_read("/proc/self", "io", buf, sizeof(buf)))
		return -1;
	r = strstr(buf, "\nread_bytes:");
	if (!r || sscanf(r, "\nread_bytes: %llu", &rb) != 1)
		return -1;
	*bytes = rb;
	return 0;
}

/* the unit writeback writes a file in */
#define OUT_PAGE 4096ull

/*
 * The output's bytes since the scan began, every one of them on the disk:
 * what was buffered is written and waited for first.  Whole pages only:
 * a last page still being filled would be written again at every count,
 * and each time taken for another's work.
 */
static uint64_t output_on_disk(struct other_io *o)
{
	int fd = fileno(o->out);
	uint64_t end;
	off_t pos;

	/* a failed write sets the stream's error, which its writer sees */
	fflush(o->out);
	pos = lseek(fd, 0, SEEK_CUR);
	end = pos > 0 ? (uint64_t)pos & ~(OUT_PAGE - 1) : 0;
	if (end <= o->out_start)
		return 0;
	sync_file_range(fd, (off_t)o->out_start, (off_t)(end - o->out_start),
			SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				SYNC_FILE_RANGE_WAIT_AFTER);
	return end - o->out_start;
}

int other_io_output(struct other_io *o, FILE *out)
{
	struct stat sb;
	off_t pos;

	o->out = NULL;
	if (fstat(fileno(out), &sb) || !S_ISREG(sb.st_mode) ||
	    major(sb.st_dev) != o->major || minor(sb.st_dev) != o->minor)
		return 0;
	pos = ftello(out);
	o->out_start = pos > 0 ? (uint64_t)pos & ~(OUT_PAGE - 1) : 0;
	o->out = out;
	return 1;
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
	if (self_read_bytes(&own)) {
		snprintf(why, why_len,
			 "cannot read this process's I/O in /proc/self/io (a kernel without task I/O accounting?)");
		return -EIO;
	}
	return 0;
}

uint64_t other_io_sectors(void *arg)
{
	struct other_io *o = arg;
	uint64_t rd, wr, out_bytes, read_bytes, own;

	/* ours on the disk before the device is read: never after it */
	out_bytes = o->out ? output_on_disk(o) : 0;
	if (dev_stat_sectors(o->dev_dir, &rd, &wr) ||
	    self_read_bytes(&read_bytes))
		return o->last;
	own = (out_bytes + read_bytes) / 512;
	if (rd + wr > own && rd + wr - own > o->last)
		o->last = rd + wr - own;
	return o->last;
}
