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
#include "buf/log_space.h"

struct ut_flush_rate {
	uint64_t capacity; /* the redo log's usable bytes */
	uint64_t last_lsn; /* the log's head at the last tick */
	uint64_t last_ns; /* when that was; 0 before the first tick */
	double lsn_rate; /* redo bytes per second, averaged */
	double tick_rate; /* the same over the last tick alone */
};

/* The ages it acts at (UT_FLUSH_LWM: where it begins; the age the
 * percentage is measured against is the same half of the log, where the
 * redo log asks for space) are log_space.h's. */

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
			    uint64_t cur_lsn, uint64_t ckpt_lsn,
			    uint64_t oldest);

#endif
