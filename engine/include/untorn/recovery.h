/* SPDX-License-Identifier: MIT */
/*
 * recovery.h - what crash recovery reports: the guard's repair of torn
 * pages (the doublewrite guard's: restored from its file's copies), then the redo
 * scanned from the last checkpoint and applied.  ut_engine_open() fills
 * it (engine.h); mtr/recover.c is where it is made.
 */
#ifndef UNTORN_RECOVERY_H
#define UNTORN_RECOVERY_H

#include <stdint.h>

struct ut_recovery_report {
	int needed; /* redo after the checkpoint was found */
	uint64_t checkpoint_lsn;
	uint64_t end_lsn;
	uint64_t groups, records, redo_bytes;
	uint64_t records_applied, records_skipped;
	uint64_t pages_read, read_submits, read_ios;
	/* the guard's repair (its restore phase): pages compared with a
	 * copy, pages restored from it (the first 64 in restored) */
	const char *guard; /* the guard that did ("doublewrite"), or NULL:
			    * it keeps no copy */
	const char *restored_from; /* "the doublewrite buffer" */
	uint64_t guard_checked, guard_restored;
	uint32_t restored[64];
	const char *stop_reason;
	uint64_t damage_lsn; /* redo damaged here, sound log after */
	uint64_t sound_after_lsn; /* ... up to here (not applied) */
	uint64_t gap_lsn; /* stopped at zeros in a fresh log, */
	uint64_t gap_sound_after_lsn; /* sound log after it (not applied) */
	double seconds;
};

#endif
