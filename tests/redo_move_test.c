// SPDX-License-Identifier: MIT
/*
 * redo_move_test.c - a leaf's slot directory moved by an insert or a
 * delete, logged as MOVE records (log format 3): a MOVE a page block and
 * the slot that came from the next block, not every byte moved.  At a
 * half-full leaf's front, on 4 to 64 KiB pages of 512-byte and 4 KiB
 * blocks, an insert's redo stays the same size while format 2's grows
 * with the leaf, and what a transaction reserves covers what it writes
 * at a fifth or less of format 2's reservation.  kill -9 at random
 * moments of inserts and deletes at the front of full leaves: recovery
 * redoes the MOVEs on 4 KiB blocks, on 512-byte blocks (a leaf's slots across many
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

/* Commits a put of key (unless 0) and a delete of del (unless 0) as one
 * transaction: its commit's LSN in *lsn. */
static int commit_two(struct ut_engine *eng, uint64_t key, uint64_t del,
		      uint64_t *lsn, struct ut_err *err)
{
	unsigned char v[VLEN] = { 0 };
	struct ut_txn t;
	int ret = 0;

	ut_txn_begin(eng, &t);
	if (key)
		ret = ut_txn_put(&t, key, v, VLEN, err);
	if (!ret && del)
		ret = ut_txn_delete(&t, del, err);
	if (ret) {
		ut_txn_rollback(&t);
		return ret;
	}
	ret = ut_txn_commit(&t, err);
	*lsn = t.lsn;
	return ret;
}

/*
 * Redo bytes (LSN) written at the front of a leaf of n rows, on the store
 * in dir: an insert alone (*ins, over inserts n/2 to n of descending
 * keys), and a transaction of an insert and a delete (*two: a new front
 * row, the old one removed, so that the leaf keeps n rows and needs no
 * split; applied as one group, the path whose reservation counts), and
 * the redo that transaction reserved (*reserved).
 */
static int front_redo(unsigned n, double *ins, double *two, size_t *reserved)
{
	struct ut_err err = { "" };
	struct ut_engine *eng = open_engine(UT_COMMIT_LAZY, &err);
	uint64_t i, first = 0, lsn = 0;
	size_t put_b = 0, del_b = 0;
	unsigned recs;
	int bad = !eng;

	for (i = 0; i < n && !bad; i++) {
		bad |= !!commit_two(eng, BASE - i, 0, &lsn, &err);
		if (i == n / 2 - 1)
			first = lsn;
	}
	*ins = (double)(lsn - first) / (n - n / 2);
	first = lsn;
	for (i = 0; i < n / 4 && !bad; i++)
		bad |= !!commit_two(eng, BASE - n - i, BASE - n - i + 1, &lsn,
				    &err);
	*two = (double)(lsn - first) / (n / 4);
	if (eng) {
		ut_btree_op_bound(&eng->tree, VLEN, 0, &put_b, &recs);
		ut_btree_op_bound(&eng->tree, 0, 1, &del_b, &recs);
		ut_engine_close(eng, &err);
	}
	*reserved = put_b + del_b + UT_LOG_GROUP_HDR;
	if (bad)
		ktap_diag("writes: %s", err.msg);
	return bad;
}

struct layout_redo {
	double ins, two; /* an insert; an insert and a delete */
	size_t reserved; /* what the insert and the delete reserved */
};

/* One layout's redo at a leaf's front, format 3 (f[0]) and format 2
 * (f[1]); 1 when it could not be measured. */
static int redo_layout(uint32_t page, uint32_t block, struct layout_redo *f)
{
	/* half a leaf: ~22 bytes a row */
	unsigned n = page / 44, k;
	char name[64];

	for (k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "size%u-%u-%u", 3 - k, page,
			 block);
		if (make_store(name, UT_GUARD_SECTOR, page, block, k) ||
		    front_redo(n, &f[k].ins, &f[k].two, &f[k].reserved))
			return 1;
	}
	ktap_diag("%2u KiB pages, %4u-byte blocks, %4u rows: format 3 an insert %3.0f bytes, an insert and a delete %3.0f, reserved %3zu (%.1fx); format 2 %4.0f, %5.0f, %5zu (%.1fx)",
		  page >> 10, block, n, f[0].ins, f[0].two, f[0].reserved,
		  f[0].reserved / f[0].two, f[1].ins, f[1].two, f[1].reserved,
		  f[1].reserved / f[1].two);
	return 0;
}

/*
 * Format 3's redo at a leaf's front does not grow with the leaf (64 KiB
 * pages within 1.5x of 4 KiB ones) where format 2's does (5x or more),
 * and is below it on every layout; what a transaction reserves covers
 * what it writes, and is a fifth or less of format 2's reservation.
 */
static void redo_sizes(void)
{
	static const uint32_t layouts[][2] = {
		{ 4096, 512 }, { 16384, 512 }, { 16384, 4096 }, { 65536, 4096 }
	};
	enum { N = sizeof(layouts) / sizeof(layouts[0]) };
	struct layout_redo f[N][2];
	unsigned i, bad = 0;

	for (i = 0; i < N && !bad; i++) {
		bad += redo_layout(layouts[i][0], layouts[i][1], f[i]);
		bad += !bad && !(f[i][0].ins < f[i][1].ins &&
				 f[i][0].two < f[i][1].two &&
				 f[i][0].reserved >= f[i][0].two &&
				 f[i][1].reserved >= f[i][1].two &&
				 f[i][0].reserved * 5 <= f[i][1].reserved);
	}
	bad += !bad && !(f[N - 1][0].ins < 1.5 * f[0][0].ins &&
			 f[N - 1][1].ins >= 5 * f[0][1].ins);
	ktap_ok(!bad,
		"writes at the front of a half-full leaf, 4-64 KiB pages of 512-byte and 4 KiB blocks: format 3's redo the same on every page size (format 2's grows with the leaf), below format 2's; a transaction reserves what it writes or more, a fifth or less of format 2's reservation");
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
	redo_sizes();
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
