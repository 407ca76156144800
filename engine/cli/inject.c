// SPDX-License-Identifier: MIT
/*
 * inject.c - crash injection for tests and crash simulations, switched on
 * by the environment, through the syscall table:
 *
 *   UNTORN_INJECT=torn-page-write:K
 *       the first in-place page write to untorn.dat writes only its first
 *       K blocks, then the process dies (_exit 137) as if the power went:
 *       the page on disk is torn after block K.
 *
 *   UNTORN_INJECT=pause-mid-page:DIR[:CUT]
 *       a crash simulator's handshake (DIR holds FIFOs "ask" and
 *       "paused"): when a byte arrives on ask, the next in-place page
 *       write stops after its first half (CUT: after CUT bytes, a
 *       multiple of 512; "random": a random multiple of 512 inside the
 *       page, so that a cut can fall inside a block, as a disk that
 *       writes 512-byte sectors whole tears; "random@N": of N bytes, a
 *       disk with N-byte sectors), the data file is fdatasync'd
 *       (on ext4 data=journal that commits the half in a jbd2
 *       transaction: the interleaving ext4 produces by itself for
 *       0.06-0.08 % of 16 KiB writes), a byte goes to paused, and the
 *       write resumes when the next byte arrives on ask.  The simulator
 *       cuts the power in between.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/sysio.h"
#include "cli.h"

static unsigned tear_blocks;
static int tear_state; /* 0 armed, 1 torn (next admit dies) */
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

static int pause_ask_fd = -1, pause_paused_fd = -1;
static pthread_mutex_t pause_mutex = PTHREAD_MUTEX_INITIALIZER;
static int pause_state; /* 0 idle, 1 asked, 2 half written */
static int pause_io_fd;
static off_t pause_rest_off; /* where the held-back half starts */
static long pause_cut; /* bytes written before the pause; 0 half, -1 random */
static long pause_sector = 512; /* random: a multiple of this */
static unsigned pause_seed = 1;

#define PAUSE_SECTOR 512

/* Where the paused write stops: inside it, at a sector's edge. */
static ssize_t pause_cut_at(size_t len)
{
	size_t sectors = len / (size_t)pause_sector;

	if (pause_cut > 0 && (size_t)pause_cut < len)
		return pause_cut;
	if (pause_cut < 0 && sectors > 1)
		return (ssize_t)(1 + rand_r(&pause_seed) % (sectors - 1)) *
		       pause_sector;
	return (ssize_t)(len / 4096 / 2) * 4096;
}

static int pause_asked(void)
{
	char c;

	return read(pause_ask_fd, &c, 1) == 1;
}

static void pause_wait_resume(void)
{
	char c = 'p';
	int flags = fcntl(pause_ask_fd, F_GETFL);

	if (write(pause_paused_fd, &c, 1) != 1)
		return;
	fcntl(pause_ask_fd, F_SETFL, flags & ~O_NONBLOCK);
	while (read(pause_ask_fd, &c, 1) < 0 && errno == EINTR)
		;
	fcntl(pause_ask_fd, F_SETFL, flags);
}

static ssize_t pause_admit(enum ut_op op, int fd, size_t len, off_t off)
{
	size_t block = 4096;
	ssize_t ret = len;

	if (op != UT_OP_WRITE)
		return len;
	pthread_mutex_lock(&pause_mutex);
	if (pause_state == 2 && fd == pause_io_fd && off == pause_rest_off) {
		/* the second half: commit the first, let the power go */
		fdatasync(fd);
		pause_wait_resume();
		pause_state = 0;
	} else if (len >= 2 * block && !(len % block) && is_data_file(fd) &&
		   (pause_state == 1 || pause_asked())) {
		pause_state = 2;
		pause_io_fd = fd;
		ret = pause_cut_at(len);
		pause_rest_off = off + ret;
	}
	pthread_mutex_unlock(&pause_mutex);
	return ret;
}

/* DIR[:CUT]: the FIFOs' directory, and where a paused write stops */
static int pause_setup(const char *arg)
{
	char path[PATH_MAX + 16], dir[PATH_MAX], *colon, *end;

	snprintf(dir, sizeof(dir), "%s", arg);
	colon = strrchr(dir, ':');
	if (colon && !strncmp(colon + 1, "random", 6)) {
		*colon = '\0';
		pause_cut = -1;
		pause_seed = (unsigned)getpid();
		end = colon + 7;
		if (*end == '@')
			pause_sector = strtol(colon + 8, &end, 10);
		if (*end || pause_sector < PAUSE_SECTOR ||
		    pause_sector % PAUSE_SECTOR)
			return -1;
	} else if (colon && colon[1] >= '0' && colon[1] <= '9') {
		*colon = '\0';
		pause_cut = strtol(colon + 1, &end, 10);
		if (*end || pause_cut <= 0 || pause_cut % PAUSE_SECTOR)
			return -1;
	}

	snprintf(path, sizeof(path), "%s/ask", dir);
	pause_ask_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/paused", dir);
	pause_paused_fd = open(path, O_RDWR | O_CLOEXEC);
	return pause_ask_fd >= 0 && pause_paused_fd >= 0 ? 0 : -1;
}

void cli_inject_from_env(void)
{
	const char *spec = getenv("UNTORN_INJECT");

	if (!spec || !*spec)
		return;
	if (!strncmp(spec, "pause-mid-page:", 15)) {
		if (pause_setup(spec + 15)) {
			fprintf(stderr,
				"untorn: UNTORN_INJECT: '%s': give pause-mid-page:DIR[:CUT], DIR holding the FIFOs ask and paused, CUT a multiple of 512, random or random@N\n",
				spec + 15);
			exit(EXIT_ERROR);
		}
		ut_sys.io_admit = pause_admit;
		return;
	}
	if (sscanf(spec, "torn-page-write:%u", &tear_blocks) == 1 &&
	    tear_blocks) {
		ut_sys.io_admit = tear_admit;
		return;
	}
	fprintf(stderr,
		"untorn: UNTORN_INJECT='%s' not understood; use torn-page-write:K or pause-mid-page:DIR[:CUT]\n",
		spec);
	exit(EXIT_ERROR);
}
