/* SPDX-License-Identifier: MIT */
/*
 * guard.h - how a dirty page reaches the disk untorn: what a guard is
 * (struct ut_guard_ops), and the table of guards every other part asks.
 *
 * A guard is what makes a page write all-or-nothing across a power cut:
 * a copy written and synced first (doublewrite), the filesystem's journal
 * (journal), the device's atomic write (atomic), blocks no larger than
 * what the device writes whole (sector), or nothing (none).  Each
 * is one file, guard_NAME.c, filling one struct ut_guard_ops, as fio's
 * engines fill struct ioengine_ops; nothing outside it knows a guard by
 * name.  Adding a guard is:
 *
 *   1. guard_NAME.c (in engine/guard/, or any file the build compiles
 *      into the library) defining `const struct ut_guard_ops
 *      ut_guard_NAME` with at least .id (a number 1..UT_GUARD_ID_MAX no
 *      other guard has had: the superblock records it), .name, .help and
 *      .write; every other member is optional and documented below;
 *   2. one line UT_GUARD(NAME) in guard_list.h.
 *
 * Then init, open, info, check, recover, bench, untorn-fscheck and the
 * scripts (through `untorn guards`: crash-matrix, bench-matrix, the
 * kernel suite) know it; guards_plugin_test.sh proves it with one guard
 * more (tests/guard_test.c) in a build of its own.
 */
#ifndef UNTORN_GUARD_H
#define UNTORN_GUARD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <untorn/err.h>
#include <untorn/guard.h>
#include "page/page.h"
#include "io/ring.h"
#include "page/superblock.h"
#include "fscaps.h"

/* Whether pages go through O_DIRECT (store_open.c opens page_fd so). */
enum ut_guard_direct {
	UT_DIRECT_NEVER, /* buffered: the page cache is the guard */
	UT_DIRECT_MAY, /* where the filesystem's alignment allows */
	UT_DIRECT_MUST, /* refused without it (ops->direct_why says why) */
};

/* One guard in use by an engine: its ops, the shared write path's state,
 * and the guard's own (priv: what its open allocated). */
struct ut_open_guard {
	const struct ut_guard_ops *ops;
	const struct ut_geom *geom;
	int data_fd; /* where pages are written in place
					 * (the store's page_fd) */
	void *priv; /* the guard's own state; its close frees it */
	atomic_uint_fast64_t data_fsyncs;
	/* pages written in place since the data file's last sync */
	atomic_int unsynced;
};

/* One flush batch: n packed pages at pages (= buf + ops->batch_hdr: the
 * guard's header space before them), page i going to page_nos[i]; ios
 * has room for n + 1 requests. */
struct ut_guard_batch {
	struct ut_ring *ring;
	struct ut_io *ios;
	unsigned char *buf;
	unsigned char *pages;
	const uint32_t *page_nos;
	unsigned n;
};

/* What a guard adds to the engine's statistics (generic names: the
 * engine reports them as guard_*, untorn/engine.h). */
struct ut_guard_stats {
	uint64_t copy_bytes; /* page bytes written a second time */
	uint64_t fsyncs; /* of the guard's own files */
	uint64_t commits; /* of the filesystem's journal, in place of the
			   * data file's sync (counted in fsyncs too) */
	uint64_t slot_waits, slot_wait_ns; /* for a free slot of its copy */
};

/* What a guard's repair at recovery did. */
struct ut_guard_restore {
	uint64_t pages_checked; /* in-place pages compared with a copy */
	uint64_t pages_restored;
	uint32_t restored[64]; /* the first restored page numbers */
};

/* A file the guard keeps beside the data file, made by create. */
struct ut_guard_file {
	const char *name; /* in the store's directory: "untorn.dblwr" */
	const char *label; /* info's line and JSON key (LABEL_file) */
	const char *what; /* in messages: "doublewrite file" */
	const char *copy; /* what a page is restored from: "the
					 * doublewrite buffer" */
	const char *dir_opt; /* init's option giving it a directory of
					 * its own ("dblwr-dir"; NULL: none) */
};

/* An init option the guard takes: --NAME ARG, reaching init_check and
 * create in ut_init_opts.guard_args (ut_guard_arg). */
struct ut_guard_opt {
	const char *name;
	const char *arg;
	const char *help;
};

struct ut_guard_ops {
	uint32_t id; /* in the superblock; never renumbered */
	const char *name; /* --guard NAME */
	const char *help; /* one line: what makes a page whole */
	/* init refuses the guard without --unsafe, saying this (NULL: it
	 * keeps pages whole, where its verdict says so) */
	const char *needs_unsafe;
	/* the filesystem the scripts measure and crash it on
	 * (scripts/lib/devices.sh: ext4-ordered, ext4-journal, xfs) */
	const char *bench_fs;
	/* a page write that cannot be cut in the middle, why (crash-sim's
	 * --moment mid-page; NULL: it can) */
	const char *whole_writes;
	/* the job of fio-jobs/ (without .fio) that issues its page writes
	 * without the engine (scripts/fio-compare; NULL: none) */
	const char *fio_job;
	enum ut_guard_direct direct;
	const char *direct_why; /* UT_DIRECT_MUST: what needs O_DIRECT */
	unsigned batch_hdr; /* header bytes before a batch's pages
					 * (a multiple of 4096) */
	const char *restore_phase; /* recovery's name for restore */
	const struct ut_guard_file *file; /* NULL: none */
	const struct ut_guard_opt *opts; /* ends with { 0 }; NULL: none */

	/* Is the guard safe on this filesystem: fills v, judged in the
	 * guard's file from fscaps' facts (what ext4's journal keeps whole,
	 * copy-on-write, the unit the devices write whole) and worded with
	 * ut_verdict_say (NULL: never).  ut_fscaps_unusable is checked
	 * before. */
	void (*verdict)(const struct ut_fscaps *c, uint32_t page_size,
			uint32_t block_size, struct ut_verdict *v);
	/* init: the options' values checked, nothing made (NULL: none) */
	int (*init_check)(const struct ut_guard_args *a, struct ut_err *err);
	/* init: the block size when --block-size is not given, from the
	 * facts of the store's filesystem (*bsize left 0, or NULL: the
	 * filesystem's); 0 or -errno with err set */
	int (*block_size)(const struct ut_fscaps *caps, uint32_t page_size,
			  const struct ut_guard_args *a, uint32_t *bsize,
			  struct ut_err *err);
	/* init, before the verdict: what the store's directory needs (the
	 * journal's chattr +j); *undo set when dir_undo must run if init
	 * fails later; caps re-read when it changed them (NULL: none) */
	int (*dir_setup)(const char *dir, struct ut_fscaps *caps, int *undo,
			 struct ut_err *err);
	void (*dir_undo)(const char *dir);
	/* init: the guard's file at path (in the store's directory or the
	 * one --dir_opt gave, placement.c) */
	int (*create)(const char *path, const struct ut_guard_args *a,
		      const struct ut_sb *sb, struct ut_err *err);
	/* engine open and close: priv and the guard's files (NULL: none);
	 * open's -ENOENT says the guard's file is missing */
	int (*open)(struct ut_open_guard *g, const char *dir,
		    const uint8_t uuid[16], struct ut_err *err);
	void (*close)(struct ut_open_guard *g);
	/* writes the batch in place whole: 0 or -errno (required) */
	int (*write)(struct ut_open_guard *g, struct ut_guard_batch *b);
	/* every write to the data file so far made durable its own way,
	 * in place of the data file's fdatasync: 0 or -errno (NULL: that
	 * fdatasync) */
	int (*sync)(struct ut_open_guard *g);
	/* recovery, before redo: torn pages in data_fd (the buffered
	 * descriptor) repaired from the guard's copy (NULL: no copy) */
	int (*restore)(struct ut_open_guard *g, int data_fd,
		       uint64_t file_pages, struct ut_guard_restore *rep,
		       struct ut_err *err);
	void (*stats)(struct ut_open_guard *g, struct ut_guard_stats *s);
	/* the largest batch the guard takes (NULL: any) */
	unsigned (*max_batch)(const struct ut_open_guard *g);
	/* what writes an engine's pages when not io_uring ("untorn_jw";
	 * NULL: io_uring) */
	const char *(*writer)(const struct ut_open_guard *g);
	/* info, without an engine: how pages would be written, and into
	 * note info's "page writes" line ("": none) (NULL: io_uring) */
	const char *(*page_writes)(uint32_t sb_flags, char *note, size_t len);
};

/* The guards, in the table's order (guard_list.h): i from 0 until NULL. */
const struct ut_guard_ops *ut_guard_at(unsigned i);
/* The guard with that superblock id, or with that name, or NULL. */
const struct ut_guard_ops *ut_guard_ops(uint32_t id);
const struct ut_guard_ops *ut_guard_find(const char *name);
/* The guard that takes init option name (--name), or NULL. */
const struct ut_guard_ops *ut_guard_opt_owner(const char *name);
/* The value of the guard option name in a, or NULL. */
const char *ut_guard_arg(const struct ut_guard_args *a, const char *name);

/* Is guard ops safe on the filesystem c describes: fs_unusable, then its
 * verdict hook (a guard without one is never). */
void ut_guard_verdict(const struct ut_guard_ops *ops, const struct ut_fscaps *c,
		      uint32_t page_size, uint32_t block_size,
		      struct ut_verdict *v);

int ut_guard_open(struct ut_open_guard *g, uint32_t id,
		  const struct ut_geom *geom, int data_fd, const char *dir,
		  const uint8_t uuid[16], struct ut_err *err);
void ut_guard_close(struct ut_open_guard *g);

/*
 * What guards' writes share.  ut_guard_write_in_place: the pages in place
 * (one submission, rw_flags on each), the data file left unsynced until
 * ut_guard_sync; a guard whose pages are whole once written (journal,
 * atomic) and none use it, and the checkpoint syncs.
 * ut_guard_write_durable: that, then the data file's fdatasync, for a
 * guard that may not reuse its copy before the pages are durable
 * (doublewrite); ut_guard_sync_data: that fdatasync alone, for a guard
 * that wrote the pages its own way; ut_guard_mark_unsynced: notes that
 * pages were written in place since the data file's last sync (a guard
 * that writes them its own way calls it).
 */
int ut_guard_write_in_place(struct ut_open_guard *g, struct ut_guard_batch *b,
			    int rw_flags);
int ut_guard_write_durable(struct ut_open_guard *g, struct ut_guard_batch *b,
			   int rw_flags);
int ut_guard_sync_data(struct ut_open_guard *g, struct ut_guard_batch *b);
void ut_guard_mark_unsynced(struct ut_open_guard *g);
/* Every page written in place so far made durable: one fdatasync of the
 * data file (or the guard's ops->sync), none when nothing was written
 * since the last.  Before a checkpoint moves past the pages' changes
 * (checkpoint.c). */
int ut_guard_sync(struct ut_open_guard *g);
/* The data file's fdatasync through io, unconditionally: what a guard's
 * ops->sync falls back to where its own way does not apply. */
int ut_guard_fdatasync(struct ut_open_guard *g);
/* Every write to the data file so far made durable by the guard's
 * ops->sync, whether pages were written or not: the store's checkpoint
 * slot (ut_store_set_slot_sync; arg: the struct ut_open_guard). */
int ut_guard_sync_writes(void *arg);

#endif
