// SPDX-License-Identifier: MIT
/*
 * guard_test.c - a sixth guard, "test", that exists only to prove a
 * guard is one file plus one line in guard_list.h: compiled into the
 * library of the build-testguard tree (make TEST_GUARD=1), never into
 * the real one.  guards_plugin_test.sh runs init, info, check, recover,
 * bench and crash-sim with it, and shows that crash-matrix, bench-matrix
 * and the kernel suite take it up from `untorn guards`.
 *
 * What it does is small but real: pages are written in place and synced
 * after every batch (a page torn between blocks is rebuilt from redo by
 * the block-granular format, as under the journal guard, and it is safe
 * where ext4's data journal keeps each block whole); it keeps a file of its own, untorn.testguard, holding a
 * magic and the --test-note given at init; its private state counts the
 * batches it wrote (reported as its statistics' slot waits, so the test
 * sees them reach `bench write --json`); its restore phase checks its
 * file and counts the data file's pages as checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/err.h"
#include "guard/guard.h"

#define TG_FILE "untorn.testguard"
#define TG_MAGIC "UTTESTG1"
#define TG_NOTE_MAX 64

struct tg {
	int fd;
	atomic_uint_fast64_t batches;
};

static const struct ut_guard_opt tg_opts[] = {
	{ "test-note", "TEXT",
	  "text kept in the test guard's file (at most 64 bytes)" },
	{ NULL },
};

static int tg_init_check(const struct ut_guard_args *a, struct ut_err *err)
{
	const char *note = ut_guard_arg(a, "test-note");

	if (note && strlen(note) > TG_NOTE_MAX)
		return ut_err_set(err, -EINVAL,
				  "--test-note is %zu bytes; give at most %u",
				  strlen(note), TG_NOTE_MAX);
	return 0;
}

static int tg_create(const char *path, const struct ut_guard_args *a,
		     const struct ut_sb *sb, struct ut_err *err)
{
	const char *note = ut_guard_arg(a, "test-note");
	char buf[8 + TG_NOTE_MAX + 1] = TG_MAGIC;
	int fd, ret = 0;

	(void)sb;
	snprintf(buf + 8, sizeof(buf) - 8, "%s", note ? note : "");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return ut_err_set(err, -errno, "%s: cannot create: %s", path,
				  strerror(errno));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(fd))
		ret = ut_err_set(err, -EIO, "%s: cannot write", path);
	close(fd);
	return ret;
}

static int tg_open(struct ut_open_guard *g, const char *dir,
		   const uint8_t uuid[16], struct ut_err *err)
{
	char path[PATH_MAX + 32], magic[8];
	struct tg *tg;
	int fd;

	(void)uuid;
	snprintf(path, sizeof(path), "%s/%s", dir, TG_FILE);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ut_err_set(err, -errno, "%s: cannot open: %s", path,
				  strerror(errno));
	if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, TG_MAGIC, sizeof(magic))) {
		close(fd);
		return ut_err_set(err, -EINVAL, "%s: not the test guard's file",
				  path);
	}
	tg = calloc(1, sizeof(*tg));
	if (!tg) {
		close(fd);
		return ut_err_set(err, -ENOMEM, "out of memory");
	}
	tg->fd = fd;
	g->priv = tg;
	return 0;
}

static void tg_close(struct ut_open_guard *g)
{
	struct tg *tg = g->priv;

	close(tg->fd);
	free(tg);
	g->priv = NULL;
}

static int tg_write(struct ut_open_guard *g, struct ut_guard_batch *b)
{
	struct tg *tg = g->priv;

	atomic_fetch_add(&tg->batches, 1);
	return ut_guard_write_durable(g, b, 0);
}

static int tg_restore(struct ut_open_guard *g, int data_fd, uint64_t file_pages,
		      struct ut_guard_restore *rep, struct ut_err *err)
{
	struct tg *tg = g->priv;
	char magic[8];

	(void)data_fd;
	if (pread(tg->fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, TG_MAGIC, sizeof(magic)))
		return ut_err_set(err, -EIO,
				  "%s: the test guard's file is damaged",
				  TG_FILE);
	rep->pages_checked = file_pages;
	return 0;
}

static void tg_stats(struct ut_open_guard *g, struct ut_guard_stats *s)
{
	struct tg *tg = g->priv;

	s->slot_waits = atomic_load(&tg->batches);
}

/* Safe where ext4 journals each block whole: its pages go through
 * pwrite, never untorn_jw, so a one-LSN page is not. */
static void tg_verdict(const struct ut_fscaps *c, uint32_t page_size,
		       uint32_t block_size, struct ut_verdict *v)
{
	ut_fscaps_journal_keeps(c, page_size, block_size, 0,
				"use --guard doublewrite", v);
}

static const struct ut_guard_file tg_file = {
	.name = TG_FILE,
	.label = "testguard",
	.what = "test guard's file",
	.copy = "the test guard's file",
};

const struct ut_guard_ops ut_guard_test = {
	.id = 250,
	.name = "test",
	.help = "test builds only: pages in place, synced per batch; redo rebuilds a page torn between blocks",
	.bench_fs = "ext4-journal",
	.direct = UT_DIRECT_NEVER,
	.batch_hdr = 4096,
	.restore_phase = "test-restore",
	.file = &tg_file,
	.opts = tg_opts,
	.verdict = tg_verdict,
	.init_check = tg_init_check,
	.create = tg_create,
	.open = tg_open,
	.close = tg_close,
	.write = tg_write,
	.restore = tg_restore,
	.stats = tg_stats,
};
