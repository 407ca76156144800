// SPDX-License-Identifier: MIT
/*
 * redo_pace.c - writer pacing (redo_pace.h): a redo rate for row writes
 * once the log holds them back, cut while the checkpoint age is high,
 * raised while it is low, and a virtual clock that says how long a
 * writer waits.  The forecast mode's law is in redo_forecast.c.
 */
#include <string.h>
#include "buf/redo_pace.h"

/* the checkpoint's pace is averaged over one turn of the dirty pages,
 * within these bounds */
#define FREE_AVG_MIN_S 2.0
#define FREE_AVG_MAX_S 30.0
/* how hard the age pulls the rate: 1 + GAIN (target - age) / capacity */
#define PACE_GAIN 2.0
#define PACE_FACTOR_MIN 0.25
#define PACE_FACTOR_MAX 1.1

void ut_redo_pace_init(struct ut_redo_pace *p, uint64_t capacity)
{
	memset(p, 0, sizeof(*p));
	p->capacity = capacity;
}

/* The lowest rate: the whole log in a minute, so pacing never starves. */
static double pace_floor(const struct ut_redo_pace *p)
{
	return p->capacity / 60.0;
}

/* Where the virtual clock stands at now (the redo allowed so far). */
static double pace_allowed(const struct ut_redo_pace *p, uint64_t now_ns)
{
	return p->base_lsn + p->rate * (double)(now_ns - p->base_ns) / 1e9;
}

/* The checkpoint's pace is averaged over the time it takes to cross the
 * age, one turn of the dirty pages (hot pages / page writes a second):
 * shorter, and the leaps of a cycle not yet smoothed show through. */
static double free_avg_s(const struct ut_redo_pace *p, uint64_t age)
{
	double turn = p->free_rate > 0 ? age / p->free_rate : FREE_AVG_MAX_S;

	return turn < FREE_AVG_MIN_S ? FREE_AVG_MIN_S :
	       turn > FREE_AVG_MAX_S ? FREE_AVG_MAX_S :
				       turn;
}

/* The age pacing aims at: 9/16 of the log, a sixteenth under the stop. */
static uint64_t pace_target(const struct ut_redo_pace *p)
{
	return UT_PACE_AGE_TARGET(p->capacity);
}

/* Every UT_PACE_ADJUST_NS: turn on, follow the checkpoint, or turn off. */
static void pace_adjust(struct ut_redo_pace *p, uint64_t now_ns,
			uint64_t cur_lsn, uint64_t age)
{
	double dt = (now_ns - p->adjust_ns) / 1e9, redo = 0, freed = 0, factor;
	/* age may be read a moment after cur_lsn: never below zero */
	uint64_t ckpt = cur_lsn > age ? cur_lsn - age : 0;

	if (dt > 0 && cur_lsn >= p->adjust_lsn)
		redo = (cur_lsn - p->adjust_lsn) / dt;
	if (dt > 0 && ckpt >= p->adjust_ckpt)
		freed = (ckpt - p->adjust_ckpt) / dt;
	p->adjust_ns = now_ns;
	p->adjust_lsn = cur_lsn;
	p->adjust_ckpt = ckpt;
	if (!p->rate) {
		if (age <= UT_PACE_AGE_ON(p->capacity))
			return;
		/* the log starts to hold writers back: it filled faster than
		 * the checkpoint moved, so start below the redo rate */
		p->free_rate = redo / 4;
		p->base_lsn = cur_lsn;
		p->base_ns = now_ns;
		p->calm_ns = 0;
	} else {
		/* the clock so far at the old rate, the new rate from here */
		p->base_lsn = (uint64_t)pace_allowed(p, now_ns);
		p->base_ns = now_ns;
		p->free_rate +=
			(freed - p->free_rate) * dt / (dt + free_avg_s(p, age));
	}
	factor = 1.0 + PACE_GAIN * ((double)pace_target(p) - (double)age) /
			       p->capacity;
	if (factor < PACE_FACTOR_MIN)
		factor = PACE_FACTOR_MIN;
	if (factor > PACE_FACTOR_MAX)
		factor = PACE_FACTOR_MAX;
	p->rate = p->free_rate * factor;
	if (p->rate < pace_floor(p))
		p->rate = pace_floor(p);
	if (age >= p->capacity / 4)
		p->calm_ns = 0;
	else if (!p->calm_ns)
		p->calm_ns = now_ns;
	else if (now_ns - p->calm_ns >= UT_PACE_CALM_NS)
		p->rate = 0; /* the log no longer holds anyone back */
}

void ut_redo_pace_set_rate(struct ut_redo_pace *p, uint64_t now_ns,
			   uint64_t cur_lsn, double rate)
{
	p->base_lsn = p->rate ? (uint64_t)pace_allowed(p, now_ns) : cur_lsn;
	p->base_ns = now_ns;
	p->rate = rate;
}

uint64_t ut_redo_pace_wait(struct ut_redo_pace *p, uint64_t now_ns,
			   uint64_t cur_lsn)
{
	double allowed, burst, wait;

	if (!p->rate)
		return 0;
	allowed = pace_allowed(p, now_ns);
	burst = p->rate * UT_PACE_BURST_NS / 1e9;
	if (allowed > cur_lsn + burst) {
		/* unused allowance does not pile up */
		p->base_lsn = (uint64_t)(cur_lsn + burst);
		p->base_ns = now_ns;
		return 0;
	}
	if ((double)cur_lsn <= allowed)
		return 0;
	wait = ((double)cur_lsn - allowed) / p->rate * 1e9;
	return wait > UT_PACE_SLEEP_MAX_NS ? UT_PACE_SLEEP_MAX_NS :
					     (uint64_t)wait;
}

uint64_t ut_redo_pace_admit(struct ut_redo_pace *p, uint64_t now_ns,
			    uint64_t cur_lsn, uint64_t age)
{
	if (!p->adjust_ns) {
		p->adjust_ns = now_ns;
		p->adjust_lsn = cur_lsn;
		return 0;
	}
	if (now_ns - p->adjust_ns >= UT_PACE_ADJUST_NS)
		pace_adjust(p, now_ns, cur_lsn, age);
	return ut_redo_pace_wait(p, now_ns, cur_lsn);
}
