// SPDX-License-Identifier: MIT
/*
 * parse.c - size parsing for the command line.
 */
#include <errno.h>
#include <string.h>
#include <untorn/parse.h>

static int unit_shift(const char *unit)
{
	static const struct {
		const char *name;
		int shift;
	} units[] = {
		{ "", 0 }, { "b", 0 }, { "B", 0 },
		{ "k", 10 }, { "K", 10 }, { "KiB", 10 }, { "kib", 10 }, { "KB", 10 },
		{ "m", 20 }, { "M", 20 }, { "MiB", 20 }, { "mib", 20 }, { "MB", 20 },
		{ "g", 30 }, { "G", 30 }, { "GiB", 30 }, { "gib", 30 }, { "GB", 30 },
	};
	unsigned i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].name))
			return units[i].shift;
	return -1;
}

int ut_parse_size(const char *text, uint64_t max, uint64_t *out)
{
	uint64_t value = 0;
	const char *p = text;
	int shift;

	if (!text || *p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9') {
		if (value > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		value = value * 10 + (*p++ - '0');
	}
	shift = unit_shift(p);
	if (shift < 0)
		return -EINVAL;
	if (shift && value > (UINT64_MAX >> shift))
		return -ERANGE;
	value <<= shift;
	if (value > max)
		return -ERANGE;
	*out = value;
	return 0;
}
