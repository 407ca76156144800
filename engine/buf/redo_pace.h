/* SPDX-License-Identifier: MIT */
/*
 * redo_pace.h - writer pacing: the rate at which row writes may add redo
 * while the redo log is what holds them back.  A pure computation, so it
 * is tested on its own (tests/flushrate_test.c).
 *
 * Where page writes are the bottleneck and a few thousand hot pages take
 * every change, stopping writers at 5/8 of the log and letting them go
 * when there is room makes TPS swing every ten seconds
 * (docs/results/2026-11-25-writer-pacing.md): a burst dirties every hot
 * page within a fraction of a second, so the checkpoint cannot pass the
 * burst until all of them are written; then
 * it leaps, the whole log is free at once, and the next burst refills
 * it.  Pacing writers by the age alone does not help: after a leap the
 * age is low and the burst comes anyway.
 *
 * So the writers get a rate, not a threshold.  The age mode (the
 * default until the forecast mode below proved steadier; --pacing age):
 * once the age passes half the log, redo may grow at most `rate` bytes
 * a second (a virtual clock each writer checks before a row write, with
 * a 50 ms allowance for bursts).  Every 100 ms the rate is set to what
 * the checkpoint freed a second, averaged over one turn of the dirty
 * pages (the age over that rate, 2-30 s: what the cleaners sustain, the
 * leaps smoothed), times 1 + 2 (target - age) / capacity, between 0.25
 * and 1.1, with the target at 9/16 of the log (a sixteenth under the
 * stop): the age is pulled to the target and the rate to the cleaners'
 * pace.  It starts
 * at a quarter of the redo rate that filled the log.  From the first
 * burst a few turns go by before it has settled (bench write's flush
 * regime warmed up for 60 s under it).  At a steady rate pages are
 * dirtied and written at spread-out moments and the checkpoint moves
 * smoothly.  After ten seconds with the age below a quarter of the log
 * pacing turns itself off, so a load the log does not limit is never
 * slowed.
 *
 * The forecast mode (ut_redo_pace_forecast, the engine's default) cuts
 * the loop through the checkpoint: a rate taken from the checkpoint's
 * own pace is the writers' rate of one turn ago played back, so a
 * disturbance (the first burst, a stop, a stalled cleaner) comes back
 * every turn.  Instead, every page dirty now is written within one turn
 * T = dirty pages / page writes a second (the cleaners' measured pace,
 * a property of the device), so by then the checkpoint is past the
 * newest first change on the flush list (head_lsn), and the age peaks
 * at (cur - head_lsn) + rate T.  Budgeting that peak to the target
 * (19/32 of the log; lower where 0.35 s of redo at the rate is more
 * than a thirty-second of it) gives
 * rate = (target - (cur - head_lsn)) / T,
 * pulled gently toward the target by the age of the oldest dirty page.
 * It is on from where the cleaners go flat out (on_age), so the first
 * burst is spread over the first turn instead of being stopped at 5/8
 * of the log, and off once the age has stayed under on_age for a second
 * (a checkpoint that leaps under it after a stop is not calm).
 */
#ifndef UNTORN_REDO_PACE_H
#define UNTORN_REDO_PACE_H

#include <stdint.h>
#include "buf/log_space.h"

#define UT_PACE_ADJUST_NS 100000000ull /* how often the rate is adjusted */
#define UT_PACE_BURST_NS 50000000ull /* redo allowed ahead of the clock */
#define UT_PACE_SLEEP_MAX_NS \
	50000000ull /* one sleep at most, then look again */
#define UT_PACE_CALM_NS 10000000000ull /* below a quarter this long: off */
/* The forecast mode's flushing: idle eager cleaners look for work this
 * often (not once a second: UT_CLEANER_IDLE_NS), and the checkpoint is
 * published more often (log_space.h: UT_PACE_CKPT_SHARE). */
#define UT_PACE_POLL_NS 10000000ull

struct ut_redo_pace {
	uint64_t capacity; /* the redo log's usable bytes */
	double rate; /* redo bytes a second allowed; 0: not pacing */
	uint64_t base_lsn,
		base_ns; /* allowed(t) = base_lsn + rate (t - base_ns) */
	uint64_t adjust_ns; /* the last adjustment; 0 before the first */
	uint64_t adjust_lsn; /* the log's head then */
	uint64_t adjust_ckpt; /* and the checkpoint */
	double free_rate; /* bytes of log the checkpoint frees a second, averaged */
	/* since when the log holds no one back, 0: not (the age mode: the
	 * age below a quarter; the forecast: both ages at most on_age) */
	uint64_t calm_ns;
	/* the forecast mode (ut_redo_pace_forecast) */
	int forecast;
	uint64_t on_age; /* paced above this age: where cleaners go flat out */
	double page_rate; /* pages the cleaners write a second, averaged */
	double rate_s; /* seconds of windows averaged into page_rate */
	uint64_t pages_written; /* at the last adjustment */
	double stall_s; /* the cleaners have had work and written nothing */
	/* the longest such stall lately, in seconds of redo at the rate:
	 * what the writers added through it over the rate they had */
	double stall_max;
	/* how far the published checkpoint trailed the oldest dirty page
	 * (age - flush_age), bytes: the largest lately */
	double lag_max;
	uint64_t sample_lsn; /* the log's head at the last sample */
	uint64_t stall_lsn; /* and at the last sample before the stall */
	uint64_t on_ns; /* when pacing last began */
};

/* What the forecast mode looks at every UT_PACE_ADJUST_NS. */
struct ut_pace_sample {
	uint64_t now_ns;
	uint64_t cur_lsn; /* the log's head */
	uint64_t age; /* head - published checkpoint (what stops writers) */
	uint64_t flush_age; /* head - oldest dirty page (0: none dirty) */
	uint64_t head_lsn; /* newest first change of a dirty page (0: none) */
	uint64_t n_dirty;
	uint64_t pages_written; /* by the cleaners so far */
	int cleaners_idle; /* a cleaner waited for work since the last sample */
};

void ut_redo_pace_init(struct ut_redo_pace *p, uint64_t capacity);

/*
 * Before a row write at now_ns, the log's head at cur_lsn and the
 * checkpoint age age: how long the writer should sleep before it looks
 * again (0: go).  Not thread-safe: the caller holds a lock.
 */
uint64_t ut_redo_pace_admit(struct ut_redo_pace *p, uint64_t now_ns,
			    uint64_t cur_lsn, uint64_t age);

/* The forecast mode, paced above on_age; after ut_redo_pace_init. */
void ut_redo_pace_forecast(struct ut_redo_pace *p, uint64_t on_age);

/* Forecast mode: whether a sample is due at now_ns (then the caller
 * gathers one and calls ut_redo_pace_adjust): every UT_PACE_ADJUST_NS,
 * and at once while pacing is off (the caller asks only above on_age). */
int ut_redo_pace_due(const struct ut_redo_pace *p, uint64_t now_ns);

/* Forecast mode: the rate from a sample. */
void ut_redo_pace_adjust(struct ut_redo_pace *p,
			 const struct ut_pace_sample *s);

/* The clock so far at the old rate (from cur_lsn if there was none),
 * rate from now_ns on (0: not pacing). */
void ut_redo_pace_set_rate(struct ut_redo_pace *p, uint64_t now_ns,
			   uint64_t cur_lsn, double rate);

/* Before a row write with the log's head at cur_lsn: how long to sleep
 * before looking again (0: go), by the rate last set. */
uint64_t ut_redo_pace_wait(struct ut_redo_pace *p, uint64_t now_ns,
			   uint64_t cur_lsn);

#endif
