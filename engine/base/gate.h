/* SPDX-License-Identifier: MIT */
/*
 * gate.h - a lock with two sides, each shared by its own kind and
 * excluding the other (scans on one side, transaction commits on the
 * other).  The sides take turns when both wait: a side that comes while
 * the other is in goes next, so neither a stream of scans nor a stream
 * of commits shuts the other out.
 */
#ifndef UNTORN_GATE_H
#define UNTORN_GATE_H

#include <pthread.h>
#include "base/latch.h"

struct ut_gate {
	struct ut_mutex mutex;
	pthread_cond_t cond;
	unsigned active[2], waiting[2];
	int turn; /* the side that goes next when both wait */
};

void ut_gate_init(struct ut_gate *g, enum ut_latch_class cls);
/* Waits until no one of the other side is in, then enters side (0/1). */
void ut_gate_enter(struct ut_gate *g, int side);
void ut_gate_leave(struct ut_gate *g, int side);

#endif
