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

#include <stddef.h>
#include <stdint.h>

#define DEV_STAT_DIR_LEN 48

struct other_io {
	char dev_dir[DEV_STAT_DIR_LEN]; /* /sys/dev/block/M:m */
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

/* The sysfs directory of the block device path is on, and its numbers;
 * 0, or -errno of stat(2). */
int dev_stat_dir(const char *path, char dir[DEV_STAT_DIR_LEN], unsigned *major,
		 unsigned *minor);
/* Sectors the device in dir has read and written: 0, or -1 unreadable. */
int dev_stat_sectors(const char *dir, uint64_t *rd, uint64_t *wr);

#endif
