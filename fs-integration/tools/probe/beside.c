// SPDX-License-Identifier: MIT
/*
 * beside.c - finds a file untorn-fscheck runs beside the program
 * (beside.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "beside.h"

int ut_beside_exe(const char *const *rel, size_t n, const char *name, char *out,
		  size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t got = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t i;

	if (got <= 0)
		return -ENOENT;
	exe[got] = '\0';
	for (i = 0; i < 2; i++) {
		slash = strrchr(exe, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
	}
	for (i = 0; i < n; i++) {
		if (snprintf(out, len, "%s/%s/%s", exe, rel[i], name) >=
		    (int)len)
			continue;
		if (!access(out, R_OK))
			return 0;
	}
	return -ENOENT;
}
