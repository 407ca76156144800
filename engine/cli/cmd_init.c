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
"usage: untorn init DIR [--page-size SIZE] [--block-size SIZE] [--guard NAME] [--unsafe]\n"
"\n"
"Makes a new store in DIR (created if missing; must be empty).\n"
"\n"
"  --page-size SIZE   page size, a power of two from 4k to 64k (default 16k)\n"
"  --block-size SIZE  checksummed block size (default: the filesystem's block\n"
"                     size); every block carries its own LSN and CRC32C\n"
"  --guard NAME       how pages are kept untorn by a crash: doublewrite (default);\n"
"                     none (no protection, benchmarks only) needs --unsafe\n"
"  --unsafe           allow --guard none\n";

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
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ut_init_opts io = {
		.page_size = 16384,
		.guard = UT_GUARD_DOUBLEWRITE,
	};
	struct ut_err err = { "" };
	int c, guard, ret;

	while ((c = getopt_long(argc, argv, "p:b:g:uh", opts, NULL)) != -1) {
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
		case 'h':
			fputs(init_help, stdout);
			return EXIT_OK;
		default:
			return cli_usage_fail("init", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("init", "give exactly one DIR");
	ret = ut_store_init(argv[optind], &io, &err);
	if (ret)
		return cli_fail_err(&err, ret);
	printf("untorn: made store %s (page size %u, guard %s)\n",
	       argv[optind], io.page_size, ut_guard_name(io.guard));
	return EXIT_OK;
}
