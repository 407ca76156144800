/* SPDX-License-Identifier: MIT */
/*
 * parse.h - parsing what users type: sizes such as "16k", "4KiB", "1M".
 */
#ifndef UNTORN_PARSE_H
#define UNTORN_PARSE_H

#include <stdint.h>

/*
 * Parses a byte count: digits, then nothing or B (bytes), or K, M, G, T
 * (powers of 1024), alone or with B or iB after it, in any case: 512,
 * 16k, 16KiB, 256M, 256MB, 1G, 1T.  Returns 0, -EINVAL for anything
 * else, -ERANGE when the value exceeds max.
 */
int ut_parse_size(const char *text, uint64_t max, uint64_t *out);

#endif
