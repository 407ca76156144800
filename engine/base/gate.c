// SPDX-License-Identifier: MIT
/*
 * gate.c - the two-sided lock of gate.h.
 */
#include "base/gate.h"

void ut_gate_init(struct ut_gate *g, enum ut_latch_class cls)
{
	ut_mutex_init(&g->mutex, cls);
	ut_cond_init(&g->cond);
	g->active[0] = g->active[1] = 0;
	g->waiting[0] = g->waiting[1] = 0;
	g->turn = 0;
}

void ut_gate_enter(struct ut_gate *g, int side)
{
	int other = !side;

	ut_mutex_lock(&g->mutex);
	if (g->active[other])
		g->turn = side; /* next, once the other side is out */
	g->waiting[side]++;
	while (g->active[other] || (g->waiting[other] && g->turn == other))
		ut_cond_wait(&g->cond, &g->mutex, g->mutex.cls, 0);
	g->waiting[side]--;
	g->active[side]++;
	ut_mutex_unlock(&g->mutex);
}

void ut_gate_leave(struct ut_gate *g, int side)
{
	ut_mutex_lock(&g->mutex);
	if (!--g->active[side]) {
		g->turn = !side;
		pthread_cond_broadcast(&g->cond);
	}
	ut_mutex_unlock(&g->mutex);
}
