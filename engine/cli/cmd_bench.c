// SPDX-License-Identifier: MIT
/*
 * cmd_bench.c - `untorn bench write DIR`: T threads commit a sysbench-like
 * mix of updates of existing rows and inserts of new ones on random keys
 * for S seconds; prints TPS, commit latency percentiles, pages and bytes
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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <untorn/engine.h>
#include <untorn/latch.h>
#include "ack_dev.h"
#include "cli.h"
#include "rowgen.h"

static const char bench_help[] =
	"usage: untorn bench write DIR [--threads T] [--seconds S] [--commit sync|lazy]\n"
	"                         [--update-pct P] [--value-size B] [--pool SIZE]\n"
	"                         [--cleaners N] [--rows N] [--json] [--wait S]\n"
	"\n"
	"T threads (default 4) run transactions for S seconds (default 10): each is\n"
	"one row write, an update of a random existing key (P%, default 75) or an\n"
	"insert of a new key, committed with fdatasync of the redo log (sync, the\n"
	"default) or flushed every 100 ms (lazy).  Prints TPS, commit latency\n"
	"p50/p95/p99, pages written, bytes the device wrote, fsyncs, doublewrite\n"
	"slot wait time, and latch waits per class.  --cleaners (default 2) page\n"
	"cleaner threads share the store's doublewrite segments (2 by default):\n"
	"more cleaners than segments wait for slots.  --rows N: keys 0..N-1 exist\n"
	"(as after `load --rows N`); without it the store is scanned to find out.\n"
	"--ack-fd FD writes \"KEY VERSION\" of every acknowledged commit to FD;\n"
	"--ack-dev PATH writes each as a record of its own, one logical block,\n"
	"with O_DIRECT|O_DSYNC, to a block device (or file) for power-cut replays\n"
	"(read back with the zero bytes removed; `untorn verify --acks`).\n"
	"\n" CLI_WAIT_HELP;

struct bench {
	struct ut_engine *eng;
	uint64_t rows; /* keys 0..rows-1 exist */
	uint64_t seconds, threads, update_pct, value_size;
	int ack_fd;
	struct ack_dev ack_dev;
	const char *ack_dev_path;
	atomic_int ack_dev_full; /* said once that it is full */
	int lazy;
	int rows_given;
	unsigned cleaners;
	uint64_t version_base;
	atomic_int stop;
	atomic_int failed;
	struct ut_err err;
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

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

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

	if (slice && rng_next(&w->rng) % 100 < b->update_pct)
		return (rng_next(&w->rng) % slice) * b->threads + w->id;
	return b->rows + (w->inserts++) * b->threads + w->id;
}

/* Records an acknowledgement on --ack-dev; nonzero stops the run. */
static int ack_dev_record(struct bench *b, uint64_t key, uint64_t version)
{
	int ret = ack_dev_put(&b->ack_dev, key, version);

	if (ret == -ENOSPC) {
		if (!atomic_exchange(&b->ack_dev_full, 1))
			fprintf(stderr, "untorn: bench: %s is full after %llu acknowledgements; the rest are not recorded\n",
				b->ack_dev_path, (unsigned long long)b->ack_dev.slots);
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

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct bench *b = w->b;
	unsigned char val[65536];
	struct ut_err err = { "" };
	uint64_t key, version = b->version_base, t0;
	char ack[64];
	int ret, n;

	while (!atomic_load(&b->stop)) {
		key = next_key(w);
		row_value(val, b->value_size, key, ++version, w->id);
		t0 = ut_now_ns();
		ret = ut_put(b->eng, key, val, b->value_size, &err);
		if (ret) {
			if (!atomic_exchange(&b->failed, 1))
				b->err = err;
			atomic_store(&b->stop, 1);
			break;
		}
		lat_push(w, ut_now_ns() - t0);
		if (b->ack_fd >= 0) {
			n = snprintf(ack, sizeof(ack),
				     "%" PRIu64 " %" PRIu64 "\n", key, version);
			if (write(b->ack_fd, ack, n) != n)
				b->ack_fd = -1;
		}
		if (b->ack_dev.fd >= 0 && ack_dev_record(b, key, version))
			break;
	}
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

/* Sectors the data file's device wrote, from /sys/dev/block; -1: none. */
static int64_t device_bytes_written(const char *path)
{
	char sys[128];
	unsigned long long f[7];
	struct stat sb;
	FILE *fp;
	int n;

	if (stat(path, &sb))
		return -1;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/stat",
		 major(sb.st_dev), minor(sb.st_dev));
	fp = fopen(sys, "r");
	if (!fp)
		return -1;
	n = fscanf(fp, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1],
		   &f[2], &f[3], &f[4], &f[5], &f[6]);
	fclose(fp);
	return n == 7 ? (int64_t)f[6] * 512 : -1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

struct bench_result {
	double seconds, tps;
	uint64_t commits, p50, p95, p99;
	int64_t device_bytes;
	struct ut_engine_stats st;
	struct ut_latch_stats latch[UT_LATCH_NCLASSES];
};

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

static void print_json(struct bench *b, const struct bench_result *r, const char *dir)
{
	struct json j;
	int i;

	json_begin(&j, stdout);
	json_str(&j, "store", dir);
	json_str(&j, "guard", ut_engine_guard(b->eng));
	json_bool(&j, "untorn_jw", ut_engine_uses_jw(b->eng));
	json_u64(&j, "page_size", ut_engine_page_size(b->eng));
	json_str(&j, "commit", b->lazy ? "lazy" : "sync");
	json_u64(&j, "threads", b->threads);
	json_u64(&j, "cleaners", b->cleaners);
	json_f64(&j, "seconds", r->seconds);
	json_u64(&j, "commits", r->commits);
	json_f64(&j, "tps", r->tps);
	json_u64(&j, "commit_p50_us", r->p50);
	json_u64(&j, "commit_p95_us", r->p95);
	json_u64(&j, "commit_p99_us", r->p99);
	json_u64(&j, "pages_written", r->st.pages_written);
	json_u64(&j, "page_bytes_written", r->st.page_bytes_written);
	json_u64(&j, "dblwr_bytes_written", r->st.dblwr_bytes_written);
	json_u64(&j, "redo_bytes_written", r->st.redo_bytes_written);
	if (r->device_bytes >= 0)
		json_u64(&j, "device_bytes_written", r->device_bytes);
	else
		json_str(&j, "device_bytes_written", "unknown");
	json_u64(&j, "fsyncs", r->st.fsyncs);
	json_u64(&j, "checkpoints", r->st.checkpoints);
	json_u64(&j, "dblwr_waits", r->st.dblwr_waits);
	json_u64(&j, "dblwr_wait_ns", r->st.dblwr_wait_ns);
	json_obj_open(&j, "latch_waits");
	for (i = 0; i < UT_LATCH_NCLASSES; i++) {
		json_obj_open(&j, ut_latch_class_name(i));
		json_u64(&j, "acquisitions", r->latch[i].acquisitions);
		json_u64(&j, "waits", r->latch[i].waits);
		json_u64(&j, "wait_ns", r->latch[i].wait_ns);
		json_obj_close(&j);
	}
	json_obj_close(&j);
	json_end(&j);
}

static void print_table(struct bench *b, const struct bench_result *r)
{
	int i;

	printf("guard %s%s, page %u, %llu threads, %.1f s\n", ut_engine_guard(b->eng),
	       ut_engine_uses_jw(b->eng) ? " (pages through untorn_jw)" : "",
	       ut_engine_page_size(b->eng), (unsigned long long)b->threads,
	       r->seconds);
	printf("  %-22s %12.0f\n", "tps", r->tps);
	printf("  %-22s %12llu / %llu / %llu\n", "commit p50/p95/p99 us",
	       (unsigned long long)r->p50, (unsigned long long)r->p95,
	       (unsigned long long)r->p99);
	printf("  %-22s %12llu\n", "pages written",
	       (unsigned long long)r->st.pages_written);
	printf("  %-22s %12lld\n", "device bytes written", (long long)r->device_bytes);
	printf("  %-22s %12llu\n", "redo bytes written",
	       (unsigned long long)r->st.redo_bytes_written);
	printf("  %-22s %12llu\n", "fsyncs", (unsigned long long)r->st.fsyncs);
	printf("  %-22s %12.3f ms (%llu waits)\n", "dblwr slot wait",
	       r->st.dblwr_wait_ns / 1e6, (unsigned long long)r->st.dblwr_waits);
	printf("  latch waits (class: waits, ms):");
	for (i = 0; i < UT_LATCH_NCLASSES; i++)
		if (r->latch[i].waits)
			printf(" %s %llu %.1f;", ut_latch_class_name(i),
			       (unsigned long long)r->latch[i].waits,
			       r->latch[i].wait_ns / 1e6);
	printf("\n");
}

static int bench_parse(int argc, char **argv, struct bench *b,
		       struct ut_engine_opts *eo, int *as_json)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "commit", required_argument, NULL, 'c' },
		{ "update-pct", required_argument, NULL, 'u' },
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

	b->threads = 4;
	b->seconds = 10;
	b->update_pct = 75;
	b->value_size = 100;
	b->ack_fd = -1;
	b->ack_dev.fd = -1;
	ut_engine_opts_default(eo);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (cli_parse_num("bench", "--threads", optarg, 1, 1024,
					  &b->threads))
				return -1;
			break;
		case 's':
			if (cli_parse_num("bench", "--seconds", optarg, 1,
					  86400, &b->seconds))
				return -1;
			break;
		case 'c':
			if (strcmp(optarg, "sync") && strcmp(optarg, "lazy"))
				return cli_usage_fail("bench", "--commit is sync or lazy, not '%s'",
						      optarg);
			eo->commit = !strcmp(optarg, "sync") ? UT_COMMIT_SYNC :
							       UT_COMMIT_LAZY;
			b->lazy = eo->commit == UT_COMMIT_LAZY;
			break;
		case 'u':
			if (cli_parse_num("bench", "--update-pct", optarg, 0,
					  100, &b->update_pct))
				return -1;
			break;
		case 'v':
			if (cli_parse_num("bench", "--value-size", optarg,
					  ROW_VALUE_MIN, 65536, &b->value_size))
				return -1;
			break;
		case 'p':
			if (cli_parse_num("bench", "--pool", optarg, 1 << 20,
					  1ull << 40, &eo->pool_bytes))
				return -1;
			break;
		case 'R':
			if (cli_parse_num("bench", "--rows", optarg, 0,
					  1ull << 40, &b->rows))
				return -1;
			b->rows_given = 1;
			break;
		case 'C':
			if (cli_parse_num("bench", "--cleaners", optarg, 1, 64, &v))
				return -1;
			eo->cleaners = v;
			break;
		case 'a':
			if (cli_parse_num("bench", "--ack-fd", optarg, 0, 1 << 20, &v))
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
			fputs(bench_help, stdout);
			return 1;
		default:
			return cli_usage_fail("bench", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("bench", "give exactly one DIR");
	return 0;
}

static int bench_run(struct bench *b, struct worker *w, struct bench_result *r)
{
	int64_t dev0 = device_bytes_written(ut_engine_data_path(b->eng));
	uint64_t t0, t_end;
	unsigned i, started = 0;

	ut_latch_stats_reset();
	t0 = ut_now_ns();
	for (i = 0; i < b->threads; i++) {
		w[i].b = b;
		w[i].id = i;
		w[i].rng = 0x2545f4914f6cdd1dull ^ (t0 + i * 7919);
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]))
			break;
		started++;
	}
	t_end = t0 + b->seconds * 1000000000ull;
	while (ut_now_ns() < t_end && !atomic_load(&b->stop)) {
		struct timespec ts = { 0, 20000000 };

		nanosleep(&ts, NULL); /* the run's clock, not synchronisation */
	}
	atomic_store(&b->stop, 1);
	for (i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	r->seconds = (ut_now_ns() - t0) / 1e9;
	percentiles(w, started, r);
	r->tps = r->commits / r->seconds;
	ut_engine_stats(b->eng, &r->st);
	ut_latch_stats_get(r->latch);
	r->device_bytes =
		dev0 < 0 ? -1 : device_bytes_written(ut_engine_data_path(b->eng)) - dev0;
	return started == b->threads ? 0 : -EAGAIN;
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
		return cli_usage_fail("bench", "the benchmarks are 'untorn bench write DIR' and 'untorn bench scan DIR'");
	if (strcmp(argv[1], "write")) {
		fputs(bench_help, stdout);
		return EXIT_OK;
	}
	ret = bench_parse(argc - 1, argv + 1, &b, &eo, &as_json);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_ERROR;
	b.cleaners = eo.cleaners;
	if (b.ack_dev_path) {
		ret = ack_dev_open(&b.ack_dev, b.ack_dev_path);
		if (ret)
			return cli_fail("--ack-dev %s: %s; give a block device or a preallocated file for the acknowledgements",
					b.ack_dev_path,
					ret == -ENOTBLK ? "neither a block device nor a regular file" :
					ret == -ENOSPC ? "too small for one record" :
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
		return cli_usage_fail("bench", "--value-size %llu exceeds %u, 1/8 of this store's page",
				      (unsigned long long)b.value_size, max);
	}
	if (!b.rows_given) /* a full scan: slow on a cold disk, see --rows */
		ut_scan(b.eng, 0, count_fn, &b.rows);
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
	ack_dev_close(&b.ack_dev);
	if (cli_engine_close(b.eng))
		return EXIT_ERROR;
	return ret;
}
