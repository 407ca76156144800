// SPDX-License-Identifier: MIT
/*
 * lock.c - the store lock: one owner that writes, or any number of
 * readers, per store.
 *
 * The lock is an open file description lock (fcntl F_OFD_SETLK) on the
 * data file's first two bytes: exclusive for a store opened for writing,
 * shared for one opened read-only.  The kernel drops it when the last
 * reference to that open file goes away, so a process killed with -9
 * never leaves a stale lock and there is no lock file to clean.  Two
 * opens of one store conflict even inside one process (each open is its
 * own description), and a child made by fork() shares its parent's
 * description, so it holds the lock too until it closes the descriptor,
 * execs (the engine's descriptors are O_CLOEXEC) or exits.
 *
 * Byte 1 moves to the O_DIRECT descriptor pages are written through
 * (ut_lock_move_io), since an I/O in flight holds a reference to the
 * description it was issued on: io_uring can complete a dead process's
 * direct writes after its exit, and until the last one lands the store
 * stays locked, so recovery never races a write from the process it is
 * recovering.  Buffered I/O is finished before the process is reaped
 * (io-wq's workers are its threads).
 *
 * The kernel reports -1 as an OFD lock's owner (F_OFD_GETLK, /proc/locks),
 * so the holders are found the way lsof finds them: the "lock:" lines of
 * /proc/PID/fdinfo/FD, on a descriptor that is the data file.  A holder
 * that is exiting has an empty command line.
 *
 * Waiting polls, as SQLite's busy timeout does: F_OFD_SETLKW cannot be
 * given a deadline without a signal, which a library must not install.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "store/store.h"

#define POLL_MIN_NS 1000000ull /* first retry after 1 ms */
#define POLL_MAX_NS 50000000ull /* at most 50 ms between tries */

#define LOCK_STORE 0 /* byte 0: who has the store open */
#define LOCK_IO 1 /* byte 1: whose page I/O may be in flight */

static int set_lock(int fd, short type, off_t start, off_t len)
{
	struct flock fl = {
		.l_type = type,
		.l_whence = SEEK_SET,
		.l_start = start,
		.l_len = len,
	};

	if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
		return 0;
	if (errno == EAGAIN || errno == EACCES)
		return -EBUSY;
	return -errno;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int try_lock(int fd, int exclusive)
{
	return set_lock(fd, exclusive ? F_WRLCK : F_RDLCK, LOCK_STORE, 2);
}

int ut_lock_move_io(int data_fd, int page_fd)
{
	int ret;

	ret = set_lock(data_fd, F_UNLCK, LOCK_IO, 1);
	if (!ret)
		ret = set_lock(page_fd, F_WRLCK, LOCK_IO, 1);
	return ret;
}

int ut_lock_take(int fd, int exclusive, unsigned wait_ms)
{
	uint64_t deadline = now_ns() + wait_ms * 1000000ull;
	uint64_t pause = POLL_MIN_NS, left;
	struct timespec ts;
	int ret;

	for (;;) {
		ret = try_lock(fd, exclusive);
		if (ret != -EBUSY || !wait_ms)
			return ret;
		left = deadline - now_ns();
		if ((int64_t)left <= 0)
			return -EBUSY;
		if (pause > left)
			pause = left;
		ts.tv_sec = pause / 1000000000ull;
		ts.tv_nsec = pause % 1000000000ull;
		nanosleep(&ts, NULL);
		if (pause < POLL_MAX_NS)
			pause *= 2;
	}
}

/* The lock: line of one fdinfo file, if it holds an OFD lock on ino. */
static int fdinfo_lock(const char *path, unsigned long ino, int *exclusive)
{
	char line[256], mode[16];
	unsigned long lino;
	unsigned maj, min;
	int found = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "lock:", 5) || !strstr(line, "OFDLCK"))
			continue;
		/* lock:	1: OFDLCK ADVISORY  WRITE -1 fe:00:9978081 0 EOF */
		if (sscanf(strstr(line, "ADVISORY"),
			   "ADVISORY %15s %*d %x:%x:%lu", mode, &maj, &min,
			   &lino) == 4 &&
		    lino == ino) {
			*exclusive = !strcmp(mode, "WRITE");
			found = 1;
		}
	}
	fclose(f);
	return found;
}

static void read_cmdline(int pid, char *cmd, size_t size)
{
	char path[64];
	size_t n, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	cmd[0] = 0;
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(cmd, 1, size - 1, f);
	fclose(f);
	while (n && !cmd[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if (!cmd[i] || !isprint((unsigned char)cmd[i]))
			cmd[i] = ' ';
	cmd[n] = 0;
}

/* Does one process hold an OFD lock on the file (dev, ino)? */
static int pid_holds(int pid, const struct stat *want, int *exclusive)
{
	char dpath[64], path[320];
	struct dirent *de;
	struct stat sb;
	int found = 0;
	DIR *d;

	snprintf(dpath, sizeof(dpath), "/proc/%d/fdinfo", pid);
	d = opendir(dpath);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dpath, de->d_name);
		if (!fdinfo_lock(path, want->st_ino, exclusive))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, de->d_name);
		found = !stat(path, &sb) && sb.st_dev == want->st_dev &&
			sb.st_ino == want->st_ino;
	}
	closedir(d);
	return found;
}

int ut_lock_holders(int fd, struct ut_lock_holder *h, unsigned max)
{
	struct dirent *de;
	struct stat want;
	unsigned n = 0;
	int pid, excl;
	DIR *proc;

	if (fstat(fd, &want))
		return -errno;
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (n < max && (de = readdir(proc))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (!pid_holds(pid, &want, &excl))
			continue;
		h[n].pid = pid;
		h[n].exclusive = excl;
		read_cmdline(pid, h[n].cmd, sizeof(h[n].cmd));
		n++;
	}
	closedir(proc);
	return n;
}

int ut_store_holders(const char *dir, struct ut_lock_holder *h, unsigned max)
{
	char path[PATH_MAX + 16];
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s", dir, UT_DATA_FILE);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = ut_lock_holders(fd, h, max);
	close(fd);
	return n;
}
