/* SPDX-License-Identifier: MIT */
/*
 * space.h - page allocation in the data file: the count of pages in use
 * (the next page to hand out) and the file grown ahead of it.  Pages are
 * never freed (a store only grows, as an InnoDB tablespace without
 * purge); the count is written with every checkpoint.
 */
#ifndef UNTORN_SPACE_H
#define UNTORN_SPACE_H

#include <stdint.h>
#include "base/latch.h"
#include "store/store.h"

struct ut_space {
	struct ut_store *store;
	struct ut_mutex mutex; /* n_pages, file growth */
	uint32_t n_pages; /* in use: pages 0 .. n_pages - 1 */
};

/* n_pages: in use at open (the checkpoint's count). */
void ut_space_init(struct ut_space *sp, struct ut_store *st, uint32_t n_pages);
/* The next free page, growing the file when it is not there yet. */
int ut_space_alloc(struct ut_space *sp, uint32_t *page_no);
/* Grows the file so that n more pages can be allocated without growing
 * it (a page split that must not fail halfway for want of space). */
int ut_space_reserve(struct ut_space *sp, unsigned n);
uint32_t ut_space_pages(struct ut_space *sp);
/* Recovery: pages up to max_page are in use (redo wrote them), and the
 * file holds them. */
int ut_space_recovered(struct ut_space *sp, uint32_t max_page,
		       struct ut_err *err);

#endif
