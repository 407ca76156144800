/* SPDX-License-Identifier: MIT */
/*
 * other_io.h - how much I/O other processes do on the disk a store lives
 * on: the device's sectors read and written (/sys/dev/block/M:m/stat)
 * less this process's own (/proc/self/io), the count a scan yields to
 * (ut_scan_yield) when nothing in the process says what the other work
 * is.  Writes this process buffers count as its own when they are made
 * dirty and on the device when they reach it: the count holds still
 * while the device is behind this process, so they are never taken for
 * another's.  The journal's own writes (jbd2's) and other processes'
 * reads and writes alike count.
 */
#ifndef UNTORN_CLI_OTHER_IO_H
#define UNTORN_CLI_OTHER_IO_H

#include <stdint.h>

struct other_io {
	int dev_fd, self_fd; /* the device's stat file, /proc/self/io */
	unsigned major, minor;
	uint64_t last; /* the count last returned: it never goes back */
};

/* For the disk under path; 0, or -errno with why[] saying what is missing
 * (a filesystem with no block device of its own, no sysfs). */
int other_io_open(struct other_io *o, const char *path, char *why,
		  size_t why_len);
/* Sectors others have read and written on the device (ut_scan_yield's
 * other_work: arg is the struct other_io). */
uint64_t other_io_sectors(void *arg);
void other_io_close(struct other_io *o);

/* The stat file of the block device path is on (its fd, or -errno:
 * -ENOENT where the filesystem has none), and the device's numbers. */
int dev_stat_open(const char *path, unsigned *major, unsigned *minor);
/* Sectors the device has read and written, from its stat file. */
int dev_stat_sectors(int fd, uint64_t *rd, uint64_t *wr);

#endif
