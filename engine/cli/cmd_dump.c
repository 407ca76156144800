// SPDX-License-Identifier: MIT
/*
 * cmd_dump.c - `untorn dump DIR`: every row in key order on stdout, read
 * through logical read-ahead (mysqldump's job, where Facebook measured
 * read-ahead), as TSV ("KEY<tab>VALUE-IN-HEX") or JSON lines; `untorn
 * load --from FILE` reads either back (dump_file.c).  On a terminal,
 * stderr shows the rows, MB/s and the time left, estimated from how far
 * through the key range the scan is.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/engine.h>
#include "cli.h"
#include "progress.h"
#include "ra_opts.h"
#include "scan_defaults.h"
#include "scan_yield_opts.h"

/* The help, with the defaults it states from where they are set. */
static void dump_help(void)
{
	printf("usage: untorn dump DIR [--format tsv|jsonl] [--lra-size SIZE]\n"
	       "                   [--lra-sleep MS | --lra-spare PCT]\n"
	       "                   [--device-iops N --device-mbps N] [--pool SIZE] [--wait S]\n"
	       "\n"
	       "Writes every row in key order to stdout, read through logical\n"
	       "read-ahead: tsv (default) is KEY, a tab and the value in hex, a row a\n"
	       "line; jsonl is {\"key\": KEY, \"value\": \"HEX\"} a line.  `untorn load\n"
	       "DIR2 --from FILE` restores either into a store.  On a terminal, stderr\n"
	       "shows the rows, MB/s and the time left (from how far through the key\n"
	       "range the scan is).  --lra-size and --lra-sleep: the read-ahead window\n"
	       "and the pause between windows, and --device-iops/--device-mbps: the\n"
	       "disk's figures, to merge reads as the bound does, as for `untorn bench\n"
	       "scan` (default %u leaves, exact merges).\n"
	       "--lra-spare PCT: the dump yields to other work on the store's disk:\n"
	       "before each window it pauses so that the sectors other processes read\n"
	       "and write a second stay at PCT %% (default %u; 0: never pause) of their\n"
	       "rate while it pauses; with no other work, or %u sectors a second or\n"
	       "less (the filesystem's own commits), there is no pause.  Output to a\n"
	       "file on the store's disk is the dump's own: it is put on the disk\n"
	       "before each count (on ext4 data=journal its later home writes count\n"
	       "as others': pipe it elsewhere there).  A disk\n"
	       "that cannot be watched (the store on btrfs, FUSE, tmpfs or NFS) is said\n"
	       "on stderr, and the dump runs at full speed: --lra-sleep MS pauses by\n"
	       "hand.  stderr's last lines: the rows and time, and what the yield did\n"
	       "and what the other work kept of its speed.\n"
	       "exit status: 0, or 2 on an error (a damaged tree, a full disk).\n"
	       "\n" CLI_WAIT_HELP,
	       UT_SCAN_WINDOW_DEFAULT, UT_SCAN_SPARE_DEFAULT,
	       UT_SCAN_SECTORS_FLOOR);
}

struct dump_state {
	FILE *out;
	int jsonl;
	char *line; /* a row as written: key, value in hex, end */
	size_t line_cap;
	uint64_t rows, bytes, first, last;
	struct cli_progress prog;
	int err; /* errno of a failed write */
};

static const char hexdig[] = "0123456789abcdef";

/* a line's room beyond the value's hex: the key, the JSON around it */
#define DUMP_LINE_EXTRA 64

static int dump_row(uint64_t key, const void *val, uint32_t len, void *user)
{
	struct dump_state *d = user;
	const unsigned char *v = val;
	uint32_t i;
	double span;
	size_t n;

	/* the row in one write: a locked putc a hex digit was most of a
	 * dump's CPU (perf: 72 %) */
	if (len > (d->line_cap - DUMP_LINE_EXTRA) / 2) {
		d->err = EOVERFLOW;
		return 1;
	}
	n = (size_t)snprintf(d->line, DUMP_LINE_EXTRA,
			     d->jsonl ? "{\"key\": %llu, \"value\": \"" :
					"%llu\t",
			     (unsigned long long)key);
	for (i = 0; i < len; i++) {
		d->line[n++] = hexdig[v[i] >> 4];
		d->line[n++] = hexdig[v[i] & 15];
	}
	n += (size_t)sprintf(d->line + n, "%s", d->jsonl ? "\"}\n" : "\n");
	if (fwrite(d->line, 1, n, d->out) != n || ferror(d->out)) {
		d->err = errno ? errno : EIO;
		return 1;
	}
	d->rows++;
	d->bytes += len;
	/* the share of the key range passed */
	span = d->last > d->first ? (double)(d->last - d->first) : 1;
	cli_progress_update_share(&d->prog, d->rows, (key - d->first) / span,
				  d->bytes);
	return 0;
}

struct first_key {
	uint64_t key;
	int found;
};

static int first_from(uint64_t key, const void *val, uint32_t len, void *user)
{
	struct first_key *f = user;

	(void)val;
	(void)len;
	f->key = key;
	f->found = 1;
	return 1; /* the first is all it needs */
}

/* whether a key at or after from exists; the first such in *key */
static int has_key_from(struct ut_engine *eng, uint64_t from, uint64_t *key)
{
	struct first_key f = { 0 };

	ut_scan(eng, from, first_from, &f);
	*key = f.key;
	return f.found;
}

/* the smallest and largest key, for the estimate: a binary search of
 * short scans */
static void key_range(struct ut_engine *eng, uint64_t *first, uint64_t *last)
{
	uint64_t lo = 0, hi = UINT64_MAX, mid, k;

	*first = *last = 0;
	if (!has_key_from(eng, 0, first))
		return;
	lo = *first;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2 + 1;
		if (has_key_from(eng, mid, &k))
			lo = k;
		else
			hi = mid - 1;
	}
	*last = lo;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' }, CLI_RA_OPTIONS,
		{ "pool", required_argument, NULL, 'p' },   CLI_OPT_WAIT,
		{ "help", no_argument, NULL, 'h' },	    { 0 }
	};
	struct cli_ra ra = { .cmd = "dump" };
	struct ut_scan_opts so;
	struct dump_state d = { .out = stdout };
	struct ut_engine_opts eo;
	struct ut_scan_stats st;
	struct cli_yield cy;
	struct ut_engine *eng;
	int c, ret;

	ut_engine_opts_default(&eo);
	ut_scan_opts_default(&so);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "tsv") && strcmp(optarg, "jsonl"))
				return cli_usage_fail("dump",
						      "--format is tsv or jsonl, not '%s'",
						      optarg);
			d.jsonl = !strcmp(optarg, "jsonl");
			break;
		case 'L':
		case 'S':
		case 'Y':
		case 'I':
		case 'M':
			if (cli_ra_option(&ra, c, optarg))
				return EXIT_ERROR;
			break;
		case 'p':
			if (cli_parse_size("dump", "--pool", optarg, 1 << 20,
					   1ull << 40, &eo.pool_bytes))
				return EXIT_ERROR;
			ra.pool_arg = optarg;
			break;
		case 'W':
			if (cli_parse_wait("dump", optarg))
				return EXIT_ERROR;
			break;
		case 'h':
			dump_help();
			return EXIT_OK;
		default:
			return cli_bad_option("dump", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("dump", "give exactly one DIR");
	if (cli_ra_check(&ra, eo.pool_bytes))
		return EXIT_ERROR;
	if (cli_engine_open(argv[optind], &eo, &eng))
		return EXIT_ERROR;
	if (cli_ra_apply(&ra, eng, &so, 1)) {
		cli_engine_close(eng);
		return EXIT_ERROR;
	}
	d.line_cap = 2 * (size_t)ut_engine_value_max(eng) + DUMP_LINE_EXTRA;
	d.line = malloc(d.line_cap);
	if (!d.line) {
		cli_engine_close(eng);
		return cli_fail("dump %s: out of memory", argv[optind]);
	}
	cli_progress_start(&d.prog, "rows", 0);
	if (d.prog.on) /* the estimate's probes cost a few reads: only for it */
		key_range(eng, &d.first, &d.last);
	cli_yield_setup(&cy, &ra, eng, &so, NULL, NULL, NULL, NULL);
	cli_yield_output(&cy, d.out);
	ret = ut_scan_readahead_yield(eng, 0, dump_row, &d, &so,
				      cli_yield_of(&cy), &st);
	cli_progress_end(&d.prog);
	free(d.line);
	if (!ret && fflush(d.out))
		d.err = errno ? errno : EIO;
	if (d.err) {
		cli_engine_close(eng);
		return cli_fail("dump %s: writing stdout failed after %llu rows: %s; check the disk the output goes to",
				argv[optind], (unsigned long long)d.rows,
				strerror(d.err));
	}
	if (ret) {
		cli_engine_close(eng);
		return cli_fail("dump %s: the scan failed after %llu rows: %s; run untorn check",
				argv[optind], (unsigned long long)d.rows,
				strerror(-ret));
	}
	fprintf(stderr,
		"untorn: dumped %llu rows (%.1f MB of values) in %.2f s\n",
		(unsigned long long)d.rows, d.bytes / 1e6, st.seconds);
	fputs("untorn: dump ", stderr);
	cli_yield_print(&cy, st.seconds, stderr);
	return cli_engine_close(eng) ? EXIT_ERROR : EXIT_OK;
}
