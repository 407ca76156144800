// SPDX-License-Identifier: MIT
/*
 * fuzz_parse.c - libFuzzer harness for the command line's values: sizes
 * (--pool 64M, --page-size 16k, ...) and guard names.  The first 8 bytes
 * are the limit, the rest the text.
 *
 * Contract: ut_parse_size returns 0 with a value within the limit,
 * -EINVAL or -ERANGE, and leaves the output alone on error; a guard name
 * parses to a guard whose name is that text, or -EINVAL.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/guard.h>
#include "base/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t max = 0, out = 0x5a5a5a5a5a5a5a5aull;
	char *text;
	int ret;

	if (size < 8)
		return 0;
	memcpy(&max, data, 8);
	text = malloc(size - 7);
	if (!text)
		abort();
	memcpy(text, data + 8, size - 8);
	text[size - 8] = '\0';
	ret = ut_parse_size(text, max, &out);
	if (ret == 0 && out > max)
		abort();
	if (ret && ret != -EINVAL && ret != -ERANGE)
		abort();
	if (ret && out != 0x5a5a5a5a5a5a5a5aull)
		abort();
	ret = ut_guard_parse(text);
	if (ret >= 0 && strcmp(ut_guard_name(ret), text))
		abort();
	if (ret < 0 && ret != -EINVAL)
		abort();
	free(text);
	return 0;
}
