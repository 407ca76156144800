/* SPDX-License-Identifier: MIT */
/*
 * flush_rate.h - adaptive flushing: how far the page cleaners flush in
 * the next tick, from the checkpoint age and the rate the redo log
 * grows (InnoDB's page_cleaner_flush_pages_recommendation, with the
 * page count replaced by an LSN the cleaners flush up to).  A pure
 * computation, so it is tested on its own (tests/flushrate_test.c).
 *
 * Below the low-water mark (half the log) nothing is asked: pages stay
 * dirty and absorb more changes.  Above it the flush target moves ahead
 * of the oldest dirty page by what the log grew in one tick (Dimitri
 * Kravtchuk's point: follow the redo rate, so the age stays where it
 * is; the averaged rate, or the tick's own when it is higher, so a
 * burst is followed at once), times 1 + pct/100, where pct rises with
 * the age as InnoDB's af_get_pct_for_lsn (age factor^1.5 / 7.5), so a
 * growing age is pulled back before writers meet the log-free check.
 */
#ifndef UNTORN_FLUSH_RATE_H
#define UNTORN_FLUSH_RATE_H

#include <stdint.h>

struct ut_flush_rate {
	uint64_t capacity; /* the redo log's usable bytes */
	uint64_t last_lsn; /* the log's head at the last tick */
	uint64_t last_ns; /* when that was; 0 before the first tick */
	double lsn_rate; /* redo bytes per second, averaged */
	double tick_rate; /* the same over the last tick alone */
};

/*
 * The age (head - checkpoint) below which nothing is flushed for the
 * log's sake: half the log.  When page writes are what the device runs
 * out of, every page write carries the changes made while the page
 * stayed dirty, so throughput grows with the age the cleaners allow:
 * on the HDD model InnoDB's tenth of the log gave 0.2x the TPS of eager
 * flushing, 3/8 0.7x, half 0.8x (docs/results/2026-11-24-flushing.md).
 * Half leaves an eighth of the log before writers stop at 5/8.
 */
#define UT_FLUSH_LWM(capacity) ((capacity) / 2)
/* The age the percentage is measured against: half the log, where the
 * redo log asks for space (ut_flush_want_log_space's target). */
#define UT_FLUSH_ASYNC_DIV 2

/* Where row writes stop for log space (ut_flush_log_free_check). */
#define UT_FLUSH_STOP(capacity) ((capacity) / 8 * 5)

void ut_flush_rate_init(struct ut_flush_rate *fr, uint64_t capacity);

/* The percentage of the redo rate to add at this age (0 below the
 * low-water mark). */
double ut_flush_rate_pct(uint64_t capacity, uint64_t age);

/*
 * One tick at now_ns: the log's head is cur_lsn, the checkpoint is
 * ckpt_lsn, the oldest dirty page's LSN is oldest (0: none dirty).
 * Updates the averaged redo rate and returns the LSN the cleaners
 * should flush up to now (0: nothing asked).  Never past cur_lsn.
 */
uint64_t ut_flush_rate_tick(struct ut_flush_rate *fr, uint64_t now_ns,
			    uint64_t cur_lsn, uint64_t ckpt_lsn, uint64_t oldest);

#endif
