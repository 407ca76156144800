// SPDX-License-Identifier: MIT
/*
 * txn_test.c - transactions all or nothing: rollback and an unfinished
 * transaction leave no trace, a transaction reads its own writes and
 * nobody else does before its commit, the last write to a key wins, a
 * transaction far larger than one redo group commits whole (through its
 * commit file), a commit file that holds what no commit writes is
 * removed unapplied, the last of two commits to a key wins, hundreds of
 * ascending inserts in one commit (leaves split ahead of them), scanners
 * that never see a transfer half made, and kill -9 at random points of
 * transactions of 16 writes: after recovery each is whole or absent.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <untorn/engine.h>
#include <untorn/store.h>
#include "io/sysio.h"
#include "txn_file.h"
#include "rowgen.h"
#include "ktap.h"
#include "testlib.h"
#include "teststore.h"

static char dir[300];

static int make_store(const char *name, uint64_t log_size)
{
	return test_store_make(dir, sizeof(dir), name, 16384, log_size);
}

static struct ut_engine *open_engine(uint64_t pool, enum ut_commit_mode commit)
{
	return test_engine_open(dir, pool, commit);
}

/* The version row_value() gave key's row, 0 when absent or wrong. */
static uint64_t version_of(struct ut_engine *eng, uint64_t key)
{
	unsigned char val[4096];
	uint64_t ver;
	uint32_t len;

	if (ut_get(eng, key, val, sizeof(val), &len) ||
	    row_check(val, len, key, &ver))
		return 0;
	return ver;
}

static int put_version(struct ut_txn *t, uint64_t key, uint64_t ver)
{
	unsigned char val[100];
	struct ut_err err = { "" };

	row_value(val, sizeof(val), key, ver, 0);
	return ut_txn_put(t, key, val, sizeof(val), &err);
}

/* A put of key at version ver now, alone: 0 or -errno (err says). */
static int put_version_now(struct ut_engine *eng, uint64_t key, uint64_t ver,
			   struct ut_err *err)
{
	unsigned char val[100];

	row_value(val, sizeof(val), key, ver, 0);
	return ut_put(eng, key, val, sizeof(val), err);
}

/* Keys 0..n-1 at version 1, committed one by one. */
static int load(struct ut_engine *eng, uint64_t n)
{
	unsigned char val[100];
	struct ut_err err = { "" };
	uint64_t k;

	for (k = 0; k < n; k++) {
		row_value(val, sizeof(val), k, 1, 0);
		if (ut_put(eng, k, val, sizeof(val), &err))
			return -1;
	}
	return 0;
}

/* A store named name whose log and pool are size bytes, opened with
 * commit and loaded with keys 0..rows-1; NULL (said why) on failure. */
static struct ut_engine *loaded_engine(const char *name, uint64_t size,
				       enum ut_commit_mode commit,
				       uint64_t rows)
{
	struct ut_err err = { "" };
	struct ut_engine *eng;

	if (make_store(name, size) || !(eng = open_engine(size, commit)))
		return NULL;
	if (load(eng, rows)) {
		ktap_diag("loading %llu rows failed", (unsigned long long)rows);
		ut_engine_close(eng, &err);
		return NULL;
	}
	return eng;
}

static void rollback_and_own_writes(void)
{
	struct ut_engine *eng;
	struct ut_err err = { "" };
	unsigned char val[200];
	struct ut_txn t;
	uint32_t len;
	uint64_t ver;
	int ok = 1;

	eng = loaded_engine("own", 8 << 20, UT_COMMIT_SYNC, 100);
	if (!eng) {
		ktap_ok(0,
			"a transaction reads its own writes, nobody else does; rollback leaves nothing");
		return;
	}
	ut_txn_begin(eng, &t);
	ok &= !put_version(&t, 5, 2) && !put_version(&t, 500, 2);
	ok &= !ut_txn_delete(&t, 7, &err);
	/* its own view */
	ok &= !ut_txn_get(&t, 5, val, sizeof(val), &len) &&
	      !row_check(val, len, 5, &ver) && ver == 2;
	ok &= ut_txn_get(&t, 7, val, sizeof(val), &len) == -ENOENT;
	ok &= !ut_txn_get(&t, 500, val, sizeof(val), &len);
	ok &= ut_txn_delete(&t, 7, &err) == -ENOENT; /* deleted already */
	/* everybody else's: nothing yet */
	ok &= version_of(eng, 5) == 1 && version_of(eng, 7) == 1 &&
	      ut_get(eng, 500, val, sizeof(val), &len) == -ENOENT;
	ut_txn_rollback(&t);
	ok &= version_of(eng, 5) == 1 && version_of(eng, 7) == 1 &&
	      ut_get(eng, 500, val, sizeof(val), &len) == -ENOENT;
	/* a put then a delete of a new key, and a key written twice */
	ut_txn_begin(eng, &t);
	ok &= !put_version(&t, 600, 3) && !ut_txn_delete(&t, 600, &err);
	ok &= !put_version(&t, 8, 4) && !put_version(&t, 8, 5);
	ok &= ut_txn_delete(&t, 9999, &err) == -ENOENT && t.writes == 4;
	ok &= !ut_txn_commit(&t, &err);
	ok &= ut_get(eng, 600, val, sizeof(val), &len) == -ENOENT &&
	      version_of(eng, 8) == 5;
	/* an unfinished transaction, then a restart */
	ut_txn_begin(eng, &t);
	ok &= !put_version(&t, 9, 6);
	ok &= !ut_engine_close(eng, &err);
	ut_txn_rollback(&t);
	eng = open_engine(8 << 20, UT_COMMIT_SYNC);
	ok &= eng && version_of(eng, 9) == 1 && version_of(eng, 8) == 5 &&
	      version_of(eng, 5) == 1;
	if (eng)
		ut_engine_close(eng, &err);
	ktap_ok(ok,
		"a transaction reads its own writes, nobody else does; rollback leaves nothing; the last write to a key wins");
}

/* Writes new keys until one is refused: *n taken before it. */
static int fill(struct ut_txn *t, uint64_t first, unsigned n,
		struct ut_err *err)
{
	unsigned char val[100];
	unsigned i;
	int ret;

	for (i = 0; i < n; i++) {
		row_value(val, sizeof(val), first + i, 2, 0);
		ret = ut_txn_put(t, first + i, val, sizeof(val), err);
		if (ret)
			return ret;
	}
	return 0;
}

/* the store's directory holds no commit file (untorn.txn.*) */
static int no_commit_file(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "ls %s | grep -q '^untorn\\.txn\\.'", dir);
	return system(cmd) != 0;
}

/* ways larger than one redo group: keys for 200x a quarter of a 2 MiB
 * pool, and redo many times 3/32 of an 8 MiB log */
static void larger_than_a_group(void)
{
	struct ut_err err = { "" }, err2 = { "" };
	struct ut_engine *eng;
	struct ut_txn t;
	const unsigned n = 6400;
	unsigned i;
	int ok = 1;

	if (make_store("big", 8 << 20) ||
	    !(eng = open_engine(2 << 20, UT_COMMIT_SYNC))) {
		ktap_ok(0, "a transaction larger than one group commits");
		return;
	}
	ut_txn_begin(eng, &t);
	ok &= !fill(&t, 1000, n, &err);
	ok &= !version_of(eng, 1000); /* nothing applied before the commit */
	ok &= !ut_txn_commit(&t, &err2);
	ktap_diag("%u writes: %s%s", n, err.msg, err2.msg);
	for (i = 0; i < n; i++)
		ok &= version_of(eng, 1000 + i) == 2;
	ok &= !version_of(eng, 1000 + n) && no_commit_file();
	ut_engine_close(eng, &err2);
	eng = open_engine(2 << 20, UT_COMMIT_SYNC);
	for (i = 0; eng && i < n; i++)
		ok &= version_of(eng, 1000 + i) == 2;
	if (eng)
		ut_engine_close(eng, &err2);
	ktap_ok(ok && eng,
		"a transaction of %u writes (keys for 200 times a quarter of a 2 MiB pool, redo many times 3/32 of an 8 MiB log) commits whole, nothing before its commit, no commit file left, all there after a reopen",
		n);
}

static atomic_int enospc_armed;

/* the data file cannot grow once armed */
static int enospc_fallocate(int fd, int mode, off_t off, off_t len)
{
	if (atomic_load(&enospc_armed))
		return -ENOSPC;
	return fallocate(fd, mode, off, len) ? -errno : 0;
}

/* A large commit whose pieces run out of room after its commit point:
 * it is committed, so -EUCLEAN, every later write refused (its keys can
 * never be given back), and the next open applies it whole. */
static void large_commit_fails(void)
{
	struct ut_err err = { "" }, err2 = { "" }, err3 = { "" };
	struct ut_engine *eng;
	struct ut_txn t;
	const unsigned n = 50000;
	unsigned i, whole = 0;
	int ret, put, ok = 1;

	if (make_store("fails", 8 << 20) ||
	    !(eng = open_engine(2 << 20, UT_COMMIT_SYNC))) {
		ktap_ok(0, "a large commit that fails after its commit point");
		return;
	}
	ut_sys.fallocate = enospc_fallocate;
	ut_txn_begin(eng, &t);
	ok &= !fill(&t, 100000, n, &err);
	atomic_store(&enospc_armed, 1);
	ret = ut_txn_commit(&t, &err);
	put = put_version_now(eng, 7, 3, &err2);
	atomic_store(&enospc_armed, 0);
	ktap_diag("commit: %s", err.msg);
	ktap_diag("a put after it: %s", err2.msg);
	ok &= ret == -EUCLEAN && strstr(err.msg, "was committed") && put &&
	      strstr(err2.msg, "could not be applied");
	ut_engine_close(eng, &err3);
	ut_sys_reset();
	eng = open_engine(2 << 20, UT_COMMIT_SYNC);
	for (i = 0; eng && i < n; i++)
		whole += version_of(eng, 100000 + i) == 2;
	ktap_diag("after the open: %u of %u writes there", whole, n);
	ok &= eng && whole == n && !version_of(eng, 7) && no_commit_file();
	if (eng)
		ut_engine_close(eng, &err3);
	ktap_ok(ok,
		"a large commit whose data file cannot grow after its commit point: -EUCLEAN, a put after it refused in one line, and the next open applies all %u writes",
		n);
}

static void last_commit_wins(void)
{
	struct ut_err err = { "" };
	struct ut_engine *eng;
	struct ut_txn a, b;
	int ok = 1;

	eng = loaded_engine("race", 8 << 20, UT_COMMIT_LAZY, 100);
	if (!eng) {
		ktap_ok(0,
			"of two transactions writing one key, the last to commit wins whole");
		return;
	}
	ut_txn_begin(eng, &a);
	ut_txn_begin(eng, &b);
	ok &= !put_version(&a, 10, 20) && !put_version(&a, 11, 20);
	ok &= !put_version(&b, 11, 30) && !put_version(&b, 12, 30);
	ok &= !ut_txn_commit(&b, &err) && !ut_txn_commit(&a, &err);
	ok &= version_of(eng, 10) == 20 && version_of(eng, 11) == 20 &&
	      version_of(eng, 12) == 30;
	ut_engine_close(eng, &err);
	ktap_ok(ok,
		"of two transactions writing one key, the last to commit wins whole");
}

/* The entries of dir (dot files aside). */
static unsigned dir_entries(const char *dir)
{
	struct dirent *e;
	unsigned n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return UINT_MAX;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * Commit files whose CRCs check but whose writes no commit writes (keys
 * out of order; a value over the store's largest) are removed unread;
 * one in order, a put and a delete, is handed back whole.
 */
static void commit_files_checked(void)
{
	static const uint8_t uuid[16] = { 0x75, 0x6e, 0x74, 0x6f, 0x72, 0x6e };
	static const unsigned char val[64];
	const struct ut_tree_op unordered[2] = { { 5, val, 8, 0 },
						 { 3, val, 8, 0 } };
	const struct ut_tree_op oversize[1] = { { 7, val, 64, 0 } };
	const struct ut_tree_op good[2] = { { 3, val, 8, 0 },
					    { 5, NULL, 0, 1 } };
	struct ut_err err = { "" };
	struct ut_txn_file f;
	char dir[4096], path[4200];
	unsigned bad = 0;
	int ok, ret;

	test_path(dir, sizeof(dir), "files");
	ok = !mkdir(dir, 0700) &&
	     !ut_txn_file_write(dir, uuid, unordered, 2, path, sizeof(path),
				&err) &&
	     !ut_txn_file_write(dir, uuid, oversize, 1, path, sizeof(path),
				&err);
	ret = ut_txn_file_first(dir, uuid, 32, &f, &bad, &err);
	ktap_diag("out of order and oversize: %d, %u removed, %u left %s", ret,
		  bad, dir_entries(dir), err.msg);
	ok &= ret == 0 && bad == 2 && dir_entries(dir) == 0;
	ok &= !ut_txn_file_write(dir, uuid, good, 2, path, sizeof(path), &err);
	ret = ut_txn_file_first(dir, uuid, 32, &f, &bad, &err);
	ok &= ret == 1 && f.n == 2 && f.ops[0].key == 3 && f.ops[0].len == 8 &&
	      !f.ops[0].del && f.ops[1].key == 5 && f.ops[1].del;
	if (ret == 1)
		ut_txn_file_release(&f);
	ktap_ok(ok,
		"commit files that check but hold what no commit writes (keys out of order, a value over the largest) are removed unapplied; one in order is read back whole");
}

struct order {
	uint64_t next, n;
	int sorted;
};

static int order_row(uint64_t key, const void *val, uint32_t len, void *user)
{
	struct order *o = user;
	uint64_t ver;

	if (key != o->next || row_check(val, len, key, &ver))
		o->sorted = 0;
	o->next = key + 1;
	o->n++;
	return 0;
}

static void ascending_inserts(void)
{
	struct ut_err err = { "" };
	struct ut_engine *eng;
	struct order o = { 0, 0, 1 };
	struct ut_txn t;
	uint64_t k;
	int ok = 1;

	eng = loaded_engine("asc", 64 << 20, UT_COMMIT_SYNC, 300);
	if (!eng) {
		ktap_ok(0,
			"500 ascending inserts and 100 updates in one commit");
		return;
	}
	ut_txn_begin(eng, &t);
	for (k = 300; k < 800; k++)
		ok &= !put_version(&t, k, 2);
	for (k = 0; k < 300; k += 3)
		ok &= !put_version(&t, k, 2);
	ok &= !ut_txn_commit(&t, &err);
	ok &= !ut_scan(eng, 0, order_row, &o) && o.sorted && o.n == 800;
	ok &= !ut_engine_close(eng, &err);
	eng = open_engine(64 << 20, UT_COMMIT_SYNC);
	for (k = 0; eng && k < 800; k++)
		ok &= version_of(eng, k) == (k >= 300 || k % 3 == 0 ? 2u : 1u);
	if (eng)
		ut_engine_close(eng, &err);
	ktap_ok(ok,
		"500 ascending inserts and 100 updates in one commit: %llu rows in key order after a restart",
		(unsigned long long)o.n);
}

/* Deletes that free a full leaf and a large row in the same commit: the
 * room the deletes free is only there once the commit applies them. */
static void deletes_and_a_large_row(void)
{
	static unsigned char big[2000];
	struct ut_err err = { "" };
	struct ut_engine *eng;
	struct ut_txn t;
	uint64_t k, ver;
	uint32_t len;
	int ok = 1;

	eng = loaded_engine("room", 64 << 20, UT_COMMIT_SYNC, 1000);
	if (!eng) {
		ktap_ok(0, "deletes and a large row in one commit");
		return;
	}
	/* the first leaf's rows but one deleted, key 0 made 20 times larger */
	ut_txn_begin(eng, &t);
	for (k = 1; k < 150; k++)
		ok &= !ut_txn_delete(&t, k, &err);
	row_value(big, sizeof(big), 0, 9, 0);
	ok &= !ut_txn_put(&t, 0, big, sizeof(big), &err);
	ok &= !ut_txn_commit(&t, &err);
	if (!ok)
		ktap_diag("commit: %s", err.msg);
	/* all of a range deleted, two new large rows among them */
	ut_txn_begin(eng, &t);
	for (k = 300; k < 500; k++)
		ok &= !ut_txn_delete(&t, k, &err);
	row_value(big, sizeof(big), 401, 9, 0);
	ok &= !ut_txn_put(&t, 401, big, sizeof(big), &err);
	row_value(big, sizeof(big), 5000, 9, 0);
	ok &= !ut_txn_put(&t, 5000, big, sizeof(big), &err);
	ok &= !ut_txn_commit(&t, &err);
	if (!ok)
		ktap_diag("commit: %s", err.msg);
	ok &= !ut_get(eng, 0, big, sizeof(big), &len) && len == sizeof(big) &&
	      !row_check(big, len, 0, &ver) && ver == 9;
	ok &= version_of(eng, 1) == 0 && version_of(eng, 149) == 0 &&
	      version_of(eng, 150) == 1;
	ok &= version_of(eng, 300) == 0 && version_of(eng, 499) == 0 &&
	      version_of(eng, 500) == 1;
	ok &= !ut_get(eng, 401, big, sizeof(big), &len) &&
	      !row_check(big, len, 401, &ver) && ver == 9;
	ok &= !ut_get(eng, 5000, big, sizeof(big), &len) &&
	      !row_check(big, len, 5000, &ver);
	ut_engine_close(eng, &err);
	ktap_ok(ok,
		"deletes and large rows in one commit: the rows the deletes free count only once applied");
}

/* ---- transfers: the sum never changes -------------------------------- */

#define ACCOUNTS 64 /* per writer */
#define WRITERS 3
#define START 1000

struct bank {
	struct ut_engine *eng;
	atomic_int writers_left;
	atomic_int bad;
	atomic_ulong scans;
};

struct teller {
	struct bank *bank;
	unsigned id;
	unsigned transfers;
};

static int get_amount(struct ut_txn *t, uint64_t key, int64_t *v)
{
	uint32_t len;

	return ut_txn_get(t, key, v, sizeof(*v), &len) || len != sizeof(*v) ?
		       -1 :
		       0;
}

static void *teller_main(void *arg)
{
	struct teller *tl = arg;
	struct ut_err err = { "" };
	uint64_t rng = tl->id + 1, a, b, base = (uint64_t)tl->id * ACCOUNTS;
	int64_t va, vb, x;
	struct ut_txn t;
	unsigned i;

	for (i = 0; i < tl->transfers; i++) {
		a = base + row_rng(&rng) % ACCOUNTS;
		b = base + row_rng(&rng) % ACCOUNTS;
		x = (int64_t)(row_rng(&rng) % 50);
		ut_txn_begin(tl->bank->eng, &t);
		if (get_amount(&t, a, &va) || get_amount(&t, b, &vb)) {
			ut_txn_rollback(&t);
			atomic_fetch_add(&tl->bank->bad, 1);
			break;
		}
		va -= x;
		vb = (a == b ? va : vb) + x;
		if (ut_txn_put(&t, a, &va, sizeof(va), &err) ||
		    ut_txn_put(&t, b, &vb, sizeof(vb), &err) ||
		    ut_txn_commit(&t, &err)) {
			ut_txn_rollback(&t);
			atomic_fetch_add(&tl->bank->bad, 1);
			break;
		}
	}
	atomic_fetch_sub(&tl->bank->writers_left, 1);
	return NULL;
}

static int sum_row(uint64_t key, const void *val, uint32_t len, void *user)
{
	int64_t v;

	(void)key;
	if (len != sizeof(v))
		return 1;
	memcpy(&v, val, sizeof(v));
	*(int64_t *)user += v;
	return 0;
}

static void *auditor_main(void *arg)
{
	struct bank *bk = arg;
	int64_t sum;

	do {
		sum = 0;
		if (ut_scan(bk->eng, 0, sum_row, &sum) ||
		    sum != (int64_t)START * ACCOUNTS * WRITERS)
			atomic_fetch_add(&bk->bad, 1);
		atomic_fetch_add(&bk->scans, 1);
	} while (atomic_load(&bk->writers_left) > 0);
	return NULL;
}

static void transfers(void)
{
	struct bank bk = { 0 };
	struct teller tl[WRITERS];
	pthread_t th[WRITERS + 1];
	struct ut_err err = { "" };
	int64_t v = START;
	unsigned i;
	int ok = 1;

	if (make_store("bank", 8 << 20) ||
	    !(bk.eng = open_engine(8 << 20, UT_COMMIT_LAZY))) {
		ktap_ok(0,
			"scanners summing every account while tellers move amounts between them");
		return;
	}
	for (i = 0; i < ACCOUNTS * WRITERS; i++)
		ok &= !ut_put(bk.eng, i, &v, sizeof(v), &err);
	atomic_init(&bk.writers_left, WRITERS);
	for (i = 0; i < WRITERS; i++) {
		tl[i] = (struct teller){ &bk, i, 3000 };
		pthread_create(&th[i], NULL, teller_main, &tl[i]);
	}
	pthread_create(&th[WRITERS], NULL, auditor_main, &bk);
	for (i = 0; i <= WRITERS; i++)
		pthread_join(th[i], NULL);
	ok &= !atomic_load(&bk.bad);
	ut_engine_close(bk.eng, &err);
	ktap_ok(ok,
		"scanners summing every account while %u tellers move amounts between them: %lu sums, %d wrong",
		WRITERS, (unsigned long)atomic_load(&bk.scans),
		atomic_load(&bk.bad));
}

/* ---- kill -9 in the middle of transactions --------------------------- */

#define GROUP 16 /* writes a transaction */
#define GROUPS 64

/* The child: transactions, forever, each writing one group's 16 keys
 * at the same new version, from two threads on their own groups. */
static void *crash_writer(void *arg)
{
	struct ut_engine *eng = arg;
	uint64_t rng = (uint64_t)(uintptr_t)&rng ^ (uint64_t)time(NULL), g,
		 ver = 2, k;
	struct ut_err err = { "" };
	static atomic_int id;
	int me = atomic_fetch_add(&id, 1);
	struct ut_txn t;

	for (;;) {
		g = 2 * (row_rng(&rng) % (GROUPS / 2)) + me;
		ut_txn_begin(eng, &t);
		for (k = 0; k < GROUP; k++)
			if (put_version(&t, g * GROUP + k, ver))
				_exit(3);
		if (ut_txn_commit(&t, &err))
			_exit(4);
		ver++;
	}
	return NULL;
}

static void crash_child(void)
{
	struct ut_engine *eng = open_engine(2 << 20, UT_COMMIT_LAZY);
	pthread_t th;

	if (!eng)
		_exit(2);
	pthread_create(&th, NULL, crash_writer, eng);
	crash_writer(eng);
}

/* Each group's keys all at one version: 0, or the first key of a group
 * that is not. */
static int halves(struct ut_engine *eng, unsigned *checked)
{
	uint64_t g, k, v0;

	for (g = 0; g < GROUPS; g++) {
		v0 = version_of(eng, g * GROUP);
		for (k = 1; k < GROUP; k++)
			if (version_of(eng, g * GROUP + k) != v0) {
				ktap_diag("group %llu: key %llu at version %llu, key %llu at %llu",
					  (unsigned long long)g,
					  (unsigned long long)(g * GROUP),
					  (unsigned long long)v0,
					  (unsigned long long)(g * GROUP + k),
					  (unsigned long long)
						  version_of(eng,
							     g * GROUP + k));
				return 1;
			}
		++*checked;
	}
	return 0;
}

static void kill9(void)
{
	struct ut_err err = { "" };
	struct ut_engine *eng;
	struct ut_txn t;
	unsigned trial, bad = 0, checked = 0, moved = 0;
	struct timespec ts;
	uint64_t g, k;
	int status;
	pid_t pid;

	if (make_store("kill9", 8 << 20) ||
	    !(eng = open_engine(2 << 20, UT_COMMIT_SYNC))) {
		ktap_ok(0,
			"kill -9 in the middle of transactions of 16 writes");
		return;
	}
	for (g = 0; g < GROUPS; g++) {
		ut_txn_begin(eng, &t);
		for (k = 0; k < GROUP; k++)
			put_version(&t, g * GROUP + k, 1);
		bad += !!ut_txn_commit(&t, &err);
	}
	ut_engine_close(eng, &err);
	srand(getpid());
	for (trial = 0; trial < 12 && !bad; trial++) {
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			crash_child();
		/* a random moment in its first 50-450 ms */
		ts.tv_sec = 0;
		ts.tv_nsec = (50 + rand() % 400) * 1000000L;
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		eng = open_engine(2 << 20, UT_COMMIT_SYNC); /* recovery */
		if (!eng) {
			bad++;
			break;
		}
		bad += halves(eng, &checked);
		for (g = 0; g < GROUPS; g++)
			moved += version_of(eng, g * GROUP) > 1;
		ut_engine_close(eng, &err);
	}
	ktap_ok(!bad && moved,
		"kill -9 at random points of transactions of %u writes, 12 times: %u groups checked whole (%u since written again), %u half",
		GROUP, checked, moved, bad);
}

int main(void)
{
	test_scratch_dir("txn");
	ktap_plan(9);
	rollback_and_own_writes();
	larger_than_a_group();
	large_commit_fails();
	last_commit_wins();
	commit_files_checked();
	ascending_inserts();
	deletes_and_a_large_row();
	transfers();
	kill9();
	return ktap_finish();
}
