// SPDX-License-Identifier: MIT
/*
 * split_probe.c - untorn-fscheck --probe: back the verdict with a figure
 * measured on the user's own mount.  Runs ebpf/torn-split.bt (filtered to
 * this process and this filesystem's device), waits for its banner (it
 * prints it once every probe is attached), writes whole pages to an
 * unnamed file in the directory for the time asked with an fdatasync
 * every few writes, as a database's cleaner does, while another thread
 * writes a record to a second unnamed file and fdatasyncs it back to
 * back, as a busy redo log does, then stops the script with SIGINT and reads its
 * totals.  SIGINT or SIGTERM to the program stops the writes and the
 * tracer, then the program (stop.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "beside.h"
#include "split_probe.h"
#include "stop.h"

#define PROBE_FILE_BYTES (64ULL << 20) /* where the pages go, at random */
#define PROBE_SYNC_EVERY 64
#define TRACEPOINT "/sys/kernel/tracing/events/ext4/ext4_journalled_write_end"

/* torn-split.bt beside this program: ../ebpf in a checkout, else
 * ../share/untorn/ebpf where make install puts it */
static int find_script(char *out, size_t len)
{
	static const char *const rel[] = { "ebpf", "share/untorn/ebpf" };

	return ut_beside_exe(rel, 2, "torn-split.bt", out, len);
}

/* what the probe needs; 0, or 1 with why filled */
static int cannot_probe(const struct ut_fscaps *c, char *script, size_t len,
			struct ut_split_probe *r)
{
	const char *why = NULL;

	if (!ut_fscaps_data_journalled(c))
		why = "nothing to measure: file data is not journalled here, so a page write is in place and no transaction can split it";
	else if (geteuid())
		why = "needs root (bpftrace); run it with sudo for the figure";
	else if (access(TRACEPOINT, F_OK))
		why = "no ext4 tracepoints: mount tracefs (mount -t tracefs nodev /sys/kernel/tracing)";
	else if (find_script(script, len))
		why = "ebpf/torn-split.bt not found beside untorn-fscheck; install untorn (make install)";
	if (!why)
		return 0;
	snprintf(r->why, sizeof(r->why), "%s", why);
	return 1;
}

static pid_t start_tracer(const char *script, const struct ut_fscaps *c,
			  uint32_t page_size, int *out)
{
	char ps[16], maj[16], min[16], pid[16];
	int fds[2], null;
	pid_t child;

	snprintf(ps, sizeof(ps), "%u", page_size);
	snprintf(maj, sizeof(maj), "%u", c->mnt.major);
	snprintf(min, sizeof(min), "%u", c->mnt.minor);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	child = fork();
	if (child < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (child == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		/* bpftrace prints its totals on SIGINT, even if ours ignores it */
		signal(SIGINT, SIG_DFL);
		/* -B none: the banner arrives when printed, not at exit */
		execlp("bpftrace", "bpftrace", "-B", "none", script, pid, maj,
		       min, ps, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	*out = fds[0];
	return child;
}

/*
 * The tracer's output so far, in text (the newest 8 KiB).  Waits up to
 * timeout_ms for more; returns 1 when needle is in it, 0 on timeout, -1
 * at end of output (the tracer exited).
 */
struct tracer_out {
	char text[8192];
	size_t len;
};

static int read_until(int fd, struct tracer_out *o, const char *needle,
		      int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		if (strstr(o->text, needle))
			return 1;
		if (poll(&p, 1, timeout_ms) <= 0)
			return 0;
		if (o->len > sizeof(o->text) / 2) { /* keep the newest half */
			memmove(o->text, o->text + o->len - sizeof(o->text) / 4,
				sizeof(o->text) / 4);
			o->len = sizeof(o->text) / 4;
		}
		n = read(fd, o->text + o->len, sizeof(o->text) - 1 - o->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return strstr(o->text, needle) ? 1 : -1;
		o->len += (size_t)n;
		o->text[o->len] = '\0';
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the log writer: appends and fdatasyncs its own file back to back, as
 * a redo log under load does, so jbd2 commits land while pages are
 * being written, not only between them */
struct log_writer {
	int fd;
	volatile int stop;
	unsigned long syncs;
};

/* one record rewritten inside the first block, off the page grid, so
 * that torn-split.bt never takes a run of records for a page */
#define LOG_OFFSET 100
#define LOG_RECORD 512

static void *log_writer_run(void *arg)
{
	struct log_writer *lw = arg;
	char rec[LOG_RECORD];

	memset(rec, 0x6c, sizeof(rec));
	while (!lw->stop) {
		if (pwrite(lw->fd, rec, sizeof(rec), LOG_OFFSET) !=
			    (ssize_t)sizeof(rec) ||
		    fdatasync(lw->fd))
			break;
		rec[0]++;
		lw->syncs++;
	}
	return NULL;
}

static int write_pages(const char *dir, uint32_t page_size, unsigned seconds)
{
	uint64_t pages = PROBE_FILE_BYTES / page_size, n = 0;
	unsigned seed = (unsigned)getpid();
	double end = now_s() + seconds;
	struct log_writer lw = { .fd = -1 };
	pthread_t log_thread;
	char *buf;
	int fd, ret = 0;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	lw.fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (lw.fd < 0) {
		ret = -errno;
		goto out_close;
	}
	buf = malloc(page_size);
	if (!buf) {
		ret = -ENOMEM;
		goto out_close_log;
	}
	memset(buf, 0x5a, page_size);
	ret = -pthread_create(&log_thread, NULL, log_writer_run, &lw);
	if (ret)
		goto out_free;
	while (now_s() < end && !ut_stop_signal()) {
		off_t off = (off_t)(rand_r(&seed) % pages) * page_size;

		if (pwrite(fd, buf, page_size, off) != (ssize_t)page_size) {
			ret = errno ? -errno : -EIO;
			break;
		}
		if (++n % PROBE_SYNC_EVERY == 0 && fdatasync(fd)) {
			ret = -errno;
			break;
		}
	}
	lw.stop = 1;
	pthread_join(log_thread, NULL);
out_free:
	free(buf);
out_close_log:
	close(lw.fd);
out_close:
	close(fd);
	return ret;
}

/* SIGINT, repeated each second in case one goes unnoticed, until the
 * totals are printed; SIGKILL after STOP_TRIES */
#define STOP_TRIES 60
#define TOTALS "split across two jbd2 transactions: "

static int stop_tracer(pid_t child, int fd, struct tracer_out *o,
		       struct ut_split_probe *r)
{
	const char *p;
	int i, got = 0;

	for (i = 0; i < STOP_TRIES && !got; i++) {
		kill(child, SIGINT);
		got = read_until(fd, o, TOTALS, 1000);
		if (got < 0)
			break;
	}
	if (got <= 0)
		kill(child, SIGKILL);
	/* the totals line is complete once its newline has come */
	if (got > 0)
		read_until(fd, o, "percent)", 1000);
	p = strstr(o->text, "written whole by one thread: ");
	if (got > 0 && p &&
	    sscanf(p, "written whole by one thread: %lu; " TOTALS "%lu",
		   &r->pages, &r->split) == 2)
		return 0;
	return -EIO;
}

int ut_split_probe(const struct ut_fscaps *caps, uint32_t page_size,
		   unsigned seconds, struct ut_split_probe *r)
{
	char script[PATH_MAX + 64];
	struct tracer_out *o;
	int ret = 0, fd = -1, status = 0;
	pid_t child;

	memset(r, 0, sizeof(*r));
	r->seconds = seconds;
	r->sync_every = PROBE_SYNC_EVERY;
	if (cannot_probe(caps, script, sizeof(script), r))
		return 0;
	ret = ut_stop_watch();
	if (ret)
		return ret;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	child = start_tracer(script, caps, page_size, &fd);
	if (child < 0) {
		snprintf(r->why, sizeof(r->why), "cannot start bpftrace: %s",
			 strerror(errno));
		goto out_free;
	}
	ut_stop_pass_to(child);
	if (read_until(fd, o, "Tracing", -1) <= 0) {
		ut_stop_waitpid(child, &status);
		snprintf(r->why, sizeof(r->why), "%s",
			 WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
				 "bpftrace is not installed: apt-get install bpftrace" :
				 "bpftrace could not attach torn-split.bt's tracepoints (run it by hand to see why)");
		goto out_close;
	}
	ret = write_pages(caps->path, page_size, seconds);
	if (stop_tracer(child, fd, o, r))
		snprintf(r->why, sizeof(r->why),
			 "bpftrace ended without its totals");
	else
		r->measured = !ret;
	ut_stop_waitpid(child, &status);
out_close:
	ut_stop_pass_to(0);
	close(fd);
out_free:
	free(o);
	ut_stop_end();
	return ret;
}
