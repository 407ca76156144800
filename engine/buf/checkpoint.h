/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.h - checkpoints: the LSN up to which every change is in the
 * data file (the oldest dirty page's, or the current LSN when none is
 * dirty), the redo made durable to it, then written to the superblock's
 * checkpoint slot with the count of pages in use; the log may then reuse
 * what lies before it.  As MariaDB's log_checkpoint(), it sits beside
 * the flushing it depends on (buf0flu.cc there).
 */
#ifndef UNTORN_CHECKPOINT_H
#define UNTORN_CHECKPOINT_H

#include <stdatomic.h>
#include "base/latch.h"
#include "store/store.h"
#include "buf/bpool.h"
#include "guard/guard.h"
#include "log/redo.h"
#include "store/space.h"

struct ut_checkpointer {
	struct ut_bpool *pool;
	struct ut_redo *log;
	struct ut_store *store;
	struct ut_space *space;
	struct ut_open_guard *guard; /* synced before each checkpoint */
	struct ut_mutex mutex; /* one checkpoint at a time */
	uint64_t last_ns; /* when the last was written */
	unsigned due_share; /* due at capacity / due_share of movement */
	uint64_t due_ns; /* or this long after the last */
	atomic_uint_fast64_t count; /* checkpoints written */
};

void ut_checkpointer_init(struct ut_checkpointer *ck, struct ut_bpool *pool,
			  struct ut_redo *log, struct ut_store *store,
			  struct ut_space *space, struct ut_open_guard *guard);
/* Writes a checkpoint when the LSN moved since the last one: the pages
 * written so far synced (ut_guard_sync), then the slot: 0 or -errno. */
int ut_checkpoint(struct ut_checkpointer *ck);
/*
 * Writes the current checkpoint into the other slot as well, so that
 * both slots name it: after a restart, which leaves a gap in the log
 * (the new log starts a lap ahead), a damaged newest slot must not send
 * the next recovery to the older one, whose log ends at the gap.
 */
int ut_checkpoint_mirror(struct ut_checkpointer *ck);
/* When the cleaners' checkpoint is due (default: a sixteenth of the log
 * or a second); before the cleaners start. */
void ut_checkpointer_set_due(struct ut_checkpointer *ck, unsigned share,
			     uint64_t ns);
/*
 * The page cleaners' checkpoint: only when it is due, as each costs the
 * data file's fdatasync: when it would move by a sixteenth of the log,
 * when urgent (a writer waits for log space), or a second after the
 * last (ut_checkpointer_set_due changes both).  Not urgent, it does not
 * wait while another checkpoint is under way; urgent, it waits for it and
 * checkpoints again where the log has moved on.  1 when this call wrote a
 * checkpoint, 0 when it did not, or -errno.
 */
int ut_checkpoint_if_due(struct ut_checkpointer *ck, int urgent);
uint64_t ut_checkpoint_count(struct ut_checkpointer *ck);

#endif
