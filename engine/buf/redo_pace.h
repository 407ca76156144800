/* SPDX-License-Identifier: MIT */
/*
 * redo_pace.h - writer pacing: the rate at which row writes may add redo
 * while the redo log is what holds them back.  A pure computation, so it
 * is tested on its own (tests/flushrate_test.c).
 *
 * Where page writes are the bottleneck and a few thousand hot pages take
 * every change, stopping writers at 5/8 of the log and letting them go
 * when there is room makes TPS swing between 2 % and 250 % of its median
 * every ten seconds (HDD model, 120 s: worst second 0.24 of the median):
 * a burst dirties every hot page within a fraction of a second, so the
 * checkpoint cannot pass the burst until all of them are written; then
 * it leaps, the whole log is free at once, and the next burst refills
 * it.  Pacing writers by the age alone does not help: after a leap the
 * age is low and the burst comes anyway.
 *
 * So the writers get a rate, not a threshold: once the age passes half
 * the log, redo may grow at most `rate` bytes a second (a virtual clock
 * each writer checks before a row write, with a 50 ms allowance for
 * bursts).  Every 100 ms the rate is set to what the checkpoint freed a
 * second, averaged over one turn of the dirty pages (the age over that
 * rate, 2-30 s: what the cleaners sustain, the leaps smoothed), times
 * 1 + 2 (target - age) / capacity, between 0.25 and 1.1, with the
 * target at 9/16 of the log (a sixteenth under the stop): the age is
 * pulled to the target and the rate to the cleaners' pace.  It starts
 * at a quarter of the redo rate that filled the log.  From the first
 * burst a few turns go by before it has settled: bench write's flush
 * regime warms up for 60 s.  At a steady rate pages are
 * dirtied and written at spread-out moments and the checkpoint moves
 * smoothly.  After ten seconds with the age below a quarter of the log
 * pacing turns itself off, so a load the log does not limit is never
 * slowed.
 */
#ifndef UNTORN_REDO_PACE_H
#define UNTORN_REDO_PACE_H

#include <stdint.h>

#define UT_PACE_ADJUST_NS 100000000ull /* how often the rate is adjusted */
#define UT_PACE_BURST_NS 50000000ull /* redo allowed ahead of the clock */
#define UT_PACE_SLEEP_MAX_NS \
	50000000ull /* one sleep at most, then look again */
#define UT_PACE_CALM_NS 10000000000ull /* below a quarter this long: off */

struct ut_redo_pace {
	uint64_t capacity; /* the redo log's usable bytes */
	double rate; /* redo bytes a second allowed; 0: not pacing */
	uint64_t base_lsn, base_ns; /* allowed(t) = base_lsn + rate (t - base_ns) */
	uint64_t adjust_ns; /* the last adjustment; 0 before the first */
	uint64_t adjust_lsn; /* the log's head then */
	uint64_t adjust_ckpt; /* and the checkpoint */
	double free_rate; /* bytes of log the checkpoint frees a second, averaged */
	uint64_t calm_ns; /* since when the age is below a quarter, 0: not */
};

void ut_redo_pace_init(struct ut_redo_pace *p, uint64_t capacity);

/*
 * Before a row write at now_ns, the log's head at cur_lsn and the
 * checkpoint age age: how long the writer should sleep before it looks
 * again (0: go).  Not thread-safe: the caller holds a lock.
 */
uint64_t ut_redo_pace_admit(struct ut_redo_pace *p, uint64_t now_ns,
			    uint64_t cur_lsn, uint64_t age);

#endif
