// SPDX-License-Identifier: MIT
/*
 * flushrate_test.c - adaptive flushing (engine/buf/flush_rate.h) as a
 * unit: nothing asked below the low-water mark, a percentage that rises
 * with the checkpoint age, a target that follows the redo rate and never
 * passes the log's head, and, driven by a model of a log and cleaners of
 * limited speed, a checkpoint age that settles between the low-water
 * mark (half the log) and the writers' stop (5/8) for steady load, a
 * burst and an idle store; writer pacing (buf/redo_pace.h): off while
 * the log holds no one back, and in a page-level model of the flush-bound
 * case (hot pages, a flush list, cleaners of fixed speed) a worst second
 * of at least half the median where unpaced writers swing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf/flush_rate.h"
#include "buf/redo_pace.h"
#include "ktap.h"

#define MIB (1024.0 * 1024.0)
#define CAPACITY (64ull << 20)
#define TICK_NS 10000000ull
#define STOP (CAPACITY / 8 * 5) /* ut_flush_log_free_check's limit */
#define LWM UT_FLUSH_LWM(CAPACITY)

/* A log growing at rate(t) bytes/s and cleaners that move the oldest
 * dirty page (and with it the checkpoint) toward the target at most
 * flush_cap bytes of LSN per second. */
struct model {
	struct ut_flush_rate fr;
	double cur, oldest;
	uint64_t now;
	double flush_cap;
	uint64_t age_max;
	uint64_t age_min_after, age_max_after; /* after the settling time */
	uint64_t asked_ticks;
};

static void model_init(struct model *m, double flush_cap, double age0)
{
	ut_flush_rate_init(&m->fr, CAPACITY);
	m->cur = 2.0 * CAPACITY; /* room for a starting age */
	m->oldest = m->cur - age0;
	m->now = 1;
	m->flush_cap = flush_cap;
	m->age_max = 0;
	m->age_min_after = UINT64_MAX;
	m->age_max_after = 0;
	m->asked_ticks = 0;
}

/* Runs seconds of ticks at rate bytes/s; ages after settle_s count for
 * age_min_after. */
static void model_run(struct model *m, double seconds, double rate, double settle_s)
{
	uint64_t end = m->now + (uint64_t)(seconds * 1e9), start = m->now;
	uint64_t target, age;
	double step;

	while (m->now < end) {
		m->now += TICK_NS;
		m->cur += rate * TICK_NS / 1e9;
		target = ut_flush_rate_tick(&m->fr, m->now, (uint64_t)m->cur,
					    (uint64_t)m->oldest, (uint64_t)m->oldest);
		if (target > m->oldest) {
			m->asked_ticks++;
			step = target - m->oldest;
			if (step > m->flush_cap * TICK_NS / 1e9)
				step = m->flush_cap * TICK_NS / 1e9;
			m->oldest += step;
		}
		age = (uint64_t)(m->cur - m->oldest);
		if (age > m->age_max)
			m->age_max = age;
		if (m->now - start < (uint64_t)(settle_s * 1e9))
			continue;
		if (age < m->age_min_after)
			m->age_min_after = age;
		if (age > m->age_max_after)
			m->age_max_after = age;
	}
}

static uint64_t model_age(const struct model *m)
{
	return (uint64_t)(m->cur - m->oldest);
}

static void test_pct(void)
{
	double lo = ut_flush_rate_pct(CAPACITY, LWM - 1);
	double prev = 0, p, half = ut_flush_rate_pct(CAPACITY, CAPACITY / 2);
	int rising = 1;
	uint64_t age;

	for (age = LWM; age <= CAPACITY; age += CAPACITY / 64) {
		p = ut_flush_rate_pct(CAPACITY, age);
		rising &= p > prev;
		prev = p;
	}
	ktap_ok(lo == 0 && rising && half > 133 && half < 134,
		"pct: 0 below half the log, rising with the age, %.1f %% at half (InnoDB: 100^1.5 / 7.5)",
		half);
}

static void test_target_bounds(void)
{
	struct ut_flush_rate fr;
	uint64_t first, below, t;

	ut_flush_rate_init(&fr, CAPACITY);
	first = ut_flush_rate_tick(&fr, 1000, 40 << 20, 1 << 20, 1 << 20);
	/* a large age and the oldest dirty page a block behind the head:
	 * the target stops at the head */
	t = ut_flush_rate_tick(&fr, 1000 + TICK_NS, 80 << 20, 1 << 20,
			       (80 << 20) - 4096);
	ut_flush_rate_init(&fr, CAPACITY);
	ut_flush_rate_tick(&fr, 1000, 1 << 20, 1 << 20, 1 << 20);
	below = ut_flush_rate_tick(&fr, 1000 + TICK_NS, (1 << 20) + LWM - 4096,
				   1 << 20, 1 << 20);
	ktap_ok(first == 0 && t == (80ull << 20) && below == 0,
		"target: nothing on the first tick (%llu) or below the low-water mark (%llu); never past the head (%llu MiB)",
		(unsigned long long)first, (unsigned long long)below,
		(unsigned long long)(t >> 20));
}

static void test_steady(void)
{
	struct model m;
	double rate = 20 * MIB;

	/* cleaners 3x as fast as the log grows: room to follow */
	model_init(&m, 3 * rate, 0);
	model_run(&m, 120, rate, 60);
	ktap_ok(m.age_max < STOP && m.age_min_after >= LWM - (1 << 20) &&
			m.age_max_after < LWM + CAPACITY / 16,
		"steady 20 MiB/s of redo: the age settles at %.1f-%.1f MiB of a 64 MiB log, at half (peak %.1f MiB while the rate was learnt; writers stop at %.0f)",
		m.age_min_after / MIB, m.age_max_after / MIB, m.age_max / MIB,
		STOP / MIB);
}

static void test_lazy_below_lwm(void)
{
	struct model m;

	/* a slow trickle that never reaches the low-water mark in 60 s */
	model_init(&m, 100 * MIB, 0);
	model_run(&m, 60, 0.3 * MIB, 0);
	ktap_ok(m.asked_ticks == 0 && model_age(&m) < LWM,
		"below the low-water mark nothing is flushed for the log's sake (%llu ticks asked, age %.1f MiB)",
		(unsigned long long)m.asked_ticks, model_age(&m) / MIB);
}

static void test_burst(void)
{
	struct model m;

	/* settled at 10 MiB/s, then 60 MiB/s for 20 s: cleaners can do 100 */
	model_init(&m, 100 * MIB, 0);
	model_run(&m, 60, 10 * MIB, 0);
	m.age_max = 0;
	model_run(&m, 20, 60 * MIB, 0);
	ktap_ok(m.age_max < STOP,
		"a burst from 10 to 60 MiB/s of redo: the age peaks at %.1f MiB, under the writers' stop (%.0f MiB)",
		m.age_max / MIB, STOP / MIB);
}

static void test_idle(void)
{
	struct model m;

	model_init(&m, 100 * MIB, CAPACITY / 16 * 9);
	model_run(&m, 30, 0, 0);
	/* a store left with 9/16 of its log unflushed and no more writes */
	ktap_ok(model_age(&m) <= LWM + (1 << 20),
		"idle with 9/16 of the log unflushed: worked down to the low-water mark in 30 s (age %.1f MiB)",
		model_age(&m) / MIB);
}

/*
 * Writer pacing against a page-level model of the flush-bound case: 2500
 * hot pages, row writes of 200 bytes of redo at random pages (150 000 a
 * second when not held back), a page dirtied when clean joins the end of
 * the flush list at the log's head, cleaners that write the list's head
 * page 300 times a second while the age is over a tenth of the log
 * (eager), the checkpoint at the oldest dirty page, writers stopped at
 * 5/8 of the log.  Returns the worst and median second of row writes
 * after a warm-up, and the seconds in which writers met the stop.
 */
#define HOT_PAGES 2500
#define REC_BYTES 200
#define WRITES_PER_S 150000
#define PAGE_WRITES_PER_S 300

struct hot {
	uint64_t oldest[HOT_PAGES]; /* 0: clean */
	uint32_t list[HOT_PAGES]; /* the flush list, a ring */
	unsigned head, n;
	uint64_t rng;
};

static uint32_t hot_rand(struct hot *h)
{
	h->rng ^= h->rng << 13;
	h->rng ^= h->rng >> 7;
	h->rng ^= h->rng << 17;
	return (uint32_t)(h->rng % HOT_PAGES);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct hot_result {
	uint64_t worst, median, best, total; /* row writes a second; in 120 s */
	unsigned stopped_s; /* seconds in which writers met the stop */
};

static void hot_run(int paced, struct hot_result *r)
{
	static struct hot h;
	struct ut_redo_pace p;
	uint64_t cur = 1, per_s[120] = { 0 }, now, age, ckpt, page_due = 0;
	unsigned t, w, k, stopped;
	uint32_t pg;

	memset(&h, 0, sizeof(h));
	h.rng = 88172645463325252ull;
	ut_redo_pace_init(&p, CAPACITY);
	memset(r, 0, sizeof(*r));
	for (t = 0; t < 180000; t++) { /* 1 ms ticks: 60 s warm-up, 120 s */
		now = (uint64_t)t * 1000000 + 1;
		stopped = 0;
		for (w = 0; w < WRITES_PER_S / 1000; w++) {
			ckpt = h.n ? h.oldest[h.list[h.head]] : cur;
			age = cur - ckpt;
			if (age >= STOP) {
				stopped = 1;
				break;
			}
			if (paced && ut_redo_pace_admit(&p, now, cur, age))
				break; /* the writers sleep until the next tick */
			pg = hot_rand(&h);
			if (!h.oldest[pg]) {
				h.oldest[pg] = cur;
				h.list[(h.head + h.n++) % HOT_PAGES] = pg;
			}
			cur += REC_BYTES;
			if (t >= 60000)
				per_s[(t - 60000) / 1000]++;
		}
		if (stopped && t >= 60000 && t % 1000 == 0)
			r->stopped_s++;
		/* the cleaners: one page every 1000/300 ms, oldest first */
		ckpt = h.n ? h.oldest[h.list[h.head]] : cur;
		for (page_due += PAGE_WRITES_PER_S, k = 0; page_due >= 1000;
		     page_due -= 1000, k++)
			if (h.n && cur - ckpt > CAPACITY / 10) {
				h.oldest[h.list[h.head]] = 0;
				h.head = (h.head + 1) % HOT_PAGES;
				h.n--;
			}
	}
	for (t = 0; t < 120; t++)
		r->total += per_s[t];
	qsort(per_s, 120, sizeof(per_s[0]), cmp_u64);
	r->worst = per_s[0];
	r->median = per_s[60];
	r->best = per_s[119];
}

static void test_pace_hot_pages(void)
{
	struct hot_result u, p;

	hot_run(0, &u);
	hot_run(1, &p);
	/* unpaced, the model swings as the engine did (the premise); paced,
	 * every second is within half of the median, nobody meets the stop,
	 * and no more than a tenth of the row writes is given up */
	ktap_ok(u.best > 10 * u.worst && p.worst * 2 >= p.median &&
			p.stopped_s == 0 && p.total * 10 >= u.total * 9,
		"pacing, 2500 hot pages written 300/s: seconds of %llu-%llu row writes (median %llu, worst %.2f of it), 0 at the stop; unpaced %llu-%llu, %u s at the stop; %.2fx the row writes",
		(unsigned long long)p.worst, (unsigned long long)p.best,
		(unsigned long long)p.median, (double)p.worst / p.median,
		(unsigned long long)u.worst, (unsigned long long)u.best,
		u.stopped_s, (double)p.total / u.total);
}

static void test_pace_off(void)
{
	struct ut_redo_pace p;
	uint64_t t, asked = 0, cur = 0;

	/* 2 MiB/s of redo with the age held at a quarter of the log */
	ut_redo_pace_init(&p, CAPACITY);
	for (t = 1; t < 60000; t++) {
		cur += 2 * 1024 * 1024 / 1000;
		asked += ut_redo_pace_admit(&p, t * 1000000, cur, CAPACITY / 4) != 0;
	}
	ktap_ok(asked == 0 && p.rate == 0,
		"pacing: off while the age stays below half the log (a minute at a quarter: %llu waits)",
		(unsigned long long)asked);
}

int main(void)
{
	ktap_plan(8);
	test_pct();
	test_target_bounds();
	test_steady();
	test_lazy_below_lwm();
	test_burst();
	test_idle();
	test_pace_off();
	test_pace_hot_pages();
	return ktap_finish();
}
