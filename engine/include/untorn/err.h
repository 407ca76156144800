/* SPDX-License-Identifier: MIT */
/*
 * err.h - the one-line error a user sees: what failed, why, and the fix
 * (naming untorn's own commands as the user has them).
 *
 * Engine functions return -errno; the ones that can fail for a reason the
 * user must act on also fill a struct ut_err with that one line.
 */
#ifndef UNTORN_ERR_H
#define UNTORN_ERR_H

struct ut_err {
	char msg[640];
};

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
