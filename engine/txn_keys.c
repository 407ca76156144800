// SPDX-License-Identifier: MIT
/*
 * txn_keys.c - the keys of the large commits being applied (txn_keys.h).
 */
#include "txn_keys.h"

void ut_txn_keys_init(struct ut_txn_keys *k)
{
	ut_rwlock_init(&k->gate, UT_LATCH_TREE);
	ut_mutex_init(&k->mutex, UT_LATCH_TREE);
	ut_cond_init(&k->removed);
	k->removals = 0;
	k->sets = NULL;
	k->failed = 0;
	atomic_init(&k->n_sets, 0);
}

void ut_txn_keys_destroy(struct ut_txn_keys *k)
{
	ut_rwlock_destroy(&k->gate);
	ut_mutex_destroy(&k->mutex);
	pthread_cond_destroy(&k->removed);
}

static int set_has(const struct ut_txn_keyset *s, uint64_t key)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ops[mid].key == key)
			return 1;
		if (s->ops[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Under the gate: a large commit holds one of the keys. */
static int keys_taken(const struct ut_txn_keys *k, const struct ut_tree_op *ops,
		      size_t n, uint64_t key)
{
	const struct ut_txn_keyset *s;
	size_t i;

	for (s = k->sets; s; s = s->next) {
		if (!ops && set_has(s, key))
			return 1;
		for (i = 0; ops && i < n; i++)
			if (set_has(s, ops[i].key))
				return 1;
	}
	return 0;
}

/* Two large commits' keys meet (both in key order). */
static int sets_meet(const struct ut_txn_keyset *a,
		     const struct ut_txn_keyset *b)
{
	size_t i = 0, j = 0;

	while (i < a->n && j < b->n) {
		if (a->ops[i].key == b->ops[j].key)
			return 1;
		if (a->ops[i].key < b->ops[j].key)
			i++;
		else
			j++;
	}
	return 0;
}

/* Called holding the gate, which it lets go: back when a large commit
 * has been removed since seen (the gate held, no removal can pass). */
static void wait_removal(struct ut_txn_keys *k, uint64_t seen)
{
	ut_rwlock_unlock(&k->gate);
	ut_mutex_lock(&k->mutex);
	while (k->removals == seen)
		ut_cond_wait(&k->removed, &k->mutex, UT_LATCH_TREE, 0);
	ut_mutex_unlock(&k->mutex);
}

static uint64_t removals_now(struct ut_txn_keys *k)
{
	uint64_t r;

	ut_mutex_lock(&k->mutex);
	r = k->removals;
	ut_mutex_unlock(&k->mutex);
	return r;
}

int ut_txn_keys_enter(struct ut_txn_keys *k, const struct ut_tree_op *ops,
		      size_t n, uint64_t key)
{
	for (;;) {
		ut_rwlock_rdlock(&k->gate);
		if (k->failed) {
			int err = k->failed;

			ut_rwlock_unlock(&k->gate);
			return err;
		}
		if (!atomic_load_explicit(&k->n_sets, memory_order_relaxed) ||
		    !keys_taken(k, ops, n, key))
			return 0;
		wait_removal(k, removals_now(k));
	}
}

void ut_txn_keys_leave(struct ut_txn_keys *k)
{
	ut_rwlock_unlock(&k->gate);
}

int ut_txn_keys_add(struct ut_txn_keys *k, struct ut_txn_keyset *set)
{
	const struct ut_txn_keyset *s;
	int err;

	for (;;) {
		ut_rwlock_wrlock(&k->gate);
		err = k->failed;
		if (err) {
			ut_rwlock_unlock(&k->gate);
			return err;
		}
		for (s = k->sets; s && !sets_meet(s, set); s = s->next)
			;
		if (!s)
			break;
		wait_removal(k, removals_now(k));
	}
	set->next = k->sets;
	k->sets = set;
	atomic_fetch_add(&k->n_sets, 1);
	ut_rwlock_unlock(&k->gate);
	return 0;
}

/* Under the gate held alone: set unlinked, and its waiters woken. */
static void set_unlink(struct ut_txn_keys *k, struct ut_txn_keyset *set,
		       int err)
{
	struct ut_txn_keyset **p;

	for (p = &k->sets; *p && *p != set; p = &(*p)->next)
		;
	if (*p)
		*p = set->next;
	atomic_fetch_sub(&k->n_sets, 1);
	if (err)
		k->failed = err;
	ut_mutex_lock(&k->mutex);
	k->removals++;
	pthread_cond_broadcast(&k->removed);
	ut_mutex_unlock(&k->mutex);
}

void ut_txn_keys_fail(struct ut_txn_keys *k, struct ut_txn_keyset *set, int err)
{
	ut_rwlock_wrlock(&k->gate);
	set_unlink(k, set, err);
	ut_rwlock_unlock(&k->gate);
}

void ut_txn_keys_remove(struct ut_txn_keys *k, struct ut_txn_keyset *set)
{
	ut_rwlock_wrlock(&k->gate);
	set_unlink(k, set, 0);
	ut_rwlock_unlock(&k->gate);
}
