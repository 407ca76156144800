/* SPDX-License-Identifier: MIT */
/*
 * other_io.h - how much I/O other processes do on the disk a store lives
 * on: the device's sectors read and written (/sys/dev/block/M:m/stat)
 * less this process's own, the count a scan yields to (ut_scan_yield)
 * when nothing in the process says what the other work is.
 *
 * This process's own is what it reads from storage (/proc/self/io's
 * read_bytes: the scan's reads) and what it writes to that device: its
 * output, when that is a file on the store's filesystem (other_io_output),
 * put on the disk before each count so that the device's figure and
 * ours agree.  Nothing else it writes counts as its own: a dump's output
 * to another disk, a pipe or /dev/null is not on this device, and was
 * once subtracted from it, hiding the writers the dump should yield to.
 * The journal's own writes (jbd2's) and other processes' reads and
 * writes alike count as other work.
 */
#ifndef UNTORN_CLI_OTHER_IO_H
#define UNTORN_CLI_OTHER_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DEV_STAT_DIR_LEN 48

struct other_io {
	char dev_dir[DEV_STAT_DIR_LEN]; /* /sys/dev/block/M:m */
	unsigned major, minor;
	FILE *out; /* this process's output, a file on the store's disk */
	uint64_t out_start; /* its offset when the scan began */
	uint64_t last; /* the count last returned: it never goes back */
};

/* For the disk under path; 0, or -errno with why[] saying what is missing
 * (a filesystem with no block device of its own, no sysfs). */
int other_io_open(struct other_io *o, const char *path, char *why,
		  size_t why_len);
/* out is where this process writes what it reads: when it is a file on
 * the store's filesystem, its writes are this process's own, put on the
 * disk (sync_file_range) before each count.  Returns 1 if so, 0 if out
 * is elsewhere (a pipe, a terminal, another disk: nothing to subtract). */
int other_io_output(struct other_io *o, FILE *out);
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
