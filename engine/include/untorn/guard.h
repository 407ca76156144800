/* SPDX-License-Identifier: MIT */
/*
 * guard.h - the guards a store can name: the ids its superblock records
 * and their names.  What each guard is and does is the guard's own file
 * behind the guard table (engine/guard/guard.h, docs/architecture.md);
 * `untorn guards` lists them.
 */
#ifndef UNTORN_GUARD_PUBLIC_H
#define UNTORN_GUARD_PUBLIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ids of the guards built in, as the superblock records them
 * (format compatibility: never renumbered, never reused). */
enum ut_guard {
	UT_GUARD_DOUBLEWRITE = 1,
	UT_GUARD_JOURNAL = 2,
	UT_GUARD_ATOMIC = 3,
	UT_GUARD_NONE = 4,
	UT_GUARD_SECTOR = 5,
};

/* The guard a store gets when none is asked for: the one safe on every
 * filesystem (InnoDB's own default, the doublewrite buffer). */
#define UT_GUARD_DEFAULT UT_GUARD_DOUBLEWRITE

/* Options for a guard at init (--NAME VALUE, `untorn guards NAME`
 * names them): each the chosen guard's, checked by it. */
#define UT_GUARD_ARGS_MAX 8
struct ut_guard_args {
	unsigned n;
	struct {
		const char *name;
		const char *value;
	} v[UT_GUARD_ARGS_MAX];
};

/* The name of the guard with that id in this build, or NULL. */
const char *ut_guard_name(uint32_t guard);
/* Its one-line description, or NULL. */
const char *ut_guard_help(uint32_t guard);
/* Returns the guard's id, or -EINVAL for a name no guard has. */
int ut_guard_parse(const char *name);
/* The guards of this build, in the table's order: "doublewrite, journal,
 * atomic, none" (for messages). */
const char *ut_guard_names(void);

#ifdef __cplusplus
}
#endif

#endif
