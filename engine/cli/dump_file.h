/* SPDX-License-Identifier: MIT */
/*
 * dump_file.h - the lines `untorn dump` writes, read back by `untorn load
 * --from`: "KEY<tab>HEX" (tsv) or {"key": KEY, "value": "HEX"} (jsonl).
 */
#ifndef UNTORN_DUMP_FILE_H
#define UNTORN_DUMP_FILE_H

#include <stdint.h>

/*
 * One line, without its newline: the key and the value (at most cap
 * bytes) in *key, val and *len.  Returns 0, or -EINVAL with what is
 * wrong in *why.
 */
int dump_line_parse(const char *line, uint64_t *key, unsigned char *val,
		    uint32_t cap, uint32_t *len, const char **why);

#endif
