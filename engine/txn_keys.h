/* SPDX-License-Identifier: MIT */
/*
 * txn_keys.h - the keys of the large commits being applied, and the
 * commits that must wait for them.
 *
 * A large transaction (txn_file.h) is committed once its commit file is
 * durable, and then applied in pieces.  Until its last piece is in the
 * log and its file is gone, no other commit may write one of its keys:
 * one that did would be overwritten by a later piece, or by the file
 * applied again after a crash.  So a large commit adds its keys (before
 * its file is written) and removes them at the end; every other commit
 * enters (holding the registry shared) and waits while one of its keys
 * is a large commit's.  With no large commit under way a commit pays
 * for one shared lock and one load.
 */
#ifndef UNTORN_TXN_KEYS_H
#define UNTORN_TXN_KEYS_H

#include <stdatomic.h>
#include <stdint.h>
#include "base/latch.h"
#include "tree/btree.h"

/* A large commit's keys: ops[0..n) in key order. */
struct ut_txn_keyset {
	const struct ut_tree_op *ops;
	size_t n;
	struct ut_txn_keyset *next;
};

struct ut_txn_keys {
	struct ut_rwlock gate; /* commits shared; adding and removing alone */
	struct ut_mutex mutex; /* removals and their waiters */
	pthread_cond_t removed;
	uint64_t removals;
	struct ut_txn_keyset *sets;
	atomic_uint n_sets;
	int failed; /* a large commit committed but not applied: -errno */
};

void ut_txn_keys_init(struct ut_txn_keys *k);
void ut_txn_keys_destroy(struct ut_txn_keys *k);
/* A commit of ops[0..n) (any order), or of one key (ops NULL, key): in
 * (0) when none of its keys is a large commit's, waiting until then; it
 * leaves after it has applied its writes.  Once a large commit has
 * failed (ut_txn_keys_fail) it is refused: that failure, -errno. */
int ut_txn_keys_enter(struct ut_txn_keys *k, const struct ut_tree_op *ops,
		      size_t n, uint64_t key);
void ut_txn_keys_leave(struct ut_txn_keys *k);
/* A large commit's keys, added once no other large commit shares one
 * (waiting until then; refused after a failure, as enter is), and
 * removed at its end. */
int ut_txn_keys_add(struct ut_txn_keys *k, struct ut_txn_keyset *set);
void ut_txn_keys_remove(struct ut_txn_keys *k, struct ut_txn_keyset *set);
/* A large commit committed but not applied (its file is applied at the
 * next open): its keys can never be given back, so from now on every
 * commit is refused with err, and those waiting wake to it. */
void ut_txn_keys_fail(struct ut_txn_keys *k, struct ut_txn_keyset *set,
		      int err);

#endif
