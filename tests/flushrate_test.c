// SPDX-License-Identifier: MIT
/*
 * flushrate_test.c - adaptive flushing (engine/buf/flush_rate.h) as a
 * unit: nothing asked below the low-water mark, a percentage that rises
 * with the checkpoint age, a target that follows the redo rate and never
 * passes the log's head, and, driven by a model of a log and cleaners of
 * limited speed, a checkpoint age that settles between the low-water
 * mark (half the log) and the writers' stop (5/8) for steady load, a
 * burst and an idle store.
 */
#include <stdint.h>
#include <stdio.h>
#include "buf/flush_rate.h"
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

int main(void)
{
	ktap_plan(6);
	test_pct();
	test_target_bounds();
	test_steady();
	test_lazy_below_lwm();
	test_burst();
	test_idle();
	return ktap_finish();
}
