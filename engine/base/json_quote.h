/* SPDX-License-Identifier: MIT */
/*
 * json_quote.h - a string as a JSON string literal: the one escaper of
 * every --json output (untorn's, untorn-fscheck's and its --mysql
 * report's, untorn-randwrite's).  Header-only, and in the library's base
 * layer so that each program takes it from the library, not from
 * another program (engine/LAYERS).
 */
#ifndef UNTORN_JSON_QUOTE_H
#define UNTORN_JSON_QUOTE_H

#include <stdio.h>

/* s between quotes, '"' and '\\' escaped, control bytes as \u00XX. */
static inline void json_quote(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

#endif
