// SPDX-License-Identifier: MIT
/*
 * lock_test.c - the store lock through the C API: a second open of a
 * store gets -EBUSY with the holder named (in this process or another),
 * readers share it and exclude a writer, a wait succeeds when the holder
 * lets go and gives up when it does not, and fork() behaves as the docs
 * say: a forked child shares its parent's lock until it exits, a child
 * that execs does not keep it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <untorn/engine.h>
#include "store/store.h"
#include "ktap.h"
#include "testlib.h"

static char dir[300];

static int open_eng(unsigned wait_ms, struct ut_engine **eng,
		    struct ut_err *err)
{
	struct ut_engine_opts o;

	ut_engine_opts_default(&o);
	o.pool_bytes = 4 << 20;
	/*
	 * No page cleaner threads: the tests fork with a store open, and a
	 * child of a threaded process that opens a store (malloc) can hang
	 * on a lock another thread held at the fork (seen under ASan).
	 */
	o.cleaners = 0;
	o.lock_wait_ms = wait_ms;
	err->msg[0] = 0;
	return ut_engine_open(dir, &o, eng, NULL, err);
}

static int close_eng(struct ut_engine *eng)
{
	struct ut_err err = { "" };

	return ut_engine_close(eng, &err);
}

/* Does the one-line error name pid and say how to get out? */
static int names_holder(const struct ut_err *err, int pid)
{
	char want[32];

	snprintf(want, sizeof(want), "pid %d (", pid);
	return strstr(err->msg, want) && strstr(err->msg, "in use by") &&
	       strchr(err->msg, ';') && !strchr(err->msg, '\n');
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_same_process(void)
{
	struct ut_engine *a, *b;
	struct ut_lock_holder h[4];
	struct ut_err err;
	int ret, n;

	if (!ktap_ok(open_eng(0, &a, &err) == 0, "first open of the store"))
		return;
	ret = open_eng(0, &b, &err);
	ktap_ok(ret == -EBUSY && names_holder(&err, getpid()),
		"a second open in the same process: -EBUSY naming this pid");
	ktap_diag("%s", err.msg);
	n = ut_store_holders(dir, h, 4);
	ktap_ok(n == 1 && h[0].pid == getpid() && h[0].exclusive &&
			strstr(h[0].cmd, "lock_test"),
		"ut_store_holders lists this process, exclusive, with its command (%d: %s)",
		n, n > 0 ? h[0].cmd : "");
	close_eng(a);
	ktap_ok(ut_store_holders(dir, h, 4) == 0 &&
			open_eng(0, &b, &err) == 0 && close_eng(b) == 0,
		"after close: no holder, and the store opens again");
}

static void test_readers(void)
{
	struct ut_store *r1, *r2, *w;
	struct ut_engine *eng;
	struct ut_lock_holder h[4];
	struct ut_err err = { "" };
	int ret;

	ret = ut_store_open(dir, UT_OPEN_RDONLY, &r1, &err);
	ret = ret ?: ut_store_open(dir, UT_OPEN_RDONLY, &r2, &err);
	if (!ktap_ok(!ret, "two read-only opens share the lock")) {
		ktap_diag("%s", err.msg);
		return;
	}
	ktap_ok(ut_store_holders(dir, h, 4) == 1 && !h[0].exclusive,
		"the readers are listed as one shared holder (this process)");
	ret = ut_store_open(dir, 0, &w, &err);
	ktap_ok(ret == -EBUSY && strstr(err.msg, "reader pid"),
		"a writer is refused while readers hold the store");
	ut_store_close(r1);
	ut_store_close(r2);
	ret = open_eng(0, &eng, &err);
	if (ret)
		ktap_diag("%s", err.msg);
	ret = ret ?: ut_store_open(dir, UT_OPEN_RDONLY, &r1, &err);
	ktap_ok(ret == -EBUSY && strstr(err.msg, "writer pid"),
		"a reader is refused while a writer holds the store");
	close_eng(eng);
}

/* A child opens the store, says so on `ready`, closes it on `go`. */
static pid_t holder_child(int ready[2], int go[2])
{
	struct ut_engine *eng;
	struct ut_err err;
	char c;
	pid_t pid;

	if (pipe(ready) || pipe(go))
		return -1;
	pid = fork();
	if (pid)
		return pid;
	c = open_eng(0, &eng, &err) ? 'n' : 'y';
	if (write(ready[1], &c, 1) != 1 || c != 'y')
		_exit(1);
	if (read(go[0], &c, 1) != 1)
		_exit(1);
	_exit(close_eng(eng) ? 1 : 0);
}

static void test_other_process_and_wait(void)
{
	int ready[2], go[2], status;
	struct ut_engine *eng;
	struct ut_err err;
	double t0, waited;
	pid_t pid;
	char c = 0;
	int ret;

	pid = holder_child(ready, go);
	if (pid > 0)
		close(ready[1]); /* a child that dies gives EOF */
	if (pid < 0 || read(ready[0], &c, 1) != 1 || c != 'y') {
		ktap_ok(0, "a child process holds the store");
		return;
	}
	ret = open_eng(0, &eng, &err);
	ktap_ok(ret == -EBUSY && names_holder(&err, pid),
		"another process's store: -EBUSY naming its pid and command");
	ktap_diag("%s", err.msg);
	t0 = now_s();
	ret = open_eng(300, &eng, &err);
	waited = now_s() - t0;
	ktap_ok(ret == -EBUSY && waited >= 0.29 &&
			strstr(err.msg, "after waiting 0.300 s"),
		"--wait 300 ms on a store that stays held: -EBUSY after %.3f s",
		waited);
	/* the child lets go while we wait */
	if (write(go[1], "g", 1) != 1)
		ktap_diag("cannot signal the child");
	ret = open_eng(30000, &eng, &err);
	ktap_ok(ret == 0, "a wait ends with the store when the holder lets go");
	if (!ret)
		close_eng(eng);
	waitpid(pid, &status, 0);
	close(ready[0]);
	close(go[0]);
	close(go[1]);
}

static void test_fork(void)
{
	struct ut_engine *eng, *again;
	struct ut_err err;
	int said[2], hold[2], status, ret;
	pid_t child;
	char c;

	if (open_eng(0, &eng, &err) || pipe(said) || pipe(hold)) {
		ktap_ok(0, "open before fork: %s", err.msg);
		return;
	}
	child = fork();
	if (child == 0) {
		/* the child shares the description: a fresh open conflicts */
		ret = open_eng(0, &again, &err);
		if (write(said[1], ret == -EBUSY ? "b" : "o", 1) != 1)
			_exit(1);
		/* keep the inherited descriptor until the parent says */
		close(hold[1]);
		if (read(hold[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(said[1]); /* a child that dies gives EOF, not a hang */
	ret = read(said[0], &c, 1) == 1 && c == 'b';
	ktap_ok(ret, "a forked child cannot open the store its parent holds");
	close_eng(eng);
	ret = open_eng(0, &again, &err);
	ktap_ok(ret == -EBUSY && names_holder(&err, child),
		"after the parent closes, the forked child still holds the lock");
	if (write(hold[1], "x", 1) != 1)
		ktap_diag("cannot release the child");
	waitpid(child, &status, 0);
	ret = open_eng(0, &again, &err);
	ktap_ok(ret == 0, "once the child exits the store opens");
	if (ret)
		ktap_diag("%s", err.msg);
	close(said[0]);
	close(hold[0]);
	close(hold[1]);
	if (ret)
		return;

	/*
	 * A child that execs keeps nothing: the engine's descriptors are
	 * O_CLOEXEC.  `execd` is too, so its EOF says the exec happened.
	 */
	if (pipe(hold) || pipe2(said, O_CLOEXEC)) {
		close_eng(again);
		return;
	}
	child = fork();
	if (child == 0) {
		dup2(hold[0], 0);
		close(hold[1]);
		execlp("cat", "cat", (char *)NULL);
		_exit(127);
	}
	close(hold[0]);
	close(said[1]);
	ret = read(said[0], &c, 1); /* 0: the child has exec'd */
	close(said[0]);
	close_eng(again);
	ret = ret == 0 ? open_eng(0, &eng, &err) : -1;
	ktap_ok(ret == 0, "a child that exec'd does not keep the lock");
	if (!ret)
		close_eng(eng);
	close(hold[1]);
	waitpid(child, &status, 0);
}

int main(void)
{
	struct ut_init_opts io = { .page_size = 4096,
				   .guard = UT_GUARD_DOUBLEWRITE,
				   .log_size = 8 << 20 };
	struct ut_err err = { "" };

	ktap_plan(15);
	test_scratch_dir("lock");
	snprintf(dir, sizeof(dir), "%s/s", test_scratch);
	if (ut_store_init(dir, &io, &err)) {
		ktap_diag("init: %s", err.msg);
		return KTAP_EXIT_FAIL;
	}
	test_same_process();
	test_readers();
	test_other_process_and_wait();
	test_fork();
	return ktap_finish();
}
