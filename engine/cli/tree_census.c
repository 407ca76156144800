// SPDX-License-Identifier: MIT
/*
 * tree_census.c - the tree's shape for `untorn info`: height, rows,
 * leaves and how they lie in the data file, read page by page through
 * the page codec from a store opened read-only.  The data file holds the
 * whole tree only when the redo log holds nothing after the checkpoint
 * (the store was closed, not crashed); otherwise it says so and reads
 * nothing, since info changes nothing and recovery would.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "store/store.h"
#include "buf/bpool.h"
#include "log/redo.h"
#include "tree/btree.h"
#include "tree/shape.h"
#include "tree_census.h"

/* one page at a time from the data file, checked by the codec */
struct file_pages {
	const struct ut_store *st;
	unsigned char *disk;
	struct ut_frame frame;
};

static int file_get(void *ctx, uint32_t page_no, struct ut_frame **f)
{
	struct file_pages *fp = ctx;
	uint32_t ps = fp->st->geom.page_size;
	ssize_t got;
	int ret;

	if (page_no >= fp->st->file_pages)
		return -EUCLEAN;
	got = pread(fp->st->data_fd, fp->disk, ps, (off_t)page_no * ps);
	if (got != (ssize_t)ps)
		return got < 0 ? -errno : -EIO;
	ret = ut_page_unpack(&fp->st->geom, fp->disk, page_no, &fp->frame.meta,
			     fp->frame.area, NULL);
	if (ret)
		return ret == UT_PAGE_EMPTY ? -EUCLEAN : ret;
	*f = &fp->frame;
	return 0;
}

static void file_put(void *ctx, struct ut_frame *f)
{
	(void)ctx;
	(void)f;
}

/* Does the redo log hold anything after the checkpoint?  1 yes, 0 no,
 * -errno when it cannot be read (why in err). */
static int redo_after_checkpoint(const struct ut_store *st, struct ut_err *err)
{
	struct ut_redo_scan scan;
	struct ut_redo log;
	char path[4200];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", st->dir, UT_LOG_FILE);
	ret = ut_redo_open(&log, path, st->sb.uuid, err);
	if (ret)
		return ret;
	ret = ut_redo_scan(&log, st->ring, st->ckpt.checkpoint_lsn, &scan, err);
	ut_redo_close(&log);
	if (ret)
		return ret;
	ret = !ut_redo_scan_empty(&scan);
	ut_redo_scan_free(&scan);
	return ret;
}

static int walk(const struct ut_store *st, struct tree_census *c)
{
	struct file_pages fp = { .st = st };
	struct ut_tree_pages pg = { file_get, file_put, &fp };
	struct ut_tree_census tc;
	struct ut_leaf_steps ls;
	int ret = -ENOMEM;

	fp.disk = malloc(st->geom.page_size);
	fp.frame.area = malloc(st->geom.area_size);
	if (!fp.disk || !fp.frame.area)
		goto out_free;
	ret = ut_btree_census(&pg, st->ckpt.root_page, &tc);
	if (ret)
		goto out_free;
	ut_leaf_steps_of(tc.leaves, tc.n_leaves, &ls);
	c->height = tc.height;
	c->rows = tc.rows;
	c->leaves = tc.n_leaves;
	c->fragmentation = ls.steps ? (double)ls.jumps / ls.steps : 0;
	c->mean_jump_pages = ls.jumps ? (double)ls.jump_pages / ls.jumps : 0;
	free(tc.leaves);
out_free:
	free(fp.frame.area);
	free(fp.disk);
	return ret;
}

void tree_census_read(const struct ut_store *st, struct tree_census *c)
{
	struct ut_err err = { "" };
	int ret;

	memset(c, 0, sizeof(*c));
	ret = redo_after_checkpoint(st, &err);
	if (ret < 0) {
		snprintf(c->why, sizeof(c->why), "cannot read the redo log: %s",
			 err.msg[0] ? err.msg : strerror(-ret));
		return;
	}
	if (ret) {
		snprintf(c->why, sizeof(c->why),
			 "the redo log holds changes after the checkpoint (the store was not closed); `untorn recover %s` applies them, then info reads the tree",
			 st->dir);
		return;
	}
	ret = walk(st, c);
	if (ret) {
		snprintf(c->why, sizeof(c->why),
			 "a tree page could not be read (%s); `untorn check %s` lists the damage",
			 strerror(-ret), st->dir);
		return;
	}
	c->known = 1;
}
