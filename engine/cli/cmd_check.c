// SPDX-License-Identifier: MIT
/*
 * cmd_check.c - `untorn check DIR`: verify every block of every page;
 * exit 0 clean, 1 corrupt pages found, 2 error.
 */
#include <stdio.h>
#include "store/check.h"
#include "store/store.h"
#include "cli.h"

static const char check_help[] =
	"usage: untorn check DIR [--json] [--wait S]\n"
	"\n"
	"Reads every page of the store (64 pages per io_uring submission) and\n"
	"verifies every block: its CRC32C, that it belongs to this page, and that\n"
	"all blocks of a page come from the same write (a page torn between\n"
	"blocks is reported at the first block of the other write).  Prints each\n"
	"bad page and block.  Reads only, holding the store's lock shared: it\n"
	"runs beside other readers (check, info), never beside a command that\n"
	"writes, whose pages are not at rest.\n"
	"\n"
	"exit status: 0 clean, 1 corrupt pages found, 2 error\n"
	"\n" CLI_WAIT_HELP;

static void bad_text(const struct ut_check_bad *bad, void *user)
{
	(void)user;
	printf("page %u block %u: %s: %s\n", bad->page_no, bad->block,
	       bad->kind, bad->detail);
}

static void bad_json(const struct ut_check_bad *bad, void *user)
{
	struct json *j = user;

	json_obj_open(j, NULL);
	json_u64(j, "page", bad->page_no);
	json_u64(j, "block", bad->block);
	json_str(j, "kind", bad->kind);
	json_str(j, "detail", bad->detail);
	json_obj_close(j);
}

static void stats_json(struct json *j, const struct ut_check_stats *s)
{
	json_u64(j, "pages", s->pages);
	json_u64(j, "sound", s->sound);
	json_u64(j, "empty", s->empty);
	json_u64(j, "bad_pages", s->bad_pages);
	json_u64(j, "bad_blocks", s->bad_blocks);
	json_u64(j, "ios", s->ios);
	json_u64(j, "submits", s->submits);
	json_u64(j, "bytes", s->bytes);
	json_f64(j, "seconds", s->seconds);
}

static int check_store(const char *dir, int as_json)
{
	struct ut_check_stats s;
	struct ut_store *st;
	struct ut_err err = { "" };
	struct json j;
	int ret;

	ret = ut_store_open_wait(dir, UT_OPEN_RDONLY, cli_wait_ms, &st, &err);
	if (ret)
		return cli_fail_err(&err, ret);
	if (as_json) {
		json_begin(&j, stdout);
		json_str(&j, "store", dir);
		json_arr_open(&j, "bad");
	}
	ret = ut_check_run(st, as_json ? bad_json : bad_text, &j, &s, &err);
	ut_store_close(st);
	if (as_json) {
		json_arr_close(&j);
		if (!ret)
			stats_json(&j, &s);
		json_str(&j, "error", ret ? err.msg : "");
		json_end(&j);
	}
	if (ret)
		return cli_fail_err(&err, ret);
	if (!as_json)
		printf("%s: %llu pages: %llu sound, %llu empty, %llu bad (%llu bad blocks); %llu reads in %llu submits, %.3f s\n",
		       dir, (unsigned long long)s.pages,
		       (unsigned long long)s.sound, (unsigned long long)s.empty,
		       (unsigned long long)s.bad_pages,
		       (unsigned long long)s.bad_blocks,
		       (unsigned long long)s.ios, (unsigned long long)s.submits,
		       s.seconds);
	return s.bad_pages ? EXIT_CORRUPT : EXIT_OK;
}

int cmd_check(int argc, char **argv)
{
	const char *dir;
	int as_json, ret;

	ret = cli_parse_json_dir("check", check_help, argc, argv, &as_json,
				 &dir);
	if (ret)
		return ret == 1 ? EXIT_OK : ret;
	return check_store(dir, as_json);
}
