// SPDX-License-Identifier: MIT
/*
 * cmd_init.c - `untorn init DIR`: make a new store.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <untorn/page.h>
#include <untorn/parse.h>
#include <untorn/store.h>
#include "cli.h"

static const char init_help[] =
	"usage: untorn init DIR [--page-size SIZE] [--block-size SIZE] [--guard NAME]\n"
	"                      [--log-size SIZE] [--redo-dir DIR] [--dblwr-dir DIR]\n"
	"                      [--single-lsn] [--unsafe]\n"
	"\n"
	"Makes a new store in DIR (created if missing; must be empty).\n"
	"\n"
	"  --page-size SIZE   page size, a power of two from 4k to 64k (default 16k)\n"
	"  --block-size SIZE  checksummed block size (default: the filesystem's block\n"
	"                     size); every block carries its own LSN and CRC32C\n"
	"  --guard NAME       how pages are kept untorn by a crash:\n"
	"                       doublewrite  a synced copy first (default; any filesystem)\n"
	"                       journal      ext4 data=journal + per-block LSNs and redo\n"
	"                       atomic       O_DIRECT + RWF_ATOMIC (statx atomic unit >= page)\n"
	"                       none         nothing (benchmarks only; needs --unsafe)\n"
	"                     a guard the filesystem cannot honour is refused, with the fix\n"
	"  --log-size SIZE    redo log size (default 64M, at least 8M)\n"
	"  --redo-dir DIR     the redo log in DIR (InnoDB's innodb_log_group_home_dir),\n"
	"                     e.g. on data=ordered beside a data=journal store; linked\n"
	"                     from the store as untorn.redo, DIR must be mounted at open\n"
	"  --dblwr-dir DIR    the doublewrite file in DIR (innodb_doublewrite_dir);\n"
	"                     doublewrite guard only\n"
	"  --single-lsn       one LSN and checksum per page (InnoDB's design, block size =\n"
	"                     page size): for crash simulations that show why untorn\n"
	"                     checksums blocks\n"
	"  --unsafe           allow --guard none, and a guard this filesystem cannot\n"
	"                     honour (crash simulations); the store is not re-checked\n";

static int parse_page_size(const char *arg, const char *what, uint32_t *out)
{
	uint64_t v;
	int ret;

	ret = ut_parse_size(arg, UINT32_MAX, &v);
	if (ret)
		return cli_usage_fail("init", "%s '%s' is not a size; write it like 16k or 16384",
				      what, arg);
	*out = v;
	return 0;
}

int cmd_init(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "page-size", required_argument, NULL, 'p' },
		{ "block-size", required_argument, NULL, 'b' },
		{ "guard", required_argument, NULL, 'g' },
		{ "unsafe", no_argument, NULL, 'u' },
		{ "single-lsn", no_argument, NULL, 's' },
		{ "log-size", required_argument, NULL, 'l' },
		{ "redo-dir", required_argument, NULL, 'r' },
		{ "dblwr-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ut_init_opts io = {
		.page_size = 16384,
		.guard = UT_GUARD_DOUBLEWRITE,
	};
	struct ut_err err = { "" };
	int c, guard, ret;

	while ((c = getopt_long(argc, argv, "p:b:g:ush", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_page_size(optarg, "page size", &io.page_size))
				return EXIT_ERROR;
			break;
		case 'b':
			if (parse_page_size(optarg, "block size", &io.block_size))
				return EXIT_ERROR;
			break;
		case 'g':
			guard = ut_guard_parse(optarg);
			if (guard < 0)
				return cli_usage_fail("init", "unknown guard '%s' (doublewrite, journal, atomic, none)",
						      optarg);
			io.guard = guard;
			break;
		case 'u':
			io.unsafe = 1;
			break;
		case 's':
			io.single_lsn = 1;
			break;
		case 'l':
			if (cli_parse_size("init", "--log-size", optarg,
					   8 << 20, 1ull << 40, &io.log_size))
				return EXIT_ERROR;
			break;
		case 'r':
			io.redo_dir = optarg;
			break;
		case 'd':
			io.dblwr_dir = optarg;
			break;
		case 'h':
			fputs(init_help, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("init", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("init", "give exactly one DIR");
	ret = ut_store_init(argv[optind], &io, &err);
	if (ret)
		return cli_fail_err(&err, ret);
	printf("untorn: made store %s (page size %u, guard %s)\n", argv[optind],
	       io.page_size, ut_guard_name(io.guard));
	return EXIT_OK;
}
