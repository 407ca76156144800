/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * untorn_jw_uapi.h - the interface of the untorn_jw module, shared by the
 * module and user space: ioctls on /dev/untorn_jw that write a range of an
 * ext4 data=journal file so that all its blocks join one jbd2 transaction.
 *
 * A write is a pwritev(2) of at most UNTORN_JW_MAX_BYTES inside the file's
 * current size (no extending writes), on a file descriptor the caller has
 * open for writing.  After a power cut and journal replay the range holds
 * either all of the new bytes or none of them.
 */
#ifndef UNTORN_JW_UAPI_H
#define UNTORN_JW_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define UNTORN_JW_DEVICE "/dev/untorn_jw"
#define UNTORN_JW_VERSION 1
/* 16 pages of 4 KiB: InnoDB's largest page */
#define UNTORN_JW_MAX_BYTES 65536

/* flags of struct untorn_jw_write */
#define UNTORN_JW_DSYNC 0x1 /* fdatasync the range before returning */

struct untorn_jw_info {
	__u32 version; /* UNTORN_JW_VERSION */
	__u32 max_bytes; /* UNTORN_JW_MAX_BYTES */
	__u32 credits_per_page; /* jbd2 credits reserved per 4 KiB page */
	__u32 reserved;
};

struct untorn_jw_write {
	__s32 fd; /* in: the file, open for writing */
	__u32 flags; /* in: UNTORN_JW_* */
	__u64 offset; /* in: file offset of the first byte */
	__u64 iov; /* in: const struct iovec * */
	__u32 iovcnt; /* in: number of iovecs */
	__u32 credits; /* out: jbd2 credits reserved for the write */
	__u64 written; /* out: bytes written (all of them, or an error) */
	__u32 tid; /* out: the one jbd2 transaction they joined */
	__u32 reserved;
};

#define UNTORN_JW_IOC_MAGIC 0xb7
#define UNTORN_JW_IOC_INFO _IOR(UNTORN_JW_IOC_MAGIC, 0, struct untorn_jw_info)
#define UNTORN_JW_IOC_WRITE \
	_IOWR(UNTORN_JW_IOC_MAGIC, 1, struct untorn_jw_write)

#endif /* UNTORN_JW_UAPI_H */
