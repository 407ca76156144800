// SPDX-License-Identifier: MIT
/*
 * checkpoint.c - checkpoints (checkpoint.h): the data file synced, then
 * the superblock's slot.
 */
#include "base/probes.h"
#include "buf/checkpoint.h"
#include "buf/log_space.h"

void ut_checkpointer_init(struct ut_checkpointer *ck, struct ut_bpool *pool,
			  struct ut_redo *log, struct ut_store *store,
			  struct ut_space *space, struct ut_open_guard *guard)
{
	ck->pool = pool;
	ck->log = log;
	ck->store = store;
	ck->space = space;
	ck->guard = guard;
	ck->last_ns = ut_now_ns();
	ck->due_share = UT_CKPT_DUE_SHARE;
	ck->due_ns = UT_CKPT_DUE_NS;
	ut_mutex_init(&ck->mutex, UT_LATCH_CLEANER);
	atomic_init(&ck->count, 0);
}

void ut_checkpointer_set_due(struct ut_checkpointer *ck, unsigned share,
			     uint64_t ns)
{
	ck->due_share = share;
	ck->due_ns = ns;
}

static uint64_t oldest_dirty(void *arg)
{
	return ut_bpool_oldest_lsn(arg);
}

/* A checkpoint at lsn, under ck->mutex: 1 written, 0 nothing to move. */
static int checkpoint_locked(struct ut_checkpointer *ck, uint64_t lsn)
{
	uint64_t t0 = UT_PROBE_ENABLED(checkpoint__done) ? ut_now_ns() : 0;
	struct ut_ckpt rec;
	int ret;

	if (lsn <= ck->store->ckpt.checkpoint_lsn)
		return 0;
	ret = ut_redo_flush_to(ck->log, lsn);
	if (!ret)
		/* the pages before the slot that says they are there */
		ret = ut_guard_sync(ck->guard);
	if (ret)
		return ret;
	rec = ck->store->ckpt; /* the root page stays where it is */
	rec.checkpoint_lsn = lsn;
	rec.n_pages = ut_space_pages(ck->space);
	ret = ut_store_write_checkpoint(ck->store, &rec, NULL);
	if (ret)
		return ret;
	atomic_fetch_add(&ck->count, 1);
	ck->last_ns = ut_now_ns();
	ut_redo_set_checkpoint(ck->log, lsn);
	if (t0)
		UT_PROBE(checkpoint__done, lsn, ut_now_ns() - t0);
	return 1;
}

int ut_checkpoint(struct ut_checkpointer *ck)
{
	int ret;

	ut_mutex_lock(&ck->mutex);
	ret = checkpoint_locked(ck,
				ut_redo_checkpoint_lsn(ck->log, oldest_dirty,
						       ck->pool));
	ut_mutex_unlock(&ck->mutex);
	return ret < 0 ? ret : 0;
}

int ut_checkpoint_mirror(struct ut_checkpointer *ck)
{
	struct ut_ckpt rec;
	int ret;

	ut_mutex_lock(&ck->mutex);
	rec = ck->store->ckpt;
	ret = ut_store_write_checkpoint(ck->store, &rec, NULL);
	ut_mutex_unlock(&ck->mutex);
	return ret;
}

/*
 * A cleaner does not wait here for another's checkpoint unless writers
 * wait for log space: while one syncs the data file (on ext4 data=journal
 * that writes the file's pages home, seconds on a disk), the others go on
 * writing pages, and the next batch looks again.  Urgent, it waits: the
 * checkpoint under way may stop short of what this one would free, and
 * with nothing left to flush no batch would look again.
 */
int ut_checkpoint_if_due(struct ut_checkpointer *ck, int urgent)
{
	uint64_t lsn, last;
	int ret = 0;

	if (urgent)
		ut_mutex_lock(&ck->mutex);
	else if (ut_mutex_trylock(&ck->mutex))
		return 0;
	last = ck->store->ckpt.checkpoint_lsn;
	lsn = ut_redo_checkpoint_lsn(ck->log, oldest_dirty, ck->pool);
	if (lsn > last &&
	    (urgent || lsn - last >= ck->log->capacity / ck->due_share ||
	     ut_now_ns() - ck->last_ns >= ck->due_ns))
		ret = checkpoint_locked(ck, lsn);
	ut_mutex_unlock(&ck->mutex);
	return ret;
}

uint64_t ut_checkpoint_count(struct ut_checkpointer *ck)
{
	return atomic_load(&ck->count);
}
