// SPDX-License-Identifier: MIT
/*
 * redo_move_test.c - a leaf's slot directory moved by an insert or a
 * delete, logged as MOVE records (log format 3): a MOVE a page block and
 * the slot that came from the next block, not every byte moved.  An
 * insert at the front of a full leaf logs a small fraction of what a
 * format 2 log takes for it, and the redo a write reserves stays within
 * a small multiple of what it writes.  kill -9 at random moments of
 * inserts and deletes at the front of full leaves: recovery redoes the
 * MOVEs on 4 KiB blocks, on 512-byte blocks (a leaf's slots across many
 * block edges) and on 4 KiB pages; a store whose log predates format 3
 * keeps logging the bytes and recovers the same; a log of a format this
 * build does not know is refused in one line, the store unchanged.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <untorn/engine.h>
#include <untorn/store.h>
#include "base/bytes.h"
#include "base/crc32c.h"
#include "engine_int.h"
#include "log/redo.h"
#include "tree/btree.h"
#include "ktap.h"
#include "testlib.h"

#define BASE 1000000ull /* the first insert's key; later ones below it */
#define VLEN 8u
#define TRIALS 3

static char dir[300];

/* The store `name`: guard, page and block size; format2: its log's
 * header set back to format 2 (a store made before format 3). */
static int make_store(const char *name, uint32_t guard, uint32_t page,
		      uint32_t block, int format2)
{
	struct ut_init_opts io = { .page_size = page,
				   .block_size = block,
				   .guard = guard,
				   .unsafe = 1,
				   .log_size = 8 << 20 };
	unsigned char hdr[UT_LOG_HDR_SIZE];
	struct ut_err err = { "" };
	char log[400];

	snprintf(dir, sizeof(dir), "%s/%s", test_scratch, name);
	if (ut_store_init(dir, &io, &err)) {
		ktap_diag("init %s: %s", name, err.msg);
		return -1;
	}
	if (!format2)
		return 0;
	snprintf(log, sizeof(log), "%s/%s", dir, UT_LOG_FILE);
	if (file_pread(log, hdr, sizeof(hdr), 0))
		return -1;
	put_le32(hdr + 8, 2);
	put_le32(hdr + 12, ut_crc32c(0, hdr + 16, UT_LOG_HDR_SIZE - 16));
	return file_pwrite(log, hdr, sizeof(hdr), 0);
}

static struct ut_engine *open_engine(enum ut_commit_mode commit,
				     struct ut_err *err)
{
	struct ut_engine_opts o;
	struct ut_engine *eng;

	ut_engine_opts_default(&o);
	o.pool_bytes = 4 << 20;
	o.commit = commit;
	if (ut_engine_open(dir, &o, &eng, NULL, err))
		return NULL;
	return eng;
}

/* Op i: every fifth deletes the key op i - 3 inserted, the others insert
 * BASE - i, each at the front of its leaf (keys descend). */
static int op_is_delete(uint64_t i)
{
	return i % 5 == 4;
}

static uint64_t op_key(uint64_t i)
{
	return BASE - (op_is_delete(i) ? i - 3 : i);
}

static void op_value(uint64_t i, unsigned char *v)
{
	put_le64(v, i * 0x9e3779b97f4a7c15ull);
}

static int op_run(struct ut_engine *eng, uint64_t i, uint64_t *lsn)
{
	struct ut_err err = { "" };
	unsigned char v[VLEN];
	struct ut_txn t;
	int ret;

	ut_txn_begin(eng, &t);
	op_value(i, v);
	ret = op_is_delete(i) ? ut_txn_delete(&t, op_key(i), &err) :
				ut_txn_put(&t, op_key(i), v, VLEN, &err);
	if (ret) {
		ut_txn_rollback(&t);
		return ret;
	}
	ret = ut_txn_commit(&t, &err);
	if (lsn)
		*lsn = t.lsn;
	return ret;
}

/* One put of key as a transaction of its own: its commit's LSN in *lsn. */
static int put_one(struct ut_engine *eng, uint64_t key, uint64_t *lsn,
		   struct ut_err *err)
{
	unsigned char v[VLEN] = { 0 };
	struct ut_txn t;
	int ret;

	ut_txn_begin(eng, &t);
	ret = ut_txn_put(&t, key, v, VLEN, err);
	if (ret) {
		ut_txn_rollback(&t);
		return ret;
	}
	ret = ut_txn_commit(&t, err);
	*lsn = t.lsn;
	return ret;
}

/* Redo bytes (LSN) an insert at the front of a leaf takes on the store
 * in dir, over inserts n to 2n of descending keys (a leaf of 16 KiB
 * pages holds ~750 such rows), or 0. */
static double redo_per_insert(unsigned n)
{
	struct ut_err err = { "" };
	struct ut_engine *eng = open_engine(UT_COMMIT_LAZY, &err);
	uint64_t i, first = 0, lsn = 0;
	int bad = !eng;

	for (i = 0; i < 2ull * n && !bad; i++) {
		bad |= !!put_one(eng, BASE - i, &lsn, &err);
		if (i == n - 1)
			first = lsn;
	}
	if (eng)
		ut_engine_close(eng, &err);
	if (bad) {
		ktap_diag("inserts: %s", err.msg);
		return 0;
	}
	return (double)(lsn - first) / n;
}

/* The redo ut_btree_op_bound() reserves for an 8-byte put on dir. */
static size_t reserved_per_put(void)
{
	struct ut_err err = { "" };
	struct ut_engine *eng = open_engine(UT_COMMIT_LAZY, &err);
	unsigned recs;
	size_t bytes = 0;

	if (!eng)
		return 0;
	ut_btree_op_bound(&eng->tree, VLEN, 0, &bytes, &recs);
	ut_engine_close(eng, &err);
	return bytes;
}

static void redo_per_write(void)
{
	double f3, f2;
	size_t r3, r2;

	if (make_store("size3", UT_GUARD_DOUBLEWRITE, 16384, 0, 0))
		goto fail;
	f3 = redo_per_insert(400);
	r3 = reserved_per_put();
	if (make_store("size2", UT_GUARD_DOUBLEWRITE, 16384, 0, 1))
		goto fail;
	f2 = redo_per_insert(400);
	r2 = reserved_per_put();
	ktap_diag("an insert at a leaf's front: format 3 %.0f bytes of redo (reserved %zu), format 2 %.0f (reserved %zu)",
		  f3, r3, f2, r2);
	ktap_ok(f3 > 0 && f2 > 0 && f3 * 4 < f2 && r3 >= f3 && r3 < 3 * f3 &&
			r2 > r3,
		"an insert at the front of a leaf of 400-800 rows: %.0f bytes of redo in a format 3 log, %.0f in format 2; a put reserves %zu (format 2: %zu)",
		f3, f2, r3, r2);
	return;
fail:
	ktap_ok(0, "redo of an insert at the front of a leaf");
}

/* The child: ops from 0 on, each acknowledged on fd (its number, 8
 * bytes) once its commit returns; exits 0 never. */
static void child(int fd)
{
	struct ut_err err = { "" };
	struct ut_engine *eng = open_engine(UT_COMMIT_SYNC, &err);
	uint64_t i;

	if (!eng)
		_exit(2);
	for (i = 0;; i++) {
		if (op_run(eng, i, NULL))
			_exit(3);
		if (write(fd, &i, sizeof(i)) != sizeof(i))
			_exit(4);
	}
}

/* Whether key op i's write left is there as op i wrote it. */
static int key_as(struct ut_engine *eng, uint64_t i, int present)
{
	unsigned char want[VLEN], got[VLEN];
	uint32_t len;
	int ret = ut_get(eng, op_key(i), got, sizeof(got), &len);

	if (!present)
		return ret == -ENOENT;
	op_value(i, want);
	return !ret && len == VLEN && !memcmp(got, want, VLEN);
}

/* Ops 0..acked acknowledged, op acked + 1 maybe applied: every key as
 * the acknowledged ops left it.  1 when one is not. */
static int state_checked(struct ut_engine *eng, uint64_t acked)
{
	uint64_t i, open = acked + 1, k;
	int ok;

	for (i = 0; i <= acked; i++) {
		if (op_is_delete(i))
			continue;
		k = i + 3; /* the op deleting i's key, if any */
		if (i % 5 == 1 && k == open)
			ok = key_as(eng, i, 1) || key_as(eng, i, 0);
		else
			ok = key_as(eng, i, !(i % 5 == 1 && k <= acked));
		if (!ok) {
			ktap_diag("op %llu (key %llu) wrong after recovery, %llu acknowledged",
				  (unsigned long long)i,
				  (unsigned long long)op_key(i),
				  (unsigned long long)acked + 1);
			return 1;
		}
	}
	return 0;
}

/* `untorn check` on dir: its exit status. */
static int check_store(void)
{
	const char *untorn = getenv("UNTORN");
	int status;
	pid_t pid;

	if (!untorn)
		untorn = "build/untorn";
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execl(untorn, "untorn", "check", dir, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* One trial: the child killed after a random number of acknowledged ops
 * (200-1700); then recovery, every key, `untorn check`. */
static int trial(uint64_t *acked_out)
{
	struct ut_err err = { "" };
	struct ut_engine *eng;
	uint64_t acked = 0, got, want = 200 + rand() % 1500;
	int fds[2], status, bad;
	pid_t pid;

	if (pipe(fds))
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(fds[1]);
	}
	close(fds[1]);
	while (read(fds[0], &got, sizeof(got)) == sizeof(got)) {
		acked = got;
		if (got >= want)
			break;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	/* what it acknowledged before the kill */
	while (read(fds[0], &got, sizeof(got)) == sizeof(got))
		acked = got;
	close(fds[0]);
	if (acked < want) {
		ktap_diag("the child stopped after %llu ops (status %d)",
			  (unsigned long long)acked, status);
		return 1;
	}
	eng = open_engine(UT_COMMIT_SYNC, &err);
	if (!eng) {
		ktap_diag("recovery: %s", err.msg);
		return 1;
	}
	bad = state_checked(eng, acked);
	ut_engine_close(eng, &err);
	if (!bad && check_store()) {
		ktap_diag("untorn check %s failed", dir);
		bad = 1;
	}
	*acked_out += acked + 1;
	return bad;
}

static void kill9(const char *name, uint32_t guard, uint32_t page,
		  uint32_t block, int format2, const char *what)
{
	uint64_t acked = 0;
	unsigned t, bad = 0;

	if (make_store(name, guard, page, block, format2)) {
		ktap_ok(0, "kill -9 on %s", what);
		return;
	}
	for (t = 0; t < TRIALS && !bad; t++)
		bad += trial(&acked);
	ktap_ok(!bad,
		"kill -9 at %u random moments of inserts and deletes at the front of full leaves, %s: %llu acknowledged ops all there after recovery, check clean",
		TRIALS, what, (unsigned long long)acked);
}

/* A log header of a format after this build's: refused, nothing changed. */
static void newer_format(void)
{
	unsigned char hdr[UT_LOG_HDR_SIZE], after[UT_LOG_HDR_SIZE];
	struct ut_err err = { "" };
	struct ut_engine *eng;
	char log[400];
	int ok;

	if (make_store("newer", UT_GUARD_DOUBLEWRITE, 16384, 0, 0))
		goto fail;
	snprintf(log, sizeof(log), "%s/%s", dir, UT_LOG_FILE);
	if (file_pread(log, hdr, sizeof(hdr), 0))
		goto fail;
	put_le32(hdr + 8, 4);
	put_le32(hdr + 12, ut_crc32c(0, hdr + 16, UT_LOG_HDR_SIZE - 16));
	if (file_pwrite(log, hdr, sizeof(hdr), 0))
		goto fail;
	eng = open_engine(UT_COMMIT_SYNC, &err);
	ktap_diag("%s", err.msg);
	ok = !eng && strstr(err.msg, "unknown log format version") &&
	     !strchr(err.msg, '\n') &&
	     !file_pread(log, after, sizeof(after), 0) &&
	     !memcmp(hdr, after, sizeof(hdr));
	if (eng)
		ut_engine_close(eng, &err);
	ktap_ok(ok,
		"a log of format 4: refused in one line naming it, the header unchanged");
	return;
fail:
	ktap_ok(0, "a log of format 4 refused");
}

int main(void)
{
	test_scratch_dir("redo-move");
	srand(getpid());
	ktap_plan(6);
	redo_per_write();
	kill9("dw16k", UT_GUARD_DOUBLEWRITE, 16384, 0, 0,
	      "doublewrite, 16 KiB pages of 4 KiB blocks");
	kill9("sector512", UT_GUARD_SECTOR, 16384, 512, 0,
	      "sector, 16 KiB pages of 512-byte blocks");
	kill9("sector4k", UT_GUARD_SECTOR, 4096, 512, 0,
	      "sector, 4 KiB pages of 512-byte blocks");
	kill9("format2", UT_GUARD_DOUBLEWRITE, 16384, 0, 1,
	      "doublewrite, a format 2 log (bytes, not MOVEs)");
	newer_format();
	return ktap_finish();
}
