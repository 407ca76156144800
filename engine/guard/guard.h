/* SPDX-License-Identifier: MIT */
/*
 * guard.h - how a dirty page reaches the disk untorn: the operations a
 * guard has, and the table of guards.
 *
 * A guard is what makes a page write all-or-nothing across a power cut:
 * a copy written and synced first (doublewrite), the filesystem's journal
 * (journal), the device's atomic write (atomic), or nothing (none).  Each
 * is one file (guard_NAME.c) filling one struct ut_guard_ops, as fio's
 * engines fill struct ioengine_ops; the engine calls only the ops.  A
 * fifth guard is one file, one entry in ut_guard_table[] (guard.c), and
 * its id and name in the on-disk format (enum ut_guard, superblock.c's
 * guard_names[]: the superblock records the id).
 */
#ifndef UNTORN_GUARD_H
#define UNTORN_GUARD_H

#include <stdatomic.h>
#include <stdint.h>
#include <untorn/err.h>
#include <untorn/page.h>
#include <untorn/ring.h>
#include <untorn/superblock.h>
#include "guard/dblwr.h"

/* Whether pages go through O_DIRECT (store_open.c opens page_fd so). */
enum ut_guard_direct {
	UT_DIRECT_NEVER, /* buffered: the page cache is the guard */
	UT_DIRECT_MAY, /* where the filesystem's alignment allows */
	UT_DIRECT_MUST, /* refused without it */
};

/* One guard in use by an engine: its ops and its state. */
struct ut_page_guard {
	const struct ut_guard_ops *ops;
	const struct ut_geom *geom;
	int data_fd; /* where pages are written in place
					 * (the store's page_fd) */
	struct ut_dblwr dblwr; /* doublewrite: the copy's file */
	int jw_fd; /* journal: /dev/untorn_jw, or -1 */
	atomic_uint_fast64_t data_fsyncs, copy_fsyncs, copy_bytes;
	/* pages written in place since the data file's last sync */
	atomic_int unsynced;
};

/* One flush batch: n packed pages at buf + UT_DBLWR_HDR, page i going
 * to page_nos[i]; ios has room for n + 1 requests. */
struct ut_guard_batch {
	struct ut_ring *ring;
	struct ut_io *ios;
	unsigned char *buf;
	const uint32_t *page_nos;
	unsigned n;
};

/* A guard's share of the store's init options (0: its default). */
struct ut_guard_init {
	unsigned dblwr_segments;
	unsigned dblwr_batch;
};

/* What a guard adds to the engine's statistics. */
struct ut_guard_stats {
	uint64_t copy_bytes_written; /* pages written twice */
	uint64_t fsyncs; /* of the guard's own files */
	uint64_t waits, wait_ns; /* for a free slot of its copy */
};

struct ut_guard_ops {
	enum ut_guard id; /* its name: ut_guard_name(id) */
	const char *help; /* one line: what makes a page whole */
	enum ut_guard_direct direct;
	/* init: the guard's own file, at path (the store's directory's
	 * UT_DBLWR_FILE, or where placement.c puts it; NULL: none) */
	int (*create)(const char *path, const struct ut_guard_init *o,
		      const struct ut_sb *sb, struct ut_err *err);
	/* engine open and close: the guard's files (NULL: none) */
	int (*open)(struct ut_page_guard *g, const char *dir,
		    const uint8_t uuid[16], struct ut_err *err);
	void (*close)(struct ut_page_guard *g);
	/* writes the batch in place and makes it durable (the data file's
	 * fdatasync included): 0 or -errno */
	int (*write)(struct ut_page_guard *g, struct ut_guard_batch *b);
	/* recovery, before redo: torn pages in data_fd (the buffered
	 * descriptor) repaired from the guard's copy (NULL: no copy) */
	int (*restore)(struct ut_page_guard *g, int data_fd, uint64_t file_pages,
		       struct ut_dblwr_restore *rep, struct ut_err *err);
	/* the guard's share of the statistics (NULL: none) */
	void (*stats)(struct ut_page_guard *g, struct ut_guard_stats *s);
	/* the largest batch the guard takes (NULL: any) */
	unsigned (*max_batch)(const struct ut_page_guard *g);
};

/* The guard with that superblock id, or NULL. */
const struct ut_guard_ops *ut_guard_ops(uint32_t id);

int ut_guard_open(struct ut_page_guard *g, uint32_t id,
		  const struct ut_geom *geom, int data_fd, const char *dir,
		  const uint8_t uuid[16], struct ut_err *err);
void ut_guard_close(struct ut_page_guard *g);

/*
 * What guards' writes share.  ut_guard_write_in_place: the pages in place
 * (one submission, rw_flags on each), the data file left unsynced until
 * ut_guard_sync; a guard whose pages are whole once written (journal,
 * atomic) and none use it, and the checkpoint syncs.
 * ut_guard_write_durable: that, then the data file's fdatasync, for a
 * guard that may not reuse its copy before the pages are durable
 * (doublewrite); ut_guard_sync_data: that fdatasync alone, for a guard
 * that wrote the pages its own way; ut_guard_wrote: says it did.
 */
int ut_guard_write_in_place(struct ut_page_guard *g, struct ut_guard_batch *b,
			    int rw_flags);
int ut_guard_write_durable(struct ut_page_guard *g, struct ut_guard_batch *b,
			   int rw_flags);
int ut_guard_sync_data(struct ut_page_guard *g, struct ut_guard_batch *b);
void ut_guard_wrote(struct ut_page_guard *g);
/* Every page written in place so far made durable: one fdatasync of the
 * data file, none when nothing was written since the last.  Before a
 * checkpoint moves past the pages' changes (checkpoint.c). */
int ut_guard_sync(struct ut_page_guard *g);

extern const struct ut_guard_ops ut_guard_doublewrite;
extern const struct ut_guard_ops ut_guard_journal;
extern const struct ut_guard_ops ut_guard_atomic;
extern const struct ut_guard_ops ut_guard_none;

#endif
