// SPDX-License-Identifier: MIT
/*
 * guard_doublewrite.c - the doublewrite guard (InnoDB's): each batch is
 * first written to a segment of the doublewrite file and synced, then in
 * place; a page torn in place is restored from its copy at recovery.
 * The segments themselves are dblwr.c.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "guard/guard.h"

static int dw_create(const char *path, const struct ut_guard_init *o,
		     const struct ut_sb *sb, struct ut_err *err)
{
	return ut_dblwr_create(path, o->dblwr_segments ? o->dblwr_segments : UT_DBLWR_SEGMENTS_DEFAULT,
			       o->dblwr_batch ? o->dblwr_batch : UT_DBLWR_BATCH_DEFAULT,
			       sb->page_size, err);
}

static int dw_open(struct ut_page_guard *g, const char *dir,
		   const uint8_t uuid[16], struct ut_err *err)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/%s", dir, UT_DBLWR_FILE);
	return ut_dblwr_open(&g->dblwr, path, g->geom->page_size, uuid, err);
}

static void dw_close(struct ut_page_guard *g)
{
	ut_dblwr_close(&g->dblwr);
}

/* The segment is held until the pages in place are synced too. */
static int dw_write(struct ut_page_guard *g, struct ut_guard_batch *b)
{
	unsigned seg;
	int ret;

	seg = ut_dblwr_acquire(&g->dblwr);
	ret = ut_dblwr_write(&g->dblwr, seg, b->buf, b->page_nos, b->n);
	atomic_fetch_add(&g->copy_fsyncs, 1);
	if (!ret)
		atomic_fetch_add(&g->copy_bytes, (uint64_t)b->n * g->geom->page_size);
	if (!ret)
		ret = ut_guard_write_durable(g, b, 0);
	ut_dblwr_release(&g->dblwr, seg);
	return ret;
}

static int dw_restore(struct ut_page_guard *g, int data_fd, uint64_t file_pages,
		      struct ut_dblwr_restore *rep, struct ut_err *err)
{
	return ut_dblwr_restore(&g->dblwr, g->geom, data_fd, file_pages, rep, err);
}

static void dw_stats(struct ut_page_guard *g, struct ut_guard_stats *s)
{
	s->copy_bytes_written = atomic_load(&g->copy_bytes);
	s->fsyncs = atomic_load(&g->copy_fsyncs);
	ut_mutex_lock(&g->dblwr.mutex); /* counted under it */
	s->waits = g->dblwr.waits;
	s->wait_ns = g->dblwr.wait_ns;
	ut_mutex_unlock(&g->dblwr.mutex);
}

static unsigned dw_max_batch(const struct ut_page_guard *g)
{
	return g->dblwr.batch;
}

const struct ut_guard_ops ut_guard_doublewrite = {
	.id = UT_GUARD_DOUBLEWRITE,
	.help = "each batch is written to the doublewrite file and synced first; a torn page is restored from its copy",
	.direct = UT_DIRECT_MAY,
	.create = dw_create,
	.open = dw_open,
	.close = dw_close,
	.write = dw_write,
	.restore = dw_restore,
	.stats = dw_stats,
	.max_batch = dw_max_batch,
};
