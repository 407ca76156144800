// SPDX-License-Identifier: MIT
/*
 * inject.c - crash injection for tests and crash simulations, switched on
 * by the environment, through the syscall table:
 *
 *   UNTORN_INJECT=torn-page-write:K
 *       the first in-place page write to untorn.dat writes only its first
 *       K blocks, then the process dies (_exit 137) as if the power went:
 *       the page on disk is torn after block K.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <untorn/sysio.h>
#include "cli.h"

static unsigned tear_blocks;
static int tear_state;		/* 0 armed, 1 torn (next admit dies) */
static int tear_fd = -1;

static int is_data_file(int fd)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = 0;
	n = strlen(target);
	return n >= 11 && !strcmp(target + n - 11, "/untorn.dat");
}

static ssize_t tear_admit(enum ut_op op, int fd, size_t len, off_t off)
{
	size_t block = 4096;

	(void)off;
	if (op != UT_OP_WRITE)
		return len;
	if (tear_state == 1 && fd == tear_fd)
		_exit(137);
	if (tear_state || len < 2 * block || !is_data_file(fd))
		return len;
	if (len % block || tear_blocks * block >= len)
		return len;
	tear_state = 1;
	tear_fd = fd;
	return tear_blocks * block;
}

void cli_inject_from_env(void)
{
	const char *spec = getenv("UNTORN_INJECT");

	if (!spec)
		return;
	if (sscanf(spec, "torn-page-write:%u", &tear_blocks) == 1 && tear_blocks) {
		ut_sys.io_admit = tear_admit;
		return;
	}
	fprintf(stderr, "untorn: UNTORN_INJECT='%s' not understood; use torn-page-write:K\n",
		spec);
	exit(EXIT_ERROR);
}
