// SPDX-License-Identifier: MIT
/*
 * other_io.c - the I/O other processes do on a store's disk (other_io.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "other_io.h"

/* Reads a whole small file from its start into buf (NUL-terminated). */
static int read_all(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

int dev_stat_sectors(int fd, uint64_t *rd, uint64_t *wr)
{
	unsigned long long f[7];
	char buf[512];
	int ret = read_all(fd, buf, sizeof(buf));

	if (ret)
		return ret;
	/* reads, merged, sectors read, ms, writes, merged, sectors written */
	if (sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1],
		   &f[2], &f[3], &f[4], &f[5], &f[6]) != 7)
		return -EINVAL;
	*rd = f[2];
	*wr = f[6];
	return 0;
}

int dev_stat_open(const char *path, unsigned *major_out, unsigned *minor_out)
{
	char sys[64];
	struct stat sb;
	int fd;

	if (stat(path, &sb))
		return -errno;
	*major_out = major(sb.st_dev);
	*minor_out = minor(sb.st_dev);
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/stat", *major_out,
		 *minor_out);
	fd = open(sys, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* This process's bytes read from and written to storage. */
static int self_io_bytes(int fd, uint64_t *bytes)
{
	unsigned long long rb = 0, wb = 0;
	char buf[1024], *p;
	int ret = read_all(fd, buf, sizeof(buf));

	if (ret)
		return ret;
	p = strstr(buf, "\nread_bytes:");
	if (!p || sscanf(p, "\nread_bytes: %llu", &rb) != 1)
		return -EINVAL;
	p = strstr(buf, "\nwrite_bytes:");
	if (!p || sscanf(p, "\nwrite_bytes: %llu", &wb) != 1)
		return -EINVAL;
	*bytes = rb + wb;
	return 0;
}

int other_io_open(struct other_io *o, const char *path, char *why,
		  size_t why_len)
{
	uint64_t rd, wr, own;
	int ret;

	memset(o, 0, sizeof(*o));
	o->self_fd = -1;
	o->dev_fd = dev_stat_open(path, &o->major, &o->minor);
	if (o->dev_fd < 0) {
		ret = o->dev_fd;
		if (ret == -ENOENT)
			snprintf(why, why_len,
				 "the store's filesystem has no block device of its own (device %u:%u: btrfs, FUSE, tmpfs or a network filesystem)",
				 o->major, o->minor);
		else
			snprintf(why, why_len,
				 "cannot read the statistics of the store's device %u:%u in /sys/dev/block: %s",
				 o->major, o->minor, strerror(-ret));
		return ret;
	}
	o->self_fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	ret = o->self_fd < 0 ? -errno : 0;
	if (!ret)
		ret = dev_stat_sectors(o->dev_fd, &rd, &wr);
	if (!ret)
		ret = self_io_bytes(o->self_fd, &own);
	if (ret) {
		snprintf(why, why_len,
			 "cannot read this process's I/O in /proc/self/io (a kernel without task I/O accounting?): %s",
			 strerror(-ret));
		other_io_close(o);
	}
	return ret;
}

uint64_t other_io_sectors(void *arg)
{
	struct other_io *o = arg;
	uint64_t rd, wr, own, dev;

	if (dev_stat_sectors(o->dev_fd, &rd, &wr) ||
	    self_io_bytes(o->self_fd, &own))
		return o->last;
	dev = rd + wr;
	own /= 512;
	if (dev > own && dev - own > o->last)
		o->last = dev - own;
	return o->last;
}

void other_io_close(struct other_io *o)
{
	if (o->dev_fd >= 0)
		close(o->dev_fd);
	if (o->self_fd >= 0)
		close(o->self_fd);
	o->dev_fd = o->self_fd = -1;
}
