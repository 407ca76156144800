/* SPDX-License-Identifier: MIT */
/*
 * btree.h - the clustered B+tree of u64 keys.
 *
 * Node layout in the page's logical area:
 *   0 le16 n_recs, 2 le16 heap_top (0 = empty page: area_size),
 *   4 le32 next leaf, 8 le32 prev leaf, 12 le16 garbage bytes,
 *  16 le16 slot[n_recs] (record offsets, in key order)
 * Records fill the heap from the end of the area down:
 *   leaf:     le64 key, le16 value length, value
 *   internal: le64 key, le32 child (the first record's key means -inf)
 * The root is always page 1: a root split moves the root's records to a
 * new page.  A leaf may be empty (its rows deleted, or split ahead of a
 * transaction's rows that never came).  A split takes a new page at the end of the file, so a tree
 * loaded in random key order is fragmented on disk.
 */
#ifndef UNTORN_BTREE_H
#define UNTORN_BTREE_H

#include <stdint.h>
#include <stddef.h>
#include "base/latch.h"
#include "base/gate.h"
#include "buf/log_space.h"
#include "mtr/mtr.h"

/* Called per row of a scan, in key order; nonzero stops it (the same
 * type as engine.h's ut_scan_fn). */
typedef int (*ut_row_fn)(uint64_t key, const void *val, uint32_t len,
			 void *user);

struct ut_tree {
	struct ut_mtr_ctx ctx; /* pool, log, space: its mtrs' */
	uint32_t root; /* never moves (see above) */
	struct ut_rwlock latch; /* S: one-leaf changes and reads;
					 * X: a split */
	uint64_t smo_seq; /* splits begun (under the X latch): a scan
			   * between two leaves sees whether one happened */
	struct ut_gate gate; /* scans on one side (all of a scan), commits
			      * of transactions (ut_btree_apply) on the
			      * other: taken before the tree latch */
	/* what the commits under way hold: leaves fixed in the pool and
	 * redo to come, kept under half the pool and 3/32 of the log */
	struct ut_mutex commit_mutex;
	pthread_cond_t commit_cond;
	unsigned commit_leaves;
	size_t commit_redo;
};

/* What a transaction's commit may hold: keys (a leaf each, fixed in the
 * pool until it is in the log) for 1/UT_TXN_POOL_SHARE of the pool's
 * pages, and redo for UT_TXN_LOG_SHARE of the log (log_space.h: above
 * the stop where writers wait, the log must take it).  The commits under
 * way together hold at most twice the pages and the same redo
 * (ut_btree_apply waits for room). */
#define UT_TXN_POOL_SHARE 4

/* One row write of a transaction: a put of len bytes at val, or a
 * delete (del). */
struct ut_tree_op {
	uint64_t key;
	const void *val;
	uint32_t len;
	int del;
};

void ut_tree_init(struct ut_tree *t, struct ut_bpool *pool, struct ut_redo *log,
		  struct ut_space *space, uint32_t root);

int ut_btree_put(struct ut_tree *t, uint64_t key, const void *val, uint32_t len,
		 uint64_t *lsn);
int ut_btree_delete(struct ut_tree *t, uint64_t key, uint64_t *lsn);
/* The redo bytes and records one write of len value bytes (or a delete)
 * adds to ut_btree_apply()'s group at most: what a transaction's size is
 * checked against before its commit. */
void ut_btree_op_bound(const struct ut_tree *t, uint32_t len, int del,
		       size_t *bytes, unsigned *recs);
/* Applies ops (in key order, one per key) as one mini-transaction, one
 * redo group, so that recovery keeps all of them or none, and no reader
 * sees some without the others.  Beside other writers when every leaf
 * the rows go to has room (the tree latch S, the leaves X in key order);
 * else, under the tree latch X, it first makes room (splits and
 * compactions, each an mtr of its own that changes no row).  A delete
 * of an absent key does nothing.  *lsn: the group's end (0: no change).
 * A failure after the first change is -EUCLEAN. */
int ut_btree_apply(struct ut_tree *t, const struct ut_tree_op *ops, unsigned n,
		   uint64_t *lsn);
int ut_btree_get(struct ut_tree *t, uint64_t key, void *buf, uint32_t cap,
		 uint32_t *len);
int ut_btree_scan(struct ut_tree *t, uint64_t from, ut_row_fn fn, void *user);
/* What a scan calls between two leaves, when it holds no latch. */
struct ut_scan_hooks {
	/* before it moves to leaf next: may start or finish read-ahead */
	int (*next_leaf)(uint32_t next, void *user);
	/* it is about to wait for the tree latch (a split holds it or waits
	 * for it): finish every read whose frames are latched, or the split
	 * could wait for them */
	void (*before_wait)(void *user);
	void *user;
};

/* The scan with read-ahead hooks (h may be NULL); leaves are fetched
 * with get_flags (UT_GET_SCAN).  The tree latch is let go between
 * leaves, so a long scan never holds up a split: after one, the scan
 * finds the key after the last it returned again. */
int ut_btree_scan_hooked(struct ut_tree *t, uint64_t from, ut_row_fn fn,
			 void *user, unsigned get_flags,
			 const struct ut_scan_hooks *h);
/* The leaf page numbers in key order, read from the level-1 pages. */
int ut_btree_leaf_list(struct ut_tree *t, uint32_t **leaves, size_t *n);

/*
 * Pages for a walk of a tree outside an open engine (untorn info reads a
 * store nobody writes): get gives page_no's frame (its meta and area
 * filled), put gives it back; at most one is held at a time.
 */
struct ut_tree_pages {
	int (*get)(void *ctx, uint32_t page_no, struct ut_frame **f);
	void (*put)(void *ctx, struct ut_frame *f);
	void *ctx;
};

/* What a walk of the whole tree finds. */
struct ut_tree_census {
	unsigned height; /* levels, the leaves' included */
	uint64_t rows;
	uint32_t *leaves; /* in key order (the caller frees) */
	size_t n_leaves;
};

/* Walks the tree under root through pg, every leaf read for its rows.
 * -EUCLEAN when a page is not what its parent says it is. */
int ut_btree_census(const struct ut_tree_pages *pg, uint32_t root,
		    struct ut_tree_census *c);

#endif
