// SPDX-License-Identifier: MIT
/*
 * guard_journal.c - the journal guard: ext4 data=journal journals every
 * 4 KiB block whole, and a page torn between blocks is rebuilt block by
 * block from redo (the block-granular page format).  With the untorn_jw
 * module loaded each page is written through it into one jbd2
 * transaction (what makes single-LSN pages safe), unless UNTORN_JW=off.
 * Batches are not synced: the pages wait in the page cache and the
 * journal, and the fdatasync before each checkpoint commits them (ext4
 * absorbs the page writes sequentially in its journal and writes them
 * home later, coalesced; the WAL rule holds, as the redo is synced
 * before any page is written).
 */
#include <errno.h>
#include <unistd.h>
#include <untorn/jw.h>
#include <untorn/sysio.h>
#include "guard/guard.h"

static int journal_open(struct ut_page_guard *g, const char *dir,
			const uint8_t uuid[16], struct ut_err *err)
{
	int fd;

	(void)dir;
	(void)uuid;
	(void)err;
	if (ut_jw_engine_state() == UT_JW_OFF)
		return 0;
	fd = ut_jw_open();
	g->jw_fd = fd < 0 ? -1 : fd;
	return 0;
}

static void journal_close(struct ut_page_guard *g)
{
	if (g->jw_fd >= 0)
		close(g->jw_fd);
	g->jw_fd = -1;
}

/*
 * Through the module: each page in one jbd2 transaction (a synchronous
 * ioctl per page).  The fault-injection hook is asked first, as for every
 * other write.
 */
static int write_through_jw(struct ut_page_guard *g, struct ut_guard_batch *b)
{
	uint32_t ps = g->geom->page_size;
	const unsigned char *page;
	ssize_t admit, done;
	unsigned i;

	for (i = 0; i < b->n; i++) {
		page = b->buf + UT_DBLWR_HDR + (size_t)i * ps;
		do {
			admit = ut_sys.io_admit(UT_OP_WRITE, g->data_fd, ps,
						(off_t)b->page_nos[i] * ps);
		} while (admit == -EAGAIN || admit == -EINTR);
		if (admit < 0)
			return (int)admit;
		done = admit ? ut_sys.jw_pwrite(g->jw_fd, g->data_fd, page,
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

static int journal_write(struct ut_page_guard *g, struct ut_guard_batch *b)
{
	int ret;

	if (g->jw_fd < 0)
		return ut_guard_write_in_place(g, b, 0);
	ret = write_through_jw(g, b);
	ut_guard_wrote(g);
	return ret;
}

const struct ut_guard_ops ut_guard_journal = {
	.id = UT_GUARD_JOURNAL,
	.help = "ext4 data=journal keeps each block whole; redo rebuilds a page torn between blocks",
	.direct = UT_DIRECT_NEVER,
	.open = journal_open,
	.close = journal_close,
	.write = journal_write,
};
