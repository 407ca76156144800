// SPDX-License-Identifier: MIT
/*
 * err.c - filling struct ut_err.
 */
#include <stdarg.h>
#include <stdio.h>
#include <untorn/err.h>

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
