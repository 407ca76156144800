// SPDX-License-Identifier: MIT
/*
 * fuzz_dumpline.c - libFuzzer harness for the lines `untorn load --from`
 * reads (engine/cli/dump_file.c, built in here: it is the command's, not
 * the library's).  The first byte picks the value capacity (x 8), the
 * rest is one line.
 *
 * Contract: dump_line_parse either refuses the line (-EINVAL, with a
 * reason) or returns a key and a value of 1..cap bytes, and then writing
 * them back in the line's own format gives the very same line: a restore
 * never reads a row other than the one the dump wrote.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../engine/cli/dump_file.c"

static void encode(char *out, size_t len, int jsonl, uint64_t key,
		   const unsigned char *v, uint32_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t o;
	uint32_t i;

	o = (size_t)snprintf(out, len,
			     jsonl ? "{\"key\": %llu, \"value\": \"" : "%llu\t",
			     (unsigned long long)key);
	for (i = 0; i < n && o + 2 < len; i++) {
		out[o++] = hex[v[i] >> 4];
		out[o++] = hex[v[i] & 15];
	}
	snprintf(out + o, len - o, "%s", jsonl ? "\"}" : "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char val[2048];
	char *line, *again;
	const char *why = NULL;
	uint64_t key;
	uint32_t cap, len = 0;
	int ret;

	if (size < 1)
		return 0;
	cap = 1 + data[0] * 8u;
	line = malloc(size);
	again = malloc(2 * size + 64);
	if (!line || !again)
		abort();
	memcpy(line, data + 1, size - 1);
	line[size - 1] = '\0';
	ret = dump_line_parse(line, &key, val, cap, &len, &why);
	if (ret) {
		if (ret != -EINVAL || !why || !*why)
			abort();
	} else {
		if (len < 1 || len > cap)
			abort();
		encode(again, 2 * size + 64, line[0] == '{', key, val, len);
		if (strcmp(again, line))
			abort();
	}
	free(line);
	free(again);
	return 0;
}
