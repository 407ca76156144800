// SPDX-License-Identifier: MIT
/*
 * size_parse.c - prints what ut_parse_size makes of each argument, one
 * line each: the bytes, or "refused".  tests/size_test.sh compares it with
 * the scripts' parse_size on one table.  The limit is 2^62 - 1, where the
 * shell's arithmetic stops.
 */
#include <stdio.h>
#include <untorn/parse.h>

int main(int argc, char **argv)
{
	uint64_t v;
	int i;

	for (i = 1; i < argc; i++) {
		if (ut_parse_size(argv[i], (1ull << 62) - 1, &v))
			printf("refused\n");
		else
			printf("%llu\n", (unsigned long long)v);
	}
	return 0;
}
