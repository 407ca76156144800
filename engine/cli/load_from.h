/* SPDX-License-Identifier: MIT */
/*
 * load_from.h - `untorn load DIR --from FILE`: a dump restored.
 */
#ifndef UNTORN_LOAD_FROM_H
#define UNTORN_LOAD_FROM_H

#include <untorn/engine.h>

/* The command's exit status. */
int load_from(const char *dir, const char *file,
	      const struct ut_engine_opts *eo);

#endif
