/* SPDX-License-Identifier: MIT */
/*
 * txn_file.h - a large transaction's commit file: its writes, durable in
 * a file of their own before the first of them is applied.
 *
 * A transaction whose writes do not fit one redo group (txn.c) commits
 * by writing them, in key order, to DIR/untorn.txn.XXXXXX: a 4 KiB
 * header (magic, version, the store's uuid, the count and bytes of the
 * writes, a CRC32C of them and of itself) and the writes (le64 key, le32
 * length, le32 flags (1: delete), the value).  One fdatasync and an
 * fsync of DIR make it durable: that is the commit point.  The writes
 * are then applied in pieces, each one redo group; the file is removed
 * (durably) after the last piece is in the log.  A store opened with a
 * commit file in its directory applies it again from the start (a put
 * or a delete applied twice leaves what it left once) and removes it; a
 * file whose header or writes do not check was never committed, and is
 * removed unapplied.
 */
#ifndef UNTORN_TXN_FILE_H
#define UNTORN_TXN_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <untorn/err.h>
#include "tree/btree.h"

#define UT_TXN_FILE_PREFIX "untorn.txn."

/* Writes ops[0..n) (in key order) to a new commit file in dir and makes
 * it durable; its path in path (cap bytes).  On failure nothing is left
 * in dir that an open would apply, and err names the cause and the fix;
 * but -EUCLEAN: the file could be neither made durable nor spoilt, and
 * may survive a crash (the caller treats it as committed). */
int ut_txn_file_write(const char *dir, const uint8_t uuid[16],
		      const struct ut_tree_op *ops, size_t n, char *path,
		      size_t cap, struct ut_err *err);

/* Removes a commit file and makes its removal durable. */
int ut_txn_file_remove(const char *path);

/* A commit file read back: its writes point into the mapped file. */
struct ut_txn_file {
	char path[4200];
	struct ut_tree_op *ops;
	size_t n;
	void *map;
	size_t map_len;
};

/*
 * A commit file of the store in dir: 1 and *f filled, 0 when there is
 * none, or -errno (err says which file and why).  A file that does not
 * check is removed and skipped (*bad counts them): its header or writes
 * fail their CRC, or its writes are not what a commit writes (keys in
 * ascending order, a delete without a value, values of at most
 * value_max bytes, nothing after the last).  Another store's (its uuid)
 * is left alone.  The caller applies and removes it before it asks
 * again; ut_txn_file_release() frees what *f holds.
 */
int ut_txn_file_first(const char *dir, const uint8_t uuid[16],
		      uint32_t value_max, struct ut_txn_file *f, unsigned *bad,
		      struct ut_err *err);
void ut_txn_file_release(struct ut_txn_file *f);

#endif
