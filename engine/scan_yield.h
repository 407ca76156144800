/* SPDX-License-Identifier: MIT */
/*
 * scan_yield.h - how long a logical scan pauses before its next window so
 * that other work on the disk keeps a share of its speed: the rate the
 * other work has while the scan pauses is its rate alone, the rate it has
 * while the scan reads is what the scan leaves it, and the pause is the
 * one that brings the two phases' mean to the share asked for.  Times in
 * nanoseconds, other work in whatever unit its counter grows by (the
 * writers' commits, the sectors others moved on the device).  No clock,
 * no sleep, no I/O here: scan.c measures and pauses, scan_yield_test
 * drives it with a model of a shared disk.
 */
#ifndef UNTORN_SCAN_YIELD_H
#define UNTORN_SCAN_YIELD_H

#include <stdint.h>

/* a pause that only looks whether other work is there */
#define SCAN_YIELD_PROBE_NS 50000000ull
/* with no other work seen, look again after this much scanning */
#define SCAN_YIELD_REPROBE_NS 10000000000ull
/* a rate is measured over at least this long (not until so much work is
 * seen: a sample that stops on a count is biased upward) */
#define SCAN_YIELD_SAMPLE_NS 250000000ull

/* time and work over one kind of phase, until there is enough to measure */
struct scan_yield_sample {
	uint64_t ns, work;
};

struct scan_yield {
	double spare; /* the share of its rate alone other work keeps */
	double floor; /* other work a ns at or under which it is none */
	double rate_alone; /* other work a ns while the scan pauses
			    * (smoothed); < 0 not measured yet, 0 none seen */
	double rate_reading; /* and while it reads; < 0 not measured yet */
	int none_reading; /* the last sample of the reads saw none */
	struct scan_yield_sample alone, reading;
	/* work seen in the reads and in the pauses since rate_alone was last
	 * unknown, and the time it was seen in */
	struct scan_yield_sample seen_reading, seen_paused;
	uint64_t resumed_ns, resumed_work; /* when the last pause ended */
	uint64_t decided_ns, decided_work; /* when the pause began */
	uint64_t pausing; /* the pause asked for, until it ends */
	uint64_t started_ns; /* when the scan started: the first look is shorter */
	uint64_t probed_ns; /* when a pause last looked for other work */
	/* totals over the scan: the phases' lengths and the work in them */
	uint64_t active_ns, active_work, paused_ns, paused_work;
	uint64_t pauses;
};

/* The scan starts at now_ns, with the other work's counter at work; other
 * work at floor a ns or less is none (0: any counts). */
void scan_yield_start(struct scan_yield *y, double spare, double floor,
		      uint64_t now_ns, uint64_t work);
/* Before the next window: the pause to take, in ns (0: none). */
uint64_t scan_yield_pause(struct scan_yield *y, uint64_t now_ns, uint64_t work);
/* The scan ended at now_ns: its last reads counted, no pause. */
void scan_yield_end(struct scan_yield *y, uint64_t now_ns, uint64_t work);
/* The pause ended at now_ns, the counter at work: a further pause to
 * take (a look that found work goes on until it is measured), or 0. */
uint64_t scan_yield_resumed(struct scan_yield *y, uint64_t now_ns,
			    uint64_t work);

#endif
