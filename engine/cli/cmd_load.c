// SPDX-License-Identifier: MIT
/*
 * cmd_load.c - `untorn load DIR --rows N`: insert N rows in one of the
 * layouts of layout.h (sequential, random, split), which decide how
 * fragmented the tree is on disk.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/engine.h>
#include "base/latch.h"
#include "base/parse.h"
#include "cli.h"
#include "layout.h"
#include "load_from.h"
#include "progress.h"
#include "rowgen.h"

/* sysbench's and the benchmarks' row: 100-byte values */
#define LOAD_VALUE_SIZE_DEFAULT 100u

static const char load_help[] =
	"usage: untorn load DIR --rows N [--layout sequential|random|split] [--value-size B]\n"
	"                   [--start K] [--commit sync|lazy] [--pool SIZE] [--wait S]\n"
	"       untorn load DIR --from FILE [--commit sync|lazy] [--pool SIZE] [--wait S]\n"
	"\n"
	"Inserts N rows with self-checking values of B bytes (default %u, from %u\n"
	"up to 1/8 of a page's record area).  The layout decides the tree's shape\n"
	"on disk (bench scan prints its fragmentation): sequential inserts keys\n"
	"K..K+N-1 (default K=0) in order, leaves following each other in the file;\n"
	"random (default) the same keys in a random order, leaves all over the\n"
	"file; split is Facebook's (user, object) table, keys K + (user << 32 |\n"
	"object): half the rows in key order (each of N/1024 users' first objects),\n"
	"then objects appended to users chosen at random, splitting leaves whose\n"
	"new halves go to the end of the file.  --order random|sequential is the\n"
	"old name of --layout.  --from FILE restores the rows of `untorn dump`\n"
	"(tsv or jsonl, - for stdin): every line is checked, and the keys for\n"
	"being in order, before the store is opened for writing.\n"
	"--commit lazy (default) flushes the log every 100 ms; the store is\n"
	"checkpointed when load ends.  On a terminal, stderr shows the rows\n"
	"loaded, the rate and the time left, once a second.  Ctrl-C stops it\n"
	"after the row being written: the store is closed cleanly, a line says\n"
	"how many rows are in (committed and durable), and the exit status is\n"
	"130.\n"
	"\n" CLI_WAIT_HELP;

struct load_opts {
	uint64_t rows, start, value_size;
	enum layout_kind layout;
	const char *from; /* --from FILE: a dump's rows */
	int shaped; /* --layout, --order, --start or --value-size given */
	struct ut_engine_opts eo;
};

static int load_parse(int argc, char **argv, struct load_opts *lo)
{
	static const struct option opts[] = {
		{ "rows", required_argument, NULL, 'n' },
		{ "order", required_argument, NULL, 'o' },
		{ "layout", required_argument, NULL, 'l' },
		{ "from", required_argument, NULL, 'F' },
		{ "value-size", required_argument, NULL, 'v' },
		{ "start", required_argument, NULL, 's' },
		{ "commit", required_argument, NULL, 'c' },
		{ "pool", required_argument, NULL, 'p' },
		CLI_OPT_WAIT,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, have_rows = 0;

	memset(lo, 0, sizeof(*lo));
	lo->value_size = LOAD_VALUE_SIZE_DEFAULT;
	lo->layout = LAYOUT_RANDOM;
	ut_engine_opts_default(&lo->eo);
	lo->eo.commit = UT_COMMIT_LAZY;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (cli_parse_count("load", "--rows", optarg, 1,
					    1ull << 32, &lo->rows))
				return -1;
			have_rows = 1;
			break;
		case 'o':
			lo->shaped = 1;
			if (strcmp(optarg, "random") &&
			    strcmp(optarg, "sequential"))
				return cli_usage_fail("load",
						      "--order is random or sequential, not '%s'",
						      optarg);
			lo->layout = !strcmp(optarg, "sequential") ?
					     LAYOUT_SEQUENTIAL :
					     LAYOUT_RANDOM;
			break;
		case 'F':
			lo->from = optarg;
			break;
		case 'l':
			lo->shaped = 1;
			if (layout_parse(optarg, &lo->layout))
				return cli_usage_fail("load",
						      "--layout is sequential, random or split, not '%s'",
						      optarg);
			break;
		case 'v':
			lo->shaped = 1;
			if (cli_parse_size("load", "--value-size", optarg,
					   ROW_VALUE_MIN, 65536,
					   &lo->value_size))
				return -1;
			break;
		case 's':
			lo->shaped = 1;
			if (cli_parse_key("load", "--start", optarg, 1ull << 62,
					  &lo->start))
				return -1;
			break;
		case 'c':
			if (strcmp(optarg, "sync") && strcmp(optarg, "lazy"))
				return cli_usage_fail("load",
						      "--commit is sync or lazy, not '%s'",
						      optarg);
			lo->eo.commit = !strcmp(optarg, "sync") ?
						UT_COMMIT_SYNC :
						UT_COMMIT_LAZY;
			break;
		case 'p':
			if (cli_parse_size("load", "--pool", optarg, 1 << 20,
					   1ull << 40, &lo->eo.pool_bytes))
				return -1;
			break;
		case 'W':
			if (cli_parse_wait("load", optarg))
				return -1;
			break;
		case 'h':
			printf(load_help, LOAD_VALUE_SIZE_DEFAULT,
			       ROW_VALUE_MIN);
			return 1;
		default:
			return cli_bad_option("load", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("load", "give exactly one DIR");
	if (lo->from && (have_rows || lo->shaped))
		return cli_usage_fail("load",
				      "--from takes its rows from the dump; drop --rows, --layout, --start and --value-size");
	if (!have_rows && !lo->from)
		return cli_usage_fail("load",
				      "--rows N (or --from FILE) is required");
	return 0;
}

int cmd_load(int argc, char **argv)
{
	struct load_opts lo;
	struct ut_engine_stats s;
	struct ut_engine *eng;
	struct ut_err err = { "" };
	struct cli_progress prog;
	struct layout_gen gen;
	unsigned char *val;
	uint64_t done = 0, key = 0, t0;
	double secs;
	int ret;

	ret = load_parse(argc, argv, &lo);
	if (ret)
		return ret == 1 ? EXIT_OK : EXIT_ERROR; /* 1: --help */
	if (lo.from)
		return load_from(argv[optind], lo.from, &lo.eo);
	if (layout_init(&gen, lo.layout, lo.rows))
		return cli_fail("out of memory for %llu rows' layout",
				(unsigned long long)lo.rows);
	if (cli_engine_open(argv[optind], &lo.eo, &eng)) {
		layout_free(&gen);
		return EXIT_ERROR;
	}
	if (lo.value_size > ut_engine_value_max(eng)) {
		uint32_t max = ut_engine_value_max(eng);

		cli_engine_close(eng);
		layout_free(&gen);
		return cli_usage_fail("load",
				      "--value-size %llu exceeds %u, 1/8 of this store's page",
				      (unsigned long long)lo.value_size, max);
	}
	val = malloc(lo.value_size);
	t0 = ut_now_ns();
	cli_catch_interrupt();
	cli_progress_start(&prog, "rows", lo.rows);
	while (val && !cli_interrupted && !layout_next(&gen, &key)) {
		row_value(val, lo.value_size, lo.start + key, 1, 0);
		ret = ut_put(eng, lo.start + key, val, lo.value_size, &err);
		if (ret)
			break;
		done++;
		cli_progress_update(&prog, done);
	}
	cli_progress_end(&prog);
	free(val);
	layout_free(&gen);
	if (ret) {
		cli_fail_err(&err, ret);
		cli_engine_close(eng);
		fprintf(stderr,
			"untorn: load stopped after %llu rows; they are committed\n",
			(unsigned long long)done);
		return EXIT_ERROR;
	}
	/* the pages are written by the close's flush: count them after it */
	ret = ut_engine_close_stats(eng, &s, &err);
	secs = (ut_now_ns() - t0) / 1e9;
	if (ret)
		return cli_fail_err(&err, ret);
	if (cli_interrupted)
		return cli_interrupt_exit("load", done, lo.rows);
	printf("loaded %llu rows (%s layout, %llu-byte values) in %.2f s: %.0f rows/s, %llu pages written\n",
	       (unsigned long long)done, layout_name(lo.layout),
	       (unsigned long long)lo.value_size, secs,
	       done / (secs > 0 ? secs : 1),
	       (unsigned long long)s.pages_written);
	return EXIT_OK;
}
