// SPDX-License-Identifier: MIT
/*
 * sysio.c - the default (real) entries of the system call table.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <sys/uio.h>
#include <unistd.h>
#include <untorn/jw.h>
#include "io/sysio.h"

static int sys_open(const char *path, int flags, mode_t mode)
{
	int fd = open(path, flags | O_CLOEXEC, mode);

	return fd < 0 ? -errno : fd;
}

static int sys_close(int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

static ssize_t sys_pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t ret = pread(fd, buf, len, off);

	return ret < 0 ? -errno : ret;
}

static ssize_t sys_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t ret = pwrite(fd, buf, len, off);

	return ret < 0 ? -errno : ret;
}

static ssize_t sys_pwrite_flags(int fd, const void *buf, size_t len, off_t off,
				int rw_flags)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	ssize_t ret = pwritev2(fd, &iov, 1, off, rw_flags);

	return ret < 0 ? -errno : ret;
}

static int sys_fdatasync(int fd)
{
	return fdatasync(fd) < 0 ? -errno : 0;
}

static int sys_fsync(int fd)
{
	return fsync(fd) < 0 ? -errno : 0;
}

static int sys_fallocate(int fd, int mode, off_t off, off_t len)
{
	return fallocate(fd, mode, off, len) < 0 ? -errno : 0;
}

static int sys_ftruncate(int fd, off_t len)
{
	return ftruncate(fd, len) < 0 ? -errno : 0;
}

static int sys_fstat(int fd, struct stat *st)
{
	return fstat(fd, st) < 0 ? -errno : 0;
}

static int sys_uring_setup(unsigned entries, struct io_uring *ring,
			   struct io_uring_params *p)
{
	return io_uring_queue_init_params(entries, ring, p);
}

static int sys_uring_submit(struct io_uring *ring)
{
	return io_uring_submit(ring);
}

static ssize_t sys_jw_pwrite(int jw_fd, int fd, const void *buf, size_t len,
			     off_t off)
{
	return ut_jw_pwrite(jw_fd, fd, buf, len, off, 0, NULL);
}

static ssize_t sys_io_admit(enum ut_op op, int fd, size_t len, off_t off)
{
	(void)op;
	(void)fd;
	(void)off;
	return len;
}

/* the real calls: the table the tests replace, and what a reset restores
 * (a macro: C has no constant to copy a static struct from) */
#define UT_SYS_REAL                                                           \
	{                                                                     \
		.open = sys_open, .close = sys_close, .pread = sys_pread,     \
		.pwrite = sys_pwrite, .pwrite_flags = sys_pwrite_flags,       \
		.fdatasync = sys_fdatasync, .fsync = sys_fsync,               \
		.fallocate = sys_fallocate, .ftruncate = sys_ftruncate,       \
		.fstat = sys_fstat, .uring_setup = sys_uring_setup,           \
		.uring_submit = sys_uring_submit, .jw_pwrite = sys_jw_pwrite, \
		.io_admit = sys_io_admit,                                     \
	}

static const struct ut_syscalls ut_sys_real = UT_SYS_REAL;
struct ut_syscalls ut_sys = UT_SYS_REAL;

void ut_sys_reset(void)
{
	ut_sys = ut_sys_real;
}
