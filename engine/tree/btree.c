// SPDX-License-Identifier: MIT
/*
 * btree.c - B+tree search, insert with splits, update, delete, scan.
 *
 * Concurrency: the tree latch is taken shared by readers and by writers
 * that change one leaf (optimistic), exclusive by writers that split
 * (pessimistic) and by a transaction's commit, which makes room for its
 * rows first and then changes every leaf it writes in one mtr.  Pages are
 * latched top-down with coupling.  The transaction gate keeps a scan and
 * such a commit apart, so that a scan sees a transaction whole or not at
 * all.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "tree/btree.h"
#include "base/bytes.h"
#include "mtr/mtr.h"

#define BT_N 0
#define BT_HEAP 2
#define BT_NEXT 4
#define BT_PREV 8
#define BT_GARBAGE 12
#define BT_SLOTS 16
#define LEAF_HDR 10u
#define NODE_REC 12u
#define MAX_HEIGHT 12
#define GATE_SCAN 0
#define GATE_COMMIT 1

static struct ut_tree *tree_of(const struct ut_mtr *m)
{
	return (struct ut_tree *)((char *)m->ctx -
				  offsetof(struct ut_tree, ctx));
}

static uint32_t area_of(const struct ut_mtr *m)
{
	return m->ctx->pool->geom.area_size;
}

struct bt_rec {
	const unsigned char *p;
	uint32_t size;
};

static uint16_t n_recs(const struct ut_frame *f)
{
	return get_le16(f->area + BT_N);
}

static uint32_t heap_top(uint32_t area, const struct ut_frame *f)
{
	uint16_t h = get_le16(f->area + BT_HEAP);

	return h ? h : area;
}

static const unsigned char *rec_at(const struct ut_frame *f, unsigned i)
{
	return f->area + get_le16(f->area + BT_SLOTS + 2 * i);
}

static uint64_t rec_key(const struct ut_frame *f, unsigned i)
{
	return get_le64(rec_at(f, i));
}

static uint32_t rec_size(const struct ut_frame *f, const unsigned char *r)
{
	return f->meta.level ? NODE_REC : LEAF_HDR + get_le16(r + 8);
}

static uint32_t free_space(uint32_t area, const struct ut_frame *f)
{
	return heap_top(area, f) - BT_SLOTS - 2 * n_recs(f);
}

/* First slot whose key is >= key. */
static unsigned lower_bound(const struct ut_frame *f, uint64_t key)
{
	unsigned lo = 0, hi = n_recs(f), mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (rec_key(f, mid) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Internal node: the slot of the child that covers key. */
static unsigned child_slot(const struct ut_frame *f, uint64_t key)
{
	unsigned i = lower_bound(f, key);

	if (i < n_recs(f) && rec_key(f, i) == key)
		return i;
	return i ? i - 1 : 0;
}

static uint32_t child_at(const struct ut_frame *f, unsigned i)
{
	return get_le32(rec_at(f, i) + 8);
}

/* ---- building a node from records ---------------------------------- */

/* Writes records recs[0..n) as the whole content of f (keeping its leaf
 * links), logging only the header, slots and heap. */
static void node_rebuild(struct ut_mtr *m, struct ut_frame *f,
			 const struct bt_rec *recs, unsigned n,
			 unsigned char *tmp)
{
	uint32_t area = area_of(m), top = area, i;

	memcpy(tmp, f->area, BT_SLOTS);
	for (i = 0; i < n; i++) {
		top -= recs[i].size;
		memcpy(tmp + top, recs[i].p, recs[i].size);
		put_le16(tmp + BT_SLOTS + 2 * i, top);
	}
	put_le16(tmp + BT_N, n);
	put_le16(tmp + BT_HEAP, top < area ? top : 0); /* 0: empty */
	put_le16(tmp + BT_GARBAGE, 0);
	ut_mtr_write(m, f, 0, tmp, BT_SLOTS + 2 * n);
	if (top < area)
		ut_mtr_write(m, f, top, tmp + top, area - top);
}

/* Copies f's records out into buf, with rec inserted at pos. */
static unsigned collect(const struct ut_frame *f, const struct bt_rec *rec,
			unsigned pos, struct bt_rec *out, unsigned char *buf)
{
	unsigned i, n = n_recs(f), k = 0;
	uint32_t off = 0, size;
	const unsigned char *r;

	for (i = 0; i <= n; i++) {
		if (i == pos && rec) {
			memcpy(buf + off, rec->p, rec->size);
			out[k].p = buf + off;
			out[k++].size = rec->size;
			off += rec->size;
		}
		if (i == n)
			break;
		r = rec_at(f, i);
		size = rec_size(f, r);
		memcpy(buf + off, r, size);
		out[k].p = buf + off;
		out[k++].size = size;
		off += size;
	}
	return k;
}

/* ---- inserting into a node with room -------------------------------- */

static int node_insert_fits(uint32_t area, struct ut_frame *f, uint32_t size)
{
	return free_space(area, f) + get_le16(f->area + BT_GARBAGE) >= size + 2;
}

static int node_compact(struct ut_mtr *m, struct ut_frame *f)
{
	uint32_t area = area_of(m);
	unsigned char *buf = malloc(area), *tmp = malloc(area);
	struct bt_rec *recs = malloc((area / 2) * sizeof(*recs));
	unsigned n;

	if (!buf || !tmp || !recs) {
		free(buf);
		free(tmp);
		free(recs);
		return -ENOMEM;
	}
	n = collect(f, NULL, 0, recs, buf);
	node_rebuild(m, f, recs, n, tmp);
	free(buf);
	free(tmp);
	free(recs);
	return 0;
}

static int node_insert(struct ut_mtr *m, struct ut_frame *f, unsigned pos,
		       const struct bt_rec *rec)
{
	unsigned n = n_recs(f);
	uint32_t top;
	int ret;

	if (free_space(area_of(m), f) < rec->size + 2) {
		ret = node_compact(m, f);
		if (ret)
			return ret;
	}
	top = heap_top(area_of(m), f) - rec->size;
	ut_mtr_write(m, f, top, rec->p, rec->size);
	ut_mtr_move(m, f, BT_SLOTS + 2 * (pos + 1), BT_SLOTS + 2 * pos,
		    2 * (n - pos));
	ut_mtr_write16(m, f, BT_SLOTS + 2 * pos, top);
	ut_mtr_write16(m, f, BT_N, n + 1);
	ut_mtr_write16(m, f, BT_HEAP, top);
	return 0;
}

static void node_remove(struct ut_mtr *m, struct ut_frame *f, unsigned pos)
{
	unsigned n = n_recs(f);
	uint32_t size = rec_size(f, rec_at(f, pos));

	ut_mtr_move(m, f, BT_SLOTS + 2 * pos, BT_SLOTS + 2 * (pos + 1),
		    2 * (n - pos - 1));
	ut_mtr_write16(m, f, BT_N, n - 1);
	ut_mtr_write16(m, f, BT_GARBAGE, get_le16(f->area + BT_GARBAGE) + size);
}

/* ---- descent ------------------------------------------------------- */

/*
 * Latches the path from the root to the leaf that covers key.  Shared
 * mode (optimistic): internal pages S with coupling, leaf in leaf_mode;
 * path[0] is the leaf.  Exclusive (pessimistic): every page X and kept;
 * path[0..*depth) from the leaf up.
 */
static int descend(struct ut_mtr *m, uint64_t key, enum ut_latch_mode leaf_mode,
		   int keep_path, struct ut_frame **path, unsigned *depth)
{
	uint32_t root = tree_of(m)->root;
	struct ut_frame *f, *child, *stack[MAX_HEIGHT];
	enum ut_latch_mode mode;
	unsigned n = 0;
	int ret;

	mode = keep_path ? UT_X : UT_S;
	ret = ut_mtr_get(m, root, mode, &f);
	if (ret)
		return ret;
	if (f->meta.level == 0 && mode != leaf_mode) {
		ut_mtr_release(m, f);
		ret = ut_mtr_get(m, root, leaf_mode, &f);
		if (ret)
			return ret;
	}
	for (;;) {
		if (n == MAX_HEIGHT)
			return -EUCLEAN;
		stack[n++] = f;
		if (f->meta.level == 0)
			break;
		mode = keep_path || f->meta.level > 1 ? mode : leaf_mode;
		if (keep_path)
			mode = UT_X;
		ret = ut_mtr_get(m, child_at(f, child_slot(f, key)), mode,
				 &child);
		if (ret)
			return ret;
		if (child->meta.level + 1 != f->meta.level)
			return -EUCLEAN;
		if (!keep_path) {
			ut_mtr_release(m, f);
			n--;
		}
		f = child;
	}
	for (*depth = 0; n > 0;)
		path[(*depth)++] = stack[--n];
	return 0;
}

/* ---- split ---------------------------------------------------------- */

static int split_insert(struct ut_mtr *m, struct ut_frame **path,
			unsigned depth, unsigned level_idx, unsigned pos,
			const struct bt_rec *rec, const uint64_t *at);

/* Inserts rec at pos in path[i], splitting as needed. */
static int insert_at(struct ut_mtr *m, struct ut_frame **path, unsigned depth,
		     unsigned i, unsigned pos, const struct bt_rec *rec)
{
	if (node_insert_fits(area_of(m), path[i], rec->size))
		return node_insert(m, path[i], pos, rec);
	return split_insert(m, path, depth, i, pos, rec, NULL);
}

/* Moves the root's content to a new page, making the root its parent. */
static int root_raise(struct ut_mtr *m, struct ut_frame **path, unsigned *depth,
		      unsigned char *buf, unsigned char *tmp,
		      struct bt_rec *recs)
{
	struct ut_frame *root = path[*depth - 1], *child;
	unsigned char rec[NODE_REC];
	struct bt_rec r = { rec, NODE_REC };
	uint32_t page_no;
	unsigned n;
	int ret;

	ret = ut_space_alloc(m->ctx->space, &page_no);
	if (ret)
		return ret;
	ret = ut_mtr_create(m, page_no, UT_PAGE_BTREE, root->meta.level,
			    &child);
	if (ret)
		return ret;
	n = collect(root, NULL, 0, recs, buf);
	node_rebuild(m, child, recs, n, tmp);
	ut_mtr_write(m, child, BT_NEXT, root->area + BT_NEXT, 8);
	ret = ut_mtr_reinit(m, root, UT_PAGE_BTREE, root->meta.level + 1);
	if (ret)
		return ret;
	ut_mtr_write(m, root, 0, root->area, BT_SLOTS);
	put_le64(rec, 0);
	put_le32(rec + 8, page_no);
	node_rebuild(m, root, &r, 1, tmp);
	/* path: the new child takes the root's place, the root goes on top */
	path[*depth - 1] = child;
	path[(*depth)++] = root;
	return 0;
}

static int relink_leaves(struct ut_mtr *m, struct ut_frame *left,
			 struct ut_frame *right)
{
	uint32_t next = get_le32(left->area + BT_NEXT);
	struct ut_frame *nf;
	int ret;

	ut_mtr_write32(m, right, BT_NEXT, next);
	ut_mtr_write32(m, right, BT_PREV, left->meta.page_no);
	ut_mtr_write32(m, left, BT_NEXT, right->meta.page_no);
	if (!next)
		return 0;
	ret = ut_mtr_get(m, next, UT_X, &nf);
	if (ret)
		return ret;
	ut_mtr_write32(m, nf, BT_PREV, right->meta.page_no);
	return 0;
}

/*
 * The share of a splitting node's bytes kept on the left, in 1/64ths:
 * 19..45 (0.30..0.70), fixed per page number (a hash, no state).  Cut in
 * the middle, the nodes of a tree grown by random inserts fill in step
 * (each grows in proportion to its size), so they split in waves and the
 * tree's size jumps with the row count and with a node's capacity.
 * Halves of unequal size fill at different times and the waves die out,
 * the tree as full as the middle cut's between its crests
 * (docs/architecture.md, "The engine"; shape_test holds it).
 */
static uint32_t split_share(uint32_t page_no)
{
	uint32_t h = page_no * 0x9e3779b1u;

	h ^= h >> 15;
	return 19 + (uint32_t)(((uint64_t)(h * 0x85ebca6bu) * 27) >> 32);
}

/* Where to cut n records: after the page's share of their bytes, or at
 * the end for appends. */
static unsigned split_point(const struct bt_rec *recs, unsigned n, unsigned pos,
			    uint32_t page_no)
{
	uint32_t total = 0, left_bytes, acc = 0;
	unsigned i;

	if (pos == n - 1)
		return n - 1; /* ascending inserts: keep the left page full */
	for (i = 0; i < n; i++)
		total += recs[i].size + 2;
	left_bytes = (uint64_t)total * split_share(page_no) / 64;
	for (i = 0; i < n - 1; i++) {
		acc += recs[i].size + 2;
		if (acc >= left_bytes)
			return i + 1;
	}
	return n - 1;
}

/*
 * Splits path[i], with rec inserted at pos; or, rec NULL, at the first
 * record whose key is >= *at with *at as the separator: room made where
 * a transaction's rows will go, which may leave either half empty until
 * they come.
 */
static int split_insert(struct ut_mtr *m, struct ut_frame **path,
			unsigned depth, unsigned i, unsigned pos,
			const struct bt_rec *rec, const uint64_t *at)
{
	uint32_t area = area_of(m), page_no;
	unsigned char *buf, *tmp, sep[NODE_REC];
	struct ut_frame *left, *right;
	struct bt_rec *recs, sep_rec = { sep, NODE_REC };
	unsigned n, cut, ppos;
	int ret = -ENOMEM;

	buf = malloc(area + (rec ? rec->size : 0));
	tmp = malloc(area);
	recs = malloc((area / 2 + 2) * sizeof(*recs));
	if (!buf || !tmp || !recs)
		goto out_free;
	if (i == depth - 1) { /* splitting the root */
		ret = root_raise(m, path, &depth, buf, tmp, recs);
		if (ret)
			goto out_free;
	}
	left = path[i];
	n = collect(left, rec, pos, recs, buf);
	if (at) {
		for (cut = 0; cut < n && get_le64(recs[cut].p) < *at; cut++)
			;
	} else if (n < 2) { /* a full node holds records: this one is damaged */
		ret = -EUCLEAN;
		goto out_free;
	} else {
		cut = split_point(recs, n, pos,
				  left->meta.page_no); /* 1..n-1 */
	}
	ret = ut_space_alloc(m->ctx->space, &page_no);
	if (!ret)
		ret = ut_mtr_create(m, page_no, UT_PAGE_BTREE, left->meta.level,
				    &right);
	if (ret)
		goto out_free;
	node_rebuild(m, left, recs, cut, tmp);
	node_rebuild(m, right, recs + cut, n - cut, tmp);
	if (left->meta.level == 0) {
		ret = relink_leaves(m, left, right);
		if (ret)
			goto out_free;
	}
	if (at)
		put_le64(sep, *at);
	else /* collect() filled recs[0..n) and cut < n: clang-tidy 14 cannot see it */
		memcpy(sep, recs[cut].p,
		       8); /* NOLINT(clang-analyzer-core.CallAndMessage) */
	put_le32(sep + 8, page_no);
	ppos = child_slot(path[i + 1], get_le64(sep)) + 1;
	ret = insert_at(m, path, depth, i + 1, ppos, &sep_rec);
out_free:
	free(buf);
	free(tmp);
	free(recs);
	return ret;
}

/* ---- operations ----------------------------------------------------- */

static void make_leaf_rec(unsigned char *buf, uint64_t key, const void *val,
			  uint32_t len, struct bt_rec *r)
{
	put_le64(buf, key);
	put_le16(buf + 8, len);
	memcpy(buf + LEAF_HDR, val, len);
	r->p = buf;
	r->size = LEAF_HDR + len;
}

/* Changes the leaf in place if it can; 1 when a split is needed. */
static int leaf_put(struct ut_mtr *m, struct ut_frame *leaf,
		    const struct bt_rec *rec, uint64_t key, uint32_t len)
{
	unsigned pos = lower_bound(leaf, key);
	int exists = pos < n_recs(leaf) && rec_key(leaf, pos) == key;
	const unsigned char *old;
	uint32_t extra = 0;

	if (exists) {
		old = rec_at(leaf, pos);
		if (get_le16(old + 8) == len) {
			ut_mtr_write(m, leaf, old - leaf->area + LEAF_HDR,
				     rec->p + LEAF_HDR, len);
			return 0;
		}
		extra = rec_size(leaf, old) + 2;
	}
	if (free_space(area_of(m), leaf) + get_le16(leaf->area + BT_GARBAGE) +
		    extra <
	    rec->size + 2)
		return 1;
	if (exists)
		node_remove(m, leaf, pos);
	return node_insert(m, leaf, pos, rec);
}

static int put_pessimistic(struct ut_mtr *m, uint64_t key,
			   const struct bt_rec *rec, uint32_t len)
{
	struct ut_frame *path[MAX_HEIGHT + 1];
	struct ut_frame *leaf;
	unsigned depth, pos;
	int ret;

	ret = descend(m, key, UT_X, 1, path, &depth);
	if (ret)
		return ret;
	ret = ut_space_reserve(m->ctx->space, depth + 2);
	if (ret)
		return ret;
	leaf = path[0];
	ret = leaf_put(m, leaf, rec, key, len);
	if (ret <= 0)
		return ret;
	pos = lower_bound(leaf, key);
	if (pos < n_recs(leaf) && rec_key(leaf, pos) == key)
		node_remove(m, leaf, pos);
	return split_insert(m, path, depth, 0, pos, rec, NULL);
}

/* Removes key's row from leaf: -ENOENT when it has none. */
static int leaf_delete(struct ut_mtr *m, struct ut_frame *leaf, uint64_t key)
{
	unsigned pos = lower_bound(leaf, key);

	if (pos == n_recs(leaf) || rec_key(leaf, pos) != key)
		return -ENOENT;
	node_remove(m, leaf, pos);
	return 0;
}

/* Ends m: commits it (*lsn: its group's end, 0 if it changed nothing),
 * or on error aborts it, when a change it made cannot be undone
 * (-EUCLEAN: the pages in memory are ahead of the log). */
static int mtr_end(struct ut_mtr *m, int ret, uint64_t *lsn)
{
	uint64_t end;

	if (ret < 0) {
		if (m->n_recs)
			ret = -EUCLEAN;
		ut_mtr_abort(m);
		return ret;
	}
	end = ut_mtr_commit(m);
	if (lsn)
		*lsn = end;
	if (m->err && m->n_recs) /* its changes are in memory, not logged */
		return -EUCLEAN;
	return m->err;
}

void ut_tree_init(struct ut_tree *t, struct ut_bpool *pool, struct ut_redo *log,
		  struct ut_space *space, uint32_t root)
{
	t->ctx.pool = pool;
	t->ctx.log = log;
	t->ctx.space = space;
	t->root = root;
	t->smo_seq = 0;
	ut_rwlock_init(&t->latch, UT_LATCH_TREE);
	ut_gate_init(&t->gate, UT_LATCH_TREE);
	ut_mutex_init(&t->commit_mutex, UT_LATCH_TREE);
	ut_cond_init(&t->commit_cond);
	t->commit_leaves = 0;
	t->commit_redo = 0;
}

int ut_btree_put(struct ut_tree *t, uint64_t key, const void *val, uint32_t len,
		 uint64_t *lsn)
{
	unsigned char *buf = malloc(LEAF_HDR + len);
	struct ut_frame *path[MAX_HEIGHT + 1];
	struct ut_mtr m = { 0 };
	struct bt_rec rec;
	unsigned depth;
	int ret;

	if (!buf)
		return -ENOMEM;
	make_leaf_rec(buf, key, val, len, &rec);
	ut_rwlock_rdlock(&t->latch);
	ut_mtr_start(&m, &t->ctx);
	ret = descend(&m, key, UT_X, 0, path, &depth);
	if (!ret)
		ret = leaf_put(&m, path[0], &rec, key, len);
	if (ret == 1) {
		ut_mtr_abort(&m);
		ut_rwlock_unlock(&t->latch);
		ut_rwlock_wrlock(&t->latch);
		t->smo_seq++;
		ut_mtr_start(&m, &t->ctx);
		ret = put_pessimistic(&m, key, &rec, len);
	}
	ret = mtr_end(&m, ret, lsn);
	ut_rwlock_unlock(&t->latch);
	ut_mtr_free(&m);
	free(buf);
	return ret;
}

int ut_btree_delete(struct ut_tree *t, uint64_t key, uint64_t *lsn)
{
	struct ut_frame *path[MAX_HEIGHT + 1];
	struct ut_mtr m = { 0 };
	unsigned depth;
	int ret;

	ut_rwlock_rdlock(&t->latch);
	ut_mtr_start(&m, &t->ctx);
	ret = descend(&m, key, UT_X, 0, path, &depth);
	if (!ret)
		ret = leaf_delete(&m, path[0], key);
	ret = mtr_end(&m, ret, lsn);
	ut_rwlock_unlock(&t->latch);
	ut_mtr_free(&m);
	return ret;
}

/* ---- a transaction's rows as one mtr -------------------------------- */

/* Redo bytes of one ut_mtr_write() of x bytes at most: a record per
 * page block it touches; *recs counts them. */
static size_t redo_write_max(uint32_t x, uint32_t block_min, unsigned *recs)
{
	unsigned pieces = x / block_min + 2;

	*recs += pieces;
	return x + (size_t)UT_REC_WRITE_HDR * pieces;
}

/* Redo bytes of one ut_mtr_move() of x bytes by one slot (2 bytes): in a
 * format 3 log a MOVE and a WRITE of the slot from the next block a
 * block, else ut_mtr_write()'s records. */
static size_t redo_slots_max(const struct ut_tree *t, uint32_t x,
			     uint32_t block_min, unsigned *recs)
{
	unsigned pieces = x / block_min + 2;

	if (!t->ctx.log->moves)
		return redo_write_max(x, block_min, recs);
	*recs += 2 * pieces;
	return (size_t)(UT_REC_MOVE_SIZE + UT_REC_WRITE_HDR + 2) * pieces;
}

void ut_btree_op_bound(const struct ut_tree *t, uint32_t len, int del,
		       size_t *bytes, unsigned *recs)
{
	const struct ut_geom *g = &t->ctx.pool->geom;
	uint32_t block, boff, first, rest = UINT32_MAX, slots;
	size_t b;
	unsigned r = 0;

	ut_page_locate(g, 0, &block, &boff, &first);
	if (g->n_blocks > 1)
		ut_page_locate(g, first, &block, &boff, &rest);
	if (rest < first)
		first = rest;
	slots = 2 * (g->area_size / (LEAF_HDR + 2)) + 2;
	/* a delete, or a put's removal of the row it replaces: the slots
	 * moved, the count and the garbage */
	b = redo_slots_max(t, slots, first, &r) +
	    2 * redo_write_max(2, first, &r);
	if (!del) /* the insert: record, slots, count, heap top */
		b += redo_write_max(LEAF_HDR + len, first, &r) +
		     redo_slots_max(t, slots, first, &r) +
		     2 * redo_write_max(2, first, &r) +
		     redo_write_max(2, first, &r);
	*bytes = b;
	*recs = r;
}

/* The bytes op may add to its leaf: none for a delete or a same-length
 * overwrite, which change the leaf in place. */
static uint32_t op_need(const struct ut_frame *leaf,
			const struct ut_tree_op *op)
{
	unsigned pos = lower_bound(leaf, op->key);

	if (op->del)
		return 0;
	if (pos < n_recs(leaf) && rec_key(leaf, pos) == op->key &&
	    get_le16(rec_at(leaf, pos) + 8) == op->len)
		return 0;
	return LEAF_HDR + op->len + 2;
}

/* Latches X in m the leaf ops[0] goes to: *k of the ops from ops[0] on
 * go to it, adding *need bytes. */
static int op_group(struct ut_mtr *m, const struct ut_tree_op *ops, unsigned n,
		    struct ut_frame **leafp, unsigned *k, uint32_t *need)
{
	struct ut_frame *path[MAX_HEIGHT + 1], *leaf;
	unsigned depth, j;
	int ret;

	ret = descend(m, ops[0].key, UT_X, 0, path, &depth);
	if (ret)
		return ret;
	leaf = path[0];
	*need = op_need(leaf, &ops[0]);
	for (j = 1; j < n; j++) {
		ret = descend(m, ops[j].key, UT_S, 0, path, &depth);
		if (ret)
			return ret;
		ut_mtr_release(m, path[0]);
		if (path[0] != leaf)
			break;
		*need += op_need(leaf, &ops[j]);
	}
	*leafp = leaf;
	*k = j;
	return 0;
}

/* The rows leaf holds until ops[0..k) are applied, and the rows these
 * add, in key order (a row a put replaces or a delete removes takes its
 * room until the commit's mtr; a row already there first). */
struct pending {
	const struct ut_frame *leaf;
	const struct ut_tree_op *ops;
	unsigned i, n, j, k;
};

/* The next of them: its bytes with its slot (0: none left) and key. */
static uint32_t pending_next(struct pending *pd, uint64_t *key)
{
	uint32_t need;

	while (pd->i < pd->n || pd->j < pd->k) {
		if (pd->i < pd->n &&
		    (pd->j == pd->k ||
		     rec_key(pd->leaf, pd->i) <= pd->ops[pd->j].key)) {
			*key = rec_key(pd->leaf, pd->i);
			return rec_size(pd->leaf, rec_at(pd->leaf, pd->i++)) +
			       2;
		}
		need = op_need(pd->leaf, &pd->ops[pd->j]);
		*key = pd->ops[pd->j++].key;
		if (need)
			return need;
	}
	return 0;
}

/* Where to split leaf so that what it holds until ops[0..k) are applied
 * and what they add halve: the key of the first row past half of their
 * bytes, or else the last, but never the first row's key (so the cut
 * lies inside the leaf's key range). */
static int cut_key(const struct ut_frame *leaf, const struct ut_tree_op *ops,
		   unsigned k, uint64_t *at)
{
	struct pending pd = { leaf, ops, 0, n_recs(leaf), 0, k };
	uint64_t total = 0, acc = 0, key, first = 0;
	unsigned rows = 0, past_first = 0;
	uint32_t size;

	while ((size = pending_next(&pd, &key))) {
		if (!rows++)
			first = key;
		total += size;
	}
	pd.i = pd.j = 0;
	while ((size = pending_next(&pd, &key))) {
		if (key > first) {
			*at = key;
			past_first = 1;
			if (2 * acc >= total)
				return 0;
		}
		acc += size;
	}
	/* all of one key: a row and its replacement, which fit a leaf */
	return past_first ? 0 : -EUCLEAN;
}

/*
 * Makes room in every leaf ops go to, under the tree's X latch: a leaf
 * short of room is compacted or split where the rows will go, each in
 * an mtr of its own.  None of it changes a row, so a crash or a full
 * disk half way leaves nothing of the transaction.
 */
static int make_room(struct ut_tree *t, const struct ut_tree_op *ops,
		     unsigned n)
{
	uint32_t area = t->ctx.pool->geom.area_size, need;
	struct ut_frame *path[MAX_HEIGHT + 1], *leaf;
	unsigned i = 0, k, depth, rounds = 0;
	struct ut_mtr m = { 0 };
	uint64_t at;
	int ret = 0;

	while (i < n && !ret) {
		if (rounds++ > 4 * n + 64) { /* each split halves a leaf */
			ret = -EUCLEAN;
			break;
		}
		ut_mtr_start(&m, &t->ctx);
		ret = op_group(&m, ops + i, n - i, &leaf, &k, &need);
		if (ret || need <= free_space(area, leaf)) {
			ut_mtr_abort(&m);
			i += ret ? 0 : k;
			continue;
		}
		if (need <= free_space(area, leaf) +
				    get_le16(leaf->area + BT_GARBAGE)) {
			ret = mtr_end(&m, node_compact(&m, leaf), NULL);
			continue;
		}
		ret = cut_key(leaf, ops + i, k, &at);
		ut_mtr_abort(&m);
		if (ret)
			break;
		ut_mtr_start(&m, &t->ctx);
		ret = descend(&m, ops[i].key, UT_X, 1, path, &depth);
		if (!ret)
			ret = ut_space_reserve(t->ctx.space, depth + 2);
		if (!ret)
			ret = split_insert(&m, path, depth, 0, 0, NULL, &at);
		ret = mtr_end(&m, ret, NULL);
	}
	ut_mtr_free(&m);
	return ret;
}

/* Applies op to its leaf, which make_room left room for. */
static int apply_op(struct ut_mtr *m, struct ut_frame *leaf,
		    const struct ut_tree_op *op, unsigned char *buf)
{
	struct bt_rec rec;
	int ret;

	if (op->del) { /* a row another commit removed since: nothing to do */
		(void)leaf_delete(m, leaf, op->key);
		return 0;
	}
	make_leaf_rec(buf, op->key, op->val, op->len, &rec);
	ret = leaf_put(m, leaf, &rec, op->key, op->len);
	return ret == 1 ? -EUCLEAN : ret;
}

/* Whether leaf has room for what ops[0..k) add to it, in place. */
static int leaf_has_room(const struct ut_mtr *m, const struct ut_frame *leaf,
			 const struct ut_tree_op *ops, unsigned k)
{
	uint32_t need = 0;
	unsigned i;

	for (i = 0; i < k; i++)
		need += op_need(leaf, &ops[i]);
	return need <= free_space(area_of(m), leaf);
}

/*
 * Latches X every leaf ops go to, in key order, changing nothing (a
 * read that fails leaves the transaction unapplied); then, if each has
 * room for its rows (else 1, nothing changed), changes them.  Beside
 * other such commits this cannot deadlock: all take leaves in key order,
 * a single write holds one leaf, internal pages are X only under the
 * tree latch X, and the gate keeps scans (whose read-ahead holds frames
 * while it waits for a leaf) out.
 */
static int apply_ops(struct ut_tree *t, const struct ut_tree_op *ops,
		     unsigned n, size_t bytes, struct ut_frame **leaves,
		     unsigned char *buf, uint64_t *lsn)
{
	struct ut_frame *path[MAX_HEIGHT + 1];
	struct ut_mtr m = { 0 };
	unsigned i, first = 0, depth;
	int ret;

	ut_mtr_start(&m, &t->ctx);
	ret = ut_mtr_reserve(&m, bytes, n + MAX_HEIGHT + 1);
	for (i = 0; i < n && !ret; i++) {
		ret = descend(&m, ops[i].key, UT_X, 0, path, &depth);
		leaves[i] = ret ? NULL : path[0];
		if (!ret && leaves[i] != leaves[first]) {
			if (!leaf_has_room(&m, leaves[first], ops + first,
					   i - first))
				ret = 1;
			first = i;
		}
	}
	if (!ret && !leaf_has_room(&m, leaves[first], ops + first, n - first))
		ret = 1;
	if (ret) {
		ut_mtr_abort(&m); /* nothing changed yet */
		ut_mtr_free(&m);
		return ret;
	}
	for (i = 0; i < n && !ret; i++)
		ret = apply_op(&m, leaves[i], &ops[i], buf);
	ret = mtr_end(&m, ret, lsn);
	ut_mtr_free(&m);
	return ret;
}

/*
 * Waits, holding nothing, until the commits under way leave room for
 * this one's leaves and redo: together at most half the pool's pages
 * (each commit keeps its leaves fixed until it is in the log) and 3/32
 * of the log (every group in flight must find room above the 5/8 where
 * writers stop, or one could wait for a checkpoint that needs a leaf
 * another holds).  One commit alone always goes.
 */
static void commit_budget_take(struct ut_tree *t, unsigned leaves, size_t redo)
{
	unsigned leaves_max = 2 * t->ctx.pool->n_frames / UT_TXN_POOL_SHARE;
	size_t redo_max = UT_TXN_LOG_SHARE(t->ctx.log->capacity);

	ut_mutex_lock(&t->commit_mutex);
	while (t->commit_leaves && (t->commit_leaves + leaves > leaves_max ||
				    t->commit_redo + redo > redo_max))
		ut_cond_wait(&t->commit_cond, &t->commit_mutex, UT_LATCH_TREE,
			     0);
	t->commit_leaves += leaves;
	t->commit_redo += redo;
	ut_mutex_unlock(&t->commit_mutex);
}

static void commit_budget_give(struct ut_tree *t, unsigned leaves, size_t redo)
{
	ut_mutex_lock(&t->commit_mutex);
	t->commit_leaves -= leaves;
	t->commit_redo -= redo;
	pthread_cond_broadcast(&t->commit_cond);
	ut_mutex_unlock(&t->commit_mutex);
}

int ut_btree_apply(struct ut_tree *t, const struct ut_tree_op *ops, unsigned n,
		   uint64_t *lsn)
{
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	struct ut_frame **leaves = calloc(n, sizeof(*leaves));
	uint32_t longest = 0;
	size_t bytes = 0, b;
	unsigned char *buf = NULL;
	unsigned i, recs = 0, r;
	int ret = -E2BIG;

	*lsn = 0;
	for (i = 0; i < n; i++) {
		if (!ops[i].del && ops[i].len > longest)
			longest = ops[i].len;
		ut_btree_op_bound(t, ops[i].len, ops[i].del, &b, &r);
		bytes += b;
		recs += r;
	}
	/* the engine refuses such a transaction at its writes */
	if (recs > 0xffff ||
	    bytes + UT_LOG_GROUP_HDR > ut_redo_group_max(t->ctx.log))
		goto out_free;
	buf = malloc(LEAF_HDR + longest);
	if (!leaves || !buf) {
		ret = -ENOMEM;
		goto out_free;
	}
	commit_budget_take(t, n, bytes);
	ut_gate_enter(&t->gate, GATE_COMMIT);
	ut_rwlock_rdlock(&t->latch);
	ret = apply_ops(t, ops, n, bytes, leaves, buf, lsn);
	ut_rwlock_unlock(&t->latch);
	if (ret == 1) { /* a leaf short of room: make it, alone */
		ut_rwlock_wrlock(&t->latch);
		t->smo_seq++;
		ret = make_room(t, ops, n);
		if (!ret)
			ret = apply_ops(t, ops, n, bytes, leaves, buf, lsn);
		if (ret == 1)
			ret = -EUCLEAN; /* make_room made it */
		ut_rwlock_unlock(&t->latch);
	}
	ut_gate_leave(&t->gate, GATE_COMMIT);
	commit_budget_give(t, n, bytes);
out_free:
	free(leaves);
	free(buf);
	return ret;
}

int ut_btree_get(struct ut_tree *t, uint64_t key, void *buf, uint32_t cap,
		 uint32_t *len)
{
	struct ut_frame *path[MAX_HEIGHT + 1];
	struct ut_mtr m = { 0 };
	const unsigned char *r;
	unsigned depth, pos;
	int ret;

	ut_rwlock_rdlock(&t->latch);
	ut_mtr_start(&m, &t->ctx);
	ret = descend(&m, key, UT_S, 0, path, &depth);
	if (!ret) {
		pos = lower_bound(path[0], key);
		if (pos < n_recs(path[0]) && rec_key(path[0], pos) == key) {
			r = rec_at(path[0], pos);
			*len = get_le16(r + 8);
			memcpy(buf, r + LEAF_HDR, *len < cap ? *len : cap);
		} else {
			ret = -ENOENT;
		}
	}
	ut_mtr_abort(&m);
	ut_rwlock_unlock(&t->latch);
	ut_mtr_free(&m);
	return ret;
}

/* Takes the tree latch back between two leaves; a split under way or
 * waiting makes it wait, so the hooks first finish what they hold. */
static void scan_relock(struct ut_tree *t, const struct ut_scan_hooks *h)
{
	if (!ut_rwlock_tryrdlock(&t->latch))
		return;
	if (h && h->before_wait)
		h->before_wait(h->user);
	ut_rwlock_rdlock(&t->latch);
}

int ut_btree_scan_hooked(struct ut_tree *t, uint64_t from, ut_row_fn fn,
			 void *user, unsigned get_flags,
			 const struct ut_scan_hooks *h)
{
	struct ut_frame *path[MAX_HEIGHT + 1], *leaf;
	struct ut_mtr m = { 0 };
	const unsigned char *r;
	uint64_t key, smo;
	uint32_t next_no;
	unsigned depth, i;
	int ret, stop = 0;

	ut_gate_enter(&t->gate, GATE_SCAN);
	ut_rwlock_rdlock(&t->latch);
	ut_mtr_start(&m, &t->ctx);
	ret = descend(&m, from, UT_S, 0, path, &depth);
	leaf = ret ? NULL : path[0];
	i = leaf ? lower_bound(leaf, from) : 0;
	while (leaf && !stop) {
		for (; i < n_recs(leaf) && !stop; i++) {
			r = rec_at(leaf, i);
			key = get_le64(r);
			stop = fn(key, r + LEAF_HDR, get_le16(r + 8), user);
			/* where to look again if a split moves the rows */
			if (key == UINT64_MAX)
				stop = 1;
			from = key + 1;
		}
		next_no = get_le32(leaf->area + BT_NEXT);
		if (stop || !next_no)
			break;
		/* between two leaves the scan holds no latch: a long scan
		 * lets writers split leaves (the next pointer is good while
		 * no split happened; after one, descend again) */
		smo = t->smo_seq;
		ut_mtr_release(&m, leaf);
		leaf = NULL;
		ut_rwlock_unlock(&t->latch);
		ret = h && h->next_leaf ? h->next_leaf(next_no, h->user) : 0;
		if (ret)
			goto out_unlocked;
		scan_relock(t, h);
		if (t->smo_seq == smo) {
			ret = ut_mtr_get_flags(&m, next_no, UT_S, get_flags,
					       &leaf);
			i = 0;
		} else {
			ret = descend(&m, from, UT_S, 0, path, &depth);
			leaf = ret ? NULL : path[0];
			i = leaf ? lower_bound(leaf, from) : 0;
		}
	}
	ut_rwlock_unlock(&t->latch);
out_unlocked:
	ut_mtr_abort(&m);
	ut_mtr_free(&m);
	ut_gate_leave(&t->gate, GATE_SCAN);
	return ret;
}

int ut_btree_scan(struct ut_tree *t, uint64_t from, ut_row_fn fn, void *user)
{
	return ut_btree_scan_hooked(t, from, fn, user, 0, NULL);
}

struct leaf_list {
	uint32_t *pages;
	size_t n, cap;
};

static int leaf_list_add(struct leaf_list *l, uint32_t page)
{
	uint32_t *grown;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		grown = realloc(l->pages, l->cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		l->pages = grown;
	}
	l->pages[l->n++] = page;
	return 0;
}

/* A walk of the tree through pages: the leaves in key order, and with
 * count_rows every leaf read for its records. */
struct leaf_walk {
	const struct ut_tree_pages *pg;
	struct leaf_list l;
	int count_rows;
	uint64_t rows;
	unsigned height;
};

static int walk_leaf(struct leaf_walk *w, uint32_t page_no)
{
	struct ut_frame *f;
	int ret = 0;

	if (w->count_rows) {
		ret = w->pg->get(w->pg->ctx, page_no, &f);
		if (ret)
			return ret;
		if (f->meta.level)
			ret = -EUCLEAN; /* a level-1 page's child is a leaf */
		else
			w->rows += n_recs(f);
		w->pg->put(w->pg->ctx, f);
		if (ret)
			return ret;
	}
	return leaf_list_add(&w->l, page_no);
}

/* Appends the leaves under page page_no, in key order. */
static int collect_leaves(struct leaf_walk *w, uint32_t page_no, unsigned depth)
{
	struct ut_frame *f;
	uint32_t *children;
	unsigned i, n, level;
	int ret;

	if (depth > MAX_HEIGHT)
		return -EUCLEAN;
	ret = w->pg->get(w->pg->ctx, page_no, &f);
	if (ret)
		return ret;
	level = f->meta.level;
	n = n_recs(f);
	if (!depth)
		w->height = level + 1;
	if (level == 0) {
		w->pg->put(w->pg->ctx, f);
		return walk_leaf(w, page_no);
	}
	children = malloc((n + 1) * sizeof(*children));
	if (!children) {
		w->pg->put(w->pg->ctx, f);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		children[i] = child_at(f, i);
	w->pg->put(w->pg->ctx, f);
	for (i = 0; i < n && !ret; i++)
		ret = level == 1 ? walk_leaf(w, children[i]) :
				   collect_leaves(w, children[i], depth + 1);
	free(children);
	return ret;
}

static int pool_get(void *ctx, uint32_t page_no, struct ut_frame **f)
{
	return ut_bpool_get(ctx, page_no, UT_S, 0, f);
}

static void pool_put(void *ctx, struct ut_frame *f)
{
	ut_bpool_release(ctx, f, UT_S);
}

int ut_btree_leaf_list(struct ut_tree *t, uint32_t **leaves, size_t *n)
{
	struct ut_tree_pages pg = { pool_get, pool_put, t->ctx.pool };
	struct leaf_walk w = { .pg = &pg };
	int ret;

	ut_rwlock_rdlock(&t->latch);
	ret = collect_leaves(&w, t->root, 0);
	ut_rwlock_unlock(&t->latch);
	if (ret) {
		free(w.l.pages);
		return ret;
	}
	*leaves = w.l.pages;
	*n = w.l.n;
	return 0;
}

int ut_btree_census(const struct ut_tree_pages *pg, uint32_t root,
		    struct ut_tree_census *c)
{
	struct leaf_walk w = { .pg = pg, .count_rows = 1 };
	int ret;

	ret = collect_leaves(&w, root, 0);
	if (ret) {
		free(w.l.pages);
		return ret;
	}
	c->height = w.height;
	c->rows = w.rows;
	c->leaves = w.l.pages;
	c->n_leaves = w.l.n;
	return 0;
}
