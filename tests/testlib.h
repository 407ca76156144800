/* SPDX-License-Identifier: MIT */
/*
 * testlib.h - helpers the C tests share: a unique scratch directory that
 * is removed at exit, raw file access for corrupting stores.
 */
#ifndef UNTORN_TESTLIB_H
#define UNTORN_TESTLIB_H

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ktap.h"

static char test_scratch[256];

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static pid_t test_scratch_owner;

/* Only the process that made it removes it (a forked child's exit() must
 * not), and not after a failed case with UNTORN_TEST_KEEP set: the store
 * the failure left, to look at. */
static void test_scratch_remove(void)
{
	if (!test_scratch[0] || getpid() != test_scratch_owner)
		return;
	if (ktap_fail && getenv("UNTORN_TEST_KEEP")) {
		fprintf(stderr, "# UNTORN_TEST_KEEP: kept %s\n", test_scratch);
		return;
	}
	nftw(test_scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Removes a case's own store under the scratch directory once the case
 * passed, so that the cases after it find the room it took (a guest's
 * small filesystem); a failed case's store stays for UNTORN_TEST_KEEP. */
static inline void test_store_remove(const char *dir, int passed)
{
	if (passed)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Makes /tmp/untorn-<name>-<pid>-XXXXXX (or under $UNTORN_TEST_DIR),
 * removed at exit (kept after a failure with UNTORN_TEST_KEEP set). */
static inline const char *test_scratch_dir(const char *name)
{
	const char *base = getenv("UNTORN_TEST_DIR");

	snprintf(test_scratch, sizeof(test_scratch), "%s/untorn-%s-%d-XXXXXX",
		 base ? base : "/tmp", name, getpid());
	if (!mkdtemp(test_scratch)) {
		perror("mkdtemp");
		exit(1);
	}
	test_scratch_owner = getpid();
	atexit(test_scratch_remove);
	return test_scratch;
}

static inline void test_path(char *buf, size_t len, const char *leaf)
{
	snprintf(buf, len, "%s/%s", test_scratch, leaf);
}

static inline int file_pread(const char *path, void *buf, size_t len, off_t off)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, off);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static inline int file_pwrite(const char *path, const void *buf, size_t len,
			      off_t off)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pwrite(fd, buf, len, off);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static inline int file_flip_byte(const char *path, off_t off)
{
	unsigned char c;

	if (file_pread(path, &c, 1, off))
		return -1;
	c ^= 0x5a;
	return file_pwrite(path, &c, 1, off);
}

#endif
