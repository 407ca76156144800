// SPDX-License-Identifier: MIT
/*
 * guard_doublewrite.c - the doublewrite guard (InnoDB's): each batch is
 * first written to a segment of the doublewrite file and synced, then in
 * place; a page torn in place is restored from its copy at recovery.
 * The segments themselves are dblwr.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "base/parse.h"
#include "guard/dblwr.h"
#include "guard/guard.h"

/* the doublewrite file of a new store: segments, pages per segment */
#define DW_SEGMENTS_DEFAULT 2
#define DW_SEGMENTS_MAX 64 /* struct ut_dblwr's busy mask */
#define DW_BATCH_DEFAULT 64

struct dw {
	struct ut_dblwr d;
	atomic_uint_fast64_t fsyncs, copy_bytes;
};

static const struct ut_guard_opt dw_opts[] = {
	{ "dblwr-segments", "N",
	  "segments of the doublewrite file, one batch each (default 2, at most 64)" },
	{ "dblwr-batch", "N", "pages per segment (default 64)" },
	{ 0 },
};

/* The value of option name (0 when not given), checked: 1..max. */
static int dw_arg(const struct ut_guard_args *a, const char *name, unsigned max,
		  unsigned *out, struct ut_err *err)
{
	const char *s = ut_guard_arg(a, name);
	uint64_t v;

	*out = 0;
	if (!s)
		return 0;
	if (ut_parse_size(s, max, &v) || !v)
		return ut_err_set(err, -EINVAL,
				  "--%s '%s' is out of range; use a number from 1 to %u",
				  name, s, max);
	*out = (unsigned)v;
	return 0;
}

static int dw_init_check(const struct ut_guard_args *a, struct ut_err *err)
{
	unsigned v;
	int ret;

	ret = dw_arg(a, "dblwr-segments", DW_SEGMENTS_MAX, &v, err);
	return ret ? ret :
		     dw_arg(a, "dblwr-batch", UT_DBLWR_MAX_BATCH, &v, err);
}

static int dw_create(const char *path, const struct ut_guard_args *a,
		     const struct ut_sb *sb, struct ut_err *err)
{
	unsigned segments, batch;
	int ret;

	ret = dw_arg(a, "dblwr-segments", DW_SEGMENTS_MAX, &segments, err);
	if (!ret)
		ret = dw_arg(a, "dblwr-batch", UT_DBLWR_MAX_BATCH, &batch, err);
	if (ret)
		return ret;
	return ut_dblwr_create(path, segments ? segments : DW_SEGMENTS_DEFAULT,
			       batch ? batch : DW_BATCH_DEFAULT, sb->page_size,
			       err);
}

static int dw_open(struct ut_open_guard *g, const char *dir,
		   const uint8_t uuid[16], struct ut_err *err)
{
	char path[PATH_MAX + 16];
	struct dw *dw;
	int ret;

	dw = calloc(1, sizeof(*dw));
	if (!dw)
		return ut_err_set(err, -ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/%s", dir, UT_DBLWR_FILE);
	ret = ut_dblwr_open(&dw->d, path, g->geom->page_size, uuid, err);
	if (ret) {
		free(dw);
		return ret;
	}
	g->priv = dw;
	return 0;
}

static void dw_close(struct ut_open_guard *g)
{
	struct dw *dw = g->priv;

	ut_dblwr_close(&dw->d);
	free(dw);
	g->priv = NULL;
}

/* The segment is held until the pages in place are synced too. */
static int dw_write(struct ut_open_guard *g, struct ut_guard_batch *b)
{
	struct dw *dw = g->priv;
	unsigned seg;
	int ret;

	seg = ut_dblwr_acquire(&dw->d);
	ret = ut_dblwr_write(&dw->d, seg, b->buf, b->page_nos, b->n);
	atomic_fetch_add(&dw->fsyncs, 1);
	if (!ret)
		atomic_fetch_add(&dw->copy_bytes,
				 (uint64_t)b->n * g->geom->page_size);
	if (!ret)
		ret = ut_guard_write_durable(g, b, 0);
	ut_dblwr_release(&dw->d, seg);
	return ret;
}

static int dw_restore(struct ut_open_guard *g, int data_fd, uint64_t file_pages,
		      struct ut_guard_restore *rep, struct ut_err *err)
{
	struct dw *dw = g->priv;
	struct ut_dblwr_restore dr;
	int ret;

	ret = ut_dblwr_restore(&dw->d, g->geom, data_fd, file_pages, &dr, err);
	if (ret)
		return ret;
	rep->pages_checked = dr.pages_checked;
	rep->pages_restored = dr.pages_restored;
	memcpy(rep->restored, dr.restored, sizeof(rep->restored));
	return 0;
}

static void dw_stats(struct ut_open_guard *g, struct ut_guard_stats *s)
{
	struct dw *dw = g->priv;

	s->copy_bytes = atomic_load(&dw->copy_bytes);
	s->fsyncs = atomic_load(&dw->fsyncs);
	ut_mutex_lock(&dw->d.mutex); /* counted under it */
	s->slot_waits = dw->d.waits;
	s->slot_wait_ns = dw->d.wait_ns;
	ut_mutex_unlock(&dw->d.mutex);
}

static unsigned dw_max_batch(const struct ut_open_guard *g)
{
	const struct dw *dw = g->priv;

	return dw->d.batch;
}

/* Safe wherever the filesystem is usable: every page has a synced copy. */
static void dw_verdict(const struct ut_fscaps *c, uint32_t page_size,
		       uint32_t block_size, struct ut_verdict *v)
{
	(void)page_size;
	(void)block_size;
	ut_verdict_say(c, v, 1, NULL,
		       "every page is first written to the doublewrite file and synced, so a torn in-place page is restored from its copy");
}

static const struct ut_guard_file dw_file = {
	.name = UT_DBLWR_FILE,
	.label = "doublewrite",
	.what = "doublewrite file",
	.copy = "the doublewrite buffer",
	.dir_opt = "dblwr-dir",
};

const struct ut_guard_ops ut_guard_doublewrite = {
	.id = UT_GUARD_DOUBLEWRITE,
	.name = "doublewrite",
	.help = "each batch is written to the doublewrite file and synced first; a torn page is restored from its copy",
	.bench_fs = "ext4-ordered",
	.fio_job = "doublewrite",
	.direct = UT_DIRECT_MAY,
	.batch_hdr = UT_DBLWR_HDR,
	.restore_phase = "dblwr-restore",
	.file = &dw_file,
	.opts = dw_opts,
	.verdict = dw_verdict,
	.init_check = dw_init_check,
	.create = dw_create,
	.open = dw_open,
	.close = dw_close,
	.write = dw_write,
	.restore = dw_restore,
	.stats = dw_stats,
	.max_batch = dw_max_batch,
};
