// SPDX-License-Identifier: MIT
/*
 * space.c - page allocation in the data file (space.h).
 */
#include "store/space.h"

void ut_space_init(struct ut_space *sp, struct ut_store *st, uint32_t n_pages)
{
	sp->store = st;
	sp->n_pages = n_pages;
	ut_mutex_init(&sp->mutex, UT_LATCH_ALLOC);
}

int ut_space_alloc(struct ut_space *sp, uint32_t *page_no)
{
	int ret = 0;

	ut_mutex_lock(&sp->mutex);
	if (sp->n_pages >= sp->store->file_pages)
		ret = ut_store_grow(sp->store, (uint64_t)sp->n_pages + 1, NULL);
	if (!ret)
		*page_no = sp->n_pages++;
	ut_mutex_unlock(&sp->mutex);
	return ret;
}

int ut_space_reserve(struct ut_space *sp, unsigned n)
{
	int ret;

	ut_mutex_lock(&sp->mutex);
	ret = ut_store_grow(sp->store, (uint64_t)sp->n_pages + n, NULL);
	ut_mutex_unlock(&sp->mutex);
	return ret;
}

uint32_t ut_space_pages(struct ut_space *sp)
{
	uint32_t n;

	ut_mutex_lock(&sp->mutex);
	n = sp->n_pages;
	ut_mutex_unlock(&sp->mutex);
	return n;
}

int ut_space_recovered(struct ut_space *sp, uint32_t max_page,
		       struct ut_err *err)
{
	int ret;

	ut_mutex_lock(&sp->mutex);
	if (max_page >= sp->n_pages)
		sp->n_pages = max_page + 1;
	ret = ut_store_grow(sp->store, sp->n_pages, err);
	ut_mutex_unlock(&sp->mutex);
	return ret;
}
