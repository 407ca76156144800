/* SPDX-License-Identifier: MIT */
/*
 * file.h - making a store's auxiliary files: preallocated, with a 4 KiB
 * header written and synced, the body zeros or a repeated block.
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
/* The same, with [hdr_len, size) filled with blk (blk_len bytes, a divisor
 * of 1 MiB) and synced before the header is written: a file whose
 * unwritten parts are not zeros, so zeros in it are damage. */
int ut_file_create_filled(const char *path, uint64_t size, const void *hdr,
			  uint32_t hdr_len, const void *blk, uint32_t blk_len,
			  const char *fix, struct ut_err *err);

/* fsync of the directory dir: a file made, linked or removed in it
 * durable; 0 or -errno. */
int ut_dir_sync(const char *dir);

/* Writes blk (blk_len bytes, a divisor of 1 MiB) over [from, size) of
 * fd, not synced; 0 or -errno. */
int ut_file_fill(int fd, uint64_t from, uint64_t size, const void *blk,
		 uint32_t blk_len);

#endif
