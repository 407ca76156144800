// SPDX-License-Identifier: MIT
/*
 * txn.c - the row API: transactions of puts and deletes, all or nothing.
 *
 * A transaction keeps its writes to itself (the write set: one entry per
 * key, the last write to it, values in an arena) until its commit.  A
 * write set that fits one redo group is applied as one mini-transaction
 * (ut_btree_apply), which recovery applies whole or not at all.  A
 * larger one is bounded by memory only: its commit writes it to a
 * commit file of its own (txn_file.h), durable before any of it is
 * applied, then applies it in pieces of one group each, its keys kept
 * from other commits until the last piece is in the log and the file is
 * gone (txn_keys.h); a store opened with a commit file applies it again.
 * Nothing uncommitted ever reaches a page, so there is nothing to undo.
 * ut_put() and ut_delete(), transactions of one write, change the tree
 * at once.  Every row write waits first, holding no latch, while the log
 * has no space.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/engine.h>
#include "base/err.h"
#include "engine_int.h"
#include "txn_file.h"

struct txn_write {
	uint64_t key;
	size_t off; /* the value, in the arena */
	uint32_t len;
	int del;
};

struct txn_set {
	struct txn_write *w;
	unsigned n, cap;
	uint32_t *slots; /* hash of keys: index + 1 into w, 0 empty */
	unsigned n_slots;
	unsigned char *arena;
	size_t used, arena_cap;
	size_t redo; /* the commit's group, at most */
	unsigned recs;
};

static int row_error(struct ut_engine *eng, int ret, struct ut_err *err)
{
	if (ret == -ENOSPC || ret == -EDQUOT)
		return ut_err_set(err, ret,
				  "%s: no space left to grow the data file; free space on the filesystem, then retry (committed rows are safe)",
				  eng->store->data_path);
	return ut_err_set(err, ret, "%s: write failed: %s",
			  eng->store->data_path, strerror(-ret));
}

/* After a large commit committed but not applied: every row write. */
static int broken_error(struct ut_engine *eng, int ret, struct ut_err *err)
{
	return ut_err_set(err, ret,
			  "%s: a large transaction's commit could not be applied (%s); its commit file is applied when the store is next opened: close it and open it again",
			  eng->store->dir, strerror(-ret));
}

/* Before a row write: a cleaner's failure stops it, and it waits here
 * (holding no latch) while the log has no space. */
static int row_write_begin(struct ut_engine *eng, struct ut_err *err)
{
	int ret = ut_flush_fatal(&eng->flush);

	if (ret)
		return row_error(eng, ret, err);
	ret = atomic_load(&eng->txn_broken);
	if (ret)
		return broken_error(eng, ret, err);
	ut_flush_log_free_check(&eng->flush);
	return 0;
}

/* A commit's end: counted, and in sync mode durable when it returns. */
static int commit_wait(struct ut_engine *eng, uint64_t lsn, struct ut_err *err)
{
	int ret = 0;

	atomic_fetch_add(&eng->commits, 1);
	if (eng->opts.commit == UT_COMMIT_SYNC && lsn)
		ret = ut_redo_flush_to(&eng->log, lsn);
	return ret ? row_error(eng, ret, err) : 0;
}

static int value_check(struct ut_engine *eng, uint32_t len, struct ut_err *err)
{
	if (len <= ut_engine_value_max(eng))
		return 0;
	return ut_err_set(err, -E2BIG,
			  "value of %u bytes is larger than %u, 1/8 of a page's record area",
			  len, ut_engine_value_max(eng));
}

/* A delete of a key that is not there: -ENOENT, said. */
static int key_missing(uint64_t key, struct ut_err *err)
{
	return ut_err_set(err, -ENOENT, "key %llu not found",
			  (unsigned long long)key);
}

/* ---- the write set --------------------------------------------------- */

static uint32_t key_hash(uint64_t key)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(key >> 32);
}

/* The entry of key, or NULL. */
static struct txn_write *set_find(const struct txn_set *s, uint64_t key)
{
	uint32_t i, mask = s->n_slots - 1;

	if (!s->n_slots)
		return NULL;
	for (i = key_hash(key) & mask; s->slots[i]; i = (i + 1) & mask)
		if (s->w[s->slots[i] - 1].key == key)
			return &s->w[s->slots[i] - 1];
	return NULL;
}

static void set_index(struct txn_set *s, unsigned idx)
{
	uint32_t i, mask = s->n_slots - 1;

	for (i = key_hash(s->w[idx].key) & mask; s->slots[i];
	     i = (i + 1) & mask)
		;
	s->slots[i] = idx + 1;
}

/* Room for one more entry: the array and a hash at most half full. */
static int set_grow(struct txn_set *s)
{
	unsigned cap = s->cap ? 2 * s->cap : 8, i;
	struct txn_write *w;
	uint32_t *slots;

	if (s->n < s->cap)
		return 0;
	w = realloc(s->w, cap * sizeof(*w));
	if (!w)
		return -ENOMEM;
	s->w = w;
	slots = calloc(2 * cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(s->slots);
	s->slots = slots;
	s->n_slots = 2 * cap;
	s->cap = cap;
	for (i = 0; i < s->n; i++)
		set_index(s, i);
	return 0;
}

/* Takes len bytes of the arena for a value: their offset in *off. */
static int arena_take(struct txn_set *s, uint32_t len, size_t *off)
{
	size_t cap = s->arena_cap ? s->arena_cap : 4096;
	unsigned char *grown;

	while (cap < s->used + len)
		cap *= 2;
	if (!s->arena || cap != s->arena_cap) {
		grown = realloc(s->arena, cap);
		if (!grown)
			return -ENOMEM;
		s->arena = grown;
		s->arena_cap = cap;
	}
	*off = s->used;
	s->used += len;
	return 0;
}

static void set_free(struct txn_set *s)
{
	if (!s)
		return;
	free(s->w);
	free(s->slots);
	free(s->arena);
	free(s);
}

/* the writes a transaction may hold: the write set's index is 32 bits */
#define UT_TXN_WRITES_MAX (1u << 30)

/* a large commit's piece: this fraction of one group's limits */
#define UT_TXN_PIECE_SHARE 4

/*
 * What one commit can apply at once, as one redo group: keys for a
 * quarter of the pool, redo within the log's buffer and 3/32 of the log,
 * 65 535 records.  A transaction within them commits as one
 * mini-transaction; a larger one through its commit file, in pieces
 * each within them.
 */
struct group_limits {
	size_t redo;
	unsigned keys;
};

static void group_limits(const struct ut_engine *eng, struct group_limits *l)
{
	uint64_t share = UT_TXN_LOG_SHARE(eng->log.capacity);

	l->redo = ut_redo_group_max(&eng->log) - UT_LOG_BLOCK;
	if (share < l->redo)
		l->redo = share;
	l->keys = eng->pool.n_frames / UT_TXN_POOL_SHARE;
}

static int group_fits(const struct group_limits *l, unsigned keys, size_t redo,
		      unsigned recs)
{
	return keys <= l->keys && redo <= l->redo && recs <= 0xffff;
}

/* Records a put (val) or a delete (val NULL) of key in the write set. */
static int set_write(struct ut_txn *t, uint64_t key, const void *val,
		     uint32_t len, struct ut_err *err)
{
	struct txn_set *s = t->ws;
	size_t bytes, old_bytes = 0, off = 0;
	unsigned recs, old_recs = 0;
	struct txn_write *w;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			goto out_no_memory;
		t->ws = s;
	}
	ut_btree_op_bound(&t->eng->tree, len, !val, &bytes, &recs);
	w = set_find(s, key);
	if (w)
		ut_btree_op_bound(&t->eng->tree, w->len, w->del, &old_bytes,
				  &old_recs);
	if (!w && s->n >= UT_TXN_WRITES_MAX)
		return ut_err_set(err, -E2BIG,
				  "transaction too large: %u keys is the most one transaction may write; commit and go on in a new transaction",
				  UT_TXN_WRITES_MAX);
	/* everything that can fail before anything changes */
	if (!w && set_grow(s))
		goto out_no_memory;
	if (w && len && len <= w->len &&
	    s->arena) /* where the one it replaces was */
		off = w->off;
	else if (len && arena_take(s, len, &off))
		goto out_no_memory;
	if (!w) {
		w = &s->w[s->n];
		w->key = key;
		set_index(s, s->n++);
	}
	if (len)
		memcpy(s->arena + off, val, len);
	w->off = off;
	w->len = len;
	w->del = !val;
	s->redo += bytes - old_bytes;
	s->recs += recs - old_recs;
	return 0;
out_no_memory:
	return ut_err_set(err, -ENOMEM,
			  "out of memory for a transaction's writes (%u keys, %zu MiB of values held): a transaction is bounded by memory; commit and go on in a new transaction",
			  s ? s->n : 0, s ? s->used >> 20 : 0);
}

/* ---- transactions ---------------------------------------------------- */

void ut_txn_begin(struct ut_engine *eng, struct ut_txn *t)
{
	t->eng = eng;
	t->lsn = 0;
	t->writes = 0;
	t->ws = NULL;
}

int ut_txn_put(struct ut_txn *t, uint64_t key, const void *val, uint32_t len,
	       struct ut_err *err)
{
	int ret = value_check(t->eng, len, err);

	if (!ret)
		ret = set_write(t, key, val ? val : "", len, err);
	if (!ret)
		t->writes++;
	return ret;
}

int ut_txn_delete(struct ut_txn *t, uint64_t key, struct ut_err *err)
{
	const struct txn_write *w = t->ws ? set_find(t->ws, key) : NULL;
	unsigned char probe;
	uint32_t len;
	int ret = 0;

	if (w ? w->del :
		ut_btree_get(&t->eng->tree, key, &probe, 0, &len) == -ENOENT)
		return key_missing(key, err);
	ret = set_write(t, key, NULL, 0, err);
	if (!ret)
		t->writes++;
	return ret;
}

int ut_txn_get(struct ut_txn *t, uint64_t key, void *buf, uint32_t cap,
	       uint32_t *len)
{
	const struct txn_write *w = t->ws ? set_find(t->ws, key) : NULL;
	const struct txn_set *s = t->ws;

	if (!w)
		return ut_btree_get(&t->eng->tree, key, buf, cap, len);
	if (w->del)
		return -ENOENT;
	*len = w->len;
	memcpy(buf, s->arena + w->off, w->len < cap ? w->len : cap);
	return 0;
}

void ut_txn_rollback(struct ut_txn *t)
{
	set_free(t->ws);
	t->ws = NULL;
}

static int op_cmp(const void *a, const void *b)
{
	const struct ut_tree_op *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* The write set as tree ops, in key order (NULL: no memory). */
static struct ut_tree_op *set_ops(const struct txn_set *s)
{
	struct ut_tree_op *ops = malloc(s->n * sizeof(*ops));
	unsigned i;

	if (!ops)
		return NULL;
	for (i = 0; i < s->n; i++) {
		ops[i].key = s->w[i].key;
		ops[i].val = s->arena + s->w[i].off;
		ops[i].len = s->w[i].len;
		ops[i].del = s->w[i].del;
	}
	qsort(ops, s->n, sizeof(*ops), op_cmp);
	return ops;
}

/* Applies a write set that fits one group: one write as ut_put() and
 * ut_delete() do, several as one mini-transaction; its keys wait for a
 * large commit that holds one. */
static int set_apply(struct ut_engine *eng, const struct txn_set *s,
		     uint64_t *lsn, struct ut_err *err)
{
	struct ut_tree_op *ops;
	int ret;

	if (s->n == 1) {
		ret = ut_txn_keys_enter(&eng->txn_keys, NULL, 0, s->w[0].key);
		if (ret)
			return broken_error(eng, ret, err);
		if (!s->w[0].del)
			ret = ut_btree_put(&eng->tree, s->w[0].key,
					   s->arena + s->w[0].off, s->w[0].len,
					   lsn);
		else
			ret = ut_btree_delete(&eng->tree, s->w[0].key, lsn);
		ut_txn_keys_leave(&eng->txn_keys);
		if (ret == -ENOENT) /* gone since: nothing to do */
			return 0;
		return ret ? row_error(eng, ret, err) : 0;
	}
	ops = set_ops(s);
	if (!ops)
		return row_error(eng, -ENOMEM, err);
	ret = ut_txn_keys_enter(&eng->txn_keys, ops, s->n, 0);
	if (ret) {
		free(ops);
		return broken_error(eng, ret, err);
	}
	ret = ut_btree_apply(&eng->tree, ops, s->n, lsn);
	ut_txn_keys_leave(&eng->txn_keys);
	free(ops);
	return ret ? row_error(eng, ret, err) : 0;
}

/*
 * Applies ops[0..n) (key order) in pieces of one group each, each after
 * the log has room: what a large commit does after its commit file is
 * durable, and what an open does with a commit file it finds.  *lsn: the
 * last piece's end.
 */
static int pieces_apply(struct ut_engine *eng, const struct ut_tree_op *ops,
			size_t n, uint64_t *lsn)
{
	struct group_limits l;
	size_t i = 0, j, bytes, redo;
	unsigned recs, r;
	uint64_t end;
	int ret;

	group_limits(eng, &l);
	/* a piece takes a quarter of what one commit may: the commits
	 * beside it share the pool's fixed leaves and the log's redo to
	 * come with it (ut_btree_apply's budget), and wait less */
	l.redo /= UT_TXN_PIECE_SHARE;
	l.keys /= UT_TXN_PIECE_SHARE;
	while (i < n) {
		for (j = i, redo = 0, recs = 0; j < n; j++) {
			ut_btree_op_bound(&eng->tree, ops[j].len, ops[j].del,
					  &bytes, &r);
			if (j > i && !group_fits(&l, (unsigned)(j - i + 1),
						 redo + bytes, recs + r))
				break;
			redo += bytes;
			recs += r;
		}
		ret = ut_flush_fatal(&eng->flush);
		if (ret)
			return ret;
		ut_flush_log_free_check(&eng->flush);
		end = 0;
		ret = ut_btree_apply(&eng->tree, ops + i, (unsigned)(j - i),
				     &end);
		if (ret)
			return ret;
		if (end)
			*lsn = end;
		i = j;
	}
	return 0;
}

/* The end of a large commit's apply: its pieces durable in the log, then
 * its commit file gone, so that no open applies it again. */
static int pieces_done(struct ut_engine *eng, const char *path, uint64_t lsn)
{
	int ret = lsn ? ut_redo_flush_to(&eng->log, lsn) : 0;

	return ret ? ret : ut_txn_file_remove(path);
}

/*
 * A write set larger than one group: its keys taken from other commits,
 * its writes durable in a commit file (the commit point), applied in
 * pieces, the file removed, the keys given back.  A failure before the
 * file is durable applies nothing; one after it leaves the file for the
 * next open and stops every row write until then.
 */
static int large_commit(struct ut_engine *eng, const struct txn_set *s,
			uint64_t *lsn, struct ut_err *err)
{
	struct ut_txn_keyset keys;
	struct ut_tree_op *ops = set_ops(s);
	char path[4200];
	int ret;

	if (!ops)
		return ut_err_set(err, -ENOMEM,
				  "out of memory to sort a transaction's %u writes",
				  s->n);
	keys.ops = ops;
	keys.n = s->n;
	ret = ut_txn_keys_add(&eng->txn_keys, &keys);
	if (ret) {
		free(ops);
		return broken_error(eng, ret, err);
	}
	ret = ut_txn_file_write(eng->store->dir, eng->store->sb.uuid, ops, s->n,
				path, sizeof(path), err);
	if (ret == -EUCLEAN) /* a file that may survive: as if committed */
		goto out_committed;
	if (ret)
		goto out_keys;
	ret = pieces_apply(eng, ops, s->n, lsn);
	if (!ret)
		ret = pieces_done(eng, path, *lsn);
	if (ret) {
		ut_err_set(err, -EUCLEAN,
			   "%s: a transaction of %u writes was committed (%s) but could not be applied: %s; it is applied when the store is next opened: close it and open it again",
			   eng->store->dir, s->n, path, strerror(-ret));
		goto out_committed;
	}
out_keys:
	ut_txn_keys_remove(&eng->txn_keys, &keys);
	free(ops);
	return ret;
out_committed:
	/* its keys can never be given back: the file applied at the next
	 * open would overwrite any later write to them */
	atomic_store(&eng->txn_broken, ret);
	ut_txn_keys_fail(&eng->txn_keys, &keys, ret);
	free(ops);
	return -EUCLEAN;
}

int ut_txn_commit(struct ut_txn *t, struct ut_err *err)
{
	struct ut_engine *eng = t->eng;
	struct txn_set *s = t->ws;
	struct group_limits l;
	uint64_t lsn = 0;
	int ret = 0;

	if (s && s->n) {
		ret = row_write_begin(eng, err);
		group_limits(eng, &l);
		if (!ret && !group_fits(&l, s->n, s->redo, s->recs)) {
			ret = large_commit(eng, s, &lsn, err);
		} else if (!ret) {
			ret = set_apply(eng, s, &lsn, err);
		}
	}
	ut_txn_rollback(t);
	if (ret)
		return ret;
	t->lsn = lsn;
	return commit_wait(eng, lsn, err);
}

/*
 * At open, after recovery, with the cleaners running: every commit file
 * in the store's directory applied and removed (one that does not check
 * was never committed, and is removed unapplied).  *applied and *bad
 * count them.
 */
int ut_txn_files_recover(struct ut_engine *eng, unsigned *applied,
			 unsigned *bad, struct ut_err *err)
{
	struct ut_txn_file f;
	uint64_t lsn = 0;
	int ret;

	*applied = 0;
	*bad = 0;
	while ((ret = ut_txn_file_first(eng->store->dir, eng->store->sb.uuid,
					ut_engine_value_max(eng), &f, bad,
					err)) == 1) {
		ret = pieces_apply(eng, f.ops, f.n, &lsn);
		if (!ret)
			ret = pieces_done(eng, f.path, lsn);
		if (ret) {
			ut_err_set(err, ret,
				   "%s: cannot apply this committed transaction's %zu writes: %s; it is applied (again) at the next open",
				   f.path, f.n, strerror(-ret));
			ut_txn_file_release(&f);
			return ret;
		}
		ut_txn_file_release(&f);
		(*applied)++;
	}
	return ret;
}

/* ---- transactions of one write -------------------------------------- */

int ut_put(struct ut_engine *eng, uint64_t key, const void *val, uint32_t len,
	   struct ut_err *err)
{
	uint64_t lsn = 0;
	int ret = value_check(eng, len, err);

	if (!ret)
		ret = row_write_begin(eng, err);
	if (ret)
		return ret;
	ret = ut_txn_keys_enter(&eng->txn_keys, NULL, 0, key);
	if (ret)
		return broken_error(eng, ret, err);
	ret = ut_btree_put(&eng->tree, key, val, len, &lsn);
	ut_txn_keys_leave(&eng->txn_keys);
	if (ret)
		return row_error(eng, ret, err);
	return commit_wait(eng, lsn, err);
}

int ut_delete(struct ut_engine *eng, uint64_t key, struct ut_err *err)
{
	uint64_t lsn = 0;
	int ret = row_write_begin(eng, err);

	if (ret)
		return ret;
	ret = ut_txn_keys_enter(&eng->txn_keys, NULL, 0, key);
	if (ret)
		return broken_error(eng, ret, err);
	ret = ut_btree_delete(&eng->tree, key, &lsn);
	ut_txn_keys_leave(&eng->txn_keys);
	if (ret == -ENOENT)
		return key_missing(key, err);
	if (ret)
		return row_error(eng, ret, err);
	return commit_wait(eng, lsn, err);
}
