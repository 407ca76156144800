/* SPDX-License-Identifier: MIT */
/*
 * store.h - making a store, and who holds one.
 *
 * A store is a directory: its data file (the superblock in page 0 and
 * the pages), its redo log, and the guard's own file where the guard
 * keeps one (untorn-format(5)).  ut_store_init() makes a new one, with an
 * empty B+tree; ut_engine_open() (engine.h) opens it.
 */
#ifndef UNTORN_STORE_H
#define UNTORN_STORE_H

#include <stdint.h>
#include <untorn/err.h>
#include <untorn/guard.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ut_init_opts {
	uint32_t page_size; /* 0: 16 KiB */
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

int ut_store_init(const char *dir, const struct ut_init_opts *opts,
		  struct ut_err *err);

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

#ifdef __cplusplus
}
#endif

#endif
