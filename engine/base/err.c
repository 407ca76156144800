// SPDX-License-Identifier: MIT
/*
 * err.c - filling struct ut_err, and the names of untorn's scripts as a
 * fix should print them.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/err.h"

int ut_err_set(struct ut_err *err, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return ret;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return ret;
}

const char *ut_tool_name(const char *name, char *buf, unsigned len)
{
	char exe[PATH_MAX], script[PATH_MAX + 64], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	snprintf(buf, len, "untorn-%s", name);
	if (n <= 0)
		return buf;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return buf;
	*slash = '\0'; /* the program's directory: build/ in a checkout */
	slash = strrchr(exe, '/');
	if (!slash)
		return buf;
	*slash = '\0';
	snprintf(script, sizeof(script), "%s/scripts/%s", exe, name);
	if (!access(script, X_OK))
		snprintf(buf, len, "%s", script);
	return buf;
}
