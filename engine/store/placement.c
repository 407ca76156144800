// SPDX-License-Identifier: MIT
/*
 * placement.c - where a store's redo log and doublewrite file live: in
 * the store's directory, or in a directory of their own (init --redo-dir,
 * --dblwr-dir, as InnoDB's innodb_log_group_home_dir and
 * innodb_doublewrite_dir), each named for the store there and linked
 * from the store's directory by a symbolic link under the usual name, so
 * that every open finds it where it always does.  The files carry the
 * store's id, so a link to another store's file is refused at open.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "base/err.h"
#include "store/placement.h"

int ut_place_check_dir(const char *what, const char *dir, struct ut_err *err)
{
	struct statfs sfs;
	struct stat st;

	if (stat(dir, &st) < 0)
		return ut_err_set(err, -errno,
				  "%s directory %s: %s; create it on the filesystem that should hold the %s",
				  what, dir, strerror(errno), what);
	if (!S_ISDIR(st.st_mode))
		return ut_err_set(err, -ENOTDIR,
				  "%s directory %s is not a directory; give a directory",
				  what, dir);
	if (access(dir, W_OK | X_OK) < 0)
		return ut_err_set(err, -errno,
				  "%s directory %s is not writable: %s; fix its permissions or run as its owner",
				  what, dir, strerror(errno));
	if (statfs(dir, &sfs) < 0)
		return ut_err_set(err, -errno,
				  "%s directory %s: cannot read its filesystem: %s",
				  what, dir, strerror(errno));
	if (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC)
		return ut_err_set(err, -EINVAL,
				  "%s directory %s is in memory (tmpfs/ramfs), which a power cut empties; choose a directory on a disk",
				  what, dir);
	return 0;
}

int ut_place_target(const char *store_dir, const char *own_dir,
		    const char *name, const uint8_t uuid[16], char *target,
		    size_t len, struct ut_err *err)
{
	char real[PATH_MAX];
	int n;

	if (!own_dir)
		n = snprintf(target, len, "%s/%s", store_dir, name);
	else if (!realpath(own_dir, real))
		return ut_err_set(err, -errno, "%s: %s", own_dir,
				  strerror(errno));
	else
		/* untorn.redo of store 0a1b2c3d... -> untorn-0a1b2c3d.redo */
		n = snprintf(target, len, "%s/untorn-%02x%02x%02x%02x%s", real,
			     uuid[0], uuid[1], uuid[2], uuid[3],
			     strchr(name, '.'));
	if (n < 0 || (size_t)n >= len)
		return ut_err_set(err, -ENAMETOOLONG, "%s: path too long",
				  own_dir ? own_dir : store_dir);
	return 0;
}

int ut_place_link(const char *store_dir, const char *name, const char *target,
		  struct ut_err *err)
{
	char link[PATH_MAX + 16];

	snprintf(link, sizeof(link), "%s/%s", store_dir, name);
	if (!strcmp(link, target))
		return 0;
	if (symlink(target, link) < 0)
		return ut_err_set(err, -errno, "%s: cannot link to %s: %s",
				  link, target, strerror(errno));
	return 0;
}

void ut_place_remove(const char *store_dir, const char *name)
{
	char link[PATH_MAX + 16], target[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "%s/%s", store_dir, name);
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = 0;
		unlink(target);
	}
	unlink(link);
}

int ut_place_where(const char *store_dir, const char *name, char *target,
		   size_t len)
{
	char link[PATH_MAX + 16];
	ssize_t n;

	snprintf(link, sizeof(link), "%s/%s", store_dir, name);
	n = readlink(link, target, len - 1);
	if (n < 0) {
		snprintf(target, len, "%s", link);
		return 0;
	}
	target[n] = 0;
	return 1;
}

int ut_place_explain(const char *store_dir, const char *name, const char *what,
		     struct ut_err *err)
{
	char target[PATH_MAX];
	struct stat st;

	if (!ut_place_where(store_dir, name, target, sizeof(target)) ||
	    !stat(target, &st))
		return 0;
	return ut_err_set(err, -ENOENT,
			  "%s/%s links to %s, which is missing: mount the filesystem that holds the store's %s (its directory was given at init)",
			  store_dir, name, target, what);
}
