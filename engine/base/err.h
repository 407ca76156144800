/* SPDX-License-Identifier: MIT */
/*
 * base/err.h - filling the one-line error of <untorn/err.h>: what the
 * library's calls and the commands use, not the library's API.
 */
#ifndef UNTORN_BASE_ERR_H
#define UNTORN_BASE_ERR_H

#include <untorn/err.h>

/* Fills err (if not NULL) and returns ret, so callers can write
 * "return ut_err_set(err, -EINVAL, ...)". */
int ut_err_set(struct ut_err *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The command a user types for one of untorn's scripts (name as in
 * scripts/: "mkfs-journal"), for the fixes the tools print: the script's
 * full path when this program runs from a checkout's build tree (next to
 * scripts/), else its installed name, untorn-NAME.  Returns buf.
 */
const char *ut_tool_name(const char *name, char *buf, unsigned len);

#endif
