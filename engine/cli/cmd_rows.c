// SPDX-License-Identifier: MIT
/*
 * cmd_rows.c - `untorn put | get | delete DIR KEY [VALUE]`: one row at a
 * time, each write committed durably before the command returns.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <untorn/engine.h>
#include "cli.h"

/*
 * "CMD DIR KEY [VALUE] [--wait S]": --wait and --help anywhere, every
 * other word positional, so a VALUE may start with '-' ("--" ends the
 * options too); before the VALUE a word starting with '-' is an unknown
 * option.  Returns 0 with pos[] the DIR, KEY (and VALUE), -1 after
 * printing the help, or EXIT_ERROR after a usage message.
 */
static int row_args(const char *cmd, int argc, char **argv, int want,
		    uint64_t *key, char **pos)
{
	const char *val = want == 3 ? " VALUE" : "";
	int i, n = 0, options = 1;

	for (i = 1; i < argc; i++) {
		if (options && !strcmp(argv[i], "--")) {
			options = 0;
		} else if (options && (!strcmp(argv[i], "--help") ||
				       !strcmp(argv[i], "-h"))) {
			printf("usage: untorn %s DIR KEY%s [--wait S]\n\n%s",
			       cmd, val, CLI_WAIT_HELP);
			return -1;
		} else if (options && !strcmp(argv[i], "--wait")) {
			if (i + 1 == argc)
				return cli_usage_fail(cmd,
						      "--wait needs SECONDS");
			if (cli_parse_wait(cmd, argv[++i]))
				return EXIT_ERROR;
		} else if (options && !strncmp(argv[i], "--wait=", 7)) {
			if (cli_parse_wait(cmd, argv[i] + 7))
				return EXIT_ERROR;
		} else if (options && n == 1 && argv[i][0] == '-' &&
			   argv[i][1] >= '0' && argv[i][1] <= '9') {
			/* a negative KEY: say so, not "unknown option" */
			return cli_usage_fail(cmd,
					      "KEY takes a whole number from 0 to %llu, not '%s'",
					      (unsigned long long)UINT64_MAX,
					      argv[i]);
		} else if (options && n < 2 && argv[i][0] == '-' &&
			   argv[i][1]) {
			/* DIR and KEY never start with '-' ("--" first if a
			 * DIR does); only a VALUE may */
			return cli_usage_fail(cmd, "unknown option '%s'",
					      argv[i]);
		} else if (n < want) {
			pos[n++] = argv[i];
		} else if (options && argv[i][0] == '-' && argv[i][1]) {
			/* after the last positional word: an option put last */
			return cli_usage_fail(cmd,
					      "unknown option '%s' (a VALUE starting with '-' goes after '--')",
					      argv[i]);
		} else {
			return cli_usage_fail(cmd,
					      "one word too many: '%s' after DIR KEY%s (quote a VALUE with spaces)",
					      argv[i], val);
		}
	}
	if (n != want)
		return cli_usage_fail(cmd, "give DIR KEY%s", val);
	return cli_parse_key(cmd, "KEY", pos[1], UINT64_MAX, key);
}

/* A small pool: a single-row command touches a few pages. */
static int row_open(const char *dir, struct ut_engine **engp)
{
	struct ut_engine_opts o;

	ut_engine_opts_default(&o);
	o.pool_bytes = 8 << 20;
	return cli_engine_open(dir, &o, engp);
}

int cmd_put(int argc, char **argv)
{
	struct ut_engine *eng;
	struct ut_err err = { "" };
	uint64_t key = 0;
	char *pos[3] = { NULL };
	int ret;

	ret = row_args("put", argc, argv, 3, &key, pos);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (row_open(pos[0], &eng))
		return EXIT_ERROR;
	ret = ut_put(eng, key, pos[2], strlen(pos[2]), &err);
	if (ret) {
		cli_engine_close(eng);
		return cli_fail_err(&err, ret);
	}
	return cli_engine_close(eng);
}

int cmd_get(int argc, char **argv)
{
	static char buf[65536];
	struct ut_engine *eng;
	uint32_t len;
	uint64_t key = 0;
	char *pos[3] = { NULL };
	int ret;

	ret = row_args("get", argc, argv, 2, &key, pos);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (row_open(pos[0], &eng))
		return EXIT_ERROR;
	ret = ut_get(eng, key, buf, sizeof(buf), &len);
	if (!ret)
		printf("%.*s\n", (int)len, buf);
	if (cli_engine_close(eng))
		return EXIT_ERROR;
	if (ret == -ENOENT) {
		fprintf(stderr, "untorn: key %llu not found\n",
			(unsigned long long)key);
		return EXIT_CORRUPT;
	}
	return ret ? cli_fail("read failed: %s", strerror(-ret)) : EXIT_OK;
}

int cmd_delete(int argc, char **argv)
{
	struct ut_engine *eng;
	struct ut_err err = { "" };
	uint64_t key = 0;
	char *pos[3] = { NULL };
	int ret;

	ret = row_args("delete", argc, argv, 2, &key, pos);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (row_open(pos[0], &eng))
		return EXIT_ERROR;
	ret = ut_delete(eng, key, &err);
	if (cli_engine_close(eng))
		return EXIT_ERROR;
	if (ret == -ENOENT) {
		fprintf(stderr, "untorn: %s\n", err.msg);
		return EXIT_CORRUPT;
	}
	return ret ? cli_fail_err(&err, ret) : EXIT_OK;
}
