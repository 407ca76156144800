/* SPDX-License-Identifier: MIT */
/*
 * beside.h - the files untorn-fscheck runs (a bpftrace script, the
 * measuring script), found beside the program: in a checkout's tree, or
 * where make install put them.
 */
#ifndef UNTORN_BESIDE_H
#define UNTORN_BESIDE_H

#include <stddef.h>

/*
 * The first readable TOP/rel[i]/name, TOP being the directory above the
 * one this program lives in (the checkout's root for build/untorn-fscheck,
 * PREFIX for PREFIX/bin/untorn-fscheck), into out.  -ENOENT if none.
 */
int ut_beside_exe(const char *const *rel, size_t n, const char *name, char *out,
		  size_t len);

#endif
