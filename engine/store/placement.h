/* SPDX-License-Identifier: MIT */
/*
 * placement.h - the redo log and the doublewrite file in the store's
 * directory or in one of their own, linked from it (placement.c).
 */
#ifndef UNTORN_PLACEMENT_H
#define UNTORN_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>
#include <untorn/err.h>

/* A directory that may hold what: exists, writable, not in memory. */
int ut_place_check_dir(const char *what, const char *dir, struct ut_err *err);
/* Where the store's file name goes: store_dir/name, or in own_dir (when
 * not NULL) a name of its own for this store. */
int ut_place_target(const char *store_dir, const char *own_dir,
		    const char *name, const uint8_t uuid[16], char *target,
		    size_t len, struct ut_err *err);
/* store_dir/name linked to target, unless it is target. */
int ut_place_link(const char *store_dir, const char *name, const char *target,
		  struct ut_err *err);
/* Removes store_dir/name and, when it is a link, what it points to. */
void ut_place_remove(const char *store_dir, const char *name);
/* The file behind store_dir/name in target: 1 when linked elsewhere. */
int ut_place_where(const char *store_dir, const char *name, char *target,
		   size_t len);
/* -ENOENT with the fix when store_dir/name links to a missing file. */
int ut_place_explain(const char *store_dir, const char *name, const char *what,
		     struct ut_err *err);

#endif
