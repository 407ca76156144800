// SPDX-License-Identifier: MIT
/*
 * guard_journal.c - the journal guard: ext4 data=journal journals every
 * 4 KiB block whole, and a page torn between blocks is rebuilt block by
 * block from redo (the block-granular page format).  With the untorn_jw
 * module loaded each page is written through it into one jbd2
 * transaction (what makes single-LSN pages safe), unless UNTORN_JW=off.
 * Batches are not synced: the pages wait in the page cache and the
 * journal, and a commit of the journal before each checkpoint makes
 * them durable (ext4 absorbs the page writes sequentially in its journal
 * and writes them home later, coalesced; the WAL rule holds, as the redo
 * is synced before any page is written).
 */
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <untorn/jw.h>
#include "base/err.h"
#include "io/sysio.h"
#include "guard/guard.h"

/* The guard's state. */
struct journal {
	int jw_fd; /* /dev/untorn_jw, or -1 (pages through pwrite) */
	int dir_fd; /* the store's directory: its fsync commits the journal */
	int commit_only; /* ext4 journals the data file's writes */
	atomic_uint_fast64_t commits;
};

/*
 * On ext4 data=ordered mounted nodelalloc: per-file data journaling,
 * chattr +j on the store's directory, which the files made in it
 * inherit.  Setting the flag takes CAP_SYS_RESOURCE; without it the
 * store is refused saying so (and nothing is changed).
 */
/* Sets (on) or clears chattr +j on dir: 0 or -errno. */
static int dir_journal_flag(const char *dir, int on)
{
	int fd, flags = 0, ret;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, FS_IOC_GETFLAGS, &flags) ? -errno : 0;
	flags = on ? flags | FS_JOURNAL_DATA_FL : flags & ~FS_JOURNAL_DATA_FL;
	if (!ret)
		ret = ioctl(fd, FS_IOC_SETFLAGS, &flags) ? -errno : 0;
	close(fd);
	return ret;
}

static int journal_dir_setup(const char *dir, struct ut_fscaps *caps, int *undo,
			     struct ut_err *err)
{
	int ret;

	if (strcmp(caps->mnt.fstype, "ext4") ||
	    caps->data_mode == UT_DATA_JOURNAL || caps->delalloc ||
	    caps->journal_flag)
		return 0;
	ret = dir_journal_flag(dir, 1);
	if (ret == -EPERM)
		return ut_err_set(err, ret,
				  "%s: guard 'journal' on ext4 data=ordered with nodelalloc journals the store's files by chattr +j, and setting it needs CAP_SYS_RESOURCE, which this process lacks; run init with that capability, or mount with -o data=journal",
				  dir);
	if (ret)
		return ut_err_set(err, ret,
				  "%s: cannot set chattr +j: %s; mount with -o data=journal instead",
				  dir, strerror(-ret));
	*undo = 1;
	ret = ut_fscaps_probe(dir, caps);
	return ret ? ut_err_set(err, ret,
				"%s: cannot read the filesystem's facts: %s",
				dir, strerror(-ret)) :
		     0;
}

static void journal_dir_undo(const char *dir)
{
	dir_journal_flag(dir, 0);
}

static int journal_open(struct ut_open_guard *g, const char *dir,
			const uint8_t uuid[16], struct ut_err *err)
{
	struct journal *j;
	int fd;

	(void)uuid;
	j = malloc(sizeof(*j));
	if (!j)
		return ut_err_set(err, -ENOMEM, "out of memory");
	fd = ut_sys.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0) {
		free(j);
		return ut_err_set(err, fd,
				  "%s: cannot open the store's directory: %s",
				  dir, strerror(-fd));
	}
	j->dir_fd = fd;
	/* only there does a commit of the journal make the pages durable (a
	 * store made with --unsafe elsewhere has its data file synced) */
	j->commit_only = ut_fscaps_dir_journals_data(dir);
	atomic_init(&j->commits, 0);
	j->jw_fd = -1;
	if (ut_jw_engine_state() != UT_JW_OFF) {
		fd = ut_jw_open();
		j->jw_fd = fd < 0 ? -1 : fd;
	}
	g->priv = j;
	return 0;
}

static void journal_close(struct ut_open_guard *g)
{
	struct journal *j = g->priv;

	if (j->jw_fd >= 0)
		close(j->jw_fd);
	ut_sys.close(j->dir_fd);
	free(j);
	g->priv = NULL;
}

/*
 * Through the module: each page in one jbd2 transaction (a synchronous
 * ioctl per page).  The fault-injection hook is asked first, as for every
 * other write.
 */
static int write_through_jw(struct ut_open_guard *g, int jw_fd,
			    struct ut_guard_batch *b)
{
	uint32_t ps = g->geom->page_size;
	const unsigned char *page;
	ssize_t admit, done;
	unsigned i;

	for (i = 0; i < b->n; i++) {
		page = b->pages + (size_t)i * ps;
		do {
			admit = ut_sys.io_admit(UT_OP_WRITE, g->data_fd, ps,
						(off_t)b->page_nos[i] * ps);
		} while (admit == -EAGAIN || admit == -EINTR);
		if (admit < 0)
			return (int)admit;
		done = admit ? ut_sys.jw_pwrite(jw_fd, g->data_fd, page,
						(size_t)admit,
						(off_t)b->page_nos[i] * ps) :
			       0;
		if (done < 0)
			return (int)done;
		if (done != ps)
			return -EIO;
	}
	return 0;
}

static int journal_write(struct ut_open_guard *g, struct ut_guard_batch *b)
{
	const struct journal *j = g->priv;
	int ret;

	if (j->jw_fd < 0)
		return ut_guard_write_in_place(g, b, 0);
	ret = write_through_jw(g, j->jw_fd, b);
	ut_guard_mark_unsynced(g);
	return ret;
}

/*
 * The checkpoint's sync: a commit of ext4's journal, not an fdatasync of
 * the data file.  A page write that has returned is in a jbd2
 * transaction (data=journal and chattr +j journal write(2)'s data as it
 * is copied; untorn_jw its page), jbd2 commits transactions in order,
 * and the fsync of a directory commits the running one whole
 * (ext4_fsync_journal: a full commit, not a fast one, for anything but
 * a regular file, since Linux 5.10): so once it returns, every page
 * written before it is durable in the journal, which replays it at
 * mount after a crash.  An fdatasync of the data file would do that
 * too, but since Linux 6.5 it also writes home every page the journal
 * holds for the file (ext4_writepages makes journalled data stable),
 * one random write a page, about a second a checkpoint on a disk,
 * while the journal writes them home later on its own, coalesced:
 * docs/results/2026-11-28-journal-commit.md.
 */
static int journal_sync(struct ut_open_guard *g)
{
	struct journal *j = g->priv;
	int ret;

	if (!j->commit_only)
		return ut_guard_fdatasync(g);
	ret = ut_sys.fsync(j->dir_fd);
	if (!ret)
		atomic_fetch_add(&j->commits, 1);
	return ret;
}

static void journal_stats(struct ut_open_guard *g, struct ut_guard_stats *s)
{
	struct journal *j = g->priv;

	s->commits = atomic_load(&j->commits);
	s->fsyncs = s->commits;
}

static const char *journal_writer(const struct ut_open_guard *g)
{
	const struct journal *j = g->priv;

	return j->jw_fd >= 0 ? "untorn_jw" : NULL;
}

/* how the engine writes pages here: through the module when loaded */
static const char *journal_page_writes(uint32_t sb_flags, char *note,
				       size_t len)
{
	const char *how;

	switch (ut_jw_engine_state()) {
	case UT_JW_IN_USE:
		snprintf(note, len,
			 "through /dev/untorn_jw: each page in one jbd2 transaction");
		return "untorn_jw";
	case UT_JW_OFF:
		how = "pwrite (UNTORN_JW=off)";
		break;
	default:
		how = "pwrite (untorn_jw not loaded)";
		break;
	}
	if (sb_flags & UT_SB_SINGLE_LSN)
		snprintf(note, len,
			 "%s: a page's blocks can join two jbd2 transactions, and a single-LSN page torn so is lost; load untorn_jw (make kmod)",
			 how);
	else
		snprintf(note, len,
			 "%s: a page's blocks can join two jbd2 transactions; the per-block LSNs repair a page torn so",
			 how);
	return how;
}

/*
 * Safe where ext4 journals the file data and keeps each block whole (or,
 * through untorn_jw, each page): the pages go through the module when it
 * is loaded.
 */
static void journal_verdict(const struct ut_fscaps *c, uint32_t page_size,
			    uint32_t block_size, struct ut_verdict *v)
{
	ut_fscaps_journal_keeps(c, page_size, block_size, 1,
				"use --guard doublewrite", v);
}

const struct ut_guard_ops ut_guard_journal = {
	.id = UT_GUARD_JOURNAL,
	.name = "journal",
	.bench_fs = "ext4-journal",
	.fio_job = "journal",
	.verdict = journal_verdict,
	.dir_setup = journal_dir_setup,
	.dir_undo = journal_dir_undo,
	.writer = journal_writer,
	.page_writes = journal_page_writes,
	.help = "ext4 data=journal keeps each block whole; redo rebuilds a page torn between blocks",
	.direct = UT_DIRECT_NEVER,
	.open = journal_open,
	.close = journal_close,
	.write = journal_write,
	.sync = journal_sync,
	.stats = journal_stats,
};
