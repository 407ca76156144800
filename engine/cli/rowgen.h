/* SPDX-License-Identifier: MIT */
/*
 * rowgen.h - the self-checking row values `load` and `bench` write, so a
 * crash test can tell a committed value from a torn or stale one:
 *   le64 key, le64 version, le32 writer, filler, le32 CRC32C of the rest.
 */
#ifndef UNTORN_ROWGEN_H
#define UNTORN_ROWGEN_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <untorn/crc32c.h>

#define ROW_VALUE_MIN 24u

static inline void row_value(unsigned char *buf, uint32_t len, uint64_t key,
			     uint64_t version, uint32_t writer)
{
	uint64_t x = key * 0x9e3779b97f4a7c15ull ^ version;
	uint32_t i, crc;

	memcpy(buf, &key, 8);
	memcpy(buf + 8, &version, 8);
	memcpy(buf + 16, &writer, 4);
	for (i = 20; i < len - 4; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = x;
	}
	crc = ut_crc32c(0, buf, len - 4);
	memcpy(buf + len - 4, &crc, 4);
}

/* 0 when buf is a whole value written for key; *version gets its version. */
static inline int row_check(const unsigned char *buf, uint32_t len,
			    uint64_t key, uint64_t *version)
{
	uint64_t k;
	uint32_t crc;

	if (len < ROW_VALUE_MIN)
		return -EBADMSG;
	memcpy(&crc, buf + len - 4, 4);
	memcpy(&k, buf, 8);
	if (crc != ut_crc32c(0, buf, len - 4) || k != key)
		return -EBADMSG;
	memcpy(version, buf + 8, 8);
	return 0;
}

#endif
