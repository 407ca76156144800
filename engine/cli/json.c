// SPDX-License-Identifier: MIT
/*
 * json.c - a minimal streaming JSON writer for --json output.
 *
 * key is NULL for array elements.  Output is one object, two-space
 * indented, keys in the order written.
 */
#include "cli.h"
#include "base/json_quote.h"

static void json_sep(struct json *j, const char *key)
{
	int i;

	fputs(j->need_comma ? ",\n" : (j->depth ? "\n" : ""), j->out);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->out);
	if (key)
		fprintf(j->out, "\"%s\": ", key);
	j->need_comma = 1;
}

void json_begin(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->need_comma = 0;
	json_obj_open(j, NULL);
}

void json_end(struct json *j)
{
	json_obj_close(j);
	fputc('\n', j->out);
}

static void json_open(struct json *j, const char *key, char c)
{
	if (j->depth || j->need_comma)
		json_sep(j, key);
	fputc(c, j->out);
	j->depth++;
	j->need_comma = 0;
}

static void json_close(struct json *j, char c)
{
	int i;

	j->depth--;
	if (j->need_comma) {
		fputc('\n', j->out);
		for (i = 0; i < j->depth; i++)
			fputs("  ", j->out);
	}
	fputc(c, j->out);
	j->need_comma = 1;
}

void json_obj_open(struct json *j, const char *key)
{
	json_open(j, key, '{');
}

void json_obj_close(struct json *j)
{
	json_close(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	json_open(j, key, '[');
}

void json_arr_close(struct json *j)
{
	json_close(j, ']');
}

void json_str(struct json *j, const char *key, const char *val)
{
	json_sep(j, key);
	json_quote(j->out, val);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	json_sep(j, key);
	fprintf(j->out, "%llu", (unsigned long long)val);
}

void json_f64(struct json *j, const char *key, double val)
{
	json_sep(j, key);
	fprintf(j->out, "%.6f", val);
}

void json_bool(struct json *j, const char *key, int val)
{
	json_sep(j, key);
	fputs(val ? "true" : "false", j->out);
}
