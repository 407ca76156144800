/* SPDX-License-Identifier: MIT */
/*
 * store/store.h - a store directory and its data file, opened.
 *
 * DIR/untorn.dat holds page 0 (superblock, see page/superblock.h) and the
 * pages, page n at offset n * page_size.  The file is preallocated with
 * fallocate and grown a whole extent at a time, so pages are laid out
 * contiguously on disk.  ut_store_init() (<untorn/store.h>) makes a new
 * store with an empty B+tree root in page 1; ut_store_open() validates an
 * existing one and refuses, with a one-line reason and fix, anything it
 * cannot trust.
 */
#ifndef UNTORN_STORE_INT_H
#define UNTORN_STORE_INT_H

#include <limits.h>
#include <stdint.h>
#include <untorn/store.h>
#include "base/err.h"
#include "io/ring.h"
#include "page/page.h"
#include "page/superblock.h"

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

#define UT_OPEN_RDONLY (1u << 0)

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

/* ut_store_holders() for the data file open on fd; ut_lock_take locks
 * fd, waiting up to wait_ms: 0, -EBUSY, or -errno. */
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
