/* SPDX-License-Identifier: MIT */
/*
 * fstab_line.h - the /etc/fstab line for a mounted filesystem, by the one
 * rule untorn's tools share (scripts/lib/common.sh fstab_line prints the
 * same for fix-journal, mkfs-journal and mkfs-atomic).
 */
#ifndef UNTORN_FSTAB_LINE_H
#define UNTORN_FSTAB_LINE_H

#include <stddef.h>
#include "fscaps.h"

/*
 * The line for the mount m with the options in add (comma-separated)
 * added: the mount's own options kept (its per-mount and filesystem
 * options; an added option replaces one of its name), the filesystem
 * named by UUID, or a loop device by its backing file with "loop".
 * Returns 0, or -ENAMETOOLONG when it does not fit in out.
 */
int ut_fstab_line(const struct ut_mount *m, const char *add, char *out,
		  size_t len);

#endif
