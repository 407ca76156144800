// SPDX-License-Identifier: MIT
/*
 * ack_dev.c - `bench write --ack-dev`: each acknowledged commit as one
 * "KEY VERSION\n" record padded with zeros to the device's logical block,
 * written with O_DIRECT|O_DSYNC at a slot of its own, so concurrent
 * writers never share a block and a record is durable (a FUA write, or a
 * write and a cache flush) before the worker's next commit starts.  Read
 * back with the zeros removed (`tr -d '\0'`) for `untorn verify --acks`.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ack_dev.h"

#define ACK_SLOT_MAX 4096

/* Slot size and count: the device's logical block, or 4 KiB in a file. */
static int ack_dev_geometry(struct ack_dev *ad)
{
	uint64_t bytes;
	struct stat sb;
	int lbs;

	if (fstat(ad->fd, &sb))
		return -errno;
	if (S_ISBLK(sb.st_mode)) {
		if (ioctl(ad->fd, BLKSSZGET, &lbs) ||
		    ioctl(ad->fd, BLKGETSIZE64, &bytes))
			return -errno;
		if (lbs < 512 || lbs > ACK_SLOT_MAX)
			return -EINVAL;
		ad->slot_bytes = lbs;
	} else if (S_ISREG(sb.st_mode)) {
		ad->slot_bytes = ACK_SLOT_MAX;
		bytes = sb.st_size;
	} else {
		return -ENOTBLK;
	}
	ad->slots = bytes / ad->slot_bytes;
	return ad->slots ? 0 : -ENOSPC;
}

int ack_dev_open(struct ack_dev *ad, const char *path)
{
	struct stat sb;
	int ret;

	ad->fd = -1;
	if (stat(path, &sb))
		return -errno;
	if (!S_ISBLK(sb.st_mode) && !S_ISREG(sb.st_mode))
		return -ENOTBLK;
	ad->fd = open(path, O_WRONLY | O_DIRECT | O_DSYNC | O_CLOEXEC);
	if (ad->fd < 0)
		return -errno;
	ret = ack_dev_geometry(ad);
	if (ret)
		goto close_fd;
	atomic_init(&ad->next, 0);
	return 0;
close_fd:
	close(ad->fd);
	ad->fd = -1;
	return ret;
}

int ack_dev_put(struct ack_dev *ad, uint64_t key, uint64_t version)
{
	_Alignas(ACK_SLOT_MAX) char rec[ACK_SLOT_MAX];
	uint64_t slot = atomic_fetch_add(&ad->next, 1);
	ssize_t n;

	if (slot >= ad->slots)
		return -ENOSPC;
	memset(rec, 0, ad->slot_bytes);
	snprintf(rec, ad->slot_bytes, "%" PRIu64 " %" PRIu64 "\n", key,
		 version);
	n = pwrite(ad->fd, rec, ad->slot_bytes, (off_t)(slot * ad->slot_bytes));
	if (n < 0)
		return -errno;
	return n == (ssize_t)ad->slot_bytes ? 0 : -EIO;
}

void ack_dev_close(struct ack_dev *ad)
{
	if (ad->fd >= 0)
		close(ad->fd);
	ad->fd = -1;
}
