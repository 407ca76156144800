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

#endif
