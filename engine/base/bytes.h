/* SPDX-License-Identifier: MIT */
/*
 * bytes.h - little-endian field access for on-disk structures.
 *
 * On-disk formats are byte arrays read and written field by field, never
 * cast to structs, so a hostile buffer cannot cause unaligned or
 * out-of-bounds access through a struct layout.
 */
#ifndef UNTORN_BYTES_H
#define UNTORN_BYTES_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t get_le16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline uint32_t get_le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t get_le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline void put_le16(void *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_le32(void *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_le64(void *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static inline int is_zero(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

static inline int ilog2_u32(uint32_t v)
{
	return 31 - __builtin_clz(v);
}

#endif
