/* SPDX-License-Identifier: MIT */
/*
 * parse.h - parsing what users type: sizes such as "16k", "4KiB", "1M",
 * and what was wrong with an option getopt_long(3) refused.
 */
#ifndef UNTORN_PARSE_H
#define UNTORN_PARSE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parses a byte count: digits, then nothing or B (bytes), or K, M, G, T
 * (powers of 1024), alone or with B or iB after it, in any case: 512,
 * 16k, 16KiB, 256M, 256MB, 1G, 1T.  Returns 0, -EINVAL for anything
 * else, -ERANGE when the value exceeds max.
 */
int ut_parse_size(const char *text, uint64_t max, uint64_t *out);

/*
 * Parses a count: digits only, no sign, space or unit ("3k" rows would be
 * 3072 of them: a count is not a size), from min to max.  Returns 0,
 * -EINVAL for anything but digits, -ERANGE outside [min, max].
 */
int ut_parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/*
 * After getopt_long(3) returned '?' (with opterr 0, so it printed
 * nothing): what was wrong, in words for one error line, into buf --
 * "unknown option '--foo'", "--threads needs a value", "--json takes no
 * value".  argv is the vector getopt_long was given.
 */
void ut_getopt_error(char **argv, char *buf, size_t len);

#endif
