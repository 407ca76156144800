// SPDX-License-Identifier: MIT
/*
 * dump_file.c - parsing the lines of a dump, strictly as `untorn dump`
 * writes them: a restore takes nothing it cannot read back exactly.
 */
#include <errno.h>
#include <string.h>
#include "dump_file.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* digits to the first non-digit, as printf writes them (no leading
 * zeros); NULL on none, a leading zero or overflow */
static const char *parse_key(const char *p, uint64_t *key)
{
	uint64_t v = 0;
	const char *start = p;

	if (p[0] == '0' && p[1] >= '0' && p[1] <= '9')
		return NULL;

	while (*p >= '0' && *p <= '9') {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return NULL;
		v = v * 10 + (uint64_t)(*p++ - '0');
	}
	*key = v;
	return p == start ? NULL : p;
}

/* hex pairs up to end (or the first non-hex); the end of them */
static const char *parse_hex(const char *p, unsigned char *val, uint32_t cap,
			     uint32_t *len, const char **why)
{
	int hi, lo;

	*len = 0;
	while ((hi = hexval(p[0])) >= 0) {
		lo = hexval(p[1]);
		if (lo < 0) {
			*why = "the value has an odd number of hex digits";
			return NULL;
		}
		if (*len == cap) {
			*why = "the value is longer than this store's largest";
			return NULL;
		}
		val[(*len)++] = (unsigned char)(hi << 4 | lo);
		p += 2;
	}
	return p;
}

int dump_line_parse(const char *line, uint64_t *key, unsigned char *val,
		    uint32_t cap, uint32_t *len, const char **why)
{
	static const char jkey[] = "{\"key\": ", jval[] = ", \"value\": \"",
			  jend[] = "\"}";
	int jsonl = line[0] == '{';
	const char *p = jsonl ? line + strlen(jkey) : line;

	*why = "not a line of untorn dump (KEY<tab>HEX, or {\"key\": KEY, \"value\": \"HEX\"})";
	if (jsonl && strncmp(line, jkey, strlen(jkey)))
		return -EINVAL;
	p = parse_key(p, key);
	if (!p)
		return -EINVAL;
	if (jsonl ? strncmp(p, jval, strlen(jval)) : *p != '\t')
		return -EINVAL;
	p += jsonl ? strlen(jval) : 1;
	p = parse_hex(p, val, cap, len, why);
	if (!p)
		return -EINVAL;
	if (strcmp(p, jsonl ? jend : "")) {
		*why = "not a line of untorn dump (KEY<tab>HEX, or {\"key\": KEY, \"value\": \"HEX\"})";
		return -EINVAL;
	}
	if (!*len) {
		*why = "the value is empty";
		return -EINVAL;
	}
	return 0;
}
