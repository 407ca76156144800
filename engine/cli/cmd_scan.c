// SPDX-License-Identifier: MIT
/*
 * cmd_scan.c - `untorn bench scan DIR`: a full scan in key order with a
 * read-ahead policy, cold or warm; prints throughput, pages, read
 * requests, their average size and io_uring submissions.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <untorn/engine.h>
#include "cli.h"

static const char scan_help[] =
	"usage: untorn bench scan DIR [--readahead none|linear|logical] [--batch N]\n"
	"                        [--merge-pages M] [--gap-pages G] [--cold]\n"
	"                        [--pool SIZE] [--json] [--wait S]\n"
	"\n"
	"Reads every row in key order.  --readahead: none follows leaf pointers\n"
	"with one read per leaf; linear (InnoDB-style) reads the next 64 pages\n"
	"after 4 leaves in ascending page order; logical (default) takes the next\n"
	"N leaves in key order from the level-1 pages, sorts them by page number,\n"
	"merges neighbours into reads of up to M pages (16) -- also neighbours\n"
	"with up to G pages between them (default 0), reading through the hole,\n"
	"which on a disk costs less than another seek -- submits them together\n"
	"and reads the next batch while this one is consumed.  --cold writes dirty\n"
	"pages, empties the buffer pool and drops the data file from the page\n"
	"cache first (and reports how much of it stayed cached).  Also prints the\n"
	"tree's shape: its leaves, and the share of steps from a leaf to the next\n"
	"in key order that are not to the next page (fragmentation), with the\n"
	"mean distance of those jumps in pages.\n"
	"\n" CLI_WAIT_HELP;

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

static void scan_print(const char *dir, const struct ut_scan_opts *so,
		       const struct ut_scan_stats *st,
		       const struct ut_tree_shape *shape, const struct scan_count *c,
		       int cold, double resident, int as_json)
{
	/* the scan's rate: pages of the tree per second (holes read
	 * through are the device's, in bytes and avg_io_bytes) */
	double mbs = st->seconds > 0 ? (double)st->pages_read * st->page_size /
					       st->seconds / 1e6 :
				       0;
	double avg = st->ios ? (double)st->bytes_read / st->ios : 0;
	struct json j;

	if (!as_json) {
		printf("%s: scan with %s read-ahead%s: %llu rows in %.3f s, %.1f MB/s read; %llu pages in %llu reads (avg %.0f bytes) and %llu submits\n",
		       dir, ra_name(so->readahead), cold ? " (cold)" : "",
		       (unsigned long long)c->rows, st->seconds, mbs,
		       (unsigned long long)st->pages_read,
		       (unsigned long long)st->ios, avg,
		       (unsigned long long)st->submits);
		printf("tree: %llu leaves; %.1f %% of the steps from a leaf to the next in key order are not to the next page (%llu jumps, %.0f pages on average)\n",
		       (unsigned long long)shape->leaves, shape->fragmentation * 100,
		       (unsigned long long)shape->jumps, shape->mean_jump_pages);
		if (cold)
			printf("page cache after the drop: %.1f %% of the data file still resident\n",
			       resident * 100);
		return;
	}
	json_begin(&j, stdout);
	json_str(&j, "store", dir);
	json_str(&j, "readahead", ra_name(so->readahead));
	json_u64(&j, "batch", so->batch);
	json_u64(&j, "merge_pages", so->merge_pages);
	json_u64(&j, "gap_pages", so->gap_pages);
	json_bool(&j, "cold", cold);
	json_f64(&j, "page_cache_resident_after_drop", cold ? resident : -1);
	json_u64(&j, "rows", c->rows);
	json_u64(&j, "pages", st->pages_read);
	json_u64(&j, "ios", st->ios);
	json_f64(&j, "avg_io_bytes", avg);
	json_u64(&j, "submits", st->submits);
	json_u64(&j, "bytes", st->bytes_read);
	json_f64(&j, "seconds", st->seconds);
	json_f64(&j, "mb_per_s", mbs);
	json_obj_open(&j, "tree");
	json_u64(&j, "leaves", shape->leaves);
	json_u64(&j, "jumps", shape->jumps);
	json_f64(&j, "fragmentation", shape->fragmentation);
	json_f64(&j, "mean_jump_pages", shape->mean_jump_pages);
	json_obj_close(&j);
	json_end(&j);
}

int cmd_bench_scan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "readahead", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "merge-pages", required_argument, NULL, 'm' },
		{ "gap-pages", required_argument, NULL, 'g' },
		{ "cold", no_argument, NULL, 'c' },
		{ "pool", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		CLI_OPT_WAIT,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ut_scan_opts so = { .readahead = UT_RA_LOGICAL,
				   .batch = 64,
				   .merge_pages = 16 };
	struct ut_engine_opts eo;
	struct ut_scan_stats st;
	struct ut_tree_shape shape;
	struct scan_count cnt = { 0 };
	struct ut_engine *eng;
	double resident = -1;
	uint64_t v;
	int c, cold = 0, as_json = 0, ret;

	ut_engine_opts_default(&eo);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (!strcmp(optarg, "none"))
				so.readahead = UT_RA_NONE;
			else if (!strcmp(optarg, "linear"))
				so.readahead = UT_RA_LINEAR;
			else if (!strcmp(optarg, "logical"))
				so.readahead = UT_RA_LOGICAL;
			else
				return cli_usage_fail("bench", "--readahead is none, linear or logical, not '%s'",
						      optarg);
			break;
		case 'b':
			if (cli_parse_num("bench", "--batch", optarg, 1, 4096, &v))
				return EXIT_ERROR;
			so.batch = v;
			break;
		case 'm':
			if (cli_parse_num("bench", "--merge-pages", optarg, 1, 256, &v))
				return EXIT_ERROR;
			so.merge_pages = v;
			break;
		case 'g':
			if (cli_parse_num("bench", "--gap-pages", optarg, 0, 256, &v))
				return EXIT_ERROR;
			so.gap_pages = v;
			break;
		case 'c':
			cold = 1;
			break;
		case 'p':
			if (cli_parse_num("bench", "--pool", optarg, 1 << 20,
					  1ull << 40, &eo.pool_bytes))
				return EXIT_ERROR;
			break;
		case 'j':
			as_json = 1;
			break;
		case 'W':
			if (cli_parse_wait("bench", optarg))
				return EXIT_ERROR;
			break;
		case 'h':
			fputs(scan_help, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("bench", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("bench", "give exactly one DIR");
	if (cli_engine_open(argv[optind], &eo, &eng))
		return EXIT_ERROR;
	/* before the cold start: the internal pages it reads are dropped */
	ret = ut_engine_tree_shape(eng, &shape);
	if (!ret && cold)
		ret = ut_engine_drop_caches(eng, &resident);
	if (!ret)
		ret = ut_scan_readahead(eng, 0, count_row, &cnt, &so, &st);
	if (ret) {
		cli_engine_close(eng);
		return cli_fail("%s: scan failed: %s", argv[optind], strerror(-ret));
	}
	if (cnt.disorder) {
		cli_engine_close(eng);
		return cli_fail("%s: scan returned keys out of order; run untorn check",
				argv[optind]);
	}
	scan_print(argv[optind], &so, &st, &shape, &cnt, cold, resident, as_json);
	return cli_engine_close(eng) ? EXIT_ERROR : EXIT_OK;
}
