// SPDX-License-Identifier: MIT
/*
 * load_from.c - `untorn load DIR --from FILE`: the rows of `untorn dump`
 * put back.  The file is read twice: first every line is checked (its
 * form, its value's size against the store's largest, keys in strictly
 * increasing order, as a dump writes them), and only a file that passes
 * is loaded, so a damaged dump changes nothing.  "-" reads stdin, which
 * is copied to a temporary file for the second pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store/store.h"
#include "cli.h"
#include "dump_file.h"
#include "load_from.h"
#include "progress.h"

/* stdin kept for the second pass */
static FILE *spool_stdin(void)
{
	char buf[65536];
	FILE *tmp = tmpfile();
	size_t n;

	if (!tmp)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		if (fwrite(buf, 1, n, tmp) != n) {
			fclose(tmp);
			return NULL;
		}
	if (ferror(stdin) || fflush(tmp)) {
		fclose(tmp);
		return NULL;
	}
	rewind(tmp);
	return tmp;
}

struct pass {
	FILE *f;
	const char *file;
	unsigned char *val;
	uint32_t cap;
	uint64_t lines;
};

/*
 * The next row of the file: 1 and the row in *key, p->val and *len; 0 at
 * the end; -EINVAL for a line that is not a dump's, why saying so.  Both
 * passes read the file through this.
 */
static int next_row(struct pass *p, char **line, size_t *size, uint64_t *key,
		    uint32_t *len, const char **why)
{
	ssize_t n = getline(line, size, p->f);

	if (n <= 0)
		return 0;
	if ((*line)[n - 1] == '\n')
		(*line)[n - 1] = '\0';
	return dump_line_parse(*line, key, p->val, p->cap, len, why) ?: 1;
}

/* pass 1: every line readable, keys in order; the count in p->lines */
static int check_all(struct pass *p)
{
	uint64_t key, prev = 0;
	const char *why = NULL;
	char *line = NULL;
	size_t size = 0;
	uint32_t len;
	int ret;

	p->lines = 0;
	while ((ret = next_row(p, &line, &size, &key, &len, &why)) != 0) {
		p->lines++;
		if (ret < 0)
			break;
		if (p->lines > 1 && key <= prev) {
			why = "keys out of order (a dump is in key order): a damaged or edited file";
			ret = -EINVAL;
			break;
		}
		prev = key;
	}
	free(line);
	if (ret < 0)
		return cli_fail("load --from %s:%llu: %s; nothing was loaded",
				p->file, (unsigned long long)p->lines, why);
	if (ferror(p->f))
		return cli_fail("load --from %s: %s", p->file, strerror(errno));
	return 0;
}

/* pass 2: the rows in, until the end or Ctrl-C (cli_interrupted) */
static int put_all(struct pass *p, struct ut_engine *eng, uint64_t *done)
{
	struct ut_err err = { "" };
	struct cli_progress prog;
	uint64_t key;
	const char *why;
	char *line = NULL;
	size_t size = 0;
	uint32_t len;
	int ret = 0;

	rewind(p->f);
	cli_catch_interrupt();
	cli_progress_start(&prog, "rows", p->lines);
	while (!ret && !cli_interrupted &&
	       (ret = next_row(p, &line, &size, &key, &len, &why)) == 1) {
		ret = ut_put(eng, key, p->val, len, &err);
		if (!ret)
			cli_progress_update(&prog, ++*done);
	}
	cli_progress_end(&prog);
	free(line);
	if (ret < 0)
		return cli_fail("load --from %s: stopped after %llu rows (they are committed): %s",
				p->file, (unsigned long long)*done,
				err.msg[0] ? err.msg : strerror(-ret));
	return 0;
}

/* The largest value the store takes, read without writing to it. */
static int store_value_max(const char *dir, uint32_t *cap)
{
	struct ut_err err = { "" };
	struct ut_store *st;
	int ret;

	ret = ut_store_open_wait(dir, UT_OPEN_RDONLY, cli_wait_ms, &st, &err);
	if (ret) {
		cli_fail_err(&err, ret);
		return EXIT_ERROR;
	}
	*cap = st->geom.area_size / UT_VALUE_MAX_FRACTION;
	ut_store_close(st);
	if (!*cap) { /* no geometry the superblock's checks let through */
		cli_fail("%s: its pages hold no row; run untorn check %s", dir,
			 dir);
		return EXIT_ERROR;
	}
	return 0;
}

/* pass 2 on the store opened for writing; the status */
static int load_rows(const char *dir, struct pass *p,
		     const struct ut_engine_opts *eo)
{
	struct ut_engine *eng;
	uint64_t done = 0;
	int ret;

	if (cli_engine_open(dir, eo, &eng))
		return EXIT_ERROR;
	ret = put_all(p, eng, &done);
	if (cli_engine_close(eng))
		return EXIT_ERROR;
	if (ret)
		return ret;
	if (cli_interrupted)
		return cli_interrupt_exit("load", done, p->lines);
	printf("loaded %llu rows from %s\n", (unsigned long long)done, p->file);
	return EXIT_OK;
}

/*
 * Every line is checked before the store is opened for writing: a file
 * that is not a dump, or holds no rows, leaves the store untouched.
 */
int load_from(const char *dir, const char *file,
	      const struct ut_engine_opts *eo)
{
	struct pass p = { .file = file };
	int ret;

	p.f = strcmp(file, "-") ? fopen(file, "r") : spool_stdin();
	if (!p.f)
		return cli_fail("load --from %s: %s; give a file written by untorn dump",
				file, strerror(errno));
	ret = store_value_max(dir, &p.cap);
	if (ret)
		goto out_file;
	p.val = malloc(p.cap);
	ret = p.val ? check_all(&p) : cli_fail("out of memory");
	if (ret)
		goto out_val;
	if (p.lines)
		ret = load_rows(dir, &p, eo);
	else
		printf("loaded 0 rows from %s: it holds none, the store is unchanged\n",
		       file);
out_val:
	free(p.val);
out_file:
	fclose(p.f);
	return ret;
}
