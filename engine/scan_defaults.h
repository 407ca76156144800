/* SPDX-License-Identifier: MIT */
/*
 * scan_defaults.h - the one home of a scan's defaults and policy: the
 * read-ahead window and merging a scan gets when its options leave them
 * at 0, linear read-ahead's trigger and extent, and how a scan yields to
 * other work on its disk.  ut_scan_opts_default() and
 * ut_scan_yield_default() hand them to a library user; `untorn bench
 * scan` and `untorn dump` start from those and print them in --help.
 *
 * Why these values: docs/reads.md ("The policies", "Scans that spare
 * production") and the results it links.
 */
#ifndef UNTORN_SCAN_DEFAULTS_H
#define UNTORN_SCAN_DEFAULTS_H

/*
 * Leaves a logical read-ahead window holds when neither window_pages nor
 * batch says: an extent of InnoDB's (64 pages, 1 MiB of 16 KiB pages),
 * the unit its own read-ahead reads.  A larger window (--lra-size) sorts
 * more leaves into one sweep over the file, which a disk rewards, and
 * takes more of the pool (half of it at most: ut_scan_window_max).
 */
#define UT_SCAN_WINDOW_DEFAULT 64u

/*
 * The largest merged read, in pages, when merge_pages says nothing.
 * Without the device's figures nothing says what a longer read or a
 * hole read through costs, so only neighbours merge, into reads of up to
 * 16 pages (256 KiB of 16 KiB pages); given them, ut_scan_fit_device
 * merges as the bound does, up to UT_SCAN_MERGE_MAX.
 */
#define UT_SCAN_MERGE_DEFAULT 16u

/*
 * Linear read-ahead (InnoDB's, the baseline logical read-ahead is
 * measured against): a run of UT_SCAN_LINEAR_RUN leaves in ascending
 * page order reads the next UT_SCAN_LINEAR_EXTENT pages, an extent.
 */
#define UT_SCAN_LINEAR_RUN 4u
#define UT_SCAN_LINEAR_EXTENT 64u

/*
 * The share of its speed alone other work keeps from a yielding scan, in
 * percent: three quarters.  A backup beside production costs it a
 * quarter, and with no other work on the disk the yield costs the scan
 * nothing (it does not pause), so one default suits both.
 */
#define UT_SCAN_SPARE_DEFAULT 75u

/*
 * The most a scan may spare: the longest pause is s / (1 - s) of the
 * reads' time, 19 times at 95 %; beyond it the scan all but stops, which
 * a fixed pause (sleep_ms) says more plainly.
 */
#define UT_SCAN_SPARE_MAX 95u

/*
 * Sectors a second others move on the disk that are no work to yield to
 * (floor_per_s, counted in sectors): 32 KiB a second, a few random
 * writes.  The filesystem's own commits and a logger's lines stay under
 * it, and a scan that paused for them was slowed with nothing to spare.
 * Counted in units of work (commits), every one counts: no floor.
 */
#define UT_SCAN_SECTORS_FLOOR 64u

#endif
