// SPDX-License-Identifier: MIT
/*
 * scan_yield.c - the pause before a logical scan's next window that
 * leaves other work its share of the disk (scan_yield.h).
 *
 * A window's reads and the pause after them are one cycle.  Other work
 * runs at rate r while the scan reads (A ns) and at its rate alone u
 * while the scan pauses (P ns); over the cycle it gets
 * (r A + u P) / (u (A + P)) of its speed alone, which is the share s
 * asked for when
 *
 *	P = A (s - r/u) / (1 - s).
 *
 * u is measured in the pauses themselves, r in the reads, each over
 * a quarter of a second at least (a few commits in a short phase say
 * little) and smoothed over two such samples.  So the
 * pause follows the other work as it changes: where the scan does not
 * slow it (r >= s u) the pause is only the sixteenth of the reads' time
 * that keeps u measured, and where the scan stops it (r = 0) the pause is
 * A s / (1 - s), the most ever taken (3 A for s = 3/4).  Until u is
 * measured, each pause is a probe of 50 ms;
 * with no work seen in the reads nor in the first probe, there is no
 * pause, and every 10 s of scanning a 50 ms one looks again (work of a
 * few units a second that the scan stops entirely can go unseen that
 * long).
 */
#include "scan_yield.h"

void scan_yield_start(struct scan_yield *y, double spare, uint64_t now_ns,
		      uint64_t work)
{
	*y = (struct scan_yield){ .spare = spare,
				  .rate_alone = -1,
				  .rate_reading = -1 };
	y->resumed_ns = y->decided_ns = y->probed_ns = now_ns;
	y->resumed_work = y->decided_work = work;
}

static uint64_t grew(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

/* Adds a phase to its sample; 1 and *rate set when the sample is enough
 * to measure (and starts again), else 0. */
static int sample_add(struct scan_yield_sample *sm, uint64_t ns, uint64_t work,
		      double *rate)
{
	sm->ns += ns;
	sm->work += work;
	if (sm->ns < SCAN_YIELD_SAMPLE_NS)
		return 0;
	*rate = sm->work / (double)sm->ns;
	*sm = (struct scan_yield_sample){ 0 };
	return 1;
}

static void smooth(double *avg, double rate)
{
	*avg = *avg < 0 ? rate : (*avg + rate) / 2;
}

/* A pause that looks whether there is other work, and how fast it goes. */
static uint64_t probe(struct scan_yield *y, uint64_t now_ns)
{
	y->probed_ns = now_ns;
	return SCAN_YIELD_PROBE_NS;
}

static uint64_t pause_for(struct scan_yield *y, uint64_t now_ns, uint64_t work)
{
	uint64_t active = grew(y->resumed_ns, now_ns);
	uint64_t done = grew(y->resumed_work, work);
	double keep = y->spare, rate, reading, p, most;

	y->active_ns += active;
	y->active_work += done;
	y->decided_ns = now_ns;
	y->decided_work = work;
	y->seen += done;
	if (sample_add(&y->reading, active, done, &rate)) {
		smooth(&y->rate_reading, rate);
		y->none_reading = !rate;
	}
	if (!active)
		return 0;
	if (y->rate_alone == 0 && done) /* work again: measure it */
		y->rate_alone = -1, y->seen = done;
	if (y->rate_alone < 0)
		return probe(y, now_ns);
	if (y->rate_alone == 0)
		return grew(y->probed_ns, now_ns) >= SCAN_YIELD_REPROBE_NS ?
			       probe(y, now_ns) :
			       0;
	reading = y->rate_reading < 0 ? done / (double)active : y->rate_reading;
	most = (double)active * keep / (1 - keep);
	p = (double)active * (keep - reading / y->rate_alone) / (1 - keep);
	if (p < (double)active / 16)
		p = (double)active / 16;
	return (uint64_t)(p < most ? p : most);
}

uint64_t scan_yield_pause(struct scan_yield *y, uint64_t now_ns, uint64_t work)
{
	y->pausing = pause_for(y, now_ns, work);
	if (!y->pausing) { /* counted: the reads go on from here */
		y->resumed_ns = now_ns;
		y->resumed_work = work;
	}
	return y->pausing;
}

void scan_yield_resumed(struct scan_yield *y, uint64_t now_ns, uint64_t work)
{
	uint64_t paused = grew(y->decided_ns, now_ns);
	uint64_t got = grew(y->decided_work, work);
	double rate;

	if (!y->pausing)
		return;
	y->pausing = 0;
	y->resumed_ns = now_ns;
	y->resumed_work = work;
	y->paused_ns += paused;
	y->paused_work += got;
	y->pauses++;
	y->seen += got;
	if (y->rate_alone < 0 && !y->seen) {
		y->rate_alone = 0; /* none in the reads, none in the probe */
		y->alone = (struct scan_yield_sample){ 0 };
		return;
	}
	if (y->rate_alone == 0 && got) /* a reprobe found work */
		y->rate_alone = -1;
	if (y->rate_alone == 0 || !sample_add(&y->alone, paused, got, &rate))
		return;
	if (!rate && y->none_reading)
		y->rate_alone = 0; /* the work stopped */
	else
		smooth(&y->rate_alone, rate);
}
