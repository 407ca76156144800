// SPDX-License-Identifier: MIT
/*
 * txn.c - the row API: transactions of puts and deletes, all or nothing.
 *
 * A transaction keeps its writes to itself (the write set: one entry per
 * key, the last write to it, values in an arena) until its commit, which
 * applies them as one mini-transaction (ut_btree_apply: one redo group,
 * which recovery applies whole or not at all).  Nothing uncommitted ever
 * reaches a page, so there is nothing to undo.  ut_put() and ut_delete(),
 * transactions of one write, change the tree at once.  Every row write
 * waits first, holding no latch, while the log has no space.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/engine.h>
#include "base/err.h"
#include "engine_int.h"

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

/* Before a row write: a cleaner's failure stops it, and it waits here
 * (holding no latch) while the log has no space. */
static int row_write_begin(struct ut_engine *eng, struct ut_err *err)
{
	int ret = ut_flush_fatal(&eng->flush);

	if (ret)
		return row_error(eng, ret, err);
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

/*
 * Refuses a write that would make the transaction larger than its
 * commit can apply at once, before anything changes: keys for a quarter
 * of the pool, a redo group within the log's buffer and 3/32 of the log,
 * 65 535 records.
 */
static int set_limits(const struct ut_txn *t, unsigned keys, size_t redo,
		      unsigned recs, struct ut_err *err)
{
	struct ut_engine *eng = t->eng;
	size_t redo_max = ut_redo_group_max(&eng->log) - UT_LOG_BLOCK;
	uint64_t share = UT_TXN_LOG_SHARE(eng->log.capacity);
	unsigned keys_max = eng->pool.n_frames / UT_TXN_POOL_SHARE;

	if (share < redo_max)
		redo_max = share;
	if (keys > keys_max)
		return ut_err_set(err, -E2BIG,
				  "transaction too large: write %u would make it %u keys, over the %u one transaction may write on this store (a quarter of the buffer pool's pages: bench/open --pool); commit and go on in a new transaction",
				  t->writes + 1, keys, keys_max);
	if (redo > redo_max || recs > 0xffff)
		return ut_err_set(err, -E2BIG,
				  "transaction too large: write %u would bring its redo to %zu bytes, over the %zu one transaction may hold on this store (one redo group in 3/32 of the log: init --log-size); commit and go on in a new transaction",
				  t->writes + 1, redo, redo_max);
	return 0;
}

/* Records a put (val) or a delete (val NULL) of key in the write set. */
static int set_write(struct ut_txn *t, uint64_t key, const void *val,
		     uint32_t len, struct ut_err *err)
{
	struct txn_set *s = t->ws;
	size_t bytes, old_bytes = 0, off = 0;
	unsigned recs, old_recs = 0;
	struct txn_write *w;
	int ret;

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
	ret = set_limits(t, s->n + !w, s->redo - old_bytes + bytes,
			 s->recs - old_recs + recs, err);
	if (ret)
		return ret;
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
			  "out of memory for a transaction's writes");
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

/* Applies the write set: one write as ut_put()/ut_delete() do, several
 * in key order as one mini-transaction. */
static int set_apply(struct ut_engine *eng, const struct txn_set *s,
		     uint64_t *lsn)
{
	struct ut_tree_op *ops;
	unsigned i;
	int ret;

	if (s->n == 1 && !s->w[0].del)
		return ut_btree_put(&eng->tree, s->w[0].key,
				    s->arena + s->w[0].off, s->w[0].len, lsn);
	if (s->n == 1) {
		ret = ut_btree_delete(&eng->tree, s->w[0].key, lsn);
		return ret == -ENOENT ? 0 : ret; /* gone since: nothing to do */
	}
	ops = malloc(s->n * sizeof(*ops));
	if (!ops)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		ops[i].key = s->w[i].key;
		ops[i].val = s->arena + s->w[i].off;
		ops[i].len = s->w[i].len;
		ops[i].del = s->w[i].del;
	}
	qsort(ops, s->n, sizeof(*ops), op_cmp);
	ret = ut_btree_apply(&eng->tree, ops, s->n, lsn);
	free(ops);
	return ret;
}

int ut_txn_commit(struct ut_txn *t, struct ut_err *err)
{
	struct ut_engine *eng = t->eng;
	struct txn_set *s = t->ws;
	uint64_t lsn = 0;
	int ret = 0;

	if (s && s->n) {
		ret = row_write_begin(eng, err);
		if (!ret) {
			ret = set_apply(eng, s, &lsn);
			if (ret)
				ret = row_error(eng, ret, err);
		}
	}
	ut_txn_rollback(t);
	if (ret)
		return ret;
	t->lsn = lsn;
	return commit_wait(eng, lsn, err);
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
	ret = ut_btree_put(&eng->tree, key, val, len, &lsn);
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
	ret = ut_btree_delete(&eng->tree, key, &lsn);
	if (ret == -ENOENT)
		return key_missing(key, err);
	if (ret)
		return row_error(eng, ret, err);
	return commit_wait(eng, lsn, err);
}
