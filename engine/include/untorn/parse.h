/* SPDX-License-Identifier: MIT */
/*
 * parse.h - parsing what users type: sizes such as "16k", "4KiB", "1M".
 */
#ifndef UNTORN_PARSE_H
#define UNTORN_PARSE_H

#include <stdint.h>

/*
 * Parses a byte count: digits, then an optional unit k/K/KiB, m/M/MiB,
 * g/G/GiB (powers of 1024) or b.  Returns 0, -EINVAL for anything else,
 * -ERANGE when the value exceeds max.
 */
int ut_parse_size(const char *text, uint64_t max, uint64_t *out);

#endif
