// SPDX-License-Identifier: MIT
/*
 * redo_forecast.c - writer pacing's forecast mode (redo_pace.h): the
 * redo rate that brings the checkpoint age to its target by the time
 * the cleaners, at their measured page rate, have written every page
 * dirty now.
 */
#include "base/probes.h"
#include "buf/log_space.h"
#include "buf/redo_pace.h"

/* the page rate's average: an exponential one over one turn, at least
 * this long, so that stalls of the cleaners are in it, not followed */
#define FC_PAGE_AVG_S 2.0
/* the longest stall of the cleaners is forgotten over this long */
#define FC_STALL_FORGET_S 60.0
/* the checkpoint's largest lag is forgotten over this long */
#define FC_LAG_FORGET_S 10.0
/* one turn before the first page rate is known */
#define FC_TURN_BOOT_S 10.0
/* a turn is at least two of the rate's adjustments, the shortest the
 * forecast can follow: a pool of a few hundred pages written thousands
 * a second turns in a quarter second, and a floor of 0.5 s halved the
 * rate it allows (docs/guards.md, the flush-bound regime) */
#define FC_TURN_MIN_S (2.0 * UT_PACE_ADJUST_NS / 1e9)
/* how hard the oldest dirty page's age pulls: 1 + GAIN (target - age) / C */
#define FC_GAIN 1.0
#define FC_FACTOR_MIN 0.75
#define FC_FACTOR_MAX 1.25
/* a rate cut is taken at once, a raise over this long */
#define FC_RAISE_S 0.5
/* the redo writers add in this long is kept under the stop: three and a
 * half of the rate's adjustments (UT_PACE_ADJUST_NS), which a small log
 * needs (fc_target) */
#define FC_REACT_S 0.35
/* pacing turns off once both ages have stayed at most on_age this long:
 * after a stop the cleaners drain the pool and the checkpoint leaps
 * under on_age, and writers let go at once add, before the next
 * adjustment, what takes a small log back to the stop (docs/architecture.md,
 * "Writer pacing, forecast mode") */
#define FC_OFF_S 1.0

void ut_redo_pace_forecast(struct ut_redo_pace *p, uint64_t on_age)
{
	p->forecast = 1;
	p->on_age = on_age;
}

int ut_redo_pace_due(const struct ut_redo_pace *p, uint64_t now_ns)
{
	/* off and asked: the age has passed on_age since the last sample,
	 * and writers would go unpaced until the next */
	if (p->forecast && !p->rate)
		return 1;
	return !p->adjust_ns || now_ns - p->adjust_ns >= UT_PACE_ADJUST_NS;
}

/* Whether the log holds no one back: both ages at most on_age, for
 * FC_OFF_S once pacing is on (one sample when it is off). */
static int fc_calm(struct ut_redo_pace *p, const struct ut_pace_sample *s)
{
	if (s->age > p->on_age || s->flush_age > p->on_age) {
		p->calm_ns = 0;
		return 0;
	}
	if (!p->calm_ns)
		p->calm_ns = s->now_ns;
	return !p->rate || s->now_ns - p->calm_ns >= FC_OFF_S * 1e9;
}

/* The target of the age's peak: 19/32 of the log, a thirty-second under
 * the writers' stop, or lower by what writers add at the rate in
 * FC_REACT_S, whichever leaves more.  Near the stop, because throughput
 * goes with the age at which pages are written (each write carries the
 * changes made while the page was dirty) and unpaced writers hold it at
 * the stop; the margin grows with the rate because the rate is set
 * every 100 ms and the checkpoint published at most every 1/32 of the
 * log, and in a small log a thirty-second is less than that lag's redo
 * (docs/architecture.md, "Writer pacing, forecast mode"). */
static double fc_target(const struct ut_redo_pace *p)
{
	uint64_t stop = UT_FLUSH_STOP(p->capacity),
		 least = UT_PACE_MARGIN_MIN(p->capacity),
		 most = UT_PACE_MARGIN_MAX(p->capacity);
	double margin = (double)least;

	if (p->rate * FC_REACT_S > margin)
		margin = p->rate * FC_REACT_S;
	if (margin > (double)most)
		margin = (double)most;
	return (double)stop - margin;
}

/* How long the stall so far has held the checkpoint, counted in the
 * redo the writers added through it at the rate they were allowed: the
 * age the room must take.  Where the writers wait for the stalled
 * cleaners' pages too it is shorter than the stall, and a room of the
 * stall's length cost rows (docs/architecture.md, "Writer pacing,
 * forecast mode").  From the sample before the stall, since it began
 * after that one; at most the stall as counted in samples (as before),
 * and that near the stop. */
static double fc_stall_redo_s(const struct ut_redo_pace *p,
			      const struct ut_pace_sample *s)
{
	double most = p->stall_s, held;

	/* near the stop the writers were held by the log, not the pages:
	 * what they added says nothing of what they would have */
	if (!p->rate || s->cur_lsn < p->stall_lsn ||
	    s->age >= UT_PACE_URGENT(p->capacity))
		return most;
	held = (s->cur_lsn - p->stall_lsn) / p->rate;
	return held < most ? held : most;
}

/* The cleaners' page rate, averaged over the windows in which they had
 * work all along: then it is what the device sustains, not what was
 * asked of it.  Page writes complete a batch at a time, so one window
 * can hold none and the next a whole batch: until the measurement spans
 * the averaging time it is the mean of all it has seen (a first window
 * that reaped two batches is not taken for the device's pace). */
static void fc_page_rate(struct ut_redo_pace *p, const struct ut_pace_sample *s,
			 double dt)
{
	double got, avg_s, held;

	if (!p->adjust_ns || dt <= 0 || s->pages_written < p->pages_written)
		return;
	got = (s->pages_written - p->pages_written) / dt;
	p->stall_max -= p->stall_max * dt / FC_STALL_FORGET_S;
	if (got > 0 || s->cleaners_idle) {
		p->stall_s = 0;
	} else {
		/* the cleaners had work and wrote nothing: blocked (a sync) */
		if (!p->stall_s)
			p->stall_lsn = p->sample_lsn;
		p->stall_s += dt;
		held = fc_stall_redo_s(p, s);
		if (held > p->stall_max)
			p->stall_max = held;
	}
	/* idle: demand, a floor of what the device can do (it only
	 * raises the mean) */
	if (s->cleaners_idle && got <= p->page_rate)
		return;
	avg_s = p->page_rate > 0 ? s->n_dirty / p->page_rate : 0;
	if (avg_s < FC_PAGE_AVG_S)
		avg_s = FC_PAGE_AVG_S;
	p->rate_s += dt;
	if (p->rate_s < avg_s)
		p->page_rate += (got - p->page_rate) * dt / p->rate_s;
	else
		p->page_rate += (got - p->page_rate) * dt / (dt + avg_s);
}

/* How far the published checkpoint trails the oldest dirty page: the
 * age the stop judges is the oldest page's plus this.  The target's
 * margin holds what the publishing interval makes of it (FC_REACT_S);
 * a checkpoint whose sync takes longer trails further (the atomic guard
 * on XFS without hardware atomic writes, whose fdatasync is slow on a
 * disk: docs/architecture.md, "Writer pacing, forecast mode").  The
 * largest trail lately, forgotten over FC_LAG_FORGET_S. */
static void fc_lag(struct ut_redo_pace *p, const struct ut_pace_sample *s,
		   double dt)
{
	double lag;

	if (dt > FC_LAG_FORGET_S)
		dt = FC_LAG_FORGET_S;
	p->lag_max -= p->lag_max * dt / FC_LAG_FORGET_S;
	if (!s->flush_age || s->age <= s->flush_age)
		return;
	lag = (double)(s->age - s->flush_age);
	if (lag > p->lag_max)
		p->lag_max = lag;
}

/* What the rate should be: the budget left under the target over one
 * turn of the dirty pages.  The target leaves room for the longest
 * stall of the cleaners seen lately (the checkpoint stands still then
 * while writers go on at the rate) and for the checkpoint's trail
 * beyond the margin (fc_lag). */
static double fc_want(const struct ut_redo_pace *p,
		      const struct ut_pace_sample *s)
{
	uint64_t stop = UT_FLUSH_STOP(p->capacity);
	double full = fc_target(p), target, turn, spent, budget, factor,
	       trail = p->lag_max - ((double)stop - full);

	target = full - p->rate * p->stall_max;
	if (trail > 0) /* the checkpoint trails more than the margin holds */
		target -= trail;
	if (target < full / 2)
		target = full / 2;

	turn = p->page_rate > 0 ? s->n_dirty / p->page_rate : FC_TURN_BOOT_S;
	if (turn < FC_TURN_MIN_S)
		turn = FC_TURN_MIN_S;
	spent = s->head_lsn && s->cur_lsn > s->head_lsn ?
			(double)(s->cur_lsn - s->head_lsn) :
			0;
	budget = target - spent;
	if (budget < target / 8)
		budget = target / 8;
	/* the age pulls the rate toward the target; upward only once a
	 * turn has gone by since pacing began: before, a low age is the
	 * start, not a forecast too low */
	factor = 1.0 + FC_GAIN * (target - (double)s->flush_age) / p->capacity;
	if (factor < FC_FACTOR_MIN)
		factor = FC_FACTOR_MIN;
	if (factor > FC_FACTOR_MAX)
		factor = FC_FACTOR_MAX;
	if (factor > 1 && s->now_ns - p->on_ns < turn * 1e9)
		factor = 1;
	return factor * budget / turn;
}

/* The rate just set and what it rests on, for the pace__adjust probe. */
static void probe_adjust(const struct ut_redo_pace *p,
			 const struct ut_pace_sample *s)
{
	UT_PROBE(pace__adjust, (uint64_t)p->rate, (uint64_t)p->page_rate,
		 s->n_dirty, s->age, s->flush_age,
		 (uint64_t)(p->stall_max * 1000));
}

void ut_redo_pace_adjust(struct ut_redo_pace *p, const struct ut_pace_sample *s)
{
	double dt = p->adjust_ns ? (s->now_ns - p->adjust_ns) / 1e9 : 0, want;
	uint64_t urgent, stop;

	fc_page_rate(p, s, dt);
	fc_lag(p, s, dt);
	p->sample_lsn = s->cur_lsn;
	p->adjust_ns = s->now_ns;
	p->pages_written = s->pages_written;
	if (fc_calm(p, s)) {
		/* the cleaners are not flat out: the log holds no one back */
		ut_redo_pace_set_rate(p, s->now_ns, s->cur_lsn, 0);
		probe_adjust(p, s);
		return;
	}
	if (!p->rate)
		p->on_ns = s->now_ns;
	want = fc_want(p, s);
	urgent = UT_PACE_URGENT(p->capacity);
	stop = UT_FLUSH_STOP(p->capacity);
	if (s->age > urgent) /* near the stop, whatever the forecast says:
			      * down to half the rate at the stop */
		want *= s->age >= stop ?
				0.5 :
				1.0 - 0.5 * (s->age - urgent) /
						(double)(stop - urgent);
	if (p->rate && want > p->rate)
		want = p->rate + (want - p->rate) * dt / (dt + FC_RAISE_S);
	ut_redo_pace_set_rate(p, s->now_ns, s->cur_lsn, want);
	probe_adjust(p, s);
}
