/* SPDX-License-Identifier: MIT */
/*
 * file.h - making a store's auxiliary files: preallocated, with a 4 KiB
 * header written and synced.
 */
#ifndef UNTORN_FILE_H
#define UNTORN_FILE_H

#include <stdint.h>
#include <untorn/err.h>

/* Creates path (must not exist) of size bytes, writes hdr (hdr_len bytes,
 * 4 KiB-aligned buffer) at offset 0 and fdatasyncs.  On failure the
 * message names the file and `fix`. */
int ut_file_create(const char *path, uint64_t size, const void *hdr,
		   uint32_t hdr_len, const char *fix, struct ut_err *err);

#endif
