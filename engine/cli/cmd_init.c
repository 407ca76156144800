// SPDX-License-Identifier: MIT
/*
 * cmd_init.c - `untorn init DIR`: make a new store.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <untorn/store.h>
#include "log/redo.h"
#include "page/page.h"
#include "base/parse.h"
#include "cli.h"
#include "guard/guard.h"

static const char init_help_head[] =
	"usage: untorn init DIR [--page-size SIZE] [--block-size SIZE] [--guard NAME]\n"
	"                      [--log-size SIZE] [--redo-dir DIR] [GUARD OPTIONS]\n"
	"                      [--single-lsn] [--unsafe]\n"
	"\n"
	"Makes a new store in DIR (created if missing; must be empty).\n"
	"\n"
	"  --page-size SIZE   page size, a power of two from %uk to %uk (default %uk)\n"
	"  --block-size SIZE  checksummed block size (default: the filesystem's block\n"
	"                     size); every block carries its own LSN and CRC32C\n"
	"  --guard NAME       how pages are kept untorn by a crash (default %s;\n"
	"                     `untorn guards` says more):\n";

static const char init_help_tail[] =
	"                     a guard the filesystem cannot honour is refused, with the fix\n"
	"  --log-size SIZE    redo log size (default %uM, at least %uM)\n"
	"  --redo-dir DIR     the redo log in DIR (InnoDB's innodb_log_group_home_dir),\n"
	"                     e.g. on data=ordered beside a data=journal store; linked\n"
	"                     from the store as untorn.redo, DIR must be mounted at open\n"
	"  --single-lsn       one LSN and checksum per page (InnoDB's design, block size =\n"
	"                     page size): for crash simulations that show why untorn\n"
	"                     checksums blocks\n"
	"  --unsafe           allow a guard that needs it (none), and a guard this\n"
	"                     filesystem cannot honour (crash simulations); the store is\n"
	"                     not re-checked\n";

/* The help: the guards and their options from the table. */
static void init_help(void)
{
	const struct ut_guard_ops *ops;
	const struct ut_guard_opt *o;
	char arg[64];
	unsigned i;

	printf(init_help_head, UT_PAGE_SIZE_MIN >> 10, UT_PAGE_SIZE_MAX >> 10,
	       UT_PAGE_SIZE_DEFAULT >> 10, ut_guard_name(UT_GUARD_DEFAULT));
	for (i = 0; (ops = ut_guard_at(i)); i++)
		printf("                       %-12s %s\n", ops->name,
		       ops->help);
	printf(init_help_tail, UT_LOG_SIZE_DEFAULT >> 20,
	       UT_LOG_SIZE_MIN >> 20);
	for (i = 0; (ops = ut_guard_at(i)); i++) {
		if (ops->file && ops->file->dir_opt) {
			snprintf(arg, sizeof(arg), "--%s DIR",
				 ops->file->dir_opt);
			printf("  %-18s the %s (%s) in DIR, linked from the\n"
			       "                     store; guard %s only\n",
			       arg, ops->file->what, ops->file->name,
			       ops->name);
		}
		for (o = ops->opts; o && o->name; o++) {
			snprintf(arg, sizeof(arg), "--%s %s", o->name, o->arg);
			printf("  %-18s %s; guard %s only\n", arg, o->help,
			       ops->name);
		}
	}
}

static int parse_page_size(const char *arg, const char *what, uint32_t *out)
{
	uint64_t v;
	int ret;

	ret = ut_parse_size(arg, UINT32_MAX, &v);
	if (ret)
		return cli_usage_fail("init",
				      "%s '%s' is not a size; write it like 16k or 16384",
				      what, arg);
	*out = v;
	return 0;
}

enum {
	OPT_GUARD_DIR = 0x100, /* + the guard's index in the table */
	OPT_GUARD_ARG = 0x200, /* + the option's index in guard_opts */
};

#define INIT_OPTS_MAX 48

static const struct option base_opts[] = {
	{ "page-size", required_argument, NULL, 'p' },
	{ "block-size", required_argument, NULL, 'b' },
	{ "guard", required_argument, NULL, 'g' },
	{ "unsafe", no_argument, NULL, 'u' },
	{ "single-lsn", no_argument, NULL, 's' },
	{ "log-size", required_argument, NULL, 'l' },
	{ "redo-dir", required_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
};

/* The options: init's own, then each guard's directory option and its
 * own options (the table's); names[i] is what OPT_GUARD_ARG + i is. */
static void init_options(struct option *opts, const char **names)
{
	const struct ut_guard_ops *ops;
	const struct ut_guard_opt *o;
	unsigned i, n, k = 0;

	n = sizeof(base_opts) / sizeof(base_opts[0]);
	memcpy(opts, base_opts, sizeof(base_opts));
	for (i = 0; (ops = ut_guard_at(i)) && n < INIT_OPTS_MAX - 1; i++) {
		if (ops->file && ops->file->dir_opt)
			opts[n++] = (struct option){ ops->file->dir_opt,
						     required_argument, NULL,
						     OPT_GUARD_DIR + (int)i };
		for (o = ops->opts; o && o->name && n < INIT_OPTS_MAX - 1;
		     o++) {
			names[k] = o->name;
			opts[n++] = (struct option){ o->name, required_argument,
						     NULL,
						     OPT_GUARD_ARG + (int)k };
			k++;
		}
	}
	opts[n] = (struct option){ 0 };
}

/* A guard's option or directory, for the guard that owns it: refused
 * here with its name when the store's guard is another. */
static int init_guard_opt(int c, const char *const *names, const char *arg,
			  struct ut_init_opts *io, const char **dir_of)
{
	struct ut_guard_args *a = &io->guard_args;

	if (c >= OPT_GUARD_ARG) {
		if (a->n >= UT_GUARD_ARGS_MAX)
			return cli_usage_fail("init",
					      "too many guard options; give at most %u",
					      UT_GUARD_ARGS_MAX);
		a->v[a->n].name = names[c - OPT_GUARD_ARG];
		a->v[a->n].value = arg;
		a->n++;
		return 0;
	}
	io->guard_dir = arg;
	*dir_of = ut_guard_at((unsigned)(c - OPT_GUARD_DIR))->name;
	return 0;
}

/* Each guard option given is the chosen guard's. */
static int init_guard_opts_fit(const struct ut_init_opts *io,
			       const char *dir_of)
{
	const char *guard = ut_guard_name(io->guard);
	const struct ut_guard_ops *owner;
	unsigned i;

	if (dir_of && strcmp(dir_of, guard))
		return cli_usage_fail("init",
				      "--%s is for the %s guard; guard '%s' has no %s",
				      ut_guard_find(dir_of)->file->dir_opt,
				      dir_of, guard,
				      ut_guard_find(dir_of)->file->what);
	for (i = 0; i < io->guard_args.n; i++) {
		owner = ut_guard_opt_owner(io->guard_args.v[i].name);
		if (strcmp(owner->name, guard))
			return cli_usage_fail("init",
					      "--%s is for the %s guard; guard '%s' does not take it",
					      io->guard_args.v[i].name,
					      owner->name, guard);
	}
	return 0;
}

int cmd_init(int argc, char **argv)
{
	struct option opts[INIT_OPTS_MAX];
	const char *names[INIT_OPTS_MAX], *dir_of = NULL;
	struct ut_init_opts io = {
		.page_size = UT_PAGE_SIZE_DEFAULT,
		.guard = UT_GUARD_DEFAULT,
	};
	struct ut_err err = { "" };
	int c, guard, ret;

	init_options(opts, names);
	while ((c = getopt_long(argc, argv, "p:b:g:ush", opts, NULL)) != -1) {
		if (c >= OPT_GUARD_DIR) {
			if (init_guard_opt(c, names, optarg, &io, &dir_of))
				return EXIT_ERROR;
			continue;
		}
		switch (c) {
		case 'p':
			if (parse_page_size(optarg, "page size", &io.page_size))
				return EXIT_ERROR;
			break;
		case 'b':
			if (parse_page_size(optarg, "block size",
					    &io.block_size))
				return EXIT_ERROR;
			break;
		case 'g':
			guard = ut_guard_parse(optarg);
			if (guard < 0)
				return cli_usage_fail("init",
						      "unknown guard '%s' (%s)",
						      optarg, ut_guard_names());
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
		case 'h':
			init_help();
			return EXIT_OK;
		default:
			return cli_bad_option("init", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("init", "give exactly one DIR");
	if (init_guard_opts_fit(&io, dir_of))
		return EXIT_ERROR;
	ret = ut_store_init(argv[optind], &io, &err);
	if (ret)
		return cli_fail_err(&err, ret);
	printf("untorn: made store %s (page size %u, guard %s)\n", argv[optind],
	       io.page_size, ut_guard_name(io.guard));
	return EXIT_OK;
}
