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
#include <untorn/latch.h>
#include <untorn/store.h>
#include "buf/bpool.h"
#include "log/redo.h"
#include "store/space.h"

struct ut_checkpointer {
	struct ut_bpool *pool;
	struct ut_redo *log;
	struct ut_store *store;
	struct ut_space *space;
	struct ut_mutex mutex; /* one checkpoint at a time */
	atomic_uint_fast64_t count; /* checkpoints written */
};

void ut_checkpointer_init(struct ut_checkpointer *ck, struct ut_bpool *pool,
			  struct ut_redo *log, struct ut_store *store,
			  struct ut_space *space);
/* Writes a checkpoint when the LSN moved since the last one: 0 or -errno. */
int ut_checkpoint(struct ut_checkpointer *ck);
uint64_t ut_checkpoint_count(struct ut_checkpointer *ck);

#endif
