/* SPDX-License-Identifier: MIT */
/*
 * jw.h - libuntorn's interface to the untorn_jw ("journalled write")
 * kernel module: a pwritev() of up to 64 KiB on an ext4 data=journal
 * file whose blocks all join one jbd2 transaction, so that a power cut
 * leaves the range all old or all new after journal replay (stock ext4
 * starts a transaction per 4 KiB page, and a commit can fall between two
 * pages of one database page).
 *
 * For any engine with pages larger than the filesystem block: open the
 * device once, then write each page with ut_jw_pwrite().  Every call
 * returns -errno on failure; ut_jw_strerror() says what it means here
 * and what to do about it.
 */
#ifndef UNTORN_JW_H
#define UNTORN_JW_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UT_JW_DEVICE "/dev/untorn_jw"
#define UT_JW_DSYNC 0x1 /* fdatasync the range before returning */

struct ut_jw_info {
	unsigned version;
	unsigned max_bytes; /* the largest write */
	unsigned credits_per_page; /* jbd2 credits reserved per 4 KiB */
};

struct ut_jw_status {
	unsigned tid; /* the jbd2 transaction of the write */
	unsigned credits; /* jbd2 credits it reserved */
};

/* the module's device, O_RDONLY|O_CLOEXEC; -ENOENT: the module is not loaded */
int ut_jw_open(void);
int ut_jw_info(int jw_fd, struct ut_jw_info *info);
/*
 * All of iov at off in fd, in one jbd2 transaction; st may be NULL.  On
 * -errno nothing was written, except after -EIO: an I/O error or ENOSPC
 * (filling a hole) part way can leave the first pages written.
 */
ssize_t ut_jw_pwritev(int jw_fd, int fd, const struct iovec *iov, int iovcnt,
		      off_t off, unsigned flags, struct ut_jw_status *st);
ssize_t ut_jw_pwrite(int jw_fd, int fd, const void *buf, size_t len, off_t off,
		     unsigned flags, struct ut_jw_status *st);
/* whether untorn's journal guard writes pages through the module here */
enum ut_jw_state {
	UT_JW_IN_USE, /* /dev/untorn_jw exists */
	UT_JW_OFF, /* UNTORN_JW=off in the environment */
	UT_JW_NOT_LOADED,
};
enum ut_jw_state ut_jw_engine_state(void);
/* the cause of a failed write and its fix, one line */
const char *ut_jw_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* UNTORN_JW_H */
