// SPDX-License-Identifier: MIT
/*
 * crc32c_test.c - CRC32C known vectors (RFC 3720 B.4 and the usual check
 * value) for the table and the SSE4.2 variant, and that both agree on
 * random buffers of every alignment and length up to 4 KiB, chained too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/crc32c.h"
#include "ktap.h"

struct vector {
	const char *name;
	unsigned char data[32];
	size_t len;
	uint32_t crc;
};

static void make_vectors(struct vector *v)
{
	int i;

	v[0].name = "32 bytes of zeros";
	memset(v[0].data, 0, 32);
	v[0].len = 32;
	v[0].crc = 0x8a9136aa;
	v[1].name = "32 bytes of 0xff";
	memset(v[1].data, 0xff, 32);
	v[1].len = 32;
	v[1].crc = 0x62a8ab43;
	v[2].name = "bytes 0..31";
	for (i = 0; i < 32; i++)
		v[2].data[i] = i;
	v[2].len = 32;
	v[2].crc = 0x46dd794e;
	v[3].name = "bytes 31..0";
	for (i = 0; i < 32; i++)
		v[3].data[i] = 31 - i;
	v[3].len = 32;
	v[3].crc = 0x113fdb5c;
	v[4].name = "\"123456789\"";
	memcpy(v[4].data, "123456789", 9);
	v[4].len = 9;
	v[4].crc = 0xe3069283;
}

static int check_vectors(const char *impl,
			 uint32_t (*fn)(uint32_t, const void *, size_t),
			 const struct vector *v, int n)
{
	int i, ok = 1;
	uint32_t got;

	for (i = 0; i < n; i++) {
		got = fn(0, v[i].data, v[i].len);
		if (got != v[i].crc) {
			ktap_diag("%s: %s: got %08x, want %08x", impl,
				  v[i].name, got, v[i].crc);
			ok = 0;
		}
	}
	return ok;
}

static int random_agree(void)
{
	static unsigned char buf[4096 + 16];
	size_t len, off, split;
	uint32_t a, b, c;
	int i;

	srand(42);
	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = rand();
	for (i = 0; i < 20000; i++) {
		off = rand() % 16;
		len = rand() % 4097;
		split = len ? rand() % len : 0;
		a = ut_crc32c_table(0, buf + off, len);
		b = ut_crc32c_hw(0, buf + off, len);
		c = ut_crc32c_hw(ut_crc32c_hw(0, buf + off, split),
				 buf + off + split, len - split);
		if (a != b || a != c) {
			ktap_diag("off %zu len %zu split %zu: table %08x hw %08x chained %08x",
				  off, len, split, a, b, c);
			return 0;
		}
	}
	return 1;
}

int main(void)
{
	struct vector v[5];

	make_vectors(v);
	ktap_plan(4);
	ktap_ok(check_vectors("table", ut_crc32c_table, v, 5),
		"table CRC32C matches the RFC 3720 vectors");
	if (!ut_crc32c_hw_available()) {
		ktap_skip_case("sse4.2 CRC32C matches the vectors",
			       "CPU has no SSE4.2");
		ktap_skip_case("sse4.2 and table agree", "CPU has no SSE4.2");
	} else {
		ktap_ok(check_vectors("sse4.2", ut_crc32c_hw, v, 5),
			"sse4.2 CRC32C matches the RFC 3720 vectors");
		ktap_ok(random_agree(),
			"sse4.2 and table agree on 20000 random buffers, any alignment, chained");
	}
	ktap_ok(check_vectors(ut_crc32c_impl(), ut_crc32c, v, 5),
		"ut_crc32c (%s) matches the vectors", ut_crc32c_impl());
	return ktap_finish();
}
