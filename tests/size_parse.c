// SPDX-License-Identifier: MIT
/*
 * size_parse.c - prints what ut_parse_size makes of each argument, one
 * line each: the bytes, or "refused".  tests/size_test.sh compares it with
 * the scripts' parse_size on one table.  The limit is 2^62 - 1, where the
 * shell's arithmetic stops.  With --count first, what ut_parse_count
 * makes of each, from 1 to that limit.
 */
#include <stdio.h>
#include <string.h>
#include "base/parse.h"

int main(int argc, char **argv)
{
	const uint64_t max = (1ull << 62) - 1;
	int i = 1, count = argc > 1 && !strcmp(argv[1], "--count");
	uint64_t v;

	for (i += count; i < argc; i++) {
		if (count ? ut_parse_count(argv[i], 1, max, &v) :
			    ut_parse_size(argv[i], max, &v))
			printf("refused\n");
		else
			printf("%llu\n", (unsigned long long)v);
	}
	return 0;
}
