/* SPDX-License-Identifier: MIT */
/*
 * store.h - a store directory and its data file.
 *
 * DIR/untorn.dat holds page 0 (superblock, see superblock.h) and the
 * pages, page n at offset n * page_size.  The file is preallocated with
 * fallocate and grown a whole extent at a time, so pages are laid out
 * contiguously on disk.  ut_store_init() makes a new store with an empty
 * B+tree root in page 1; ut_store_open() validates an existing one and
 * refuses, with a one-line reason and fix, anything it cannot trust.
 */
#ifndef UNTORN_STORE_H
#define UNTORN_STORE_H

#include <limits.h>
#include <stdint.h>
#include <untorn/err.h>
#include <untorn/page.h>
#include <untorn/ring.h>
#include <untorn/guard.h>
#include <untorn/superblock.h>

#define UT_DATA_FILE "untorn.dat"
#define UT_RING_DEPTH 128

struct ut_store {
	char dir[PATH_MAX];
	char data_path[PATH_MAX + 16];
	int data_fd; /* buffered: superblock, checkpoints, check */
	int page_fd; /* page I/O: O_DIRECT where the guard uses it */
	int direct; /* page_fd is O_DIRECT */
	int read_only;
	struct ut_geom geom;
	struct ut_sb sb;
	struct ut_ckpt ckpt;
	int ckpt_slot; /* slot the current checkpoint came from */
	int slot_err[2]; /* 0, or why that slot was refused */
	uint64_t file_pages; /* pages the data file holds */
	struct ut_ring *ring;
	/* a checkpoint slot made durable by slot_sync(slot_sync_arg), not
	 * the data file's fdatasync (ut_store_set_slot_sync) */
	int (*slot_sync)(void *arg);
	void *slot_sync_arg;
};

struct ut_init_opts {
	uint32_t page_size; /* 0: 16 KiB (UT_PAGE_SIZE_DEFAULT) */
	uint32_t block_size; /* 0: the guard's choice, else the filesystem's
			      * block size */
	uint32_t guard; /* enum ut_guard; 0: doublewrite */
	int unsafe; /* allows a guard that needs it (none), and any guard the filesystem
				 * cannot honour (crash simulations) */
	int single_lsn; /* one block per page: InnoDB's design */
	uint64_t log_size; /* redo log bytes; 0: 64 MiB */
	const char *redo_dir; /* the redo log's own directory; NULL: DIR */
	const char *guard_dir; /* the guard's own file's (--dblwr-dir);
				 * NULL: DIR */
	struct ut_guard_args guard_args; /* the guard's own options */
};

#define UT_OPEN_RDONLY (1u << 0)

int ut_store_init(const char *dir, const struct ut_init_opts *opts,
		  struct ut_err *err);
/*
 * Opens a store and takes its lock (lock.c) before reading anything:
 * exclusive for writing, shared with UT_OPEN_RDONLY.  A store locked by
 * another open fails with -EBUSY and a line naming the holder's PID and
 * command, after waiting up to wait_ms for it (0: not at all).
 */
int ut_store_open(const char *dir, unsigned flags, struct ut_store **storep,
		  struct ut_err *err);
int ut_store_open_wait(const char *dir, unsigned flags, unsigned wait_ms,
		       struct ut_store **storep, struct ut_err *err);
void ut_store_close(struct ut_store *st);

/* How long an open waits for a lock no live process holds: a killed
 * writer's direct I/O still landing (lock.c). */
#define UT_LOCK_DRAIN_MS 5000

/* A process holding a store's lock. */
struct ut_lock_holder {
	int pid;
	int exclusive; /* a writer; 0: a reader */
	char cmd[96]; /* its command line, arguments joined;
				 * empty: the process is exiting */
};

/* The processes holding the lock of the store in dir (at most max):
 * their number, or -errno.  Processes of other users are seen only by
 * root. */
int ut_store_holders(const char *dir, struct ut_lock_holder *h, unsigned max);
/* The same for the data file open on fd; ut_lock_take locks fd,
 * waiting up to wait_ms: 0, -EBUSY, or -errno. */
int ut_lock_holders(int fd, struct ut_lock_holder *h, unsigned max);
int ut_lock_take(int fd, int exclusive, unsigned wait_ms);
/* Moves the in-flight-I/O part of an exclusive lock from data_fd to
 * page_fd, the O_DIRECT descriptor of the same file. */
int ut_lock_move_io(int data_fd, int page_fd);

/* Makes the data file hold at least min_pages, in whole extents. */
int ut_store_grow(struct ut_store *st, uint64_t min_pages, struct ut_err *err);
/* Writes ck into the slot that is not current, then fdatasyncs (or
 * calls the slot sync set below). */
int ut_store_write_checkpoint(struct ut_store *st, struct ut_ckpt *ck,
			      struct ut_err *err);
/* A slot written is made durable by sync(arg) instead of the data file's
 * fdatasync (NULL: the fdatasync again): where the page guard makes the
 * data file's writes durable its own way, set while it is open. */
void ut_store_set_slot_sync(struct ut_store *st, int (*sync)(void *arg),
			    void *arg);

#endif
