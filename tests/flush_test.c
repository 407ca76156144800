// SPDX-License-Identifier: MIT
/*
 * flush_test.c - a page being flushed stays writable: once a page cleaner
 * has copied a page into its batch, writers change the page while the
 * batch is written (the data file's write is held back by a hook in the
 * syscall table), and the page stays dirty with the newer change, so it
 * is written again rather than dropped as clean; and every page written
 * is synced before the checkpoint that counts on it, once per checkpoint
 * for the guards that need no sync per batch.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <untorn/engine.h>
#include <untorn/store.h>
#include "scan_model.h"
#include "io/sysio.h"
#include "rowgen.h"
#include "ktap.h"
#include "testlib.h"

#define NKEYS 6000
#define VLEN 100
/* how long a writer may take while the flush is held: far more than a
 * put needs, far less than the hold (which lasts until it returns) */
#define WRITER_LIMIT_S 30

static char dir[300];

/* the hook: data-file writes wait while held */
static pthread_mutex_t hook_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hook_cond = PTHREAD_COND_INITIALIZER;
static dev_t data_dev; /* the store's data file, under hook_mutex */
static ino_t data_ino;
static int hold, held, writers_done;

/*
 * What the hook does, under hook_mutex: the hook is installed once,
 * before any engine thread exists, and each test switches its mode (a
 * table entry written while the log writer reads it would be a race).
 */
enum hook_mode { HOOK_PASS, HOOK_HOLD, HOOK_RECORD };
static enum hook_mode hook_mode;

static void set_hook(enum hook_mode mode)
{
	pthread_mutex_lock(&hook_mutex);
	hook_mode = mode;
	pthread_mutex_unlock(&hook_mutex);
}

/* under hook_mutex */
static int is_data_file(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_dev == data_dev &&
	       st.st_ino == data_ino;
}

/* HOOK_HOLD: data-file writes wait while held (hook_mutex held) */
static void hold_data_write(enum ut_op op)
{
	if (op != UT_OP_WRITE)
		return;
	while (hold) {
		held = 1;
		pthread_cond_broadcast(&hook_cond);
		pthread_cond_wait(&hook_cond, &hook_mutex);
	}
}

static void record_data_io(enum ut_op op, off_t off);

static ssize_t test_hook(enum ut_op op, int fd, size_t len, off_t off)
{
	pthread_mutex_lock(&hook_mutex);
	if (hook_mode != HOOK_PASS && is_data_file(fd)) {
		if (hook_mode == HOOK_HOLD)
			hold_data_write(op);
		else
			record_data_io(op, off);
	}
	pthread_mutex_unlock(&hook_mutex);
	return len;
}

/* Waits for flag under hook_mutex, at most secs; returns whether set. */
static int wait_flag(int *flag, int secs)
{
	struct timespec until;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += secs;
	pthread_mutex_lock(&hook_mutex);
	while (!*flag && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&hook_cond, &hook_mutex, &until);
	ret = *flag;
	pthread_mutex_unlock(&hook_mutex);
	return ret;
}

static void set_flag(int *flag, int value)
{
	pthread_mutex_lock(&hook_mutex);
	*flag = value;
	pthread_cond_broadcast(&hook_cond);
	pthread_mutex_unlock(&hook_mutex);
}

static int put_all(struct ut_engine *eng, uint64_t ver)
{
	unsigned char val[VLEN];
	struct ut_err err = { "" };
	uint64_t k;

	for (k = 0; k < NKEYS; k++) {
		row_value(val, VLEN, k, ver, 0);
		if (ut_put(eng, k, val, VLEN, &err)) {
			ktap_diag("put %llu: %s", (unsigned long long)k,
				  err.msg);
			return 0;
		}
	}
	return 1;
}

static int all_at(struct ut_engine *eng, uint64_t want)
{
	unsigned char val[VLEN];
	uint64_t k, ver;
	uint32_t len;

	for (k = 0; k < NKEYS; k++)
		if (ut_get(eng, k, val, sizeof(val), &len) ||
		    row_check(val, len, k, &ver) || ver != want) {
			ktap_diag("key %llu: not at version %llu",
				  (unsigned long long)k,
				  (unsigned long long)want);
			return 0;
		}
	return 1;
}

struct job {
	struct ut_engine *eng;
	int ret;
};

static void *flusher_main(void *arg)
{
	struct job *j = arg;
	double resident;

	j->ret = ut_engine_drop_caches(j->eng, &resident);
	return NULL;
}

static void *writer_main(void *arg)
{
	struct job *j = arg;

	j->ret = !put_all(j->eng, 2);
	set_flag(&writers_done, 1);
	return NULL;
}

static struct ut_engine *open_store(enum ut_guard guard, const char *name,
				    unsigned cleaners, struct ut_err *err)
{
	struct ut_init_opts io = { .page_size = 4096,
				   .guard = guard,
				   .log_size = 8 << 20,
				   .unsafe = guard != UT_GUARD_DOUBLEWRITE };
	struct ut_engine_opts o;
	struct ut_engine *eng;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/%s", test_scratch, name);
	if (ut_store_init(dir, &io, err))
		return NULL;
	ut_engine_opts_default(&o);
	o.pool_bytes = 4 << 20;
	o.commit = UT_COMMIT_LAZY;
	o.cleaners = cleaners;
	if (ut_engine_open(dir, &o, &eng, NULL, err))
		return NULL;
	if (stat(ut_engine_data_path(eng), &st)) {
		ut_engine_close(eng, err);
		return NULL;
	}
	pthread_mutex_lock(&hook_mutex);
	data_dev = st.st_dev;
	data_ino = st.st_ino;
	pthread_mutex_unlock(&hook_mutex);
	return eng;
}

/*
 * Version 1 everywhere; a flush of all of it held at its first data
 * write; version 2 written meanwhile, which must finish; the hold let
 * go; then every page evicted and read back from the disk at version 2.
 */
static int writable_while_flushed(enum ut_guard guard, const char *name)
{
	struct job fj, wj = { 0 };
	struct ut_err err = { "" };
	double resident;
	pthread_t ft, wt;
	int ok = 0, writer_free = 0;

	fj.eng = open_store(guard, name, 2, &err);
	if (!fj.eng) {
		ktap_diag("%s: %s", name, err.msg);
		return 0;
	}
	wj.eng = fj.eng;
	if (!put_all(fj.eng, 1))
		goto close_engine;
	pthread_mutex_lock(&hook_mutex);
	held = writers_done = 0;
	hold = 1;
	hook_mode = HOOK_HOLD;
	pthread_mutex_unlock(&hook_mutex);
	pthread_create(&ft, NULL, flusher_main, &fj);
	if (!wait_flag(&held, WRITER_LIMIT_S)) {
		ktap_diag("%s: no data-file write reached the hook", name);
		goto release;
	}
	pthread_create(&wt, NULL, writer_main, &wj);
	writer_free = wait_flag(&writers_done, WRITER_LIMIT_S);
	if (!writer_free)
		ktap_diag("%s: writers still blocked after %d s of a held flush",
			  name, WRITER_LIMIT_S);
release:
	set_flag(&hold, 0);
	pthread_join(ft, NULL);
	if (held)
		pthread_join(wt, NULL);
	set_hook(HOOK_PASS);
	if (fj.ret || wj.ret) {
		ktap_diag("%s: flush %d, writers %d", name, fj.ret, wj.ret);
		goto close_engine;
	}
	/* what the held flush copied was version 1; drop_caches flushes
	 * until nothing is dirty and evicts what is clean, so these reads
	 * come from the disk and find version 2 only if the changed pages
	 * were kept dirty */
	ok = writer_free && !ut_engine_drop_caches(fj.eng, &resident) &&
	     all_at(fj.eng, 2);
close_engine:
	if (ut_engine_close(fj.eng, &err)) {
		ktap_diag("%s: close: %s", name, err.msg);
		ok = 0;
	}
	return ok;
}

/* the order of the data file's writes and syncs, from the hook */
#define EVENTS_MAX 4096
static char events[EVENTS_MAX]; /* 'W' page, 'S' sync, 'C' checkpoint slot */
static unsigned n_events;

/* HOOK_RECORD (hook_mutex held) */
static void record_data_io(enum ut_op op, off_t off)
{
	if (op != UT_OP_WRITE && op != UT_OP_FDATASYNC)
		return;
	if (n_events < EVENTS_MAX)
		events[n_events++] = op == UT_OP_FDATASYNC ? 'S' :
				     off < 4096		   ? 'C' :
							     'W';
}

/*
 * No cleaner threads, so the one writer of pages is the clean close:
 * every batch, then the checkpoint.  Every page written must be synced
 * before the checkpoint slot that says it is there; guards that sync per
 * batch (doublewrite) show a sync per batch, the others one sync in all.
 */
static int synced_before_checkpoint(enum ut_guard guard, const char *name,
				    int per_batch)
{
	struct ut_err err = { "" };
	unsigned i, pages = 0, syncs = 0, slots = 0, pending = 0, bad = 0;
	struct ut_engine_opts d; /* the batch open_store's engine has */
	struct ut_engine *eng;

	ut_engine_opts_default(&d);
	eng = open_store(guard, name, 0, &err);
	if (!eng) {
		ktap_diag("%s: %s", name, err.msg);
		return 0;
	}
	pthread_mutex_lock(&hook_mutex);
	n_events = 0;
	hook_mode = HOOK_RECORD;
	pthread_mutex_unlock(&hook_mutex);
	if (!put_all(eng, 1) || !put_all(eng, 2)) {
		set_hook(HOOK_PASS);
		ut_engine_close(eng, &err);
		return 0;
	}
	if (ut_engine_close(eng, &err)) {
		set_hook(HOOK_PASS);
		ktap_diag("%s: close: %s", name, err.msg);
		return 0;
	}
	set_hook(HOOK_PASS);
	for (i = 0; i < n_events; i++) {
		if (events[i] == 'W') {
			pages++;
			pending = 1;
		} else if (events[i] == 'S') {
			syncs++;
			pending = 0;
		} else {
			slots++;
			bad += pending;
		}
	}
	ktap_diag("%s: %u page writes, %u data syncs, %u checkpoint slots, %u unsynced",
		  name, pages, syncs, slots, bad);
	if (!pages || !slots || bad || n_events == EVENTS_MAX)
		return 0;
	/* a checkpoint's slot is followed by its own sync */
	return per_batch ? syncs >= (pages + d.batch - 1) / d.batch + slots :
			   syncs == 2 * slots;
}

int main(void)
{
	test_scratch_dir("flush");
	/* before any engine thread: the one write of the table */
	ut_sys.io_admit = test_hook;
	ktap_plan(5);
	ktap_ok(writable_while_flushed(UT_GUARD_DOUBLEWRITE, "dw"),
		"doublewrite: writers change pages while their flush is held, and the changes reach the disk");
	ktap_ok(writable_while_flushed(UT_GUARD_NONE, "none"),
		"none: writers change pages while their flush is held, and the changes reach the disk");
	ktap_ok(synced_before_checkpoint(UT_GUARD_DOUBLEWRITE, "dw-sync", 1),
		"doublewrite: the data file is synced after every batch and before the checkpoint");
	ktap_ok(synced_before_checkpoint(UT_GUARD_NONE, "none-sync", 0),
		"none: the data file is synced once, before the checkpoint, not per batch");
	ktap_ok(synced_before_checkpoint(UT_GUARD_JOURNAL, "journal-sync", 0),
		"journal: the data file is synced once, before the checkpoint, not per batch");
	ut_sys_reset();
	return ktap_finish();
}
