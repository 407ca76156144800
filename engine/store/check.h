/* SPDX-License-Identifier: MIT */
/*
 * check.h - reading every page of a store and verifying every block, the
 * way innochecksum does for InnoDB, but block by block.
 */
#ifndef UNTORN_CHECK_H
#define UNTORN_CHECK_H

#include <stdint.h>
#include "store/store.h"

#define UT_CHECK_BATCH 64 /* pages read per io_uring_submit */

struct ut_check_bad {
	uint32_t page_no;
	uint32_t block; /* block of the page; page 0: sector */
	const char *kind; /* checksum, torn, zeroed, misplaced, slot, ... */
	char detail[160];
};

struct ut_check_stats {
	uint64_t pages; /* pages read, page 0 included */
	uint64_t empty; /* allocated, never written */
	uint64_t sound;
	uint64_t bad_pages;
	uint64_t bad_blocks;
	uint64_t ios;
	uint64_t submits;
	uint64_t bytes;
	double seconds;
};

typedef void (*ut_check_fn)(const struct ut_check_bad *bad, void *user);

/* Returns 0 when the store was read through (bad pages go to fn and the
 * stats), or -errno when it could not be read. */
int ut_check_run(struct ut_store *st, ut_check_fn fn, void *user,
		 struct ut_check_stats *stats, struct ut_err *err);

#endif
