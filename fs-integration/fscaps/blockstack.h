/* SPDX-License-Identifier: MIT */
/*
 * blockstack.h - how many bytes the whole I/O stack under a filesystem
 * writes all-or-nothing across a power cut: the unit the sector guard's
 * blocks must fit in.
 *
 * The stack is walked from the filesystem's device down, through sysfs:
 * a partition (its start aligned to the unit), loop devices (and the
 * file, filesystem and device under them), device-mapper linear/striped
 * (LVM) and crypt, md RAID 0/1/10 and RAID 4/5/6 with a journal or PPL,
 * down to disks (sd, vd, xvd, hd, nvme, mmcblk), whose unit is their
 * logical block: the one write a disk does not tear (an NVMe namespace
 * guarantees one logical block per command, AWUPF being zero-based; a
 * larger AWUPF covers only commands no larger than it, and a page write
 * is one command, so it is not counted).  The stack's unit is the
 * smallest of its layers'.  A layer untorn cannot reason about (another
 * device-mapper target, RAID 5 without a journal, pmem, a network or
 * user-space device, a file on tmpfs or FUSE) makes the unit unknown,
 * and that layer is named.
 */
#ifndef UNTORN_BLOCKSTACK_H
#define UNTORN_BLOCKSTACK_H

#include <stdint.h>

#define UT_STACK_LAYERS 8

struct ut_stack_layer {
	char name[32]; /* loop0, dm-1, md0, nvme0n1, "ext4" for a file's fs */
	char what[96]; /* what it is and why its unit is what it is */
	uint32_t unit; /* 0: unknown */
};

struct ut_block_stack {
	uint32_t unit; /* the stack's: the smallest layer's; 0: unknown */
	unsigned n;
	struct ut_stack_layer layer[UT_STACK_LAYERS]; /* from the top down */
	char unknown[160]; /* why the unit is unknown, the layer named */
};

/*
 * Walks the stack under block device major:minor.  sys is the sysfs
 * root ("/sys"; a test's fake tree), mountinfo the mount table
 * ("/proc/self/mountinfo"), both used for a loop device's backing file.
 * Fills st; returns 0 (st->unit may still be 0, with st->unknown said).
 */
int ut_block_stack_probe(const char *sys, const char *mountinfo, unsigned major,
			 unsigned minor, struct ut_block_stack *st);

/* "loop0 512 > ext4 > vda 512": the layers in one line. */
void ut_block_stack_describe(const struct ut_block_stack *st, char *out,
			     unsigned long len);

#endif
