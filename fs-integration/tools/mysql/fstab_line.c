// SPDX-License-Identifier: MIT
/*
 * fstab_line.c - the /etc/fstab line for a mounted filesystem: keep the
 * mount's options, add what is needed, name the filesystem by UUID (a
 * loop device by its backing file, with "loop": nothing attaches a loop
 * device at boot for a UUID to be found).  scripts/lib/common.sh's
 * fstab_line is the same rule for the scripts; tests/fixjournal_test.sh
 * holds the two to the same line.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fstab_line.h"

static int is_atime(const char *o)
{
	static const char *const atime[] = { "noatime",	   "relatime",
					     "norelatime", "strictatime",
					     "atime",	   "nostrictatime",
					     NULL };
	int i;

	for (i = 0; atime[i]; i++)
		if (!strcmp(o, atime[i]))
			return 1;
	return 0;
}

/* o is in the comma-separated list (whole, or by name if by_name) */
static int in_list(const char *list, const char *o, int by_name)
{
	size_t n = by_name && strchr(o, '=') ? (size_t)(strchr(o, '=') - o) :
					       strlen(o);
	const char *p = list;

	while (*p) {
		size_t w = strcspn(p, ",");
		size_t k = by_name ? strcspn(p, ",=") : w;

		if (k > w)
			k = w;
		if (k == n && !strncmp(p, o, n))
			return 1;
		p += w;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int append(char *buf, size_t len, const char *o)
{
	size_t used = strlen(buf);
	int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", o);

	return n < 0 || (size_t)n >= len - used ? -ENAMETOOLONG : 0;
}

/* the options kept: the mount's, then add's, by the rule above */
static int options(const struct ut_mount *m, const char *add, char *out,
		   size_t len)
{
	char all[2048], *tok, *save = NULL;
	int journal = in_list(add, "data=journal", 0), atime = 0, ret = 0;

	snprintf(all, sizeof(all), "%s,%s,%s", m->mount_opts, m->super_opts,
		 add);
	out[0] = '\0';
	for (tok = strtok_r(all, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "rw") || !strcmp(tok, "seclabel") ||
		    !strcmp(tok, "defaults") || !strcmp(tok, "loop"))
			continue;
		/* what data=journal implies, ext4 shows: left to it */
		if (journal && (!strcmp(tok, "nodelalloc") ||
				!strcmp(tok, "nodioread_nolock")))
			continue;
		if (is_atime(tok) && atime++)
			continue;
		/* an added option replaces the mount's of its name */
		if (in_list(add, tok, 1) && !in_list(add, tok, 0))
			continue;
		if (in_list(out, tok, 0))
			continue;
		ret = append(out, len, tok);
	}
	return ret;
}

/* the UUID= of a block device, from udev's /dev/disk/by-uuid */
static int uuid_of(const char *dev, char *out, size_t len)
{
	char want[PATH_MAX], link[PATH_MAX + 300], got[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int ret = -ENOENT;

	if (!realpath(dev, want))
		return -errno;
	d = opendir("/dev/disk/by-uuid");
	if (!d)
		return -errno;
	while (ret && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "/dev/disk/by-uuid/%s", e->d_name);
		if (realpath(link, got) && !strcmp(got, want))
			ret = snprintf(out, len, "UUID=%s", e->d_name) <
					      (int)len ?
				      0 :
				      -ENAMETOOLONG;
	}
	closedir(d);
	return ret;
}

/* a loop device's backing file, from sysfs */
static int loop_file(const char *dev, char *out, size_t len)
{
	char path[PATH_MAX];
	const char *name = strrchr(dev, '/');
	FILE *f;
	size_t n;

	if (!name || strncmp(name + 1, "loop", 4))
		return -ENOENT;
	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
		 name + 1);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(out, (int)len, f))
		out[0] = '\0';
	fclose(f);
	n = strcspn(out, "\n");
	out[n] = '\0';
	return n ? 0 : -ENOENT;
}

int ut_fstab_line(const struct ut_mount *m, const char *add, char *out,
		  size_t len)
{
	char src[PATH_MAX], kept[1024];
	int loop = 0, n, ret;

	if (!loop_file(m->source, src, sizeof(src)))
		loop = 1;
	else if (uuid_of(m->source, src, sizeof(src)))
		snprintf(src, sizeof(src), "%s", m->source);
	ret = options(m, add, kept, sizeof(kept));
	if (ret)
		return ret;
	n = snprintf(out, len, "%s %s %s %s%s%s 0 2", src, m->mount_point,
		     m->fstype, loop ? "loop" : "", loop && kept[0] ? "," : "",
		     loop || kept[0] ? kept : "defaults");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
