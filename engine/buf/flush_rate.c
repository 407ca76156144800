// SPDX-License-Identifier: MIT
/*
 * flush_rate.c - adaptive flushing (flush_rate.h): the LSN the page
 * cleaners flush up to in the next tick, from the checkpoint age and the
 * averaged rate at which the redo log grows.
 */
#include <math.h>
#include <string.h>
#include "buf/flush_rate.h"

/* the redo rate's time constant: long enough to ride out one group
 * commit's burst, short enough to follow a benchmark's ramp */
#define RATE_AVG_S 2.0
/* with no redo growing, the age above the low-water mark is worked off
 * within this many seconds (InnoDB flushes at io_capacity when idle) */
#define CATCHUP_S 5.0

void ut_flush_rate_init(struct ut_flush_rate *fr, uint64_t capacity)
{
	memset(fr, 0, sizeof(*fr));
	fr->capacity = capacity;
}

double ut_flush_rate_pct(uint64_t capacity, uint64_t age)
{
	uint64_t async = UT_FLUSH_LWM(capacity);
	double factor;

	if (!async || age < async)
		return 0;
	factor = (double)age * 100.0 / (double)async;
	return factor * sqrt(factor) / 7.5;
}

/* Folds the redo growth since the last tick into the average; returns
 * the tick's length in seconds (0: the first tick, or no time passed). */
static double rate_update(struct ut_flush_rate *fr, uint64_t now_ns,
			  uint64_t cur_lsn)
{
	double dt, rate, alpha;

	if (!fr->last_ns || now_ns <= fr->last_ns || cur_lsn < fr->last_lsn) {
		fr->last_ns = now_ns;
		fr->last_lsn = cur_lsn;
		return 0;
	}
	dt = (now_ns - fr->last_ns) / 1e9;
	rate = (cur_lsn - fr->last_lsn) / dt;
	alpha = dt / (dt + RATE_AVG_S);
	fr->lsn_rate += (rate - fr->lsn_rate) * alpha;
	fr->tick_rate = rate;
	fr->last_ns = now_ns;
	fr->last_lsn = cur_lsn;
	return dt;
}

uint64_t ut_flush_rate_tick(struct ut_flush_rate *fr, uint64_t now_ns,
			    uint64_t cur_lsn, uint64_t ckpt_lsn,
			    uint64_t oldest)
{
	uint64_t age = cur_lsn > ckpt_lsn ? cur_lsn - ckpt_lsn : 0;
	uint64_t lwm = UT_FLUSH_LWM(fr->capacity);
	double dt = rate_update(fr, now_ns, cur_lsn), pct, step, floor;

	pct = ut_flush_rate_pct(fr->capacity, age);
	if (!dt || !oldest || pct <= 0)
		return 0;
	/* the average rides out a drop; a burst is followed at once */
	step = (fr->tick_rate > fr->lsn_rate ? fr->tick_rate : fr->lsn_rate) *
	       dt * (1.0 + pct / 100.0);
	floor = (double)(age - lwm) * dt / CATCHUP_S;
	if (step < floor)
		step = floor;
	if (step >= (double)(cur_lsn - oldest))
		return cur_lsn;
	return oldest + (uint64_t)step;
}
