// SPDX-License-Identifier: MIT
/*
 * scan_yield_test.c - the pause that lets a logical scan yield to other
 * work (engine/scan_yield.h) as a unit, driven by a model of a shared
 * disk: the scan reads a window in a fixed time, other work runs at its
 * rate alone while the scan pauses and at a fraction of it while the
 * scan reads, counted in whole units (commits), every phase's rate and
 * every read's time varied by up to half either way.  Judged over a sweep of
 * that fraction, the share asked for, the window's time and the other
 * work's rate: the other work gets its share (not much more: the scan is
 * not slowed for nothing), no pause where nothing else works, none longer
 * than the most a share allows, and the pause follows work that starts
 * or stops in the middle of a scan.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "scan_yield.h"
#include "ktap.h"

#define NS 1000000000.0

/* The model: the clock, the other work's counter (its fractional part
 * kept), and what each phase had. */
struct disk {
	struct scan_yield y;
	uint64_t now;
	double work; /* other work done, exact */
	double rate_alone; /* units a second while the scan pauses */
	double hurt; /* the share of it left while the scan reads */
	double jitter; /* each phase's rate and each read's time vary by
			* up to this share, either way */
	uint64_t rng;
	/* over the judged cycles */
	double t_read, t_paused, done;
	double most_pause_over_read;
};

/* 1 +- jitter, uniformly */
static double vary(struct disk *d)
{
	d->rng = d->rng * 6364136223846793005ull + 1442695040888963407ull;
	return 1 + d->jitter * (2 * (double)(d->rng >> 11) / (1ull << 53) - 1);
}

static void run_for(struct disk *d, uint64_t ns, double share)
{
	d->now += ns;
	d->work += d->rate_alone * share * vary(d) * ns / NS;
}

/* One cycle: a window read in read_ns, then the pause the scan takes. */
static void cycle(struct disk *d, uint64_t read_ns, int judged)
{
	double w0 = d->work;
	uint64_t p, ns;

	read_ns = (uint64_t)(read_ns * vary(d));
	run_for(d, read_ns, d->hurt);
	p = scan_yield_pause(&d->y, d->now, (uint64_t)d->work);
	for (ns = p; ns; p += ns) {
		run_for(d, ns, 1);
		ns = scan_yield_resumed(&d->y, d->now, (uint64_t)d->work);
	}
	if (!judged)
		return;
	d->t_read += read_ns;
	d->t_paused += p;
	d->done += d->work - w0;
	if ((double)p / read_ns > d->most_pause_over_read)
		d->most_pause_over_read = (double)p / read_ns;
}

static void disk_start(struct disk *d, double rate, double hurt, double spare,
		       double jitter)
{
	memset(d, 0, sizeof(*d));
	d->rate_alone = rate;
	d->hurt = hurt;
	d->jitter = jitter;
	d->rng = 1;
	scan_yield_start(&d->y, spare, 0, 0);
}

/* The other work's share of its rate alone over the judged cycles, and
 * the scan's share of the time. */
static double other_share(const struct disk *d)
{
	double t = d->t_read + d->t_paused;

	return d->rate_alone ? d->done / (d->rate_alone * t / NS) : 1;
}

static double scan_share(const struct disk *d)
{
	return d->t_read / (d->t_read + d->t_paused);
}

/* Runs cycles of read_ns for `seconds`, the first `settle` cycles not
 * judged. */
static void run_scan(struct disk *d, uint64_t read_ns, double seconds,
		     int settle)
{
	uint64_t end = d->now + (uint64_t)(seconds * NS);
	int i;

	for (i = 0; d->now < end; i++)
		cycle(d, read_ns, i >= settle);
}

/* Runs `settle` cycles of read_ns, then `judged` more. */
static void run_cycles(struct disk *d, uint64_t read_ns, int settle, int judged)
{
	int i;

	for (i = 0; i < settle + judged; i++)
		cycle(d, read_ns, i >= settle);
}

static void test_no_other_work(void)
{
	static const uint64_t reads[] = { 20000000, 600000000, 3000000000 };
	double worst = 1;
	unsigned i;
	struct disk d;

	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		disk_start(&d, 0, 0, 0.75, 0.5);
		run_scan(&d, reads[i], 600, 0);
		if (scan_share(&d) < worst)
			worst = scan_share(&d);
	}
	/* a 50 ms look every 10 s, and at the start */
	ktap_ok(worst >= 0.99,
		"no other work: the scan reads %.1f %% of the time at worst (windows of 20 ms-3 s, 600 s)",
		100 * worst);
}

/* The sweep: what the scan leaves other work, the share asked for, the
 * window's time, the other work's rate. */
static void test_sweep(void)
{
	static const double hurts[] = { 0, 0.05, 0.1, 0.3, 0.6, 0.95 };
	static const double spares[] = { 0.5, 0.75, 0.9 };
	static const uint64_t reads[] = { 20000000, 600000000, 3000000000 };
	static const double rates[] = { 20, 74, 5000, 1e6 };
	unsigned h, s, r, q, points = 0, bad = 0;
	double lo = 9, hi = 0, most = 0;
	struct disk d;

	for (h = 0; h < sizeof(hurts) / sizeof(hurts[0]); h++)
		for (s = 0; s < sizeof(spares) / sizeof(spares[0]); s++)
			for (r = 0; r < sizeof(reads) / sizeof(reads[0]); r++)
				for (q = 0;
				     q < sizeof(rates) / sizeof(rates[0]);
				     q++) {
					double sp = spares[s], got, want_hi;
					int sparse;

					disk_start(&d, rates[q], hurts[h], sp,
						   0.5);
					/* at least 120 s of reads: a few units
					 * a window are counted over many */
					run_cycles(&d, reads[r], 20,
						   120 * NS / reads[r] > 300 ?
							   (int)(120 * NS /
								 reads[r]) :
							   300);
					got = other_share(&d);
					/* above the share only where the scan
					 * leaves more anyway, or by the
					 * sixteenth that keeps the rate known */
					want_hi = (hurts[h] > sp ? hurts[h] :
								   sp) +
						  0.1;
					points++;
					/* under a unit of work a window's time
					 * the counts are coarse: within 0.1 */
					sparse = rates[q] * reads[r] / NS < 1;
					if (got < sp - (sparse ? 0.1 : 0.05) ||
					    got > want_hi) {
						bad++;
						ktap_diag("rate %g/s, reads leave %.2f, share %.2f, windows of %.0f ms: other work got %.2f, scan %.2f of the time",
							  rates[q], hurts[h],
							  sp, reads[r] / 1e6,
							  got, scan_share(&d));
					}
					if (got / sp < lo)
						lo = got / sp;
					if (got / sp > hi && hurts[h] < sp)
						hi = got / sp;
					/* the pauses that measure excepted: 250 ms */
					if (d.most_pause_over_read /
							    (sp / (1 - sp)) >
						    most &&
					    reads[r] * sp / (1 - sp) >
						    SCAN_YIELD_SAMPLE_NS)
						most = d.most_pause_over_read /
						       (sp / (1 - sp));
				}
	ktap_ok(!bad,
		"sweep of %u points, 300 windows or 120 s of reads each: other work gets %.2f-%.2f of the share asked for (within -0.05/+0.1 of it; -0.1 under a unit of work a window)",
		points, lo, hi);
	ktap_ok(most <= 1.0001,
		"no pause longer than the share allows (s/(1-s) of the reads, or the quarter second that measures the work; %.2f of it at most)",
		most);
}

/* Other work that starts 60 s into a scan and stops 120 s later. */
static void test_work_comes_and_goes(void)
{
	struct disk d;
	double share_on, scan_off;

	disk_start(&d, 0, 0.1, 0.75, 0.5);
	run_scan(&d, 600000000, 60, 0);
	d.rate_alone = 74;
	/* seen within the reads (a probe at once), judged after 10 s */
	run_scan(&d, 600000000, 10, 1000);
	memset(&d.t_read, 0, sizeof(double) * 3);
	run_scan(&d, 600000000, 110, 0);
	share_on = other_share(&d);
	d.rate_alone = 0;
	run_scan(&d, 600000000, 10, 1000);
	memset(&d.t_read, 0, sizeof(double) * 3);
	run_scan(&d, 600000000, 110, 0);
	scan_off = scan_share(&d);
	ktap_ok(share_on >= 0.70 && scan_off >= 0.99,
		"work that starts mid-scan gets %.2f within 10 s; once it stops the scan reads %.3f of the time",
		share_on, scan_off);
}

int main(void)
{
	ktap_plan(4);
	test_no_other_work();
	test_sweep();
	test_work_comes_and_goes();
	return ktap_finish();
}
