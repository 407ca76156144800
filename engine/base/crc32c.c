// SPDX-License-Identifier: MIT
/*
 * crc32c.c - CRC32C with the SSE4.2 crc32 instruction or a slicing-by-8
 * table, chosen once at load time.
 */
#include <stdint.h>
#include <string.h>
#include "base/crc32c.h"

#define CRC32C_POLY_REFLECTED 0x82f63b78u

static uint32_t crc32c_tab[8][256];

typedef uint32_t (*crc32c_fn)(uint32_t, const void *, size_t);
static crc32c_fn crc32c_active = ut_crc32c_table;

static void crc32c_tab_init(void)
{
	uint32_t crc;
	int i, j, k;

	for (i = 0; i < 256; i++) {
		crc = i;
		for (j = 0; j < 8; j++)
			crc = (crc >> 1) ^ (CRC32C_POLY_REFLECTED & -(crc & 1));
		crc32c_tab[0][i] = crc;
	}
	for (i = 0; i < 256; i++) {
		crc = crc32c_tab[0][i];
		for (k = 1; k < 8; k++) {
			crc = crc32c_tab[0][crc & 0xff] ^ (crc >> 8);
			crc32c_tab[k][i] = crc;
		}
	}
}

uint32_t ut_crc32c_table(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t word;

	crc = ~crc;
	while (len && ((uintptr_t)p & 7)) {
		crc = crc32c_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		len--;
	}
	/* one table lookup per byte, a line each */
	/* clang-format off */
	while (len >= 8) {
		memcpy(&word, p, 8);
		word ^= crc;
		crc = crc32c_tab[7][word & 0xff] ^
		      crc32c_tab[6][(word >> 8) & 0xff] ^
		      crc32c_tab[5][(word >> 16) & 0xff] ^
		      crc32c_tab[4][(word >> 24) & 0xff] ^
		      crc32c_tab[3][(word >> 32) & 0xff] ^
		      crc32c_tab[2][(word >> 40) & 0xff] ^
		      crc32c_tab[1][(word >> 48) & 0xff] ^
		      crc32c_tab[0][word >> 56];
		p += 8;
		len -= 8;
	}
	/* clang-format on */
	while (len--)
		crc = crc32c_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

#if defined(__x86_64__)
/* clang-format off */
__attribute__((target("sse4.2")))
uint32_t ut_crc32c_hw(uint32_t crc, const void *buf, size_t len)
/* clang-format on */
{
	const unsigned char *p = buf;
	uint64_t crc64, word;

	crc = ~crc;
	while (len && ((uintptr_t)p & 7)) {
		crc = __builtin_ia32_crc32qi(crc, *p++);
		len--;
	}
	crc64 = crc;
	while (len >= 8) {
		memcpy(&word, p, 8);
		crc64 = __builtin_ia32_crc32di(crc64, word);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)crc64;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return ~crc;
}

int ut_crc32c_hw_available(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse4.2");
}
#else
uint32_t ut_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
	return ut_crc32c_table(crc, buf, len);
}

int ut_crc32c_hw_available(void)
{
	return 0;
}
#endif

/* clang-format off */
__attribute__((constructor))
static void crc32c_init(void)
/* clang-format on */
{
	crc32c_tab_init();
	if (ut_crc32c_hw_available())
		crc32c_active = ut_crc32c_hw;
}

uint32_t ut_crc32c(uint32_t crc, const void *buf, size_t len)
{
	return crc32c_active(crc, buf, len);
}

const char *ut_crc32c_impl(void)
{
	return crc32c_active == ut_crc32c_hw ? "sse4.2" : "table";
}
