/* SPDX-License-Identifier: MIT */
/*
 * log_space.h - the one home of the redo log's space policy: the
 * checkpoint ages (head - checkpoint, as shares of the log's usable
 * bytes) at which the engine acts, each written relative to the one it
 * is set against.  Bottom up:
 *
 *   1/10    eager cleaners (the default without adaptive flushing) go
 *           flat out above it, InnoDB's async point
 *   1/2     adaptive flushing begins (flush_rate.h); the log asks the
 *           cleaners for space down to it; the age mode's pacing begins
 *   9/16    the age mode's target: the stop less 1/16
 *   19/32   the forecast pacing's target: the stop less a margin of at
 *           least 1/32 (redo_forecast.c: more when the redo rate is high)
 *   39/64   urgent: the stop less 1/64; the forecast cuts the rate and
 *           the checkpoint is published at once
 *   5/8     writers stop for log space (ut_flush_log_free_check)
 *   + 3/32  what the commits under way may still add above the stop
 *           (btree.h): the log must take it, so 5/8 + 3/32 < 1
 *
 * And how far the checkpoint moves before the cleaners publish it (each
 * costs the data file's fdatasync): 1/16 of the log, or a second after
 * the last; 1/32 or half a second in the forecast mode.
 *
 * Why these values: docs/architecture.md (the engine's cleaners,
 * "Writer pacing" and its forecast mode) and the results it links.
 */
#ifndef UT_LOG_SPACE_H
#define UT_LOG_SPACE_H

/* eager flushing: the cleaners write flat out above this age */
#define UT_LOG_EAGER_AGE(capacity) ((capacity) / 10)

/*
 * The age below which nothing is flushed for the log's sake: half the
 * log, not InnoDB's tenth.  When page writes are what the device runs
 * out of, every page write carries the changes made while the page
 * stayed dirty, so throughput grows with the age the cleaners allow
 * (docs/results/2026-11-24-flushing.md).  Half leaves an eighth of the
 * log before writers stop.
 */
#define UT_FLUSH_LWM(capacity) ((capacity) / 2)

/* Where row writes stop for log space. */
#define UT_FLUSH_STOP(capacity) ((capacity) / 8 * 5)

/* The age mode's pacing (--pacing age): from the LWM on, aiming at the
 * stop less a sixteenth (9/16). */
#define UT_PACE_AGE_ON(capacity) UT_FLUSH_LWM(capacity)
#define UT_PACE_AGE_TARGET(capacity) (UT_FLUSH_STOP(capacity) - (capacity) / 16)

/* The forecast's margin under the stop: at least 1/32 of the log (its
 * target 19/32), at most 1/8 (down to the LWM). */
#define UT_PACE_MARGIN_MIN(capacity) ((capacity) / 32)
#define UT_PACE_MARGIN_MAX(capacity) \
	(UT_FLUSH_STOP(capacity) - UT_FLUSH_LWM(capacity))

/* The forecast's urgent age: 1/64 under the stop (39/64). */
#define UT_PACE_URGENT(capacity) (UT_FLUSH_STOP(capacity) - (capacity) / 64)

/* The redo the commits under way may hold together, above the stop. */
#define UT_TXN_LOG_SHARE(capacity) ((capacity) / 32 * 3)

/*
 * The cleaners' checkpoint is due when it would move by capacity /
 * UT_CKPT_DUE_SHARE, or UT_CKPT_DUE_NS after the last, and at once when
 * a writer waits for log space (ut_checkpoint_if_due): each costs the
 * data file's fdatasync, so not after every batch; the age writers see
 * lags the oldest dirty page's by up to that much.
 */
#define UT_CKPT_DUE_SHARE 16
#define UT_CKPT_DUE_NS 1000000000ull

/*
 * The forecast mode's cadence: a thirty-second or half a second, as a
 * sixteenth's or a second's lag would eat the margin between its target
 * (19/32) and the stop; above the urgent age (39/64) at once.
 */
#define UT_PACE_CKPT_SHARE 32
#define UT_PACE_CKPT_NS 500000000ull

#endif
