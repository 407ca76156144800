// SPDX-License-Identifier: MIT
/*
 * cmd_txn.c - `untorn txn DIR`: one transaction of the put and delete
 * lines read from stdin, committed at their end (all or nothing), or let
 * go with --abort.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/engine.h>
#include "base/err.h"
#include "cli.h"

static const char txn_help[] =
	"usage: untorn txn DIR [--abort] [--json] [--wait S]\n"
	"\n"
	"Reads one transaction from stdin, a write a line:\n"
	"  put KEY VALUE   (VALUE: the rest of the line, spaces kept)\n"
	"  delete KEY\n"
	"(blank lines and lines starting with '#' are skipped), and commits it\n"
	"at the end of the input: every write, or none after any crash.  A key\n"
	"written twice keeps its last write.  Nothing is applied when a line is\n"
	"malformed or a delete names a key that is not there (exit 1): one line\n"
	"says which.  Its size is bounded by memory: a transaction larger than\n"
	"one redo group is written to a commit file in DIR first (durable\n"
	"before any write is applied; applied by the next open after a crash),\n"
	"and refused with nothing applied when that file does not fit.\n"
	"  --abort   read and check every line, then roll back: nothing changes\n"
	"  --json    the outcome as JSON on stdout\n" CLI_WAIT_HELP;

/* Parses "KEY" or "KEY VALUE" after the verb: the value's start in *val
 * (NULL for none). */
static int parse_key(const char *s, uint64_t *key, const char **val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*key = strtoull(s, &end, 10);
	if (errno || (*end && *end != ' '))
		return -EINVAL;
	*val = *end ? end + 1 : NULL;
	return 0;
}

/* One input line into t: 0, or a line of what is wrong (-errno). */
static int txn_line(struct ut_txn *t, char *line, unsigned no,
		    struct ut_err *err)
{
	const char *val;
	uint64_t key;
	int ret;

	if (!strncmp(line, "put ", 4)) {
		if (parse_key(line + 4, &key, &val) || !val)
			return ut_err_set(err, -EINVAL,
					  "line %u: 'put KEY VALUE' wants a KEY from 0 to %llu and a VALUE after one space",
					  no, (unsigned long long)UINT64_MAX);
		ret = ut_txn_put(t, key, val, strlen(val), err);
	} else if (!strncmp(line, "delete ", 7)) {
		if (parse_key(line + 7, &key, &val) || val)
			return ut_err_set(err, -EINVAL,
					  "line %u: 'delete KEY' wants one KEY from 0 to %llu",
					  no, (unsigned long long)UINT64_MAX);
		ret = ut_txn_delete(t, key, err);
	} else {
		return ut_err_set(err, -EINVAL,
				  "line %u: '%.40s' is neither 'put KEY VALUE' nor 'delete KEY'",
				  no, line);
	}
	if (ret) { /* the engine's message, with where it came from */
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "line %u: %s", no, err->msg);
		ut_err_set(err, ret, "%s", msg);
	}
	return ret;
}

/* Every line of in into t; *writes counts them. */
static int txn_read(struct ut_txn *t, FILE *in, struct ut_err *err)
{
	size_t cap = 0;
	char *line = NULL;
	unsigned no = 0;
	ssize_t n;
	int ret = 0;

	while (!ret && (n = getline(&line, &cap, in)) >= 0) {
		no++;
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		if (n && line[n - 1] == '\r')
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		ret = txn_line(t, line, no, err);
	}
	if (!ret && ferror(in))
		ret = ut_err_set(err, -EIO, "reading stdin: %s",
				 strerror(errno));
	free(line);
	return ret;
}

static void txn_report(int as_json, int abort, const struct ut_txn *t, int ret)
{
	struct json j;

	if (!as_json) {
		if (!ret)
			printf("%s: %u writes\n",
			       abort ? "rolled back" : "committed", t->writes);
		return;
	}
	json_begin(&j, stdout);
	json_bool(&j, "committed", !ret && !abort);
	json_u64(&j, "writes", t->writes);
	json_u64(&j, "lsn", !ret && !abort ? t->lsn : 0);
	json_end(&j);
}

int cmd_txn(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "abort", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		CLI_OPT_WAIT,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ut_engine_opts o;
	struct ut_err err = { "" };
	struct ut_engine *eng;
	int c, abort = 0, as_json = 0, ret;
	struct ut_txn t;

	while ((c = getopt_long(argc, argv, "ajh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			abort = 1;
			break;
		case 'j':
			as_json = 1;
			break;
		case 'W':
			if (cli_parse_wait("txn", optarg))
				return EXIT_ERROR;
			break;
		case 'h':
			fputs(txn_help, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("txn", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("txn",
				      "give exactly one DIR (the writes come on stdin)");
	ut_engine_opts_default(&o);
	if (cli_engine_open(argv[optind], &o, &eng))
		return EXIT_ERROR;
	ut_txn_begin(eng, &t);
	ret = txn_read(&t, stdin, &err);
	if (ret || abort)
		ut_txn_rollback(&t);
	else
		ret = ut_txn_commit(&t, &err);
	txn_report(as_json, abort, &t, ret);
	if (cli_engine_close(eng))
		return EXIT_ERROR;
	if (ret)
		cli_fail_err(&err, ret);
	return ret == -ENOENT ? EXIT_CORRUPT : ret ? EXIT_ERROR : EXIT_OK;
}
