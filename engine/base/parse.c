// SPDX-License-Identifier: MIT
/*
 * parse.c - size and count parsing for the command line, and getopt's
 * refusals in words.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "base/parse.h"

/*
 * The one rule for sizes, in the untorn command, untorn-fscheck and the
 * scripts (scripts/lib/common.sh parse_size, checked against this by
 * tests/size_test.sh): digits, then nothing (bytes), B, or K, M, G, T
 * (powers of 1024) alone or followed by B or iB, in any case.
 */
static int unit_shift(const char *unit)
{
	static const char prefixes[] = "kmgt";
	const char *p;
	int shift;

	if (!*unit || !strcasecmp(unit, "b"))
		return 0;
	p = strchr(prefixes, tolower((unsigned char)*unit));
	if (!p)
		return -1;
	shift = 10 * (int)(p - prefixes + 1);
	unit++;
	if (!*unit || !strcasecmp(unit, "b") || !strcasecmp(unit, "ib"))
		return shift;
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

int ut_parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *p = text;
	uint64_t value;
	int ret;

	if (!text || !*p)
		return -EINVAL;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	ret = ut_parse_size(text, max, &value);
	if (ret)
		return ret;
	if (value < min)
		return -ERANGE;
	*out = value;
	return 0;
}

void ut_getopt_error(char **argv, char *buf, size_t len)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const char *eq = strchr(arg, '=');

	if (strncmp(arg, "--", 2))
		snprintf(buf, len, "unknown option '-%c'",
			 optopt ? optopt : '?');
	else if (optopt && eq)
		snprintf(buf, len, "%.*s takes no value", (int)(eq - arg), arg);
	else if (optopt)
		snprintf(buf, len, "%s needs a value", arg);
	else
		snprintf(buf, len, "unknown option '%s'", arg);
}
