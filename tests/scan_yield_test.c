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
 * or stops in the middle of a scan; with a floor (the sectors others
 * move on the disk), a trickle under it costs the scan nothing and work
 * over it still gets its share.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "scan_defaults.h"
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

static void disk_start_floor(struct disk *d, double rate, double hurt,
			     double spare, double jitter, double floor_per_s)
{
	memset(d, 0, sizeof(*d));
	d->rate_alone = rate;
	d->hurt = hurt;
	d->jitter = jitter;
	d->rng = 1;
	scan_yield_start(&d->y, spare, floor_per_s / NS, 0, 0);
}

static void disk_start(struct disk *d, double rate, double hurt, double spare,
		       double jitter)
{
	disk_start_floor(d, rate, hurt, spare, jitter, 0);
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

/* What a sweep found: points, those off their share, the lowest and
 * highest share got over the share asked, the longest pause over the
 * most the share allows. */
struct sweep {
	unsigned points, bad;
	double lo, hi, most;
};

/* The sweep: what the scan leaves other work, the share asked for, the
 * window's time, the other work's rate (n_rates of rates), counted with a
 * floor of floor_per_s. */
static void sweep(const double *rates, unsigned n_rates, double floor_per_s,
		  struct sweep *sw)
{
	static const double hurts[] = { 0, 0.05, 0.1, 0.3, 0.6, 0.95 };
	static const double spares[] = { 0.5, 0.75, 0.9 };
	static const uint64_t reads[] = { 20000000, 600000000, 3000000000 };
	unsigned h, s, r, q;
	struct disk d;

	*sw = (struct sweep){ .lo = 9 };
	for (h = 0; h < sizeof(hurts) / sizeof(hurts[0]); h++)
		for (s = 0; s < sizeof(spares) / sizeof(spares[0]); s++)
			for (r = 0; r < sizeof(reads) / sizeof(reads[0]); r++)
				for (q = 0; q < n_rates; q++) {
					double sp = spares[s], got, want_hi;
					int sparse;

					disk_start_floor(&d, rates[q], hurts[h],
							 sp, 0.5, floor_per_s);
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
					sw->points++;
					/* under a unit of work a window's time
					 * the counts are coarse: within 0.1 */
					sparse = rates[q] * reads[r] / NS < 1;
					if (got < sp - (sparse ? 0.1 : 0.05) ||
					    got > want_hi) {
						sw->bad++;
						ktap_diag("rate %g/s, reads leave %.2f, share %.2f, windows of %.0f ms: other work got %.2f, scan %.2f of the time",
							  rates[q], hurts[h],
							  sp, reads[r] / 1e6,
							  got, scan_share(&d));
					}
					if (got / sp < sw->lo)
						sw->lo = got / sp;
					if (got / sp > sw->hi && hurts[h] < sp)
						sw->hi = got / sp;
					/* the pauses that measure excepted: 250 ms */
					if (d.most_pause_over_read /
							    (sp / (1 - sp)) >
						    sw->most &&
					    reads[r] * sp / (1 - sp) >
						    SCAN_YIELD_SAMPLE_NS)
						sw->most =
							d.most_pause_over_read /
							(sp / (1 - sp));
				}
}

static void test_sweep(void)
{
	static const double rates[] = { 20, 74, 5000, 1e6 };
	struct sweep sw;

	sweep(rates, sizeof(rates) / sizeof(rates[0]), 0, &sw);
	ktap_ok(!sw.bad,
		"sweep of %u points, 300 windows or 120 s of reads each: other work gets %.2f-%.2f of the share asked for (within -0.05/+0.1 of it; -0.1 under a unit of work a window)",
		sw.points, sw.lo, sw.hi);
	ktap_ok(sw.most <= 1.0001,
		"no pause longer than the share allows (s/(1-s) of the reads, or the quarter second that measures the work; %.2f of it at most)",
		sw.most);
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

/* The sectors others move on the disk: the floor, and the share, a
 * scan that counts them gets by default (ut_scan_yield_default). */
#define SECTORS_FLOOR UT_SCAN_SECTORS_FLOOR
#define SPARE (UT_SCAN_SPARE_DEFAULT / 100.0)

/* A trickle under the floor (the filesystem's own commits: ~5 sectors a
 * second on the HDD model), untouched by the scan or stopped by it: a
 * scan of 10 s (1 200 000 rows on that disk) and one of 600 s read as if
 * it were not there. */
static void test_trickle(void)
{
	static const uint64_t reads[] = { 20000000, 600000000, 1000000000,
					  3000000000 };
	static const double rates[] = { 5, 30 };
	static const double hurts[] = { 0, 1 };
	double worst_short = 1, worst_long = 1;
	unsigned i, q, h;
	struct disk d;

	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		for (q = 0; q < sizeof(rates) / sizeof(rates[0]); q++)
			for (h = 0; h < sizeof(hurts) / sizeof(hurts[0]); h++) {
				disk_start_floor(&d, rates[q], hurts[h], SPARE,
						 0.5, SECTORS_FLOOR);
				run_scan(&d, reads[i], 10, 0);
				if (scan_share(&d) < worst_short)
					worst_short = scan_share(&d);
				run_scan(&d, reads[i], 590, 0);
				if (scan_share(&d) < worst_long)
					worst_long = scan_share(&d);
			}
	ktap_ok(worst_short >= 0.97 && worst_long >= 0.99,
		"a trickle of 5-30 a second under a floor of %u: the scan reads %.3f of the time at worst in its first 10 s, %.3f over 600 s (windows of 20 ms-3 s)",
		SECTORS_FLOOR, worst_short, worst_long);
}

/* Work over the floor (4 times it and up) still gets its share. */
static void test_floor_sweep(void)
{
	static const double rates[] = { 4 * SECTORS_FLOOR, 5000, 1e6 };
	struct sweep sw;

	sweep(rates, sizeof(rates) / sizeof(rates[0]), SECTORS_FLOOR, &sw);
	ktap_ok(!sw.bad && sw.most <= 1.0001,
		"with a floor of %u a second, work of %u-10^6 a second gets %.2f-%.2f of its share over %u points, no pause longer than the share allows (%.2f of it at most)",
		SECTORS_FLOOR, 4 * SECTORS_FLOOR, sw.lo, sw.hi, sw.points,
		sw.most);
}

int main(void)
{
	ktap_plan(6);
	test_no_other_work();
	test_sweep();
	test_work_comes_and_goes();
	test_trickle();
	test_floor_sweep();
	return ktap_finish();
}
