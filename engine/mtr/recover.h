/* SPDX-License-Identifier: MIT */
/*
 * recover.h - crash recovery on open: torn pages restored by the guard,
 * then the redo from the checkpoint applied, flushed and checkpointed.
 */
#ifndef UNTORN_RECOVER_H
#define UNTORN_RECOVER_H

#include <untorn/err.h>
#include <untorn/recovery.h>
#include "store/store.h"
#include "buf/bpool.h"
#include "buf/checkpoint.h"
#include "buf/flush.h"
#include "guard/guard.h"
#include "log/redo.h"
#include "store/space.h"

/* What recovery works on, and how. */
struct ut_recovery_ctx {
	struct ut_store *store;
	struct ut_bpool *pool;
	struct ut_redo *log;
	struct ut_open_guard *guard;
	struct ut_space *space;
	struct ut_flush *flush;
	struct ut_checkpointer *ckpt;
	int sync_reads; /* one page per read (the slow baseline) */
	int accept_log_loss; /* apply up to damaged redo, lose the rest */
};

int ut_recover(const struct ut_recovery_ctx *rc, struct ut_recovery_report *rep,
	       struct ut_err *err);

#endif
