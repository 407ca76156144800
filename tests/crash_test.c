// SPDX-License-Identifier: MIT
/*
 * crash_test.c - crashes, and what recovery makes of them, on the real
 * `untorn` command and a real filesystem:
 *
 *  - kill -9 at random moments during `bench write --commit sync` (one
 *    row write a transaction, or four in every other trial): after
 *    `untorn recover`, every transaction whose commit returned is present
 *    with its last value (or a later one), `check` is clean, the tree is in
 *    key order, every value is intact and `verify` finds no transaction
 *    applied in half;
 *  - a page write torn after k blocks, then the process dies, for every k:
 *    `check` sees the torn page, recovery restores it from the doublewrite
 *    buffer and says which page;
 *  - a torn redo tail: recovery stops at the last valid group and says
 *    why; a garbage or zeroed last block: recovery refuses naming the
 *    damage (acknowledged commits may have been in it), and with
 *    --accept-log-loss leaves a consistent store that opens again;
 *  - the tree grows a level (the root splits) and the power goes before
 *    any page reaches the disk: recovery redoes the root's new level
 *    (found by crash-sim: the level was not logged, and a root raise in
 *    the redo window lost the whole tree);
 *  - a restart leaves a gap in the log (the new log starts a lap ahead)
 *    and the newest checkpoint slot is damaged after the next crash: recovery
 *    from the older slot keeps every commit made after the restart;
 *  - a commit's log write cut at a block's edge (SIGKILL stops a buffered
 *    write at a page's): the restart leaves the cut blocks out of the
 *    new log.
 *
 * UNTORN_CRASH_TRIALS sets the number of kill -9 trials (default 50);
 * UNTORN_CRASH_GUARD the guard of the store they run on (default
 * doublewrite; e.g. atomic on a disk with atomic writes), whose case of a
 * page restored from the doublewrite buffer is then skipped;
 * UNTORN_CRASH_KILL9_ONLY (set) runs the kill -9 trials only: the quick
 * kernel matrix's atomic guard on a device with atomic writes, where the
 * trials are what the kernel's path decides, and the rest, recovery's
 * own logic, would add ~5 minutes under software emulation.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <untorn/engine.h>
#include "base/crc32c.h"
#include "store/store.h"
#include "io/sysio.h"
#include "acks.h"
#include "rowgen.h"
#include "ktap.h"
#include "testlib.h"

static const char *untorn;
static char dir[300];

/* ---- running untorn ---------------------------------------------------- */

static int run(const char *out, char *const argv[])
{
	int status, fd;
	pid_t pid = fork();

	if (pid == 0) {
		fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
			  0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(untorn, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define UNTORN(...) ((char *const[]){ "untorn", __VA_ARGS__, NULL })

/* One kill -9 trial: bench, with txn_writes row writes a transaction,
 * until `after` row writes are acknowledged. */
static int bench_and_kill(unsigned after, char *txn_writes, struct acks *acks,
			  unsigned *acked)
{
	char line[64];
	int pipefd[2], status;
	unsigned long long key, ver;
	FILE *in;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		dup2(pipefd[1], 3);
		execv(untorn, UNTORN("bench", "write", dir, "--threads", "4",
				     "--seconds", "600", "--commit", "sync",
				     "--pool", "2M", "--ack-fd", "3",
				     "--txn-writes", txn_writes));
		_exit(127);
	}
	close(pipefd[1]);
	in = fdopen(pipefd[0], "r");
	*acked = 0;
	while (*acked < after && fgets(line, sizeof(line), in))
		if (sscanf(line, "%llu %llu", &key, &ver) == 2) {
			acks_put(acks, key, ver);
			(*acked)++;
		}
	kill(pid, SIGKILL);
	/* acknowledgements written before the kill are commits too */
	while (fgets(line, sizeof(line), in))
		if (sscanf(line, "%llu %llu", &key, &ver) == 2) {
			acks_put(acks, key, ver);
			(*acked)++;
		}
	fclose(in);
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : -1;
}

/* ---- verifying a recovered store --------------------------------------- */

struct scan_state {
	uint64_t last;
	uint64_t rows, bad;
	int first;
};

static int scan_fn(uint64_t key, const void *val, uint32_t len, void *user)
{
	struct scan_state *s = user;
	uint64_t ver;

	if (!s->first && key <= s->last)
		s->bad++;
	if (row_check(val, len, key, &ver))
		s->bad++;
	s->first = 0;
	s->last = key;
	s->rows++;
	return 0;
}

/* 0 when every acknowledged commit is there with its version or later. */
static int verify(const struct acks *a, uint64_t *missing, uint64_t *rows)
{
	struct ut_engine_opts o;
	struct ut_engine *eng;
	struct ut_err err = { "" };
	struct scan_state s = { .first = 1 };
	unsigned char val[65536];
	uint64_t ver;
	uint32_t len;
	size_t i;
	int ret;

	ut_engine_opts_default(&o);
	o.pool_bytes = 16 << 20;
	ret = ut_engine_open(dir, &o, &eng, NULL, &err);
	if (ret) {
		ktap_diag("open after recovery: %s", err.msg);
		return ret;
	}
	*missing = 0;
	for (i = 0; i < a->cap; i++) {
		if (!a->ver[i])
			continue;
		if (ut_get(eng, a->key[i], val, sizeof(val), &len) ||
		    row_check(val, len, a->key[i], &ver) || ver < a->ver[i])
			(*missing)++;
	}
	ut_scan(eng, 0, scan_fn, &s);
	*rows = s.rows;
	ut_engine_close(eng, &err);
	return *missing || s.bad ? -EUCLEAN : 0;
}

static int kill9_trials(unsigned trials)
{
	struct acks acks = { 0 };
	unsigned t, after, acked, total = 0, failures = 0;
	uint64_t missing = 0, rows = 0;
	int rc_rec, rc_check, rc_half;

	srand(getpid());
	for (t = 0; t < trials; t++) {
		after = t % 10 == 0 ? 0 : 1 + rand() % 3000;
		/* every other trial: transactions of four writes */
		if (bench_and_kill(after, t % 2 ? "4" : "1", &acks, &acked)) {
			ktap_diag("trial %u: bench did not die by SIGKILL", t);
			failures++;
			continue;
		}
		total += acked;
		rc_rec = run(NULL, UNTORN("recover", dir));
		rc_check = run(NULL, UNTORN("check", dir));
		/* verify follows the links between a transaction's rows:
		 * exit 1 on one applied in half */
		rc_half = run(NULL, UNTORN("verify", dir));
		if (rc_rec || rc_check || rc_half ||
		    verify(&acks, &missing, &rows)) {
			ktap_diag("trial %u (killed after %u acks): recover %d, check %d, verify %d, %llu acknowledged commits missing",
				  t, acked, rc_rec, rc_check, rc_half,
				  (unsigned long long)missing);
			failures++;
		}
	}
	ktap_diag("%u trials, %u commits acknowledged, %zu keys tracked, %llu rows at the end",
		  trials, total, acks.n, (unsigned long long)rows);
	acks_free(&acks);
	return failures == 0;
}

/* ---- torn page writes ---------------------------------------------------- */

static int torn_page_restored(unsigned k)
{
	char env[64], out[340], buf[4096];
	int rc_put, rc_check, rc_rec, rc_clean, ok;
	FILE *f;
	size_t n;

	snprintf(env, sizeof(env), "torn-page-write:%u", k);
	setenv("UNTORN_INJECT", env, 1);
	rc_put = run(NULL, UNTORN("put", dir, "7", "after-the-tear"));
	unsetenv("UNTORN_INJECT");
	rc_check = run(NULL, UNTORN("check", dir));
	snprintf(out, sizeof(out), "%s/recover.out", test_scratch);
	rc_rec = run(out, UNTORN("recover", dir));
	rc_clean = run(NULL, UNTORN("check", dir));
	f = fopen(out, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	ok = rc_put == 137 && rc_check == 1 && rc_rec == 0 && rc_clean == 0 &&
	     strstr(buf, "from the doublewrite buffer");
	ktap_diag("k=%u: put died %d, check %d, recover %d, check after %d: %.*s",
		  k, rc_put, rc_check, rc_rec, rc_clean,
		  (int)strcspn(buf, "\n"), buf);
	return ok && run(out, UNTORN("get", dir, "7")) == 0;
}

/* ---- redo tail ------------------------------------------------------------- */

/* Finds the newest valid log block (file offset) of the redo log. */
static long newest_block(const char *path, unsigned char *blk)
{
	uint64_t best = 0, lsn;
	long off, best_off = -1;
	uint32_t crc;
	int fd = open(path, O_RDONLY);

	for (off = 4096; pread(fd, blk, 512, off) == 512; off += 512) {
		memcpy(&crc, blk + 508, 4);
		memcpy(&lsn, blk, 8);
		if (crc == ut_crc32c(0, blk, 508) && lsn > best &&
		    lsn != UINT64_MAX /* an unused block */) {
			best = lsn;
			best_off = off;
		}
	}
	if (best_off >= 0)
		pread(fd, blk, 512, best_off);
	close(fd);
	return best_off;
}

/*
 * The payload length that cuts the newest block's last group short: one
 * byte into the header of the last group that starts in the block, or one
 * byte less where the block holds only the middle or end of a group.
 * (Shortening by a fixed count could end exactly at a group's edge, a
 * log that is whole.)  A block: LSN (8 bytes), payload length (2), the
 * first group's offset in the block or 0 (2), payload from byte 12; a
 * group: its length (4), its record count (2), its records.
 */
static uint16_t torn_length(const unsigned char *blk, uint16_t used)
{
	uint16_t first, last = 0;
	uint32_t glen;
	size_t g;

	memcpy(&first, blk + 10, 2);
	for (g = first; first && g < 12u + used; g += 6 + glen) {
		last = g;
		if (g + 6 > 12u + used)
			break;
		memcpy(&glen, blk + g, 4);
	}
	if (last)
		return last - 12 + 1;
	return used > 1 ? used - 1 : 0;
}

enum tail_damage {
	TAIL_TORN, /* the last group loses its end: a torn write */
	TAIL_GARBAGE, /* the last block's checksum no longer matches */
	TAIL_ZEROED, /* the last block is zeros */
};

static const char *const tail_name[] = { "torn", "garbage", "zeroed" };

/* Runs untorn recover [extra], its output in buf; returns its status. */
static int recover_into(char *buf, size_t len, char *extra)
{
	char out[340];
	size_t n;
	FILE *f;
	int rc;

	snprintf(out, sizeof(out), "%s/tail.out", test_scratch);
	rc = extra ? run(out, UNTORN("recover", dir, extra)) :
		     run(out, UNTORN("recover", dir));
	f = fopen(out, "r");
	n = f ? fread(buf, 1, len - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	return rc;
}

/*
 * A torn tail is the end of the log: recovery stops at the last complete
 * group and says why.  A damaged last block (garbage, zeros) is not what
 * a power cut leaves (a log block is one sector; the log was filled with
 * unused blocks when made): recovery refuses naming the damage and the
 * way on, and --accept-log-loss then recovers a consistent store.
 */
static int damaged_tail(enum tail_damage how, const char *want)
{
	char log[340], buf[4096];
	unsigned char blk[512];
	struct acks acks = { 0 };
	unsigned acked;
	uint64_t missing, rows;
	uint16_t used;
	uint32_t crc;
	long off;
	int rc_rec, ok;

	if (bench_and_kill(500, "1", &acks, &acked))
		return 0;
	snprintf(log, sizeof(log), "%s/untorn.redo", dir);
	off = newest_block(log, blk);
	if (off < 0)
		return 0;
	memcpy(&used, blk + 8, 2);
	if (how == TAIL_GARBAGE) {
		blk[100] ^= 0xff; /* checksum no longer matches */
	} else if (how == TAIL_ZEROED) {
		memset(blk, 0, sizeof(blk));
	} else {
		used = torn_length(blk, used);
		memcpy(blk + 8, &used, 2);
		crc = ut_crc32c(0, blk, 508);
		memcpy(blk + 508, &crc, 4);
	}
	file_pwrite(log, blk, 512, off);
	rc_rec = recover_into(buf, sizeof(buf), NULL);
	ktap_diag("%s tail: recover %d: %s", tail_name[how], rc_rec,
		  strstr(buf, "redo up to") ? strstr(buf, "redo up to") : buf);
	ok = strstr(buf, want) != NULL;
	if (how == TAIL_TORN) {
		ok &= rc_rec == 0;
	} else {
		ok &= rc_rec == 2 && strstr(buf, "--accept-log-loss") != NULL;
		rc_rec = recover_into(buf, sizeof(buf), "--accept-log-loss");
		ktap_diag("... with --accept-log-loss: recover %d: %s", rc_rec,
			  strstr(buf, "the log is damaged") ?
				  strstr(buf, "the log is damaged") :
				  buf);
		ok &= rc_rec == 0 && strstr(buf, "where it ends") != NULL;
		/* the damaged block went with the old log: not met again */
		rc_rec = recover_into(buf, sizeof(buf), NULL);
		ok &= rc_rec == 0 && !strstr(buf, "damaged");
	}
	/* acknowledged commits of the damaged block may be gone: the device
	 * lied; everything else must be consistent */
	verify(&acks, &missing, &rows);
	ok &= run(NULL, UNTORN("check", dir)) == 0;
	acks_free(&acks);
	return ok;
}

/* ---- a root raise in the redo window ---------------------------------- */

/* Whether the path fd is open on contains name ("/untorn.redo"). */
static int fd_names(int fd, const char *name)
{
	char link[64], target[512];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = 0;
	return !!strstr(target, name);
}

static int is_page_file(int fd)
{
	return fd_names(fd, "/untorn.dat") || fd_names(fd, "/untorn.dblwr");
}

/* the power goes before any page reaches the disk */
static ssize_t die_on_page_write(enum ut_op op, int fd, size_t len, off_t off)
{
	(void)off;
	if (op == UT_OP_WRITE && is_page_file(fd))
		_exit(137);
	return len;
}

static void raise_value(uint64_t key, unsigned char *v, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		v[i] = (unsigned char)(key * 31 + i);
}

/* A child puts nkeys rows of vlen bytes (sync commits) into a new 4 KiB-
 * page store with no page cleaner (nothing writes a page while it runs,
 * however slow the machine: a guest under software emulation once took
 * longer than the cleaners' first background flush) and dies at any page
 * write, or, all put, ends without flushing: a power cut before any page
 * write.  Every acknowledged row must be readable after recovery.  200
 * rows of 100 bytes raise the root to level 1; 3000 of 480 bytes (four
 * to eight a leaf, under 300 children an internal page) to level 2. */
static int root_raise_redone(unsigned nkeys, uint32_t vlen)
{
	/* with no cleaner nothing checkpoints: the redo of every key (~12
	 * MiB at most, a block a sync commit) must stay under the writers'
	 * stop, 5/8 of the log; and small, for the guests' 400 MiB
	 * filesystems, where two stores of 256 MiB logs once filled one */
	struct ut_init_opts io = { .page_size = 4096,
				   .guard = UT_GUARD_DOUBLEWRITE,
				   .log_size = 64 << 20 };
	unsigned char v[800], got[1024];
	unsigned acked = 0, lost = 0, key;
	struct ut_err err = { "" };
	struct ut_engine_opts o;
	struct ut_engine *eng;
	char sdir[320];
	int pipefd[2], status, ok;
	uint32_t len;
	pid_t pid;

	snprintf(sdir, sizeof(sdir), "%s/raise-%u", test_scratch, nkeys);
	if (ut_store_init(sdir, &io, &err) || pipe(pipefd)) {
		ktap_diag("init %s: %s", sdir, err.msg);
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		ut_engine_opts_default(&o);
		o.commit = UT_COMMIT_SYNC;
		o.cleaners = 0;
		if (ut_engine_open(sdir, &o, &eng, NULL, &err))
			_exit(3);
		ut_sys.io_admit = die_on_page_write;
		for (key = 0; key < nkeys; key++) {
			raise_value(key, v, vlen);
			if (ut_put(eng, key, v, vlen, &err))
				_exit(4);
			if (write(pipefd[1], &key, sizeof(key)) != sizeof(key))
				_exit(5);
		}
		_exit(0); /* power cut: nothing flushed, no checkpoint */
	}
	close(pipefd[1]);
	while (read(pipefd[0], &key, sizeof(key)) == sizeof(key))
		acked++;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	ut_engine_opts_default(&o);
	if (ut_engine_open(sdir, &o, &eng, NULL, &err)) {
		ktap_diag("reopen after the cut: %s", err.msg);
		return 0;
	}
	for (key = 0; key < acked; key++) {
		raise_value(key, v, vlen);
		if (ut_get(eng, key, got, sizeof(got), &len) || len != vlen ||
		    memcmp(got, v, vlen))
			lost++;
	}
	ut_engine_close(eng, &err);
	ktap_diag("%u keys put, %u acknowledged before the cut (child exit %d), %u lost after recovery",
		  nkeys, acked, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		  lost);
	ok = acked == nkeys && lost == 0;
	test_store_remove(sdir, ok);
	return ok;
}

/* ---- a damaged newest checkpoint slot after a restart ------------------ */

static int read_region(const char *data, unsigned char *region,
		       struct ut_sb *sb, struct ut_ckpt *ck)
{
	int slot_err[2];

	if (file_pread(data, region, UT_SB_REGION, 0) ||
	    ut_sb_decode(region, sb))
		return -1;
	return ut_ckpt_pick(region, sb->uuid, ck, slot_err);
}

/* Opens sdir, puts keys [from, to) with sync commits; closes, or, cut,
 * returns with no cleaner having run and dies at any page write (a power
 * cut: no checkpoint after the open's). */
static int put_range(const char *sdir, unsigned from, unsigned to, int cut)
{
	struct ut_err err = { "" };
	struct ut_engine_opts o;
	struct ut_engine *eng;
	unsigned char v[64];
	unsigned key;

	ut_engine_opts_default(&o);
	o.commit = UT_COMMIT_SYNC;
	/* cut: no cleaner writes a page, however slow the machine (in a
	 * guest under software emulation the cleaners' first flush came
	 * before the last row) */
	if (cut)
		o.cleaners = 0;
	if (ut_engine_open(sdir, &o, &eng, NULL, &err))
		return 3;
	if (cut)
		ut_sys.io_admit = die_on_page_write;
	for (key = from; key < to; key++) {
		raise_value(key, v, sizeof(v));
		if (ut_put(eng, key, v, sizeof(v), &err))
			return 4;
	}
	if (cut)
		return 0;
	return ut_engine_close(eng, &err) ? 5 : 0;
}

/*
 * A clean close leaves the log in the middle of a block; the next open
 * starts its log a lap ahead and checkpoints there.  Its commits
 * reach the log, then the power goes, and the newest checkpoint slot is
 * found damaged: recovery falls back to the other slot, which must not
 * name a checkpoint before the gap (its scan would end at the half-used
 * block and leave every commit after the restart unapplied).
 */
static int damaged_slot_after_restart(void)
{
	struct ut_init_opts io = { .page_size = 4096,
				   .guard = UT_GUARD_DOUBLEWRITE,
				   .log_size = 64 << 20 };
	unsigned char region[UT_SB_REGION], v[64], got[128];
	struct ut_err err = { "" };
	struct ut_engine_opts o;
	struct ut_engine *eng;
	struct ut_ckpt ck;
	struct ut_sb sb;
	char sdir[320], data[340];
	unsigned key, lost = 0;
	int slot, status, fd;
	uint32_t len;
	pid_t pid;

	snprintf(sdir, sizeof(sdir), "%s/slot", test_scratch);
	snprintf(data, sizeof(data), "%s/" UT_DATA_FILE, sdir);
	if (ut_store_init(sdir, &io, &err) || put_range(sdir, 0, 50, 0)) {
		ktap_diag("making %s: %s", sdir, err.msg);
		return 0;
	}
	pid = fork();
	if (pid == 0)
		_exit(put_range(sdir, 50, 150, 1));
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ktap_diag("the writer after the restart: status %d", status);
		return 0;
	}
	slot = read_region(data, region, &sb, &ck);
	fd = open(data, O_WRONLY);
	if (slot < 0 || fd < 0) {
		ktap_diag("cannot read %s's checkpoint slots", data);
		return 0;
	}
	region[(1 + slot) * UT_SB_SECTOR + 40] ^= 0x10;
	if (pwrite(fd, region + (1 + slot) * UT_SB_SECTOR, UT_SB_SECTOR,
		   (1 + slot) * UT_SB_SECTOR) != UT_SB_SECTOR) {
		close(fd);
		return 0;
	}
	close(fd);
	ut_engine_opts_default(&o);
	if (ut_engine_open(sdir, &o, &eng, NULL, &err)) {
		ktap_diag("reopen with slot %d damaged: %s", slot, err.msg);
		return 0;
	}
	for (key = 0; key < 150; key++) {
		raise_value(key, v, sizeof(v));
		if (ut_get(eng, key, got, sizeof(got), &len) ||
		    len != sizeof(v) || memcmp(got, v, sizeof(v)))
			lost++;
	}
	ut_engine_close(eng, &err);
	ktap_diag("newest slot %d (checkpoint LSN %llu) damaged: %u of 150 acknowledged rows lost",
		  slot, (unsigned long long)ck.checkpoint_lsn, lost);
	test_store_remove(sdir, lost == 0);
	return lost == 0;
}

/* ---- a log write cut at a block's edge, then a restart ----------------- */

static int log_cut;

/* Whether the log block lsn falls in holds a sound block of that LSN:
 * log from before the restart, which a scan from there would read. */
static int claimed_by_old_log(const char *path, uint64_t lsn)
{
	uint64_t capacity, at = lsn / 512 * 512, blk_lsn;
	unsigned char blk[512];
	uint32_t crc;

	if (file_pread(path, &capacity, sizeof(capacity), 16) || !capacity ||
	    file_pread(path, blk, sizeof(blk), 4096 + at % capacity))
		return 1;
	memcpy(&blk_lsn, blk, 8);
	memcpy(&crc, blk + 508, 4);
	return blk_lsn == at && crc == ut_crc32c(0, blk, 508);
}

/*
 * The next log write of four blocks or more reaches the file for its
 * first three only, and the process dies: what SIGKILL does to a
 * buffered write (it stops at a page's edge, which is a block's).
 */
static ssize_t cut_log_write(enum ut_op op, int fd, size_t len, off_t off)
{
	(void)off;
	if (!fd_names(fd, "/untorn.redo"))
		return len;
	if (log_cut)
		_exit(0);
	if (op != UT_OP_WRITE || len < 4 * 512)
		return len;
	log_cut = 1;
	return 3 * 512;
}

static void cut_child(const char *sdir)
{
	struct ut_err err = { "" };
	struct ut_engine_opts o;
	struct ut_engine *eng;
	unsigned char v[200];
	struct ut_txn t;
	unsigned key;

	ut_engine_opts_default(&o);
	o.commit = UT_COMMIT_SYNC;
	if (ut_engine_open(sdir, &o, &eng, NULL, &err))
		_exit(3);
	for (key = 0; key < 20; key++) {
		raise_value(key, v, 64);
		if (ut_put(eng, key, v, 64, &err))
			_exit(4);
	}
	ut_sys.io_admit = cut_log_write;
	ut_txn_begin(eng, &t);
	for (key = 1000; key < 1016; key++) {
		raise_value(key, v, sizeof(v));
		if (ut_txn_put(&t, key, v, sizeof(v), &err))
			_exit(5);
	}
	ut_txn_commit(&t, &err);
	_exit(6); /* the commit's log write was not cut */
}

/*
 * A commit's log write cut after three blocks leaves its group
 * incomplete in the last whole block, with an unused block after it (not
 * a half-used block: the scan stops at "unused block").  The restart
 * must not reuse those blocks' LSNs: if the new log began right after the
 * last complete group, the cut group's blocks would sit in it with the
 * LSNs they were written with, and the next recovery would read them as
 * log (seen as "malformed group (garbage tail)" with sound log after:
 * recovery refused, or a stale group applied).
 */
static int cut_log_write_restart(void)
{
	struct ut_init_opts io = { .page_size = 4096,
				   .guard = UT_GUARD_DOUBLEWRITE,
				   .log_size = 8 << 20 };
	struct ut_recovery_report rep1, rep2;
	unsigned char v[200], got[256];
	struct ut_err err = { "" };
	struct ut_engine_opts o;
	struct ut_engine *eng;
	unsigned key, lost = 0, txn_rows = 0;
	char sdir[320], log[340];
	int status, clean, ok;
	uint32_t len;
	pid_t pid;

	snprintf(sdir, sizeof(sdir), "%s/cut", test_scratch);
	if (ut_store_init(sdir, &io, &err)) {
		ktap_diag("init %s: %s", sdir, err.msg);
		return 0;
	}
	pid = fork();
	if (pid == 0)
		cut_child(sdir);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ktap_diag("the writer: status %d (6: the commit's log write was not cut)",
			  status);
		return 0;
	}
	ut_engine_opts_default(&o);
	if (ut_engine_open(sdir, &o, &eng, &rep1, &err)) {
		ktap_diag("recovery after the cut: %s", err.msg);
		return 0;
	}
	for (key = 0; key < 20; key++) {
		raise_value(key, v, 64);
		if (ut_get(eng, key, got, sizeof(got), &len) || len != 64 ||
		    memcmp(got, v, 64))
			lost++;
	}
	for (key = 1000; key < 1016; key++)
		txn_rows += !ut_get(eng, key, got, sizeof(got), &len);
	ktap_diag("after the cut: recovery stopped at \"%s\"; %u of 20 acknowledged rows lost, %u of the cut transaction's 16 rows there",
		  rep1.stop_reason, lost, txn_rows);
	if (ut_engine_close(eng, &err) ||
	    ut_engine_open(sdir, &o, &eng, &rep2, &err)) {
		ktap_diag("the next open: %s", err.msg);
		return 0;
	}
	ut_engine_close(eng, &err);
	/* the new log started at the checkpoint recovery wrote */
	snprintf(log, sizeof(log), "%s/untorn.redo", sdir);
	clean = !rep2.groups && !claimed_by_old_log(log, rep2.checkpoint_lsn);
	ktap_diag("the new log starts at LSN %llu%s; the next open: %llu groups",
		  (unsigned long long)rep2.checkpoint_lsn,
		  clean ? "" : ", in a block the cut write left with that LSN",
		  (unsigned long long)rep2.groups);
	ok = !lost && (txn_rows == 0 || txn_rows == 16) && clean;
	test_store_remove(sdir, ok);
	return ok;
}

/* the cases after the kill -9 trials */
enum {
	TORN_PAGE,
	TAIL_TORN_CASE,
	TAIL_GARBAGE_CASE,
	TAIL_ZEROED_CASE,
	ROOT_RAISE,
	DAMAGED_SLOT,
	CUT_LOG_WRITE,
	NCASES
};
static const char *const case_names[NCASES] = {
	[TORN_PAGE] =
		"a page write torn after k=1..3 blocks, then death: check sees it, recovery restores it from the doublewrite buffer",
	[TAIL_TORN_CASE] =
		"torn redo tail: recovery stops at the last complete group and says so",
	[TAIL_GARBAGE_CASE] =
		"garbage in the redo log's last block: recover refuses naming it; --accept-log-loss recovers a consistent store, which recovers clean again",
	[TAIL_ZEROED_CASE] =
		"the redo log's last block zeroed: recover refuses naming it (the log has no zeros); --accept-log-loss recovers a consistent store, which recovers clean again",
	[ROOT_RAISE] =
		"the root splits (to level 1, then 2) and the power goes before any page write: recovery redoes the new level, every acknowledged row is there",
	[DAMAGED_SLOT] =
		"the newest checkpoint slot damaged after a restart that left a gap in the log: recovery from the other slot keeps every acknowledged row",
	[CUT_LOG_WRITE] =
		"a commit's log write cut at a block's edge: recovery keeps every acknowledged row and none of the cut transaction, and the next open reads none of the cut blocks as log",
};

int main(void)
{
	const char *env = getenv("UNTORN_CRASH_TRIALS");
	const char *guard = getenv("UNTORN_CRASH_GUARD");
	int kill9_only = getenv("UNTORN_CRASH_KILL9_ONLY") != NULL;
	unsigned trials = env ? atoi(env) : 50, k;
	int ok = 1;

	untorn = getenv("UNTORN");
	if (!untorn)
		untorn = "build/untorn";
	if (!guard || !*guard)
		guard = "doublewrite";
	test_scratch_dir("crash");
	snprintf(dir, sizeof(dir), "%s/store", test_scratch);
	ktap_plan(8);
	if (run(NULL, UNTORN("init", dir, "--page-size", "16k", "--guard",
			     (char *)guard)) ||
	    run(NULL, UNTORN("load", dir, "--rows", "20000"))) {
		ktap_diag("cannot make a store of guard %s in %s with %s",
			  guard, dir, untorn);
		return ktap_finish();
	}
	ktap_ok(kill9_trials(trials),
		"%u kill -9 trials during bench write --commit sync, half with four writes a transaction, guard %s: every acknowledged commit survives, check clean, tree ordered",
		trials, guard);
	if (kill9_only) {
		for (k = 0; k < NCASES; k++)
			ktap_skip_case(case_names[k],
				       "UNTORN_CRASH_KILL9_ONLY: the kill -9 trials only (make check runs the rest)");
		return ktap_finish();
	}
	if (strcmp(guard, "doublewrite")) {
		ktap_skip_case(case_names[TORN_PAGE],
			       "the store's guard is %s, which keeps no copy",
			       guard);
	} else {
		for (k = 1; k < 4; k++)
			ok &= torn_page_restored(k);
		ktap_ok(ok, "%s", case_names[TORN_PAGE]);
	}
	ktap_ok(damaged_tail(TAIL_TORN, "incomplete group"), "%s",
		case_names[TAIL_TORN_CASE]);
	ktap_ok(damaged_tail(TAIL_GARBAGE, "block checksum mismatch"), "%s",
		case_names[TAIL_GARBAGE_CASE]);
	ktap_ok(damaged_tail(TAIL_ZEROED, "all-zero block"), "%s",
		case_names[TAIL_ZEROED_CASE]);
	ktap_ok(root_raise_redone(200, 100) && root_raise_redone(3000, 480),
		"%s", case_names[ROOT_RAISE]);
	ktap_ok(damaged_slot_after_restart(), "%s", case_names[DAMAGED_SLOT]);
	ktap_ok(cut_log_write_restart(), "%s", case_names[CUT_LOG_WRITE]);
	return ktap_finish();
}
