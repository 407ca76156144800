// SPDX-License-Identifier: MIT
/*
 * fuzz_redo.c - libFuzzer harness for the redo log's reader: the block
 * scan (checksums, LSNs, laps, lengths, the wrap of the circular file)
 * and the cutting of the payload into groups and records.
 *
 * Input: byte 0 flags (bit 0: frame the rest into sound blocks, with
 * right LSNs and checksums, so that the group and record parser sees the
 * bytes; otherwise the rest is raw blocks; bit 1: read it as a format 1
 * log, zeros taken as unused), byte 1 where in its block the
 * scan starts; the blocks go four blocks before the end of the circular
 * area, so every scan of more than four blocks wraps.
 *
 * Contract: ut_redo_scan returns 0; the groups it accepts lie inside the
 * stream, in order, and end at end_lsn; it never reads outside what it
 * was given.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/crc32c.h"
#include "log/redo.h"

static struct ut_redo log;
static struct ut_ring *ring;
static uint64_t written_off, written_len;

static void put_le(unsigned char *p, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t uuid[16] = { 1, 2, 3, 4 };
	char dir[] = "/tmp/untorn-fuzz-redo-XXXXXX", path[64];
	struct ut_err err;

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/untorn.redo", dir);
	if (ut_redo_create(path, UT_LOG_SIZE_MIN, uuid, &err) ||
	    ut_redo_open(&log, path, uuid, &err) || ut_ring_init(&ring, 8, 0))
		abort();
	unlink(path); /* gone when the fuzzer exits; the fd stays */
	rmdir(dir);
	return 0;
}

/* writes n bytes at LSN lsn of the circular area, wrapping */
static void log_write(uint64_t lsn, const unsigned char *p, size_t n)
{
	uint64_t off = lsn % log.capacity, first = log.capacity - off;

	if (first > n)
		first = n;
	if (pwrite(log.fd, p, first, UT_LOG_HDR_SIZE + off) != (ssize_t)first ||
	    (n > first && pwrite(log.fd, p + first, n - first,
				 UT_LOG_HDR_SIZE) != (ssize_t)(n - first)))
		abort();
}

/* puts back what a new log holds where the input went: unused blocks */
static void log_clear(void)
{
	unsigned char *unused = calloc(1, written_len);
	uint64_t i;

	if (!unused)
		abort();
	for (i = 0; i < written_len; i += UT_LOG_BLOCK) {
		put_le(unused + i, UT_LOG_UNUSED_LSN, 8);
		put_le(unused + i + UT_LOG_BLOCK - 4,
		       ut_crc32c(0, unused + i, UT_LOG_BLOCK - 4), 4);
	}
	log_write(written_off, unused, written_len);
	free(unused);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t base = 3 * log.capacity - 4 * UT_LOG_BLOCK, start, prev;
	struct ut_redo_scan scan;
	struct ut_err err;
	unsigned char *blocks;
	size_t n_blocks, i, len;
	int framed, ret;

	if (size < 2 || size > 64 * UT_LOG_BLOCK)
		return 0;
	framed = data[0] & 1;
	log.filled = !(data[0] & 2);
	start = base + data[1] % UT_LOG_BLOCK;
	data += 2;
	size -= 2;
	n_blocks = framed ? (size + UT_LOG_PAYLOAD - 1) / UT_LOG_PAYLOAD :
			    (size + UT_LOG_BLOCK - 1) / UT_LOG_BLOCK;
	blocks = calloc(n_blocks ? n_blocks : 1, UT_LOG_BLOCK);
	if (!blocks)
		abort();
	for (i = 0; i < n_blocks; i++) {
		unsigned char *b = blocks + i * UT_LOG_BLOCK;

		if (!framed) {
			len = size - i * UT_LOG_BLOCK;
			memcpy(b, data + i * UT_LOG_BLOCK,
			       len < UT_LOG_BLOCK ? len : UT_LOG_BLOCK);
			continue;
		}
		len = size - i * UT_LOG_PAYLOAD;
		if (len > UT_LOG_PAYLOAD)
			len = UT_LOG_PAYLOAD;
		put_le(b, base + i * UT_LOG_BLOCK, 8);
		put_le(b + 8, len, 2);
		memcpy(b + UT_LOG_BLOCK_HDR, data + i * UT_LOG_PAYLOAD, len);
		put_le(b + UT_LOG_BLOCK - 4, ut_crc32c(0, b, UT_LOG_BLOCK - 4),
		       4);
	}
	log_write(base, blocks, n_blocks * UT_LOG_BLOCK);
	written_off = base;
	written_len = n_blocks * UT_LOG_BLOCK;

	ret = ut_redo_scan(&log, ring, start, &scan, &err);
	if (ret)
		abort();
	if (scan.end_lsn < start || scan.bytes > scan.stream_len ||
	    !scan.stop_reason)
		abort();
	prev = start;
	for (i = 0; i < scan.groups; i++) {
		if (scan.group_off[i] >= scan.stream_len ||
		    scan.group_end[i] <= prev)
			abort();
		prev = scan.group_end[i];
	}
	if (scan.groups && prev != scan.end_lsn)
		abort();
	ut_redo_scan_free(&scan);
	log_clear();
	free(blocks);
	return 0;
}
