/* SPDX-License-Identifier: MIT */
/*
 * rowgen.h - the self-checking row values `load` and `bench` write, so a
 * crash test can tell a committed value from a torn or stale one:
 *   le64 key, le64 version, le32 writer, filler, le32 FNV-1a of the rest.
 * A row of a transaction of several writes is linked (writer bit 31):
 * after the writer, le64 next_key, le64 next_version name the row the
 * same transaction wrote to the next of its keys, in a ring; if this
 * row survived a crash, so must that one (or a later version of it), or
 * the transaction was applied in half (`untorn verify` looks).
 *
 * Not CRC32C, on purpose: CRC32C is linear, so replacing one
 * "bytes + their CRC32C" with another of the same length changes no
 * enclosing CRC32C either.  With CRC32C-sealed values a page torn between
 * two versions of its rows kept a valid page checksum (seen in the crash
 * simulator with --single-lsn); any checksum that is not CRC32C avoids
 * feeding the page checksum its own blind spot.
 */
#ifndef UNTORN_ROWGEN_H
#define UNTORN_ROWGEN_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define ROW_VALUE_MIN 24u
#define ROW_LINKED 0x80000000u /* writer bit: next_key, next_version follow */
#define ROW_LINK_MIN 40u /* a value with room for the link */

static inline uint32_t row_hash(const unsigned char *p, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return (uint32_t)(h ^ (h >> 32));
}

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
	crc = row_hash(buf, len - 4);
	memcpy(buf + len - 4, &crc, 4);
}

/* Links a value row_value() made (of at least ROW_LINK_MIN bytes) to the
 * transaction's row of next_key at next_version. */
static inline void row_link(unsigned char *buf, uint32_t len, uint64_t next_key,
			    uint64_t next_version)
{
	uint32_t writer, crc;

	memcpy(&writer, buf + 16, 4);
	writer |= ROW_LINKED;
	memcpy(buf + 16, &writer, 4);
	memcpy(buf + 20, &next_key, 8);
	memcpy(buf + 28, &next_version, 8);
	crc = row_hash(buf, len - 4);
	memcpy(buf + len - 4, &crc, 4);
}

/* 1 when a whole value (row_check) is linked: its link in *next_key,
 * *next_version. */
static inline int row_linked(const unsigned char *buf, uint32_t len,
			     uint64_t *next_key, uint64_t *next_version)
{
	uint32_t writer;

	memcpy(&writer, buf + 16, 4);
	if (!(writer & ROW_LINKED) || len < ROW_LINK_MIN)
		return 0;
	memcpy(next_key, buf + 20, 8);
	memcpy(next_version, buf + 28, 8);
	return 1;
}

/* xorshift64: the benchmarks' random keys (a state of its own per thread,
 * never 0) */
static inline uint64_t row_rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* 1 when buf claims this format for key: long enough, and it begins
 * with key (a value another writer wrote, e.g. put's, does not). */
static inline int row_claims(const unsigned char *buf, uint32_t len,
			     uint64_t key)
{
	uint64_t k;

	if (len < ROW_VALUE_MIN)
		return 0;
	memcpy(&k, buf, 8);
	return k == key;
}

/* 0 when buf is a whole value written for key; *version gets its version. */
static inline int row_check(const unsigned char *buf, uint32_t len,
			    uint64_t key, uint64_t *version)
{
	uint32_t crc;

	if (!row_claims(buf, len, key))
		return -EBADMSG;
	memcpy(&crc, buf + len - 4, 4);
	if (crc != row_hash(buf, len - 4))
		return -EBADMSG;
	memcpy(version, buf + 8, 8);
	return 0;
}

#endif
