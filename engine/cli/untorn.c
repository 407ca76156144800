// SPDX-License-Identifier: MIT
/*
 * untorn.c - the `untorn` command: dispatch to subcommands, shared error
 * output.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <untorn/engine.h>
#include <untorn/err.h>
#include "base/parse.h"
#include "cli.h"

#ifndef UNTORN_VERSION
#define UNTORN_VERSION "0.1.0"
#endif

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "init", cmd_init, "make a new store in DIR" },
	{ "info", cmd_info,
	  "print a store's superblock, checkpoint and I/O path" },
	{ "check", cmd_check,
	  "verify every block of every page (exit 1: corrupt pages)" },
	{ "put", cmd_put, "write one row: untorn put DIR KEY VALUE" },
	{ "get", cmd_get, "read one row: untorn get DIR KEY" },
	{ "delete", cmd_delete, "delete one row: untorn delete DIR KEY" },
	{ "txn", cmd_txn,
	  "one transaction of put/delete lines from stdin, all or nothing" },
	{ "load", cmd_load,
	  "insert N rows in a layout, or the rows of a dump (--from)" },
	{ "dump", cmd_dump,
	  "every row in key order on stdout (TSV or JSON lines)" },
	{ "bench", cmd_bench,
	  "bench write (TPS, commit latency) | bench scan (read-ahead)" },
	{ "recover", cmd_recover, "run crash recovery and report what it did" },
	{ "verify", cmd_verify,
	  "check acknowledged commits, value integrity and key order" },
	{ "guards", cmd_guards,
	  "the guards of this build and their facts (--list: names)" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The whole line in one write: lines of processes sharing a log never mix. */
static int fail_line(const char *prefix, const char *fmt, va_list ap,
		     const char *suffix)
{
	char line[1024];
	int n;

	n = snprintf(line, sizeof(line), "%s", prefix);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	n = strlen(line);
	snprintf(line + n, sizeof(line) - n, "%s\n", suffix);
	fputs(line, stderr);
	return EXIT_ERROR;
}

int cli_fail(const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fail_line("untorn: ", fmt, ap, "");
	va_end(ap);
	return ret;
}

int cli_usage_fail(const char *cmd, const char *fmt, ...)
{
	char prefix[64], suffix[96];
	va_list ap;
	int ret;

	snprintf(prefix, sizeof(prefix), "untorn %s: ", cmd);
	snprintf(suffix, sizeof(suffix), "; try 'untorn %s --help'", cmd);
	va_start(ap, fmt);
	ret = fail_line(prefix, fmt, ap, suffix);
	va_end(ap);
	return ret;
}

int cli_bad_option(const char *cmd, char **argv)
{
	char what[256];

	ut_getopt_error(argv, what, sizeof(what));
	return cli_usage_fail(cmd, "%s", what);
}

static int num_in_range(const char *cmd, const char *what, const char *arg,
			int ret, uint64_t min, uint64_t max, uint64_t val)
{
	if (ret || val < min || val > max)
		return cli_usage_fail(cmd, "%s %s is out of range (%llu..%llu)",
				      what, arg, (unsigned long long)min,
				      (unsigned long long)max);
	return 0;
}

int cli_parse_size(const char *cmd, const char *what, const char *arg,
		   uint64_t min, uint64_t max, uint64_t *out)
{
	int ret = ut_parse_size(arg, UINT64_MAX, out);

	if (ret == -EINVAL)
		return cli_usage_fail(cmd,
				      "%s '%s' is not a size (512, 16k, 8M, 1G)",
				      what, arg);
	return num_in_range(cmd, what, arg, ret, min, max, *out);
}

int cli_parse_count(const char *cmd, const char *what, const char *arg,
		    uint64_t min, uint64_t max, uint64_t *out)
{
	int ret = ut_parse_count(arg, 0, UINT64_MAX, out);

	if (ret == -EINVAL)
		return cli_usage_fail(cmd,
				      "%s '%s' is not a number: a count takes digits only, no unit",
				      what, arg);
	return num_in_range(cmd, what, arg, ret, min, max, *out);
}

int cli_parse_key(const char *cmd, const char *what, const char *arg,
		  uint64_t max, uint64_t *out)
{
	if (ut_parse_count(arg, 0, max, out))
		return cli_usage_fail(cmd,
				      "%s takes a whole number from 0 to %llu, not '%s'",
				      what, (unsigned long long)max, arg);
	return 0;
}

volatile sig_atomic_t cli_interrupted;

static void on_interrupt(int sig)
{
	cli_interrupted = sig;
}

int cli_catch_interrupt(void)
{
	struct sigaction sa = { .sa_handler = on_interrupt,
				.sa_flags = SA_RESETHAND | SA_RESTART };

	sigemptyset(&sa.sa_mask);
	return sigaction(SIGINT, &sa, NULL) ? -errno : 0;
}

int cli_interrupt_exit(const char *cmd, uint64_t done, uint64_t total)
{
	fprintf(stderr,
		"untorn %s: interrupted after %llu of %llu rows: those %llu are committed and durable, the store closed cleanly\n",
		cmd, (unsigned long long)done, (unsigned long long)total,
		(unsigned long long)done);
	return 128 + SIGINT;
}

unsigned cli_wait_ms;

int cli_parse_wait(const char *cmd, const char *arg)
{
	uint64_t s = 0;
	int ret;

	/* a day at most: beyond that a script is waiting for nothing */
	ret = cli_parse_count(cmd, "--wait", arg, 0, 86400, &s);
	if (!ret)
		cli_wait_ms = s * 1000;
	return ret;
}

int cli_fail_err(const struct ut_err *err, int ret)
{
	if (err->msg[0])
		return cli_fail("%s", err->msg);
	return cli_fail("%s", strerror(-ret));
}

int cli_engine_open(const char *dir, const struct ut_engine_opts *o,
		    struct ut_engine **engp)
{
	struct ut_recovery_report rep;
	struct ut_engine_opts with_wait = *o;
	struct ut_err err = { "" };
	int ret;

	with_wait.lock_wait_ms = cli_wait_ms;
	ret = ut_engine_open(dir, &with_wait, engp, &rep, &err);
	if (ret)
		return cli_fail_err(&err, ret);
	if (rep.needed || rep.guard_restored)
		fprintf(stderr,
			"untorn: %s was not shut down cleanly: recovered automatically (%llu pages restored from %s, %llu redo records applied up to LSN %llu)\n",
			dir, (unsigned long long)rep.guard_restored,
			rep.restored_from ? rep.restored_from : "a copy",
			(unsigned long long)rep.records_applied,
			(unsigned long long)rep.end_lsn);
	return 0;
}

int cli_engine_close(struct ut_engine *eng)
{
	struct ut_err err = { "" };
	int ret = ut_engine_close(eng, &err);

	return ret ? cli_fail_err(&err, ret) : 0;
}

int cli_parse_json_dir(const char *cmd, const char *help, int argc, char **argv,
		       int *as_json, const char **dir)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		CLI_OPT_WAIT,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	*as_json = 0;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			*as_json = 1;
			break;
		case 'W':
			if (cli_parse_wait(cmd, optarg))
				return EXIT_ERROR;
			break;
		case 'h':
			fputs(help, stdout);
			return 1;
		default:
			return cli_bad_option(cmd, argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail(cmd, "give exactly one DIR");
	*dir = argv[optind];
	return 0;
}

static void usage(FILE *out)
{
	unsigned i;

	fprintf(out, "usage: untorn COMMAND [OPTIONS] DIR\n\ncommands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-7s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out,
		"\n'untorn COMMAND --help' describes a command.\n"
		"exit status: 0 ok; 1 corrupt pages (check), lost or damaged rows\n"
		"(verify), no such key (get, delete); 2 error\n");
}

int main(int argc, char **argv)
{
	unsigned i;

	opterr = 0; /* cli_bad_option says it, in one line */
	if (argc < 2) {
		usage(stderr);
		return EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("untorn %s\n", UNTORN_VERSION);
		return EXIT_OK;
	}
	cli_inject_from_env();
	for (i = 0; i < N_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	return cli_fail("unknown command '%s'; run 'untorn --help' for the list",
			argv[1]);
}
