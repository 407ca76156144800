// SPDX-License-Identifier: MIT
/*
 * measure.c - untorn-fscheck --measure (measure.h): runs the measuring
 * script beside the program with the verdict's options and passes its
 * status on (a signal goes on to it, and ends the program once it has
 * stopped).  The benchmark itself (untorn's flush-bound preset for
 * doublewrite, none and the guard safe here, fio's calibration, the
 * table and the sentence) is the script's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "beside.h"
#include "measure.h"
#include "stop.h"

/* scripts/doublewrite-cost in a checkout, share/untorn/scripts installed */
static int find_measure_script(char *out, size_t len)
{
	static const char *const rel[] = { "scripts", "share/untorn/scripts" };

	return ut_beside_exe(rel, 2, "doublewrite-cost", out, len);
}

/* the child: the script with the verdict's options; returns on failure */
static void exec_script(char *script, const struct ut_measure_args *a,
			char *secs, char *page, char *redo)
{
	char *argv[12];
	int n = 0;

	argv[n++] = script;
	argv[n++] = (char *)a->path;
	argv[n++] = "--seconds";
	argv[n++] = secs;
	argv[n++] = "--page-size";
	argv[n++] = page;
	argv[n++] = "--engine";
	argv[n++] = a->untorn_engine ? "untorn" : "innodb";
	if (a->as_json)
		argv[n++] = "--json";
	if (a->redo_bytes) {
		argv[n++] = "--redo-capacity";
		argv[n++] = redo;
	}
	argv[n] = NULL;
	execv(script, argv);
}

int ut_measure(const struct ut_measure_args *a)
{
	char script[PATH_MAX], secs[16], page[16], redo[24];
	int status, ret;
	pid_t pid;

	if (find_measure_script(script, sizeof(script)))
		return -ENOENT;
	ret = ut_stop_watch();
	if (ret)
		return ret;
	snprintf(secs, sizeof(secs), "%u", a->seconds);
	snprintf(page, sizeof(page), "%u", a->page_size);
	snprintf(redo, sizeof(redo), "%llu", (unsigned long long)a->redo_bytes);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		exec_script(script, a, secs, page, redo);
		_exit(127);
	}
	/* Ctrl-C or kill: the script stops its runs and removes them */
	ut_stop_pass_to(pid);
	ret = ut_stop_waitpid(pid, &status);
	ut_stop_pass_to(0);
	if (ret)
		return ret;
	ut_stop_end();
	if (!WIFEXITED(status))
		return -EINTR; /* killed: out of memory, kill -9 */
	if (WEXITSTATUS(status) == 127)
		return -ENOEXEC;
	return WEXITSTATUS(status) > 2 ? 2 : WEXITSTATUS(status);
}

static int refuse(const char *dir, const char *why, const char *datadir)
{
	char fix[PATH_MAX + 96];

	if (strcmp(datadir, "/"))
		snprintf(fix, sizeof(fix),
			 "make a scratch directory beside the datadir (%s), on its filesystem, and give that",
			 datadir);
	else
		snprintf(fix, sizeof(fix),
			 "measure a directory on the disk without --mysql: untorn-fscheck --measure DIR");
	fprintf(stderr, "untorn-fscheck: --measure %s: %s; %s\n", dir, why,
		fix);
	return 2;
}

int ut_measure_check_dir(const char *dir, const char *datadir)
{
	char real_dir[PATH_MAX], real_data[PATH_MAX], why[PATH_MAX + 128];
	struct stat d, s;
	size_t n;

	if (stat(dir, &d) || !S_ISDIR(d.st_mode) || !realpath(dir, real_dir))
		return refuse(dir, "no such directory", datadir);
	if (stat(datadir, &s) || !realpath(datadir, real_data))
		return refuse(dir,
			      "the server's datadir does not exist, so there is no disk of the server's to measure",
			      datadir);
	n = strlen(real_data);
	if (n == 1)
		return refuse(dir,
			      "the datadir is /, so every directory is inside it, where the server takes a directory for a database",
			      real_data);
	if (!strncmp(real_dir, real_data, n) &&
	    (real_dir[n] == '/' || !real_dir[n]))
		return refuse(dir,
			      "inside the datadir, where the server takes a directory for a database",
			      datadir);
	if (d.st_dev != s.st_dev) {
		snprintf(why, sizeof(why),
			 "on device %u:%u, not on the datadir's filesystem (%u:%u): the figure would not be the server's disk",
			 major(d.st_dev), minor(d.st_dev), major(s.st_dev),
			 minor(s.st_dev));
		return refuse(dir, why, datadir);
	}
	return 0;
}
