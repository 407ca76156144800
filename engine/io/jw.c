// SPDX-License-Identifier: MIT
/*
 * jw.c - the user-space side of the untorn_jw module (untorn/jw.h): its
 * device, its two ioctls (fs-integration/kmod/untorn_jw_uapi.h) and what
 * its errors mean.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <untorn/jw.h>
#include "base/err.h"
#include "untorn_jw_uapi.h"

int ut_jw_open(void)
{
	int fd = open(UNTORN_JW_DEVICE, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int ut_jw_info(int jw_fd, struct ut_jw_info *info)
{
	struct untorn_jw_info ki;

	memset(&ki, 0, sizeof(ki));
	if (ioctl(jw_fd, UNTORN_JW_IOC_INFO, &ki) < 0)
		return -errno;
	info->version = ki.version;
	info->max_bytes = ki.max_bytes;
	info->credits_per_page = ki.credits_per_page;
	return 0;
}

ssize_t ut_jw_pwritev(int jw_fd, int fd, const struct iovec *iov, int iovcnt,
		      off_t off, unsigned flags, struct ut_jw_status *st)
{
	struct untorn_jw_write req;
	size_t total = 0;
	int i;

	if (iovcnt < 0 || off < 0)
		return -EINVAL;
	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	memset(&req, 0, sizeof(req));
	req.fd = fd;
	req.flags = flags & UT_JW_DSYNC ? UNTORN_JW_DSYNC : 0;
	req.offset = (unsigned long long)off;
	req.iov = (unsigned long long)(unsigned long)iov;
	req.iovcnt = (unsigned)iovcnt;
	if (ioctl(jw_fd, UNTORN_JW_IOC_WRITE, &req) < 0)
		return -errno;
	if (st) {
		st->tid = req.tid;
		st->credits = req.credits;
	}
	/* only an I/O error or ENOSPC filling a hole stops a write midway */
	return req.written == total ? (ssize_t)req.written : -EIO;
}

ssize_t ut_jw_pwrite(int jw_fd, int fd, const void *buf, size_t len, off_t off,
		     unsigned flags, struct ut_jw_status *st)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return ut_jw_pwritev(jw_fd, fd, &iov, 1, off, flags, st);
}

enum ut_jw_state ut_jw_engine_state(void)
{
	const char *want = getenv("UNTORN_JW");

	if (want && !strcmp(want, "off"))
		return UT_JW_OFF;
	return access(UNTORN_JW_DEVICE, F_OK) == 0 ? UT_JW_IN_USE :
						     UT_JW_NOT_LOADED;
}

/* The fix names mkfs-journal as this user has it (ut_tool_name). */
static const char *jw_not_journalled(void)
{
	static __thread char msg[1400];
	char tool[1100];

	snprintf(msg, sizeof(msg),
		 "the file is not on ext4 with data=journal (or is inline-data, encrypted, verity or DAX); mount with -o data=journal (%s makes such a filesystem)",
		 ut_tool_name("mkfs-journal", tool, sizeof(tool)));
	return msg;
}

const char *ut_jw_strerror(int err)
{
	switch (-err) {
	case ENOENT:
		return "the untorn_jw module is not loaded (" UNTORN_JW_DEVICE
		       " missing); make kmod, then insmod build/kmod/$(uname -r)/untorn_jw.ko";
	case ENOTTY:
		return "the device does not speak this version of untorn_jw's ioctls; load the module built from this tree";
	case EOPNOTSUPP:
		return jw_not_journalled();
	case ERANGE:
		return "the write reaches past the end of the file; the module writes only inside the file: extend it first (fallocate or ftruncate)";
	case E2BIG:
		return "the write is larger than 64 KiB or needs more than half of a jbd2 transaction; write smaller pages or make the journal larger (mkfs.ext4 -J size=64, or tune2fs -J size=64 on an unmounted filesystem)";
	case EBADF:
		return "the file descriptor is not open for writing";
	case EINVAL:
		return "not a regular file, opened with O_APPEND, or an empty write or unknown flag";
	case EROFS:
		return "the filesystem is read-only";
	case EIO:
		return "the journal has aborted (see dmesg); fsck the filesystem";
	default:
		return strerror(-err);
	}
}
