// SPDX-License-Identifier: MIT
/*
 * untorn.c - the `untorn` command: dispatch to subcommands, shared error
 * output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

#ifndef UNTORN_VERSION
#define UNTORN_VERSION "0.1.0"
#endif

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "init",  cmd_init,  "make a new store in DIR" },
	{ "info",  cmd_info,  "print a store's superblock, checkpoint and I/O path" },
	{ "check", cmd_check, "verify every block of every page (exit 1: corrupt pages)" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("untorn: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_ERROR;
}

int cli_usage_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "untorn %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; try 'untorn %s --help'\n", cmd);
	return EXIT_ERROR;
}

static void usage(FILE *out)
{
	unsigned i;

	fprintf(out, "usage: untorn COMMAND [OPTIONS] DIR\n\ncommands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-7s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'untorn COMMAND --help' describes a command.\n"
		"exit status: 0 ok, 1 corrupt pages found (check), 2 error\n");
}

int main(int argc, char **argv)
{
	unsigned i;

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
	for (i = 0; i < N_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	return cli_fail("unknown command '%s'; run 'untorn --help' for the list",
			argv[1]);
}
