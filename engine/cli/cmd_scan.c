// SPDX-License-Identifier: MIT
/*
 * cmd_scan.c - `untorn bench scan DIR`: a full scan in key order with a
 * read-ahead policy and window, cold or warm, alone or with writers;
 * prints throughput, pages, read requests, their average size, io_uring
 * submissions, the tree's fragmentation, the least time the device could
 * take (given its figures) and the writers' transactions a second.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <untorn/engine.h>
#include "scan_model.h"
#include "cli.h"
#include "ra_opts.h"
#include "scan_defaults.h"
#include "scan_yield_opts.h"
#include "write_load.h"

/* The help, with the defaults it states from where they are set. */
static void scan_help(void)
{
	printf("usage: untorn bench scan DIR [--readahead none|linear|logical] [--batch N]\n"
	       "                        [--lra-size SIZE] [--lra-sleep MS | --lra-spare PCT]\n"
	       "                        [--merge-pages M] [--gap-pages G] [--cold]\n"
	       "                        [--device-iops N --device-mbps N]\n"
	       "                        [--writers T [--baseline S]]\n"
	       "                        [--pool SIZE] [--json] [--wait S]\n"
	       "\n"
	       "Reads every row in key order.  --readahead: none follows leaf pointers\n"
	       "with one read per leaf; linear (InnoDB-style) reads the next %u pages\n"
	       "after %u leaves in ascending page order; logical (default) takes the next\n"
	       "N leaves in key order from the level-1 pages, sorts them by page number,\n"
	       "merges neighbours into reads of up to M pages (%u) -- also neighbours\n"
	       "with up to G pages between them (default 0), reading through the hole,\n"
	       "which on a disk costs less than another seek -- submits them together\n"
	       "and reads the next batch while this one is consumed.  --cold writes dirty\n"
	       "pages, empties the buffer pool and drops the data file from the page\n"
	       "cache first (and reports how much of it stayed cached).  Also prints the\n"
	       "tree's shape: its leaves, and the share of steps from a leaf to the next\n"
	       "in key order that are not to the next page (fragmentation), with the\n"
	       "mean distance of those jumps in pages.\n"
	       "\n"
	       "--lra-size SIZE (innodb_lra_size): the window of leaves logical read-ahead\n"
	       "sorts and reads in one sweep, instead of --batch N leaves; the next\n"
	       "window is read from half way through this one; at most half of --pool\n"
	       "(the last quarter keeps the internal pages and the hot set).\n"
	       "--lra-sleep MS (innodb_lra_sleep): a pause before each window after the\n"
	       "first, to leave the disk to other work.\n"
	       "--lra-spare PCT: instead, a pause before each window that leaves the\n"
	       "other work PCT %% of the speed it has while the scan pauses (default\n"
	       "%u; 0: none), measured in the writers' commits with --writers, else in\n"
	       "the sectors other processes read and write on the store's disk (%u a\n"
	       "second or less counted as none); with no other work seen there is no\n"
	       "pause.  Logical read-ahead only.\n"
	       "--device-iops N --device-mbps N: the device's random page-sized reads a\n"
	       "second at queue depth 32 and its sequential MB/s (fio's, or\n"
	       "`emulate-hdd calibrate`): prints the least time a policy with this\n"
	       "window could take on that device -- each window's pages in one sweep,\n"
	       "a positioning per run, every page at the sequential rate -- and the\n"
	       "scan's fraction_of_bound (bound / time); logical read-ahead then merges\n"
	       "as the bound does (reads through holes shorter than a positioning, reads\n"
	       "of up to %u pages) unless --gap-pages or --merge-pages say otherwise.\n"
	       "--writers T: T threads commit row writes while the scan runs (three in\n"
	       "four update a key the store holds, the rest insert above the largest),\n"
	       "one commit each; prints their transactions a second and the 99th\n"
	       "percentile of their commit times during the scan.  --baseline S: the\n"
	       "writers run alone for S seconds first (after --cold's drop), for the\n"
	       "same figures with no scan: what the scan cost them, as a ratio.\n"
	       "\n" CLI_WAIT_HELP,
	       UT_SCAN_LINEAR_EXTENT, UT_SCAN_LINEAR_RUN, UT_SCAN_MERGE_DEFAULT,
	       UT_SCAN_SPARE_DEFAULT, UT_SCAN_SECTORS_FLOOR,
	       (unsigned)UT_SCAN_MERGE_MAX);
}

struct scan_count {
	uint64_t rows, last;
	int disorder;
};

static int count_row(uint64_t key, const void *val, uint32_t len, void *user)
{
	struct scan_count *c = user;

	(void)val;
	(void)len;
	if (c->rows && key <= c->last)
		c->disorder = 1;
	c->last = key;
	c->rows++;
	return 0;
}

static const char *ra_name(enum ut_readahead ra)
{
	return ra == UT_RA_NONE	  ? "none" :
	       ra == UT_RA_LINEAR ? "linear" :
				    "logical";
}

/* What one run was given and what it measured, for the table and JSON. */
struct scan_run {
	const char *dir;
	struct ut_scan_opts so;
	unsigned window; /* leaves read ahead (logical) */
	int cold, as_json, have_bound;
	double resident;
	struct ut_scan_stats st;
	struct ut_tree_shape shape;
	struct scan_count cnt;
	struct ut_scan_device dev;
	struct ut_scan_bound bound;
	unsigned writers;
	uint64_t writer_txns, baseline_s;
	double writer_tps, writer_p99_us; /* during the scan */
	double alone_tps, alone_p99_us; /* alone, before it (--baseline) */
	struct cli_yield cy;
};

static void scan_print_text(const struct scan_run *r, double mbs, double avg)
{
	const struct ut_scan_stats *st = &r->st;
	const struct ut_tree_shape *shape = &r->shape;

	printf("%s: scan with %s read-ahead%s: %llu rows in %.3f s, %.1f MB/s read; %llu pages in %llu reads (avg %.0f bytes) and %llu submits\n",
	       r->dir, ra_name(r->so.readahead), r->cold ? " (cold)" : "",
	       (unsigned long long)r->cnt.rows, st->seconds, mbs,
	       (unsigned long long)st->pages_read, (unsigned long long)st->ios,
	       avg, (unsigned long long)st->submits);
	printf("tree: %llu leaves; %.1f %% of the steps from a leaf to the next in key order are not to the next page (%llu jumps, %.0f pages on average)\n",
	       (unsigned long long)shape->leaves, shape->fragmentation * 100,
	       (unsigned long long)shape->jumps, shape->mean_jump_pages);
	if (r->have_bound)
		printf("bound: reading %u leaves ahead on a device of %.0f reads/s and %.0f MB/s (%.2f ms a positioning, %.3f ms a page), no policy takes less than %.3f s (%llu positionings); this scan: %.2f of the bound\n",
		       r->window, r->dev.iops, r->dev.mbps,
		       r->bound.position_ms, r->bound.page_ms, r->bound.seconds,
		       (unsigned long long)r->bound.runs,
		       st->seconds > 0 ? r->bound.seconds / st->seconds : 0);
	if (r->writers && r->writer_txns)
		printf("writers: %u threads committed %llu transactions during the scan, %.0f a second, p99 %.1f ms\n",
		       r->writers, (unsigned long long)r->writer_txns,
		       r->writer_tps, r->writer_p99_us / 1000);
	else if (r->writers)
		printf("writers: %u threads committed no transaction in the scan's %.3f s (it was shorter than a commit took, or they waited): no p99\n",
		       r->writers, st->seconds);
	if (r->baseline_s)
		printf("writers alone for %llu s before the scan: %.0f a second, p99 %.1f ms; beside the scan %.2f of that\n",
		       (unsigned long long)r->baseline_s, r->alone_tps,
		       r->alone_p99_us / 1000,
		       r->alone_tps > 0 ? r->writer_tps / r->alone_tps : 0);
	if (r->so.readahead == UT_RA_LOGICAL)
		cli_yield_print(&r->cy, st->seconds, stdout);
	if (r->cold)
		printf("page cache after the drop: %.1f %% of the data file still resident\n",
		       r->resident * 100);
}

static void scan_print(const struct scan_run *r)
{
	const struct ut_scan_stats *st = &r->st;
	/* the scan's rate: pages of the tree per second (holes read
	 * through are the device's, in bytes and avg_io_bytes) */
	double mbs = st->seconds > 0 ? (double)st->pages_read * st->page_size /
					       st->seconds / 1e6 :
				       0;
	double avg = st->ios ? (double)st->bytes_read / st->ios : 0;
	struct json j;

	if (!r->as_json) {
		scan_print_text(r, mbs, avg);
		return;
	}
	json_begin(&j, stdout);
	json_str(&j, "store", r->dir);
	json_str(&j, "readahead", ra_name(r->so.readahead));
	json_u64(&j, "batch", st->batch);
	json_u64(&j, "window_pages", r->window);
	json_u64(&j, "lra_size", (uint64_t)r->window * st->page_size);
	json_u64(&j, "lra_sleep_ms", r->so.sleep_ms);
	json_u64(&j, "merge_pages", r->so.merge_pages);
	json_u64(&j, "gap_pages", r->so.gap_pages);
	json_bool(&j, "cold", r->cold);
	json_f64(&j, "page_cache_resident_after_drop",
		 r->cold ? r->resident : -1);
	json_u64(&j, "rows", r->cnt.rows);
	json_u64(&j, "pages", st->pages_read);
	json_u64(&j, "ios", st->ios);
	json_f64(&j, "avg_io_bytes", avg);
	json_u64(&j, "submits", st->submits);
	json_u64(&j, "bytes", st->bytes_read);
	json_f64(&j, "seconds", st->seconds);
	json_f64(&j, "mb_per_s", mbs);
	json_obj_open(&j, "tree");
	json_u64(&j, "leaves", r->shape.leaves);
	json_u64(&j, "jumps", r->shape.jumps);
	json_f64(&j, "fragmentation", r->shape.fragmentation);
	json_f64(&j, "mean_jump_pages", r->shape.mean_jump_pages);
	json_obj_close(&j);
	if (r->have_bound) {
		json_obj_open(&j, "bound");
		json_f64(&j, "device_iops", r->dev.iops);
		json_f64(&j, "device_mbps", r->dev.mbps);
		json_f64(&j, "position_ms", r->bound.position_ms);
		json_f64(&j, "page_ms", r->bound.page_ms);
		json_u64(&j, "windows", r->bound.windows);
		json_u64(&j, "runs", r->bound.runs);
		json_u64(&j, "hole_pages", r->bound.hole_pages);
		json_f64(&j, "seconds", r->bound.seconds);
		json_obj_close(&j);
		json_f64(&j, "fraction_of_bound",
			 st->seconds > 0 ? r->bound.seconds / st->seconds : 0);
	}
	json_obj_open(&j, "writers");
	json_u64(&j, "threads", r->writers);
	json_u64(&j, "transactions", r->writer_txns);
	json_f64(&j, "tps", r->writer_tps);
	json_f64(&j, "p99_us", r->writer_txns ? r->writer_p99_us : -1);
	json_u64(&j, "baseline_seconds", r->baseline_s);
	json_f64(&j, "alone_tps", r->baseline_s ? r->alone_tps : -1);
	json_f64(&j, "alone_p99_us", r->baseline_s ? r->alone_p99_us : -1);
	json_f64(&j, "tps_over_alone",
		 r->baseline_s && r->alone_tps > 0 ?
			 r->writer_tps / r->alone_tps :
			 -1);
	json_obj_close(&j);
	cli_yield_json(&r->cy, st->seconds, &j);
	json_end(&j);
}

/* Options as given, before the store is opened. */
struct scan_args {
	struct cli_ra ra; /* --lra-size, --lra-sleep, --lra-spare, --device-* */
	uint64_t writers, baseline_s;
	int batch_given, merge_given;
};

static int scan_parse_ra(const char *arg, enum ut_readahead *ra)
{
	if (!strcmp(arg, "none"))
		*ra = UT_RA_NONE;
	else if (!strcmp(arg, "linear"))
		*ra = UT_RA_LINEAR;
	else if (!strcmp(arg, "logical"))
		*ra = UT_RA_LOGICAL;
	else
		return cli_usage_fail("bench scan",
				      "--readahead is none, linear or logical, not '%s'",
				      arg);
	return 0;
}

/* 0 to go on, 1 after --help, -1 for bad input (said). */
static int scan_parse(int argc, char **argv, struct scan_run *r,
		      struct scan_args *a, struct ut_engine_opts *eo)
{
	static const struct option opts[] = {
		{ "readahead", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		CLI_RA_OPTIONS,
		{ "merge-pages", required_argument, NULL, 'm' },
		{ "gap-pages", required_argument, NULL, 'g' },
		{ "writers", required_argument, NULL, 'w' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "cold", no_argument, NULL, 'c' },
		{ "pool", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		CLI_OPT_WAIT,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t v;
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1 && !bad) {
		switch (c) {
		case 'r':
			bad = scan_parse_ra(optarg, &r->so.readahead);
			break;
		case 'b':
			bad = cli_parse_count("bench scan", "--batch", optarg,
					      1, 4096, &v);
			r->so.batch = v;
			a->batch_given = 1;
			break;
		case 'L':
		case 'S':
		case 'Y':
		case 'I':
		case 'M':
			bad = cli_ra_option(&a->ra, c, optarg);
			break;
		case 'm':
			bad = cli_parse_count("bench scan", "--merge-pages",
					      optarg, 1, UT_SCAN_MERGE_MAX, &v);
			r->so.merge_pages = v;
			a->merge_given = 1;
			break;
		case 'g':
			bad = cli_parse_count("bench scan", "--gap-pages",
					      optarg, 0, UT_SCAN_MERGE_MAX, &v);
			r->so.gap_pages = v;
			a->merge_given = 1;
			break;
		case 'w':
			bad = cli_parse_count("bench scan", "--writers", optarg,
					      0, WRITE_LOAD_THREADS_MAX,
					      &a->writers);
			break;
		case 'B':
			bad = cli_parse_count("bench scan", "--baseline",
					      optarg, 1, 3600, &a->baseline_s);
			break;
		case 'c':
			r->cold = 1;
			break;
		case 'p':
			bad = cli_parse_size("bench scan", "--pool", optarg,
					     1 << 20, 1ull << 40,
					     &eo->pool_bytes);
			a->ra.pool_arg = optarg;
			break;
		case 'j':
			r->as_json = 1;
			break;
		case 'W':
			bad = cli_parse_wait("bench scan", optarg);
			break;
		case 'h':
			scan_help();
			return 1;
		default:
			cli_bad_option("bench scan", argv);
			return -1;
		}
	}
	if (bad)
		return -1;
	if (optind != argc - 1) {
		cli_usage_fail("bench scan", "give exactly one DIR");
		return -1;
	}
	r->dir = argv[optind];
	return 0;
}

/* The combinations that cannot be, refused before the store is opened. */
static int scan_check(const struct scan_run *r, const struct scan_args *a,
		      const struct ut_engine_opts *eo)
{
	if ((a->ra.lra_arg || a->ra.sleep_given || a->ra.spare_given) &&
	    r->so.readahead != UT_RA_LOGICAL)
		return cli_usage_fail("bench scan",
				      "--lra-size, --lra-sleep and --lra-spare are logical read-ahead's; --readahead %s reads no window",
				      ra_name(r->so.readahead));
	if (a->baseline_s && !a->writers)
		return cli_usage_fail("bench scan",
				      "--baseline S runs the writers alone first: give --writers T too");
	if (a->ra.lra_arg && a->batch_given)
		return cli_usage_fail("bench scan",
				      "give --lra-size (bytes read ahead) or --batch (leaves a batch), not both");
	return cli_ra_check(&a->ra, eo->pool_bytes);
}

/* The writers alone for the baseline's seconds. */
static void writers_alone(struct scan_run *r, struct write_load *wl)
{
	struct timespec ts = { (time_t)r->baseline_s, 0 };
	struct write_load_mark a, b;

	write_load_mark(wl, &a);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	write_load_mark(wl, &b);
	write_load_between(&a, &b, &r->alone_tps, &r->alone_p99_us);
}

/* The scan, yielding as asked, and the writers' figures during it. */
static int scan_beside(struct ut_engine *eng, struct scan_run *r,
		       struct write_load *wl, const struct cli_ra *ra)
{
	struct write_load_mark a, b;
	int ret;

	cli_yield_setup(&r->cy, ra, eng, &r->so,
			r->writers ? write_load_txns : NULL, wl, "commits",
			"the writers' commits");
	write_load_mark(wl, &a);
	ret = ut_scan_readahead_yield(eng, 0, count_row, &r->cnt, &r->so,
				      cli_yield_of(&r->cy), &r->st);
	write_load_mark(wl, &b);
	write_load_between(&a, &b, &r->writer_tps, &r->writer_p99_us);
	r->writer_txns = b.txns - a.txns;
	return ret;
}

/* The cold start, the writers (alone first, for the baseline) and the
 * scan; the writers stop with it. */
static int scan_measure(struct ut_engine *eng, struct scan_run *r,
			struct write_load *wl, const struct cli_ra *ra)
{
	uint64_t txns;
	double tps;
	int ret = 0, wret;

	if (r->writers)
		ret = write_load_init(wl, eng, r->writers, 100);
	if (!ret && r->cold)
		ret = ut_engine_drop_caches(eng, &r->resident);
	if (!ret && r->writers)
		ret = write_load_start(wl);
	if (!ret && r->baseline_s)
		writers_alone(r, wl);
	if (!ret)
		ret = scan_beside(eng, r, wl, ra);
	if (r->writers) {
		wret = write_load_stop(wl, &txns, &tps);
		if (wret && !ret) {
			cli_fail("%s: a writer beside the scan failed: %s",
				 r->dir,
				 wl->err.msg[0] ? wl->err.msg :
						  strerror(-wret));
			ret = 1;
		}
	}
	return ret;
}

int cmd_bench_scan(int argc, char **argv)
{
	struct scan_run r = { .resident = -1 };
	struct scan_args a = { .ra = { .cmd = "bench scan" } };
	struct ut_engine_opts eo;
	struct write_load wl = { 0 };
	struct ut_engine *eng;
	int ret;

	ut_engine_opts_default(&eo);
	ut_scan_opts_default(&r.so);
	ret = scan_parse(argc, argv, &r, &a, &eo);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_ERROR;
	if (scan_check(&r, &a, &eo))
		return EXIT_ERROR;
	if (cli_engine_open(r.dir, &eo, &eng))
		return EXIT_ERROR;
	/* merge as the bound does, unless told how */
	if (cli_ra_apply(&a.ra, eng, &r.so,
			 !a.merge_given && r.so.readahead == UT_RA_LOGICAL)) {
		cli_engine_close(eng);
		return EXIT_ERROR;
	}
	r.window = ut_scan_window(eng, &r.so);
	r.writers = a.writers;
	r.baseline_s = a.baseline_s;
	r.have_bound = cli_ra_device(&a.ra, &r.dev);
	/* before the cold start: the internal pages it reads are dropped */
	ret = ut_engine_tree_shape(eng, &r.shape);
	if (!ret && r.have_bound)
		ret = ut_engine_scan_bound(eng, r.window, &r.dev, &r.bound);
	if (!ret)
		ret = scan_measure(eng, &r, &wl, &a.ra);
	write_load_free(&wl);
	if (ret) {
		cli_engine_close(eng);
		return ret > 0 ? EXIT_ERROR :
				 cli_fail("%s: scan failed: %s", r.dir,
					  strerror(-ret));
	}
	if (r.cnt.disorder) {
		cli_engine_close(eng);
		return cli_fail("%s: scan returned keys out of order; run untorn check",
				r.dir);
	}
	scan_print(&r);
	return cli_engine_close(eng) ? EXIT_ERROR : EXIT_OK;
}
