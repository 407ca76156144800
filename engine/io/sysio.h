/* SPDX-License-Identifier: MIT */
/*
 * sysio.h - the table of system calls the engine's file I/O goes through.
 *
 * The idea is SQLite's os_unix.c aSyscall[]: every open, read, write,
 * sync, allocation and io_uring setup/submit is called through ut_sys, so
 * a test can replace one entry to inject a short write, a torn write, EIO
 * or ENOSPC, and ut_sys_reset() puts the real calls back.  The engine's
 * threads read the table without a lock: change it only while no store is
 * open (a replacement that must act later can check a flag of its own).
 *
 * Every entry returns -errno on failure (never -1 with errno).
 */
#ifndef UNTORN_SYSIO_H
#define UNTORN_SYSIO_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "io/ring.h" /* enum ut_op */

struct io_uring;
struct io_uring_params;

struct ut_syscalls {
	int (*open)(const char *path, int flags, mode_t mode);
	int (*close)(int fd);
	ssize_t (*pread)(int fd, void *buf, size_t len, off_t off);
	ssize_t (*pwrite)(int fd, const void *buf, size_t len, off_t off);
	/* a write with RWF_* flags (the pread/pwrite path's RWF_ATOMIC) */
	ssize_t (*pwrite_flags)(int fd, const void *buf, size_t len, off_t off,
				int rw_flags);
	int (*fdatasync)(int fd);
	int (*fsync)(int fd);
	int (*fallocate)(int fd, int mode, off_t off, off_t len);
	int (*ftruncate)(int fd, off_t len);
	int (*fstat)(int fd, struct stat *st);
	int (*uring_setup)(unsigned entries, struct io_uring *ring,
			   struct io_uring_params *p);
	int (*uring_submit)(struct io_uring *ring);
	/* a page written through the untorn_jw module (untorn/jw.h) */
	ssize_t (*jw_pwrite)(int jw_fd, int fd, const void *buf, size_t len,
			     off_t off);
	/*
	 * Asked before every read or write is issued, by io_uring or by the
	 * pread/pwrite path alike: returns how many of len bytes may go
	 * (len: all of them), or -errno to fail the I/O without issuing it
	 * (-EAGAIN and -EINTR are retried, as when the kernel returns them).
	 * A test shortens a write to inject a short write, and shortens then
	 * fails it to inject a torn one.
	 */
	ssize_t (*io_admit)(enum ut_op op, int fd, size_t len, off_t off);
};

extern struct ut_syscalls ut_sys;

/* Restores every entry to the real system call. */
void ut_sys_reset(void);

#endif
