// SPDX-License-Identifier: MIT
/*
 * cmd_bench.c - `untorn bench write DIR`: T threads commit a sysbench-like
 * mix of updates of existing rows and inserts of new ones on random keys,
 * one or several row writes a transaction, for S seconds; prints TPS, commit latency percentiles, pages and bytes
 * written, fsyncs and doublewrite slot waits, as a table or JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <untorn/engine.h>
#include "base/err.h"
#include "base/latch.h"
#include "buf/log_space.h"
#include "ack_dev.h"
#include "cli.h"
#include "fscaps.h"
#include "other_io.h"
#include "rowgen.h"
#include "store_cache.h"

/* --txn-writes and --large-txn: bounded by memory, as transactions are */
#define UT_BENCH_TXN_WRITES_MAX (1u << 24)
/* --large-txn's keys: far above every key the workers write */
#define LARGE_KEY_BASE (1ull << 40)
#define LARGE_KEPT 4096 /* commit times kept for the median */

/* untorn bench --help: every benchmark, each one's --help its options */
static const char bench_overview[] =
	"usage: untorn bench write DIR [OPTIONS]\n"
	"       untorn bench scan DIR [OPTIONS]\n"
	"\n"
	"  write  transactions of row writes from T threads for S seconds: TPS,\n"
	"         commit latency, pages and bytes written (what each guard costs)\n"
	"  scan   a full scan in key order with a read-ahead policy: MB/s,\n"
	"         reads, the tree's fragmentation (what read-ahead buys)\n"
	"\n"
	"'untorn bench write --help' and 'untorn bench scan --help' give each\n"
	"one's options.\n";

/* --regime NAME's whole set of options, before the options given (which
 * override it); the help prints them from here. */
static const struct bench_regime_set {
	const char *name;
	enum ut_commit_mode commit;
	unsigned int threads, update_pct, txn_writes, seconds, warmup;
	const char *why;
} bench_regimes[] = {
	{ "commit", UT_COMMIT_SYNC, 4, 75, 1, 10, 0,
	  "every commit waits for fdatasync: bound by the commit path" },
	/* the forecast pacing settles in 0-6 s of the warm-up */
	{ "flush", UT_COMMIT_LAZY, 8, 100, 4, 120, 20,
	  "innodb_flush_log_at_trx_commit=2, oltp_write_only's four\n"
	  "          row writes a transaction: bound by page writes once the\n"
	  "          store is many times the log; see bench-matrix" },
};
#define N_REGIMES (sizeof(bench_regimes) / sizeof(bench_regimes[0]))

static void bench_regimes_help(void)
{
	const struct bench_regime_set *r;

	for (r = bench_regimes; r < bench_regimes + N_REGIMES; r++)
		printf("  %-7s --commit %s --threads %u --update-pct %u --txn-writes %u\n"
		       "          --seconds %u --warmup %u\n          (%s)\n",
		       r->name, r->commit == UT_COMMIT_SYNC ? "sync" : "lazy",
		       r->threads, r->update_pct, r->txn_writes, r->seconds,
		       r->warmup, r->why);
}

/* log_space.h's shares of the log, taken of this capacity and said as
 * fractions in lowest terms */
#define UT_FRAC_LOG (320ull << 12) /* a multiple of 10 and of 64 */
/* the forecast pacing's target: the stop less its least margin */
#define FORECAST_TARGET(c) (UT_FLUSH_STOP(c) - UT_PACE_MARGIN_MIN(c))

/* A share of UT_FRAC_LOG as "5/8" in buf. */
static void log_frac(char *buf, size_t cap, uint64_t of_log)
{
	uint64_t num = of_log, den = UT_FRAC_LOG, a = num, b = den, t;

	while (b) {
		t = a % b;
		a = b;
		b = t;
	}
	snprintf(buf, cap, "%llu/%llu", (unsigned long long)(num / a),
		 (unsigned long long)(den / a));
}

/* The help, with the engine's defaults it states from where they are set. */
static void bench_help(void)
{
	char stop[16], eager[16], lwm[16], target[16], age[16];
	struct ut_engine_opts d;

	log_frac(stop, sizeof(stop), UT_FLUSH_STOP(UT_FRAC_LOG));
	log_frac(eager, sizeof(eager), UT_LOG_EAGER_AGE(UT_FRAC_LOG));
	log_frac(lwm, sizeof(lwm), UT_FLUSH_LWM(UT_FRAC_LOG));
	log_frac(target, sizeof(target), FORECAST_TARGET(UT_FRAC_LOG));
	log_frac(age, sizeof(age), UT_PACE_AGE_TARGET(UT_FRAC_LOG));
	ut_engine_opts_default(&d);
	printf("usage: untorn bench write DIR [--regime commit|flush] [--threads T] [--seconds S]\n"
	       "                         [--warmup S] [--commit sync|lazy] [--update-pct P]\n"
	       "                         [--txn-writes N] [--large-txn N] [--value-size B]\n"
	       "                         [--pool SIZE] [--cleaners N] [--rows N]\n"
	       "                         [--flushing adaptive|eager]\n"
	       "                         [--pacing forecast|age|off] [--json] [--wait S]\n"
	       "\n"
	       "T threads run transactions for S seconds: each is N row writes, each an\n"
	       "update of a random existing key (P%%) or an insert of a new key, then\n"
	       "one commit (the defaults: --regime commit's, below): fdatasync of the\n"
	       "redo log (sync, the default) or flushed every 100 ms (lazy).  The writes\n"
	       "of a transaction are all or nothing: applied together at its commit\n"
	       "(with several, each row names its transaction's next, for verify).\n"
	       "Prints TPS (transactions a second), the latency of a\n"
	       "whole transaction p50/p95/p99, pages written, bytes the device wrote,\n"
	       "fsyncs, the guard's copy slot wait time, and latch waits per class.\n"
	       "--cleaners (default %u) page cleaner threads share the store's\n"
	       "doublewrite segments (2 by default): more cleaners than segments wait\n"
	       "for slots.  --rows N: keys 0..N-1 exist (as after `load --rows N`);\n"
	       "without it the store is scanned to find out.\n"
	       "--large-txn N: one more thread commits transactions of N writes back\n"
	       "to back beside the writers (keys of its own), as a bulk load would;\n"
	       "the table gives their count and commit times.\n"
	       "--ack-fd FD writes \"KEY VERSION\" of every acknowledged row write to FD;\n"
	       "--ack-dev PATH writes each as a record of its own, one logical block,\n"
	       "with O_DIRECT|O_DSYNC, to a block device (or file) for power-cut replays\n"
	       "(read back with the zero bytes removed; `untorn verify --acks`).\n"
	       "\n"
	       "--warmup S runs S seconds more first, not counted.  Every second's TPS\n"
	       "is kept: the table and --json give the median second, the worst second\n"
	       "over the median, the seconds below half and a quarter of the median, the\n"
	       "longest stretch below half, the time to settle (seconds from the\n"
	       "writers' start, warm-up included, to the first second after which none\n"
	       "falls below half the median; --json also gives the warm-up's seconds),\n"
	       "and the time row writes waited for log space (the log-free check at %s\n"
	       "of the log).\n"
	       "--flushing eager (the default: the cleaners flush flat out while the\n"
	       "checkpoint age is over %s of the log) or adaptive (they follow the\n"
	       "age and the redo rate from %s of the log on).  --pacing forecast (the\n"
	       "default; on says the same) gives writers a redo rate from %s of\n"
	       "the log on: what lets the cleaners, at their measured page rate, write\n"
	       "every page dirty now before the age reaches %s of the log.  age: the\n"
	       "rate the checkpoint freed over the last turn, pulled toward %s, from\n"
	       "%s of the log on (the default before; bursts for a minute after a cold\n"
	       "start).  off: writers run until the stop at %s and wait there (for\n"
	       "comparisons).\n"
	       "--regime names a whole set, which options given as well override:\n",
	       d.cleaners, stop, eager, lwm, eager, target, age, lwm, stop);
	bench_regimes_help();
	fputs("\n" CLI_WAIT_HELP, stdout);
}

struct bench {
	struct ut_engine *eng;
	uint64_t rows; /* keys 0..rows-1 exist */
	uint64_t seconds, warmup, threads, update_pct, value_size;
	uint64_t txn_writes; /* row writes a transaction */
	int ack_fd;
	struct ack_dev ack_dev;
	const char *ack_dev_path;
	atomic_int ack_dev_full; /* said once that it is full */
	int lazy;
	int adaptive; /* --flushing adaptive */
	const char *pacing_mode; /* forecast, age or off (--pacing) */
	int rows_given;
	unsigned cleaners;
	uint64_t pool_bytes; /* the buffer pool asked for (--pool) */
	struct store_cache cache; /* the store's files in the page cache */
	uint64_t version_base;
	atomic_int stop;
	atomic_int measuring; /* past the warm-up */
	atomic_uint_fast64_t done; /* commits counted */
	atomic_int failed;
	struct ut_err err;
	/* --large-txn N: one more thread commits N-write transactions back
	 * to back beside the workers */
	uint64_t large_txn;
	pthread_t large_thread;
	int large_started;
	unsigned large_commits; /* those that ended while measuring */
	double large_secs[LARGE_KEPT];
};

struct worker {
	struct bench *b;
	pthread_t thread;
	unsigned id;
	uint64_t rng;
	uint32_t *lat_us;
	size_t n_lat, cap_lat;
	uint64_t inserts;
};

static int lat_push(struct worker *w, uint64_t ns)
{
	uint32_t *grown;

	if (w->n_lat == w->cap_lat) {
		w->cap_lat = w->cap_lat ? w->cap_lat * 2 : 65536;
		grown = realloc(w->lat_us, w->cap_lat * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		w->lat_us = grown;
	}
	w->lat_us[w->n_lat++] = ns / 1000;
	return 0;
}

/* The next key this worker writes: its own slice of the key space. */
static uint64_t next_key(struct worker *w)
{
	struct bench *b = w->b;
	uint64_t slice = b->rows / b->threads;

	if (slice && row_rng(&w->rng) % 100 < b->update_pct)
		return (row_rng(&w->rng) % slice) * b->threads + w->id;
	return b->rows + (w->inserts++) * b->threads + w->id;
}

/* Records an acknowledgement on --ack-dev; nonzero stops the run. */
static int ack_dev_record(struct bench *b, uint64_t key, uint64_t version)
{
	int ret = ack_dev_put(&b->ack_dev, key, version);

	if (ret == -ENOSPC) {
		if (!atomic_exchange(&b->ack_dev_full, 1))
			fprintf(stderr,
				"untorn: bench: %s is full after %llu acknowledgements; the rest are not recorded\n",
				b->ack_dev_path,
				(unsigned long long)b->ack_dev.slots);
		return 0;
	}
	if (ret && !atomic_exchange(&b->failed, 1)) {
		snprintf(b->err.msg, sizeof(b->err.msg),
			 "cannot write an acknowledgement to %s: %s",
			 b->ack_dev_path, strerror(-ret));
		atomic_store(&b->stop, 1);
	}
	return ret;
}

/* Tells --ack-fd and --ack-dev of a committed transaction's writes. */
static int txn_ack(struct bench *b, const uint64_t *keys, uint64_t version,
		   unsigned n)
{
	char ack[64];
	unsigned i;
	int len;

	for (i = 0; i < n; i++) {
		uint64_t ver = version - n + 1 + i;

		if (b->ack_fd >= 0) {
			len = snprintf(ack, sizeof(ack),
				       "%" PRIu64 " %" PRIu64 "\n", keys[i],
				       ver);
			if (write(b->ack_fd, ack, len) != len)
				b->ack_fd = -1;
		}
		if (b->ack_dev.fd >= 0 && ack_dev_record(b, keys[i], ver))
			return -1;
	}
	return 0;
}

/* Whether write i of a transaction is the last to its key: the one
 * whose row stays. */
static int txn_stays(const uint64_t *keys, unsigned n, unsigned i)
{
	unsigned j;

	for (j = i + 1; j < n; j++)
		if (keys[j] == keys[i])
			return 0;
	return 1;
}

/* The write whose row write i's row links to: the next that stays, in a
 * ring over the rows that stay (i itself when there is one). */
static unsigned txn_next(const uint64_t *keys, unsigned n, unsigned i)
{
	unsigned j, k;

	for (j = 1; j < n; j++) {
		k = (i + j) % n;
		if (keys[k] != keys[i] && txn_stays(keys, n, k))
			return k;
	}
	return i;
}

/* One transaction: txn_writes row writes, then the commit; the writes
 * take versions version+1.. and their keys go to keys[].  With several
 * writes (and values of ROW_LINK_MIN bytes) each row is linked to the
 * next key's, so that verify can tell a transaction applied in half. */
static int txn_run(struct worker *w, uint64_t *keys, uint64_t *version,
		   struct ut_err *err)
{
	struct bench *b = w->b;
	unsigned char val[65536];
	int link = b->txn_writes > 1 && b->value_size >= ROW_LINK_MIN;
	struct ut_txn t;
	unsigned i, nx;
	int ret;

	for (i = 0; i < b->txn_writes; i++)
		keys[i] = next_key(w);
	ut_txn_begin(b->eng, &t);
	for (i = 0; i < b->txn_writes; i++) {
		row_value(val, b->value_size, keys[i], *version + 1 + i, w->id);
		if (link) {
			nx = txn_next(keys, b->txn_writes, i);
			row_link(val, b->value_size, keys[nx],
				 *version + 1 + nx);
		}
		ret = ut_txn_put(&t, keys[i], val, b->value_size, err);
		if (ret) {
			ut_txn_rollback(&t);
			return ret;
		}
	}
	*version += b->txn_writes;
	return ut_txn_commit(&t, err);
}

static void bench_fail(struct bench *b, const struct ut_err *err)
{
	if (!atomic_exchange(&b->failed, 1))
		b->err = *err;
	atomic_store(&b->stop, 1);
}

/* One large transaction: keys LARGE_KEY_BASE.. put at version. */
static int large_run(struct bench *b, uint64_t version, struct ut_err *err)
{
	unsigned char val[65536];
	struct ut_txn t;
	uint64_t i;
	int ret = 0;

	ut_txn_begin(b->eng, &t);
	for (i = 0; i < b->large_txn && !ret; i++) {
		row_value(val, b->value_size, LARGE_KEY_BASE + i, version,
			  b->threads);
		ret = ut_txn_put(&t, LARGE_KEY_BASE + i, val, b->value_size,
				 err);
	}
	if (ret) {
		ut_txn_rollback(&t);
		return ret;
	}
	return ut_txn_commit(&t, err);
}

static void *large_main(void *arg)
{
	struct bench *b = arg;
	struct ut_err err = { "" };
	uint64_t version = b->version_base, t0;

	while (!atomic_load(&b->stop)) {
		t0 = ut_now_ns();
		if (large_run(b, ++version, &err)) {
			bench_fail(b, &err);
			break;
		}
		if (atomic_load(&b->measuring) && b->large_commits < LARGE_KEPT)
			b->large_secs[b->large_commits++] =
				(ut_now_ns() - t0) / 1e9;
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct bench *b = w->b;
	struct ut_err err = { "" };
	uint64_t *keys = calloc(b->txn_writes, sizeof(*keys));
	uint64_t version = b->version_base, t0;
	int ret;

	if (!keys) {
		ut_err_set(&err, -ENOMEM,
			   "out of memory for a transaction's %llu keys",
			   (unsigned long long)b->txn_writes);
		bench_fail(b, &err);
		return NULL;
	}
	while (!atomic_load(&b->stop)) {
		t0 = ut_now_ns();
		ret = txn_run(w, keys, &version, &err);
		if (ret) {
			bench_fail(b, &err);
			break;
		}
		if (atomic_load_explicit(&b->measuring, memory_order_relaxed))
			lat_push(w, ut_now_ns() - t0);
		atomic_fetch_add_explicit(&b->done, 1, memory_order_relaxed);
		if (txn_ack(b, keys, version, b->txn_writes))
			break;
	}
	free(keys);
	return NULL;
}

static int count_fn(uint64_t key, const void *val, uint32_t len, void *user)
{
	uint64_t *rows = user;

	(void)val;
	(void)len;
	if (key >= *rows)
		*rows = key + 1;
	return 0;
}

/* Bytes the data file's device wrote, from /sys/dev/block; -1: none. */
static int64_t device_bytes_written(const char *path)
{
	char dir[DEV_STAT_DIR_LEN];
	unsigned maj, min;
	uint64_t rd, wr;

	if (dev_stat_dir(path, dir, &maj, &min) ||
	    dev_stat_sectors(dir, &rd, &wr))
		return -1;
	return (int64_t)wr * 512;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The checkpoint age sampled once a measured second. */
struct age_samples {
	uint64_t max, sum;
	unsigned n;
};

struct bench_result {
	double seconds, tps;
	uint64_t commits, p50, p95, p99;
	int64_t device_bytes;
	struct ut_engine_stats st;
	struct ut_latch_stats latch[UT_LATCH_NCLASSES];
	uint64_t *per_sec; /* commits in each whole second measured */
	unsigned n_sec;
	uint64_t *warm_sec; /* commits in each whole second of the warm-up */
	unsigned n_warm;
	uint64_t sec_median, sec_worst;
	unsigned below_half, zero_secs; /* seconds under median / 2, at 0 */
	unsigned below_quarter; /* measured seconds under median / 4 */
	unsigned longest_below_half; /* the longest run of such seconds */
	unsigned settle_secs; /* from the writers' start: see settle_time() */
	int settled;
	struct age_samples ages; /* the checkpoint age, once a second */
	/* where page writes wait, durable, to go home: the redo log, and
	 * the jbd2 journal where the filesystem journals the store's data */
	int pages_journalled;
	uint64_t jbd2_journal_bytes; /* 0: unknown (not root) or none */
};

/* The counters of a that grew since b (the warm-up's share removed). */
static void stats_since(struct ut_engine_stats *a,
			const struct ut_engine_stats *b)
{
	a->commits -= b->commits;
	a->pages_written -= b->pages_written;
	a->page_bytes_written -= b->page_bytes_written;
	a->redo_bytes_written -= b->redo_bytes_written;
	a->guard_copy_bytes -= b->guard_copy_bytes;
	a->fsyncs -= b->fsyncs;
	a->checkpoints -= b->checkpoints;
	a->guard_slot_waits -= b->guard_slot_waits;
	a->guard_slot_wait_ns -= b->guard_slot_wait_ns;
	a->guard_commits -= b->guard_commits;
	a->redo_commits -= b->redo_commits;
	a->pool_reads -= b->pool_reads;
	a->pool_hits -= b->pool_hits;
	a->pool_misses -= b->pool_misses;
	a->pool_free_waits -= b->pool_free_waits;
	a->log_space_waits -= b->log_space_waits;
	a->log_space_wait_ns -= b->log_space_wait_ns;
	a->log_pace_waits -= b->log_pace_waits;
	a->log_pace_ns -= b->log_pace_ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The time to settle: the seconds from the writers' start (warm-up
 * included) to the first second after which no second falls below half
 * of the measured median.  Not settled when the last second does.
 */
static void settle_time(struct bench_result *r)
{
	unsigned n = r->n_warm + r->n_sec, i;

	r->settle_secs = 0;
	for (i = 0; i < n; i++) {
		uint64_t c = i < r->n_warm ? r->warm_sec[i] :
					     r->per_sec[i - r->n_warm];

		if (c * 2 < r->sec_median)
			r->settle_secs = i + 1;
	}
	r->settled = !n || r->settle_secs < n;
}

/* The median, worst, and slow seconds of the per-second series. */
static void series_summary(struct bench_result *r)
{
	uint64_t *sorted;
	unsigned i, run = 0;

	r->settled = 1;
	if (!r->n_sec)
		return;
	sorted = malloc(r->n_sec * sizeof(*sorted));
	if (!sorted)
		return;
	memcpy(sorted, r->per_sec, r->n_sec * sizeof(*sorted));
	qsort(sorted, r->n_sec, sizeof(*sorted), cmp_u64);
	r->sec_median = sorted[r->n_sec / 2];
	r->sec_worst = sorted[0];
	for (i = 0; i < r->n_sec; i++) {
		int low = r->per_sec[i] * 2 < r->sec_median;

		r->below_half += low;
		r->below_quarter += r->per_sec[i] * 4 < r->sec_median;
		r->zero_secs += !r->per_sec[i];
		run = low ? run + 1 : 0;
		if (run > r->longest_below_half)
			r->longest_below_half = run;
	}
	free(sorted);
	settle_time(r);
}

static void percentiles(struct worker *w, unsigned n, struct bench_result *r)
{
	size_t total = 0, k = 0, i;
	uint32_t *all;
	unsigned t;

	for (t = 0; t < n; t++)
		total += w[t].n_lat;
	r->commits = total;
	all = malloc((total + 1) * sizeof(*all));
	if (!all || !total) {
		free(all);
		return;
	}
	for (t = 0; t < n; t++)
		for (i = 0; i < w[t].n_lat; i++)
			all[k++] = w[t].lat_us[i];
	qsort(all, total, sizeof(*all), cmp_u32);
	r->p50 = all[total * 50 / 100];
	r->p95 = all[total * 95 / 100];
	r->p99 = all[total * 99 / 100];
	free(all);
}

/* The log room: the redo log, and the jbd2 journal where it holds the
 * store's page writes; 0 where that journal's size is not known. */
static uint64_t log_room(const struct bench_result *r)
{
	if (!r->pages_journalled)
		return r->st.log_capacity;
	return r->jbd2_journal_bytes ?
		       r->st.log_capacity + r->jbd2_journal_bytes :
		       0;
}

/* What the run held: log room and memory (bench-matrix compares guards
 * at equal amounts of both). */
static void resources_json(const struct bench *b, const struct bench_result *r,
			   struct json *j)
{
	json_u64(j, "redo_log_bytes", r->st.log_capacity);
	json_bool(j, "pages_journalled", r->pages_journalled);
	json_u64(j, "jbd2_journal_bytes",
		 r->pages_journalled ? r->jbd2_journal_bytes : 0);
	/* 0: journalled, and the journal's size unknown (read as root) */
	json_u64(j, "log_room_bytes", log_room(r));
	json_u64(j, "pool_bytes", b->pool_bytes);
	json_u64(j, "page_cache_peak_bytes", b->cache.peak);
	json_u64(j, "memory_peak_bytes", b->pool_bytes + b->cache.peak);
}

static int secs_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* --large-txn's commits while measuring: their median and longest. */
static void large_summary(struct bench *b, double *median, double *longest)
{
	unsigned n = b->large_commits;

	*median = *longest = 0;
	if (!n)
		return;
	qsort(b->large_secs, n, sizeof(double), secs_cmp);
	*median = b->large_secs[n / 2];
	*longest = b->large_secs[n - 1];
}

/* --large-txn: the transactions committed beside the workers */
static void large_json(struct json *j, struct bench *b)
{
	double med, longest;

	large_summary(b, &med, &longest);
	json_obj_open(j, "large_txn");
	json_u64(j, "writes", b->large_txn);
	json_u64(j, "commits", b->large_commits);
	json_f64(j, "commit_seconds_median", med);
	json_f64(j, "commit_seconds_longest", longest);
	json_obj_close(j);
}

/* One latch class's counts under key in latch_waits. */
static void latch_json(struct json *j, const char *key,
		       const struct ut_latch_stats *l)
{
	json_obj_open(j, key);
	json_u64(j, "acquisitions", l->acquisitions);
	json_u64(j, "waits", l->waits);
	json_u64(j, "wait_ns", l->wait_ns);
	json_obj_close(j);
}

static void print_json(struct bench *b, const struct bench_result *r,
		       const char *dir)
{
	const char *writer = ut_engine_page_writer(b->eng);
	struct json j;
	int i;

	json_begin(&j, stdout);
	json_str(&j, "store", dir);
	json_str(&j, "guard", ut_engine_guard(b->eng));
	json_str(&j, "page_writer", writer ? writer : "io_uring");
	json_bool(&j, "untorn_jw", writer && !strcmp(writer, "untorn_jw"));
	json_u64(&j, "page_size", ut_engine_page_size(b->eng));
	json_u64(&j, "block_size", ut_engine_block_size(b->eng));
	json_str(&j, "commit", b->lazy ? "lazy" : "sync");
	json_u64(&j, "threads", b->threads);
	json_u64(&j, "txn_writes", b->txn_writes);
	if (b->large_txn)
		large_json(&j, b);
	json_u64(&j, "cleaners", b->cleaners);
	json_str(&j, "flushing", b->adaptive ? "adaptive" : "eager");
	json_bool(&j, "pacing", strcmp(b->pacing_mode, "off") != 0);
	json_str(&j, "pacing_mode", b->pacing_mode);
	json_u64(&j, "warmup_seconds", b->warmup);
	json_f64(&j, "seconds", r->seconds);
	json_u64(&j, "commits", r->commits);
	json_f64(&j, "tps", r->tps);
	json_f64(&j, "row_writes_per_second", r->tps * b->txn_writes);
	json_arr_open(&j, "tps_series");
	for (i = 0; i < (int)r->n_sec; i++)
		json_u64(&j, NULL, r->per_sec[i]);
	json_arr_close(&j);
	json_u64(&j, "tps_median_second", r->sec_median);
	json_u64(&j, "tps_worst_second", r->sec_worst);
	json_f64(&j, "worst_over_median",
		 r->sec_median ? (double)r->sec_worst / r->sec_median : 0);
	json_u64(&j, "seconds_below_half_median", r->below_half);
	json_u64(&j, "seconds_below_quarter_median", r->below_quarter);
	json_u64(&j, "longest_below_half_seconds", r->longest_below_half);
	json_u64(&j, "seconds_at_zero", r->zero_secs);
	json_arr_open(&j, "warmup_tps_series");
	for (i = 0; i < (int)r->n_warm; i++)
		json_u64(&j, NULL, r->warm_sec[i]);
	json_arr_close(&j);
	json_u64(&j, "settle_seconds", r->settle_secs);
	json_bool(&j, "settled", r->settled);
	json_u64(&j, "log_space_waits", r->st.log_space_waits);
	json_u64(&j, "log_space_wait_ns", r->st.log_space_wait_ns);
	json_u64(&j, "log_pace_waits", r->st.log_pace_waits);
	json_u64(&j, "log_pace_ns", r->st.log_pace_ns);
	json_u64(&j, "checkpoint_age_max", r->ages.max);
	json_u64(&j, "checkpoint_age_mean",
		 r->ages.n ? r->ages.sum / r->ages.n : 0);
	json_u64(&j, "log_capacity", r->st.log_capacity);
	resources_json(b, r, &j);
	json_u64(&j, "commit_p50_us", r->p50);
	json_u64(&j, "commit_p95_us", r->p95);
	json_u64(&j, "commit_p99_us", r->p99);
	json_u64(&j, "pages_written", r->st.pages_written);
	json_u64(&j, "page_bytes_written", r->st.page_bytes_written);
	/* the guard's generic statistics by their role (copy_*,
	 * page_journal_commits); the dblwr_* and journal_commits keys
	 * beside them are their old names, kept for one release */
	json_u64(&j, "copy_bytes_written", r->st.guard_copy_bytes);
	json_u64(&j, "dblwr_bytes_written", r->st.guard_copy_bytes);
	json_u64(&j, "redo_bytes_written", r->st.redo_bytes_written);
	if (r->device_bytes >= 0)
		json_u64(&j, "device_bytes_written", r->device_bytes);
	else
		json_str(&j, "device_bytes_written", "unknown");
	json_u64(&j, "fsyncs", r->st.fsyncs);
	json_u64(&j, "page_journal_commits", r->st.guard_commits);
	json_u64(&j, "journal_commits", r->st.guard_commits);
	json_u64(&j, "redo_journal_commits", r->st.redo_commits);
	json_u64(&j, "checkpoints", r->st.checkpoints);
	json_u64(&j, "copy_slot_waits", r->st.guard_slot_waits);
	json_u64(&j, "copy_slot_wait_ns", r->st.guard_slot_wait_ns);
	json_u64(&j, "dblwr_waits", r->st.guard_slot_waits);
	json_u64(&j, "dblwr_wait_ns", r->st.guard_slot_wait_ns);
	json_obj_open(&j, "latch_waits");
	for (i = 0; i < UT_LATCH_NCLASSES; i++)
		latch_json(&j, ut_latch_class_name(i), &r->latch[i]);
	/* the copy_slot class's old name, kept for one release */
	latch_json(&j, "dblwr", &r->latch[UT_LATCH_COPY_SLOT]);
	json_obj_close(&j);
	json_end(&j);
}

static void print_table(struct bench *b, const struct bench_result *r)
{
	const char *writer = ut_engine_page_writer(b->eng);
	int i;

	printf("guard %s%s%s%s, page %u, %llu threads, %.1f s (+%llu s warm-up)\n",
	       ut_engine_guard(b->eng), writer ? " (pages through " : "",
	       writer ? writer : "", writer ? ")" : "",
	       ut_engine_page_size(b->eng), (unsigned long long)b->threads,
	       r->seconds, (unsigned long long)b->warmup);
	printf("  %-22s %12.0f (%llu row write%s each)\n", "tps", r->tps,
	       (unsigned long long)b->txn_writes, b->txn_writes > 1 ? "s" : "");
	if (b->large_txn) {
		double med, longest;

		large_summary(b, &med, &longest);
		printf("  %-22s %12u of %llu writes, commit median %.2f s, longest %.2f s\n",
		       "large transactions", b->large_commits,
		       (unsigned long long)b->large_txn, med, longest);
	}
	if (r->n_sec)
		printf("  %-22s %12llu / %llu (%.2f), %u below half, %u at zero\n",
		       "second median / worst",
		       (unsigned long long)r->sec_median,
		       (unsigned long long)r->sec_worst,
		       r->sec_median ? (double)r->sec_worst / r->sec_median : 0,
		       r->below_half, r->zero_secs);
	if (r->n_sec) {
		printf("  %-22s %12u\n", "seconds below 1/4", r->below_quarter);
		printf("  %-22s %12u s%s (longest stretch below half: %u s)\n",
		       "settled after", r->settle_secs,
		       r->settled ?
			       "" :
			       " (not settled: the last second is below half)",
		       r->longest_below_half);
	}
	printf("  %-22s %12llu / %llu / %llu\n", "commit p50/p95/p99 us",
	       (unsigned long long)r->p50, (unsigned long long)r->p95,
	       (unsigned long long)r->p99);
	if (log_room(r))
		printf("  %-22s %12.0f MiB (redo %.0f%s)\n", "log room",
		       log_room(r) / 1048576.0, r->st.log_capacity / 1048576.0,
		       r->pages_journalled ? " + the jbd2 journal" : "");
	else
		printf("  %-22s %12s (redo %.0f MiB + a jbd2 journal whose size only root can read)\n",
		       "log room", "?", r->st.log_capacity / 1048576.0);
	printf("  %-22s %12.0f MiB (pool %.0f + the store's page cache at its peak %.0f)\n",
	       "memory peak", (b->pool_bytes + b->cache.peak) / 1048576.0,
	       b->pool_bytes / 1048576.0, b->cache.peak / 1048576.0);
	printf("  %-22s %12llu\n", "pages written",
	       (unsigned long long)r->st.pages_written);
	printf("  %-22s %12lld\n", "device bytes written",
	       (long long)r->device_bytes);
	printf("  %-22s %12llu\n", "redo bytes written",
	       (unsigned long long)r->st.redo_bytes_written);
	printf("  %-22s %12llu\n", "fsyncs", (unsigned long long)r->st.fsyncs);
	if (r->st.guard_commits)
		printf("  %-22s %12llu (in place of the data file's syncs)\n",
		       "journal commits",
		       (unsigned long long)r->st.guard_commits);
	if (r->st.redo_commits)
		printf("  %-22s %12llu (in place of the redo log's syncs)\n",
		       "redo journal commits",
		       (unsigned long long)r->st.redo_commits);
	printf("  %-22s %12.3f ms (%llu waits)\n", "log space wait",
	       r->st.log_space_wait_ns / 1e6,
	       (unsigned long long)r->st.log_space_waits);
	printf("  %-22s %12.3f ms (%llu row writes)\n", "log pacing",
	       r->st.log_pace_ns / 1e6,
	       (unsigned long long)r->st.log_pace_waits);
	printf("  %-22s %12.1f %% of the log (%s flushing), mean %.1f %%\n",
	       "checkpoint age peak",
	       r->st.log_capacity ? 100.0 * r->ages.max / r->st.log_capacity :
				    0,
	       b->adaptive ? "adaptive" : "eager",
	       r->st.log_capacity && r->ages.n ?
		       100.0 * r->ages.sum / r->ages.n / r->st.log_capacity :
		       0);
	printf("  %-22s %12.3f ms (%llu waits)\n", "guard slot wait",
	       r->st.guard_slot_wait_ns / 1e6,
	       (unsigned long long)r->st.guard_slot_waits);
	printf("  latch waits (class: waits, ms):");
	for (i = 0; i < UT_LATCH_NCLASSES; i++)
		if (r->latch[i].waits)
			printf(" %s %llu %.1f;", ut_latch_class_name(i),
			       (unsigned long long)r->latch[i].waits,
			       r->latch[i].wait_ns / 1e6);
	printf("\n");
}

/* the last --regime given counts; commit when none is */
static int bench_regime(int argc, char **argv, struct bench *b,
			struct ut_engine_opts *eo)
{
	const struct bench_regime_set *r = &bench_regimes[0];
	const char *name = r->name;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--regime") && i + 1 < argc)
			name = argv[++i];
		else if (!strncmp(argv[i], "--regime=", 9))
			name = argv[i] + 9;
	}
	for (r = bench_regimes; r < bench_regimes + N_REGIMES; r++)
		if (!strcmp(name, r->name))
			break;
	if (r == bench_regimes + N_REGIMES)
		return cli_usage_fail("bench",
				      "--regime is commit or flush, not '%s'",
				      name);
	eo->commit = r->commit;
	b->threads = r->threads;
	b->update_pct = r->update_pct;
	b->txn_writes = r->txn_writes;
	b->seconds = r->seconds;
	b->warmup = r->warmup;
	b->lazy = eo->commit == UT_COMMIT_LAZY;
	return 0;
}

static int bench_parse(int argc, char **argv, struct bench *b,
		       struct ut_engine_opts *eo, int *as_json)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "regime", required_argument, NULL, 'r' },
		{ "flushing", required_argument, NULL, 'f' },
		{ "pacing", required_argument, NULL, 'P' },
		{ "commit", required_argument, NULL, 'c' },
		{ "update-pct", required_argument, NULL, 'u' },
		{ "txn-writes", required_argument, NULL, 'n' },
		{ "large-txn", required_argument, NULL, 'L' },
		{ "value-size", required_argument, NULL, 'v' },
		{ "pool", required_argument, NULL, 'p' },
		{ "ack-fd", required_argument, NULL, 'a' },
		{ "ack-dev", required_argument, NULL, 'A' },
		{ "cleaners", required_argument, NULL, 'C' },
		{ "rows", required_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'j' },
		CLI_OPT_WAIT,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t v;
	int c;

	b->value_size = 100;
	b->ack_fd = -1;
	b->ack_dev.fd = -1;
	b->pacing_mode = "forecast";
	ut_engine_opts_default(eo);
	if (bench_regime(argc, argv, b, eo))
		return -1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': /* applied first, by bench_regime */
			break;
		case 'w':
			if (cli_parse_count("bench", "--warmup", optarg, 0,
					    86400, &b->warmup))
				return -1;
			break;
		case 'f':
			if (strcmp(optarg, "adaptive") &&
			    strcmp(optarg, "eager"))
				return cli_usage_fail("bench",
						      "--flushing is adaptive or eager, not '%s'",
						      optarg);
			b->adaptive = !strcmp(optarg, "adaptive");
			eo->flushing = b->adaptive ? UT_FLUSHING_ADAPTIVE :
						     UT_FLUSHING_EAGER;
			break;
		case 'P':
			if (strcmp(optarg, "forecast") &&
			    strcmp(optarg, "on") && strcmp(optarg, "age") &&
			    strcmp(optarg, "off"))
				return cli_usage_fail("bench",
						      "--pacing is forecast (or on), age or off, not '%s'",
						      optarg);
			eo->no_pacing = !strcmp(optarg, "off");
			eo->pace_age = !strcmp(optarg, "age");
			b->pacing_mode = eo->no_pacing ? "off" :
					 eo->pace_age  ? "age" :
							 "forecast";
			break;
		case 't':
			if (cli_parse_count("bench", "--threads", optarg, 1,
					    1024, &b->threads))
				return -1;
			break;
		case 's':
			if (cli_parse_count("bench", "--seconds", optarg, 1,
					    86400, &b->seconds))
				return -1;
			break;
		case 'c':
			if (strcmp(optarg, "sync") && strcmp(optarg, "lazy"))
				return cli_usage_fail("bench",
						      "--commit is sync or lazy, not '%s'",
						      optarg);
			eo->commit = !strcmp(optarg, "sync") ? UT_COMMIT_SYNC :
							       UT_COMMIT_LAZY;
			b->lazy = eo->commit == UT_COMMIT_LAZY;
			break;
		case 'u':
			if (cli_parse_count("bench", "--update-pct", optarg, 0,
					    100, &b->update_pct))
				return -1;
			break;
		case 'n':
			if (cli_parse_count("bench", "--txn-writes", optarg, 1,
					    UT_BENCH_TXN_WRITES_MAX,
					    &b->txn_writes))
				return -1;
			break;
		case 'L':
			if (cli_parse_count("bench", "--large-txn", optarg, 1,
					    UT_BENCH_TXN_WRITES_MAX,
					    &b->large_txn))
				return -1;
			break;
		case 'v':
			if (cli_parse_size("bench", "--value-size", optarg,
					   ROW_VALUE_MIN, 65536,
					   &b->value_size))
				return -1;
			break;
		case 'p':
			if (cli_parse_size("bench", "--pool", optarg, 1 << 20,
					   1ull << 40, &eo->pool_bytes))
				return -1;
			break;
		case 'R':
			if (cli_parse_count("bench", "--rows", optarg, 0,
					    1ull << 40, &b->rows))
				return -1;
			b->rows_given = 1;
			break;
		case 'C':
			if (cli_parse_count("bench", "--cleaners", optarg, 1,
					    64, &v))
				return -1;
			eo->cleaners = v;
			break;
		case 'a':
			if (cli_parse_count("bench", "--ack-fd", optarg, 0,
					    1 << 20, &v))
				return -1;
			b->ack_fd = v;
			break;
		case 'A':
			b->ack_dev_path = optarg;
			break;
		case 'j':
			*as_json = 1;
			break;
		case 'W':
			if (cli_parse_wait("bench", optarg))
				return -1;
			break;
		case 'h':
			bench_help();
			return 1;
		default:
			return cli_bad_option("bench", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("bench", "give exactly one DIR");
	return 0;
}

/* The run's clock: sleeps to the next 20 ms tick or to until. */
static void tick(uint64_t until)
{
	uint64_t now = ut_now_ns(), left = until > now ? until - now : 0;
	struct timespec ts = { 0, left < 20000000 ? left : 20000000 };

	nanosleep(&ts, NULL); /* the run's clock, not synchronisation */
}

/*
 * Every whole second from t0 for n_max seconds: the commits of each into
 * series[*n] (a second missed, the thread descheduled, is one of 0),
 * counted from last; with ages, the checkpoint age at each second too.
 */
static void count_seconds(struct bench *b, uint64_t t0, unsigned n_max,
			  uint64_t last, uint64_t *series, unsigned *n,
			  struct age_samples *ages)
{
	uint64_t next = t0 + 1000000000ull, done;
	uint64_t t_end = t0 + n_max * 1000000000ull;
	struct ut_engine_stats st;

	while (!atomic_load(&b->stop)) {
		uint64_t now = ut_now_ns();

		while (now >= next && *n < n_max) {
			done = atomic_load(&b->done);
			series[(*n)++] = done - last;
			last = done;
			next += 1000000000ull;
			store_cache_sample(&b->cache);
			if (!ages)
				continue;
			ut_engine_stats(b->eng, &st);
			if (st.checkpoint_age > ages->max)
				ages->max = st.checkpoint_age;
			ages->sum += st.checkpoint_age;
			ages->n++;
		}
		if (now >= t_end)
			break;
		tick(next < t_end ? next : t_end);
	}
}

/* The store's files to watch in the page cache, and whether its data
 * filesystem journals them (then its journal is log room too).  Neither
 * can fail the run: what cannot be read is reported as 0. */
static void resources_probe(struct bench *b, const char *dir,
			    struct bench_result *r)
{
	struct ut_fscaps caps;

	store_cache_open(&b->cache, dir);
	if (ut_fscaps_probe(ut_engine_data_path(b->eng), &caps))
		return;
	r->pages_journalled = ut_fscaps_data_journalled(&caps);
	r->jbd2_journal_bytes =
		r->pages_journalled ? ut_fscaps_journal_bytes(&caps) : 0;
}

static int bench_run(struct bench *b, struct worker *w, struct bench_result *r)
{
	int64_t dev0;
	uint64_t t0, base;
	struct ut_engine_stats st0;
	unsigned i, started = 0;

	r->per_sec = calloc(b->seconds, sizeof(*r->per_sec));
	r->warm_sec = calloc(b->warmup + 1, sizeof(*r->warm_sec));
	if (!r->per_sec || !r->warm_sec)
		return -ENOMEM;
	t0 = ut_now_ns();
	for (i = 0; i < b->threads; i++) {
		w[i].b = b;
		w[i].id = i;
		w[i].rng = 0x2545f4914f6cdd1dull ^ (t0 + i * 7919);
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]))
			break;
		started++;
	}
	if (started == b->threads && b->large_txn)
		b->large_started =
			!pthread_create(&b->large_thread, NULL, large_main, b);
	count_seconds(b, t0, b->warmup, 0, r->warm_sec, &r->n_warm, NULL);
	ut_latch_stats_reset();
	ut_engine_stats(b->eng, &st0);
	dev0 = device_bytes_written(ut_engine_data_path(b->eng));
	base = atomic_load(&b->done);
	t0 = ut_now_ns();
	atomic_store(&b->measuring, 1);
	count_seconds(b, t0, b->seconds, base, r->per_sec, &r->n_sec, &r->ages);
	atomic_store(&b->stop, 1);
	for (i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	if (b->large_started)
		pthread_join(b->large_thread, NULL);
	r->seconds = (ut_now_ns() - t0) / 1e9;
	percentiles(w, started, r);
	r->tps = r->commits / r->seconds;
	series_summary(r);
	ut_engine_stats(b->eng, &r->st);
	stats_since(&r->st, &st0);
	ut_latch_stats_get(r->latch);
	r->device_bytes =
		dev0 < 0 ? -1 :
			   device_bytes_written(ut_engine_data_path(b->eng)) -
				   dev0;
	return started == b->threads && (!b->large_txn || b->large_started) ?
		       0 :
		       -EAGAIN;
}

int cmd_bench(int argc, char **argv)
{
	struct bench b = { .stop = 0 };
	struct bench_result r = { 0 };
	struct ut_engine_opts eo;
	struct worker *w;
	int as_json = 0, ret;
	unsigned i;

	if (argc >= 2 && !strcmp(argv[1], "scan"))
		return cmd_bench_scan(argc - 1, argv + 1);
	if (argc < 2 || (strcmp(argv[1], "write") &&
			 strcmp(argv[1], "--help") && strcmp(argv[1], "-h")))
		return cli_usage_fail("bench",
				      "the benchmarks are 'untorn bench write DIR' and 'untorn bench scan DIR'");
	if (strcmp(argv[1], "write")) {
		fputs(bench_overview, stdout);
		return EXIT_OK;
	}
	ret = bench_parse(argc - 1, argv + 1, &b, &eo, &as_json);
	if (ret)
		return ret == 1 ? EXIT_OK : EXIT_ERROR; /* 1: --help */
	b.cleaners = eo.cleaners;
	if (b.ack_dev_path) {
		ret = ack_dev_open(&b.ack_dev, b.ack_dev_path);
		if (ret)
			return cli_fail("--ack-dev %s: %s; give a block device or a preallocated file for the acknowledgements",
					b.ack_dev_path,
					ret == -ENOTBLK ?
						"neither a block device nor a regular file" :
					ret == -ENOSPC ?
						"too small for one record" :
						strerror(-ret));
	}
	if (cli_engine_open(argv[optind + 1], &eo, &b.eng)) {
		ack_dev_close(&b.ack_dev);
		return EXIT_ERROR;
	}
	if (b.value_size > ut_engine_value_max(b.eng)) {
		uint32_t max = ut_engine_value_max(b.eng);

		cli_engine_close(b.eng);
		ack_dev_close(&b.ack_dev);
		return cli_usage_fail("bench",
				      "--value-size %llu exceeds %u, 1/8 of this store's page",
				      (unsigned long long)b.value_size, max);
	}
	if (!b.rows_given) /* a full scan: slow on a cold disk, see --rows */
		ut_scan(b.eng, 0, count_fn, &b.rows);
	b.pool_bytes = eo.pool_bytes;
	resources_probe(&b, argv[optind + 1], &r);
	b.version_base = ut_now_ns();
	w = calloc(b.threads, sizeof(*w));
	if (!w || bench_run(&b, w, &r))
		ret = cli_fail("cannot start %llu threads",
			       (unsigned long long)b.threads);
	else if (atomic_load(&b.failed))
		ret = cli_fail_err(&b.err, -EIO);
	if (!ret) {
		if (as_json)
			print_json(&b, &r, argv[optind + 1]);
		else
			print_table(&b, &r);
		fflush(stdout); /* results out before the store is released */
	}
	for (i = 0; w && i < b.threads; i++)
		free(w[i].lat_us);
	free(w);
	free(r.per_sec);
	free(r.warm_sec);
	ack_dev_close(&b.ack_dev);
	store_cache_close(&b.cache);
	if (cli_engine_close(b.eng))
		return EXIT_ERROR;
	return ret;
}
