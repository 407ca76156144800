/* SPDX-License-Identifier: MIT */
/*
 * ack_dev.h - acknowledgements written to a block device (or file) one
 * per sector with O_DIRECT|O_DSYNC, for power-cut replays: an
 * acknowledgement is on the device before the next commit is started,
 * so a replayed disk holds only acknowledgements of commits whose own
 * writes came earlier.
 */
#ifndef UNTORN_ACK_DEV_H
#define UNTORN_ACK_DEV_H

#include <stdatomic.h>
#include <stdint.h>

struct ack_dev {
	int fd;
	uint32_t slot_bytes; /* one record per logical block */
	uint64_t slots; /* records that fit */
	atomic_uint_fast64_t next; /* the next free record */
};

/* Opens PATH for records; -errno (ENOTBLK: neither a device nor a file). */
int ack_dev_open(struct ack_dev *ad, const char *path);
/* Writes "KEY VERSION\n" in the next record: 0, -ENOSPC when full, -errno. */
int ack_dev_put(struct ack_dev *ad, uint64_t key, uint64_t version);
void ack_dev_close(struct ack_dev *ad);

#endif
