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
 * measured, the pause is a look (50 ms; the first, an eighth of the reads
 * when they were shorter: a fast scan is not stopped for a slow look), and
 * once work is seen, in the reads or in a look, a pause of a quarter
 * second that measures it; with no work seen there is no pause, and
 * every 10 s of scanning a look again (work of a few units a second
 * that the scan stops entirely can go unseen that long).  Work that
 * grows by no more than the floor a ns is none throughout: a scan that
 * counts the sectors others move on its disk sees the filesystem's own
 * commits and a logger's lines, a few a second, and pausing for them
 * would slow it for nothing to spare.
 */
#include "scan_yield.h"

void scan_yield_start(struct scan_yield *y, double spare, double floor,
		      uint64_t now_ns, uint64_t work)
{
	*y = (struct scan_yield){ .spare = spare,
				  .floor = floor,
				  .rate_alone = -1,
				  .rate_reading = -1 };
	y->resumed_ns = y->decided_ns = y->probed_ns = y->started_ns = now_ns;
	y->resumed_work = y->decided_work = work;
}

static uint64_t grew(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

/* work in ns is none: at or under the floor (0 work with no floor) */
static int none(const struct scan_yield *y, uint64_t work, uint64_t ns)
{
	return work <= y->floor * ns;
}

/* none seen in the reads, nor in the pauses, since the rate was unknown */
static int none_seen(const struct scan_yield *y)
{
	return none(y, y->seen_reading.work, y->seen_reading.ns) &&
	       none(y, y->seen_paused.work, y->seen_paused.ns);
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

/* A look for other work: 50 ms; the first, an eighth of the reads before
 * it when they were shorter (a fast scan is not stopped for a slow look;
 * the next look, 10 s on, is a whole one). */
static uint64_t look(struct scan_yield *y, uint64_t now_ns, uint64_t active)
{
	int first = y->probed_ns == y->started_ns;

	y->probed_ns = now_ns;
	if (first && active / 8 < SCAN_YIELD_PROBE_NS)
		return active / 8 + 1;
	return SCAN_YIELD_PROBE_NS;
}

/* Other work was seen: a pause long enough to measure its rate alone. */
static uint64_t measure(struct scan_yield *y, uint64_t now_ns)
{
	y->probed_ns = now_ns;
	return SCAN_YIELD_SAMPLE_NS - y->alone.ns;
}

/* The reads since the last pause: counted, and into their sample; 1 when
 * they show other work (any, with no floor; else a sample of the reads
 * over the floor: a unit in one short window is not a rate). */
static int count_reads(struct scan_yield *y, uint64_t now_ns, uint64_t work,
		       uint64_t *active, uint64_t *done)
{
	double rate;
	int sampled;

	*active = grew(y->resumed_ns, now_ns);
	*done = grew(y->resumed_work, work);
	y->active_ns += *active;
	y->active_work += *done;
	y->decided_ns = now_ns;
	y->decided_work = work;
	y->seen_reading.work += *done;
	y->seen_reading.ns += *active;
	sampled = sample_add(&y->reading, *active, *done, &rate);
	if (sampled) {
		smooth(&y->rate_reading, rate);
		y->none_reading = rate <= y->floor;
	}
	if (!y->floor)
		return *done > 0;
	return sampled && !y->none_reading;
}

static uint64_t pause_for(struct scan_yield *y, uint64_t now_ns, uint64_t work)
{
	double keep = y->spare, reading, p, most;
	uint64_t active, done;
	int work_reading = count_reads(y, now_ns, work, &active, &done);

	if (!active)
		return 0;
	if (y->rate_alone == 0 && work_reading) { /* work again: measure it */
		y->rate_alone = -1;
		y->seen_reading = (struct scan_yield_sample){ active, done };
		y->seen_paused = (struct scan_yield_sample){ 0 };
	}
	if (y->rate_alone < 0)
		return none_seen(y) ? look(y, now_ns, active) :
				      measure(y, now_ns);
	if (y->rate_alone == 0)
		return grew(y->probed_ns, now_ns) >= SCAN_YIELD_REPROBE_NS ?
			       look(y, now_ns, active) :
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

void scan_yield_end(struct scan_yield *y, uint64_t now_ns, uint64_t work)
{
	uint64_t active, done;

	count_reads(y, now_ns, work, &active, &done);
}

/* The pause goes on: a new one from now, measuring. */
static uint64_t scan_yield_pause_more(struct scan_yield *y, uint64_t now_ns,
				      uint64_t work)
{
	y->decided_ns = now_ns;
	y->decided_work = work;
	y->pausing = measure(y, now_ns);
	return y->pausing;
}

uint64_t scan_yield_resumed(struct scan_yield *y, uint64_t now_ns,
			    uint64_t work)
{
	uint64_t paused = grew(y->decided_ns, now_ns);
	uint64_t got = grew(y->decided_work, work);
	double rate;

	if (!y->pausing)
		return 0;
	y->pausing = 0;
	y->resumed_ns = now_ns;
	y->resumed_work = work;
	y->paused_ns += paused;
	y->paused_work += got;
	y->pauses++;
	y->seen_paused.work += got;
	y->seen_paused.ns += paused;
	if (y->rate_alone < 0 && none_seen(y)) {
		y->rate_alone = 0; /* none in the reads, none in the look */
		y->alone = (struct scan_yield_sample){ 0 };
		return 0;
	}
	if (y->rate_alone == 0 && !none(y, got, paused)) /* a look found work */
		y->rate_alone = -1;
	if (y->rate_alone == 0)
		return 0;
	if (!sample_add(&y->alone, paused, got, &rate)) {
		/* a look found work: go on until its rate is measured */
		if (y->rate_alone < 0)
			return scan_yield_pause_more(y, now_ns, work);
		return 0;
	}
	if (rate <= y->floor && y->none_reading)
		y->rate_alone = 0; /* the work stopped */
	else
		smooth(&y->rate_alone, rate);
	return 0;
}
