// SPDX-License-Identifier: MIT
/*
 * measure.c - untorn-fscheck --measure (measure.h): runs the measuring
 * script beside the program with the verdict's options and passes its
 * status on.  The benchmark itself (untorn's flush-bound preset for
 * doublewrite, none and the guard safe here, fio's calibration, the
 * table and the sentence) is the script's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "beside.h"
#include "measure.h"

/* scripts/doublewrite-cost in a checkout, share/untorn/scripts installed */
static int find_measure_script(char *out, size_t len)
{
	static const char *const rel[] = { "scripts", "share/untorn/scripts" };

	return ut_beside_exe(rel, 2, "doublewrite-cost", out, len);
}

int ut_measure(const struct ut_measure_args *a)
{
	char script[PATH_MAX], secs[16], page[16];
	int status;
	pid_t pid;

	if (find_measure_script(script, sizeof(script)))
		return -ENOENT;
	snprintf(secs, sizeof(secs), "%u", a->seconds);
	snprintf(page, sizeof(page), "%u", a->page_size);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execl(script, script, a->path, "--seconds", secs, "--page-size",
		      page, "--engine", a->untorn_engine ? "untorn" : "innodb",
		      a->as_json ? "--json" : NULL, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (!WIFEXITED(status))
		return -EINTR; /* killed: Ctrl-C, or out of memory */
	if (WEXITSTATUS(status) == 127)
		return -ENOEXEC;
	return WEXITSTATUS(status) > 2 ? 2 : WEXITSTATUS(status);
}
