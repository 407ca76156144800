// SPDX-License-Identifier: MIT
/*
 * checkpoint.c - checkpoints (checkpoint.h): the data file synced, then
 * the superblock's slot.
 */
#include "base/probes.h"
#include "buf/checkpoint.h"

/* the cleaners' checkpoint is due at a sixteenth of the log, or after */
#define CKPT_DUE_SHARE 16
#define CKPT_DUE_NS 1000000000ull

void ut_checkpointer_init(struct ut_checkpointer *ck, struct ut_bpool *pool,
			  struct ut_redo *log, struct ut_store *store,
			  struct ut_space *space, struct ut_page_guard *guard)
{
	ck->pool = pool;
	ck->log = log;
	ck->store = store;
	ck->space = space;
	ck->guard = guard;
	ck->last_ns = ut_now_ns();
	ck->due_share = CKPT_DUE_SHARE;
	ck->due_ns = CKPT_DUE_NS;
	ut_mutex_init(&ck->mutex, UT_LATCH_CLEANER);
	atomic_init(&ck->count, 0);
}

void ut_checkpointer_set_due(struct ut_checkpointer *ck, unsigned share, uint64_t ns)
{
	ck->due_share = share;
	ck->due_ns = ns;
}

static uint64_t oldest_dirty(void *arg)
{
	return ut_bpool_oldest_lsn(arg);
}

int ut_checkpoint(struct ut_checkpointer *ck)
{
	uint64_t t0 = UT_PROBE_ENABLED(checkpoint__done) ? ut_now_ns() : 0;
	struct ut_ckpt rec;
	uint64_t lsn;
	int ret = 0;

	ut_mutex_lock(&ck->mutex);
	lsn = ut_redo_checkpoint_lsn(ck->log, oldest_dirty, ck->pool);
	if (lsn <= ck->store->ckpt.checkpoint_lsn)
		goto out_unlock;
	ret = ut_redo_flush_to(ck->log, lsn);
	if (!ret)
		/* the pages before the slot that says they are there */
		ret = ut_guard_sync(ck->guard);
	if (ret)
		goto out_unlock;
	rec = ck->store->ckpt; /* the root page stays where it is */
	rec.checkpoint_lsn = lsn;
	rec.n_pages = ut_space_pages(ck->space);
	ret = ut_store_write_checkpoint(ck->store, &rec, NULL);
	if (ret)
		goto out_unlock;
	atomic_fetch_add(&ck->count, 1);
	ck->last_ns = ut_now_ns();
	ut_redo_set_checkpoint(ck->log, lsn);
	if (t0)
		UT_PROBE(checkpoint__done, lsn, ut_now_ns() - t0);
out_unlock:
	ut_mutex_unlock(&ck->mutex);
	return ret;
}

int ut_checkpoint_if_due(struct ut_checkpointer *ck, int urgent)
{
	uint64_t lsn, last, last_ns;

	ut_mutex_lock(&ck->mutex);
	last = ck->store->ckpt.checkpoint_lsn;
	last_ns = ck->last_ns;
	ut_mutex_unlock(&ck->mutex);
	lsn = ut_redo_checkpoint_lsn(ck->log, oldest_dirty, ck->pool);
	if (lsn <= last)
		return 0;
	if (!urgent && lsn - last < ck->log->capacity / ck->due_share &&
	    ut_now_ns() - last_ns < ck->due_ns)
		return 0;
	return ut_checkpoint(ck);
}

uint64_t ut_checkpoint_count(struct ut_checkpointer *ck)
{
	return atomic_load(&ck->count);
}
