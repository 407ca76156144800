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
 * of at least half the median where unpaced writers swing; and a sweep
 * of store sizes, page rates, log sizes, stalled cleaners and page
 * writes completing a batch at a time from an empty log, judged by issue
 * 36's targets (the forecast mode also against no pacing: its median
 * second at least 0.85 of the unpaced mean), for the forecast mode
 * (the default: every point but the buffered ones, a known failure
 * named) and the age mode (its known failures skipped, named).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf/flush.h"
#include "buf/flush_rate.h"
#include "buf/log_space.h"
#include "buf/redo_pace.h"
#include "ktap.h"

#define MIB (1024.0 * 1024.0)
#define CAPACITY (64ull << 20)
#define TICK_NS 10000000ull
#define STOP UT_FLUSH_STOP(CAPACITY) /* ut_flush_log_free_check's limit */
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
static void model_run(struct model *m, double seconds, double rate,
		      double settle_s)
{
	uint64_t end = m->now + (uint64_t)(seconds * 1e9), start = m->now;
	uint64_t target, age;
	double step;

	while (m->now < end) {
		m->now += TICK_NS;
		m->cur += rate * TICK_NS / 1e9;
		target = ut_flush_rate_tick(&m->fr, m->now, (uint64_t)m->cur,
					    (uint64_t)m->oldest,
					    (uint64_t)m->oldest);
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
			if (h.n && cur - ckpt > UT_LOG_EAGER_AGE(CAPACITY)) {
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

/*
 * The sweep: the same page-level model with the engine's mechanics the
 * hot-page case leaves out, run from an empty log and a clean pool and
 * judged from the first second on: eager cleaners that look for work
 * once a second while idle and run flat out above a tenth of the log;
 * a checkpoint published after a batch when it would move a sixteenth
 * of the log, a second has passed, or writers wait (checkpoint.c); the
 * writers' stop at 5/8 of the published age, which wakes the cleaners;
 * cleaners that write nothing for a while every few seconds, as the
 * journal guard's checkpoint syncs do, or once in half a minute or a
 * minute, as the kernel's writeback of a data=journal file holds up
 * the journal's commits (the forecast keeps room for such a stall for
 * a minute after it: forgotten over 20 s, the room is gone when the
 * next comes and writers meet the stop 1 % of the time; over 10 s,
 * that second falls to 0.4 of the median).  Each point is judged as issue
 * 36's targets are: after a 20 s warm-up the worst second at least half
 * of the median (so none below a quarter), and writers stopped for log
 * space at most 1 % of the time, the start included; and the forecast
 * mode's median second at least SIM_OFF_SHARE of the mean with no
 * pacing (writers stopped at 5/8 only), which holds the age at the
 * stop: stability not bought with speed.
 */
#define SIM_PAGES_MAX 10000
#define SIM_SECONDS 160
#define SIM_WARMUP_S 20
#define SIM_POLL_MS (UT_CLEANER_IDLE_NS / 1000000) /* an idle eager cleaner */
#define SIM_BATCH 32 /* pages between checkpoint checks (2 cleaners x 64) */
#define SIM_OFF_SHARE 0.85 /* the forecast's median over the unpaced mean */

enum sim_pacing { SIM_AGE, SIM_FORECAST, SIM_OFF };

struct sim_cfg {
	const char *name;
	unsigned pages, page_rate; /* hot pages; page writes a second */
	unsigned log_mib;
	unsigned stall_every_ms, stall_ms; /* cleaners blocked (0: never) */
	unsigned read_rate; /* a cold pool: first touches read, this many a
			     * second, each a page write less (0: warm) */
	const char *age_fails; /* a known failure of the age mode */
	unsigned cache_rate; /* buffered page writes (the journal guard):
			      * this many a second reach the page cache, and
			      * a checkpoint's sync writes them at page_rate
			      * (0: direct, page_rate reaches the device) */
	unsigned lump; /* page writes complete in lumps of this many (a
			* batch's completions reaped together), 0: one by one */
};

struct sim_result {
	uint64_t per_s[SIM_SECONDS]; /* row writes in each second */
	uint64_t median, worst; /* seconds after the warm-up */
	double mean; /* row writes a second after the warm-up */
	unsigned below_quarter; /* seconds after the warm-up under median/4 */
	unsigned settle_s; /* the first second after which none is below half */
	uint64_t stop_ms; /* ms in which writers met the stop */
	uint64_t peak_age; /* published */
	double mean_age; /* published, after the warm-up */
	double predicted; /* row writes a second the log and device allow */
};

struct sim {
	uint64_t oldest[SIM_PAGES_MAX]; /* 0: clean */
	uint8_t cached[SIM_PAGES_MAX]; /* read into the pool */
	uint8_t in_cache[SIM_PAGES_MAX]; /* buffered: dirty in the page cache */
	uint64_t read_due, reads; /* reads in this ms, per mille; done */
	uint32_t list[SIM_PAGES_MAX]; /* the flush list, oldest first */
	unsigned head, n, pages;
	uint64_t rng, cur, pub, target, written;
	uint64_t last_ckpt_ms, next_poll_ms;
	int awake, idle;
	/* the cleaners' mechanics: the age mode's, or the forecast mode's */
	unsigned poll_ms, ckpt_share, ckpt_ms;
	uint64_t urgent_age;
	/* buffered writes (sync_rate: the device's page rate, 0: direct):
	 * not yet synced; a sync under way (its end, the LSN it publishes,
	 * its pages); the pages synced so far */
	uint64_t unsynced, sync_end, sync_lsn, sync_pages, synced;
	int syncing;
	unsigned sync_rate;
	unsigned lump; /* sim_cfg's */
};

static uint64_t sim_oldest(const struct sim *s)
{
	return s->n ? s->oldest[s->list[s->head]] : s->cur;
}

static uint32_t sim_rand(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (uint32_t)(s->rng % s->pages);
}

/* ut_checkpoint_if_due: publish the oldest dirty page's LSN. */
static void sim_checkpoint(struct sim *s, uint64_t capacity, uint64_t t,
			   int urgent)
{
	uint64_t lsn = sim_oldest(s);

	if (lsn <= s->pub)
		return;
	urgent |= s->cur - s->pub > s->urgent_age;
	if (!urgent && lsn - s->pub < capacity / s->ckpt_share &&
	    t - s->last_ckpt_ms < s->ckpt_ms)
		return;
	if (s->sync_rate) {
		/* buffered: the sync writes what the page cache holds, at
		 * the device's rate; no second checkpoint starts meanwhile
		 * (the engine's routine check skips one under way) */
		if (s->syncing)
			return;
		s->syncing = 1;
		s->sync_lsn = lsn;
		s->sync_pages = s->unsynced;
		s->unsynced = 0;
		memset(s->in_cache, 0, sizeof(s->in_cache));
		s->sync_end = t + 4 + s->sync_pages * 1000 / s->sync_rate;
		return;
	}
	s->pub = lsn;
	s->last_ckpt_ms = t;
}

/* A sync under way ends: its checkpoint is published. */
static void sim_sync_progress(struct sim *s, uint64_t t)
{
	if (!s->syncing || t < s->sync_end)
		return;
	s->syncing = 0;
	if (s->sync_lsn > s->pub)
		s->pub = s->sync_lsn;
	s->synced += s->sync_pages;
	s->last_ckpt_ms = t;
}

/* cleaner_has_work, eager */
static int sim_has_work(const struct sim *s, uint64_t capacity)
{
	if (!s->n)
		return 0;
	return s->cur - s->pub > UT_LOG_EAGER_AGE(capacity) ||
	       sim_oldest(s) < s->target;
}

/* One ms of the cleaners: woken by the stop or their poll, flat out
 * while there is work, except in a stall. */
static void sim_clean(struct sim *s, const struct sim_cfg *c, uint64_t capacity,
		      uint64_t t, int stopped, uint64_t *page_due)
{
	unsigned k;

	if (!s->awake) {
		if (!stopped && t < s->next_poll_ms)
			return;
		if (!sim_has_work(s, capacity)) {
			if (t >=
			    s->next_poll_ms) /* timed out: the periodic one */
				sim_checkpoint(s, capacity, t, stopped);
			s->next_poll_ms = t + s->poll_ms;
			s->idle = 1;
			return;
		}
		s->awake = 1;
	}
	if (c->stall_ms && t % c->stall_every_ms < c->stall_ms)
		return;
	/* the reads of this ms took the device from page writes */
	*page_due = *page_due > s->reads * 1000 ? *page_due - s->reads * 1000 :
						  0;
	for (*page_due += c->cache_rate ? c->cache_rate : c->page_rate, k = 0;
	     *page_due >= 1000; *page_due -= 1000) {
		if (!sim_has_work(s, capacity)) {
			s->awake = 0;
			s->next_poll_ms = t + s->poll_ms;
			s->idle = 1;
			*page_due = 0;
			break;
		}
		if (c->cache_rate && !s->in_cache[s->list[s->head]]) {
			/* the page cache holds one copy of a page */
			s->in_cache[s->list[s->head]] = 1;
			s->unsynced++;
		}
		s->oldest[s->list[s->head]] = 0;
		s->head = (s->head + 1) % s->pages;
		s->n--;
		if (++s->written % SIM_BATCH == 0)
			sim_checkpoint(s, capacity, t, stopped);
		k++;
	}
}

/* The forecast mode's sample (flush.c's log_pace gathers the same). */
static void sim_sample(const struct sim *s, uint64_t now,
		       struct ut_pace_sample *ps)
{
	ps->now_ns = now;
	ps->cur_lsn = s->cur;
	ps->age = s->cur - s->pub;
	ps->flush_age = s->n ? s->cur - sim_oldest(s) : 0;
	ps->head_lsn =
		s->n ? s->oldest[s->list[(s->head + s->n - 1) % s->pages]] : 0;
	/* buffered: a page is clean once a sync has covered it */
	/* (the forecast counts buffered writes at the sync, as
	 * ut_flush_set_forecast(fl, 1) makes it) */
	ps->n_dirty =
		s->n +
		(s->sync_rate ? s->unsynced + s->syncing * s->sync_pages : 0);
	ps->pages_written = s->sync_rate ? s->synced :
			    s->lump	 ? s->written - s->written % s->lump :
					   s->written;
	ps->cleaners_idle = s->idle;
}

/* flush.c's log_pace: nonzero if the writer waits. */
static int sim_paced(struct sim *s, struct ut_redo_pace *p,
		     enum sim_pacing mode, uint64_t now)
{
	struct ut_pace_sample ps;
	uint64_t age = s->cur - s->pub;

	if (mode == SIM_OFF)
		return 0;
	if (mode == SIM_AGE) {
		if (!p->rate && age <= UT_PACE_AGE_ON(p->capacity))
			return 0;
		return ut_redo_pace_admit(p, now, s->cur, age) != 0;
	}
	if (!p->rate && age <= p->on_age)
		return 0;
	if (ut_redo_pace_due(p, now)) {
		sim_sample(s, now, &ps);
		ut_redo_pace_adjust(p, &ps);
		s->idle = 0;
	}
	return ut_redo_pace_wait(p, now, s->cur) != 0;
}

static void sim_judge(struct sim_result *r)
{
	uint64_t sorted[SIM_SECONDS - SIM_WARMUP_S];
	unsigned i, n = SIM_SECONDS - SIM_WARMUP_S;

	memcpy(sorted, r->per_s + SIM_WARMUP_S, sizeof(sorted));
	qsort(sorted, n, sizeof(sorted[0]), cmp_u64);
	r->worst = sorted[0];
	r->median = sorted[n / 2];
	r->mean = 0;
	for (i = 0; i < n; i++)
		r->mean += (double)sorted[i] / n;
	r->below_quarter = 0;
	for (i = SIM_WARMUP_S; i < SIM_SECONDS; i++)
		r->below_quarter += r->per_s[i] * 4 < r->median;
	r->settle_s = 0;
	for (i = 0; i < SIM_SECONDS; i++)
		if (r->per_s[i] * 2 < r->median)
			r->settle_s = i + 1;
}

static void sim_run(const struct sim_cfg *c, enum sim_pacing mode,
		    struct sim_result *r)
{
	static struct sim s;
	uint64_t capacity = (uint64_t)c->log_mib << 20,
		 stop = UT_FLUSH_STOP(capacity);
	uint64_t t, now, page_due = 0;
	struct ut_redo_pace p;
	unsigned w;
	uint32_t pg;
	int stopped;

	memset(&s, 0, sizeof(s));
	memset(r, 0, sizeof(*r));
	s.pages = c->pages;
	s.rng = 88172645463325252ull;
	s.cur = s.pub = 1;
	ut_redo_pace_init(&p, capacity);
	s.poll_ms = SIM_POLL_MS;
	s.ckpt_share = UT_CKPT_DUE_SHARE;
	s.ckpt_ms = UT_CKPT_DUE_NS / 1000000;
	s.urgent_age = UINT64_MAX;
	if (c->cache_rate)
		s.sync_rate = c->page_rate;
	s.lump = c->lump;
	if (mode == SIM_FORECAST) {
		ut_redo_pace_forecast(&p, UT_LOG_EAGER_AGE(capacity));
		s.poll_ms = UT_PACE_POLL_NS / 1000000;
		s.ckpt_share = UT_PACE_CKPT_SHARE;
		s.ckpt_ms = UT_PACE_CKPT_NS / 1000000;
		s.urgent_age = UT_PACE_URGENT(capacity);
	}
	for (t = 0; t < SIM_SECONDS * 1000; t++) {
		now = t * 1000000 + 1;
		stopped = 0;
		s.reads = 0;
		if (c->read_rate && s.read_due < 2000)
			s.read_due += c->read_rate;
		for (w = 0; w < WRITES_PER_S / 1000; w++) {
			if (s.cur - s.pub > stop) {
				stopped = 1; /* and the log asks for space */
				s.target = s.cur - UT_FLUSH_LWM(capacity);
				break;
			}
			if (sim_paced(&s, &p, mode, now))
				break;
			pg = sim_rand(&s);
			if (c->read_rate && !s.cached[pg]) {
				if (s.read_due < 1000)
					break; /* the writers wait for the read */
				s.read_due -= 1000;
				s.cached[pg] = 1;
				s.reads++;
			}
			if (!s.oldest[pg]) {
				s.oldest[pg] = s.cur;
				s.list[(s.head + s.n++) % s.pages] = pg;
			}
			s.cur += REC_BYTES;
			r->per_s[t / 1000]++;
		}
		r->stop_ms += stopped;
		if (s.cur - s.pub > r->peak_age)
			r->peak_age = s.cur - s.pub;
		if (t >= SIM_WARMUP_S * 1000)
			r->mean_age += (double)(s.cur - s.pub) /
				       ((SIM_SECONDS - SIM_WARMUP_S) * 1000);
		sim_clean(&s, c, capacity, t, stopped, &page_due);
		sim_sync_progress(&s, t);
	}
	sim_judge(r);
	r->predicted = (double)UT_PACE_AGE_TARGET(capacity) * c->page_rate *
		       (c->stall_ms ?
				1.0 - (double)c->stall_ms / c->stall_every_ms :
				1.0) /
		       ((double)c->pages * REC_BYTES);
}

static int sim_pass(const struct sim_result *r)
{
	return r->worst * 2 >= r->median && !r->below_quarter &&
	       r->stop_ms * 100 <= SIM_SECONDS * 1000;
}

static const struct sim_cfg sim_points[] = {
	{ "1250 pages, 300/s, 64 MiB", 1250, 300, 64, 0, 0, 0,
	  "writers meet the stop in the first turns", 0, 0 },
	{ "3300 pages, 300/s, 64 MiB", 3300, 300, 64, 0, 0, 0,
	  "the first burst comes back every turn for most of a minute", 0, 0 },
	{ "10000 pages, 300/s, 64 MiB", 10000, 300, 64, 0, 0, 0,
	  "a turn of 33 s: the first burst comes back for a minute", 0, 0 },
	{ "1250 pages, 1500/s, 64 MiB", 1250, 1500, 64, 0, 0, 0, NULL, 0, 0 },
	{ "3300 pages, 1500/s, 64 MiB", 3300, 1500, 64, 0, 0, 0, NULL, 0, 0 },
	{ "10000 pages, 1500/s, 64 MiB", 10000, 1500, 64, 0, 0, 0,
	  "writers meet the stop in the first turns", 0, 0 },
	{ "3300 pages, 300/s, 16 MiB", 3300, 300, 16, 0, 0, 0,
	  "a small log: the first burst comes back for 20 s", 0, 0 },
	{ "3300 pages, 300/s, 256 MiB", 3300, 300, 256, 0, 0, 0,
	  "writers meet the stop in the first turns", 0, 0 },
	{ "4200 pages, 330/s, stalls 1.5 s every 4 s", 4200, 330, 64, 4000,
	  1500, 0, "each stall comes back a turn later, at the stop", 0, 0 },
	{ "2500 pages, 300/s, stalls 0.5 s every 1 s", 2500, 300, 64, 1000, 500,
	  0, "each stall comes back a turn later, at the stop", 0, 0 },
	{ "4200 pages, 330/s, stalls 3 s every 13 s", 4200, 330, 64, 13000,
	  3000, 0, "each stall comes back a turn later, at the stop", 0, 0 },
	{ "4200 pages, 330/s, stalls 1 s every 30 s", 4200, 330, 64, 30000,
	  1000, 0, "each stall comes back a turn later, at the stop", 0, 0 },
	{ "4200 pages, 330/s, stalls 1 s every 60 s", 4200, 330, 64, 60000,
	  1000, 0, "each stall comes back a turn later, at the stop", 0, 0 },
	{ "1250 pages, 1500/s, stalls 0.5 s every 20 s", 1250, 1500, 64, 20000,
	  500, 0, NULL, 0, 0 },
	{ "3300 pages, 300/s, 64 MiB, a cold pool (250 reads/s)", 3300, 300, 64,
	  0, 0, 250,
	  "the burst once the reads are done comes back a turn later", 0, 0 },
	{ "3300 pages, buffered at 20000/s, synced at 300/s", 3300, 300, 64, 0,
	  0, 0, "the checkpoint's sync stops writers", 20000, 0 },
	{ "10000 pages, buffered at 20000/s, synced at 600/s", 10000, 600, 64,
	  0, 0, 0, "the checkpoint's sync stops writers", 20000, 0 },
	{ "500 pages, 2300/s, 8 MiB", 500, 2300, 8, 0, 0, 0,
	  "writers meet the stop in the first turns", 0, 0 },
	{ "500 pages, buffered at 20000/s, synced at 2300/s, 8 MiB", 500, 2300,
	  8, 0, 0, 0, "the checkpoint's sync stops writers", 20000, 0 },
	{ "3300 pages, 300/s, 64 MiB, completed 128 at a time", 3300, 300, 64,
	  0, 0, 0, "the first burst comes back every turn for most of a minute",
	  0, 128 },
	{ "10000 pages, 300/s, 64 MiB, completed 128 at a time", 10000, 300, 64,
	  0, 0, 0, "a turn of 33 s: the first burst comes back for a minute", 0,
	  128 },
};

#define SIM_POINTS (sizeof(sim_points) / sizeof(sim_points[0]))

/* One mode at one point, judged; off: the same point unpaced. */
static void sim_report(const struct sim_cfg *c, enum sim_pacing mode,
		       const struct sim_result *off)
{
	const char *name = mode == SIM_AGE ? "age pacing" : "forecast pacing";
	struct sim_result r;
	char what[400];
	int ok;

	sim_run(c, mode, &r);
	/* the forecast also keeps what unpaced writers get: the engine's
	 * target is 0.9 of their mean (measured, docs/results); the model,
	 * whose stalls and lumps are cruder, is held to SIM_OFF_SHARE */
	ok = sim_pass(&r) &&
	     (mode != SIM_FORECAST || r.median >= SIM_OFF_SHARE * off->mean);
	snprintf(what, sizeof(what),
		 "%s, %s, from an empty log: worst second %.2f of the median (%llu), %u s under a quarter after %d s, settled at %u s, %.2f %% of the time at the stop, peak age %.0f %% of the log (mean %.0f %%, unpaced %.0f %%), median %.2f of the predicted, %.2f of the unpaced mean",
		 name, c->name, r.median ? (double)r.worst / r.median : 0,
		 (unsigned long long)r.median, r.below_quarter, SIM_WARMUP_S,
		 r.settle_s, r.stop_ms / (SIM_SECONDS * 10.0),
		 100.0 * r.peak_age / ((uint64_t)c->log_mib << 20),
		 100.0 * r.mean_age / ((uint64_t)c->log_mib << 20),
		 100.0 * off->mean_age / ((uint64_t)c->log_mib << 20),
		 r.median / r.predicted,
		 off->mean > 0 ? r.median / off->mean : 0);
	if (mode == SIM_AGE && !ok && c->age_fails) {
		ktap_skip_case(what, "known failure of the age mode: %s",
			       c->age_fails);
		return;
	}
	if (mode == SIM_FORECAST && !ok && c->cache_rate) {
		/* open (issue 36): measured on the HDD model the journal
		 * guard settles after 48 s with the count at the sync
		 * (against a burst and a stop every few seconds counted at
		 * the write), but not from the start */
		ktap_skip_case(what, "known failure of the forecast mode: %s",
			       "buffered page writes, made durable by the checkpoint's sync");
		return;
	}
	ktap_ok(ok, "%s", what);
}

static void test_sweep(void)
{
	static struct sim_result off;
	unsigned i;

	for (i = 0; i < SIM_POINTS; i++) {
		sim_run(&sim_points[i], SIM_OFF, &off);
		sim_report(&sim_points[i], SIM_AGE, &off);
		sim_report(&sim_points[i], SIM_FORECAST, &off);
	}
}

static void test_forecast_light(void)
{
	struct ut_pace_sample ps = { 0 };
	struct ut_redo_pace p;
	uint64_t t, asked = 0, cur = 1;

	/* 2 MiB/s of redo, the age at a quarter of the log (over the tenth
	 * where the forecast mode paces), 1000 dirty pages, cleaners that
	 * keep up with 300 page writes a second and wait for work */
	ut_redo_pace_init(&p, CAPACITY);
	ut_redo_pace_forecast(&p, UT_LOG_EAGER_AGE(CAPACITY));
	for (t = 1; t < 60000; t++) {
		cur += 2 * 1024 * 1024 / 1000;
		if (ut_redo_pace_due(&p, t * 1000000)) {
			ps.now_ns = t * 1000000;
			ps.cur_lsn = cur;
			ps.age = ps.flush_age = CAPACITY / 4;
			ps.head_lsn = cur - 4096;
			ps.n_dirty = 1000;
			ps.pages_written = t * 300 / 1000;
			ps.cleaners_idle = 1;
			ut_redo_pace_adjust(&p, &ps);
		}
		asked += ut_redo_pace_wait(&p, t * 1000000, cur) != 0;
	}
	ktap_ok(asked == 0 && p.rate > 4 * 2 * MIB,
		"forecast pacing: a load the cleaners keep up with is never delayed (a minute at a quarter of the log: %llu waits, rate %.1f MiB/s)",
		(unsigned long long)asked, p.rate / MIB);
}

/* After a stop the cleaners drain a small pool and the checkpoint leaps
 * under on_age: pacing stays on (the rate its own law gives) until both
 * ages have stayed that low for a second, and once off, the first
 * writer over on_age adjusts at once, not at the next 100 ms. */
static void test_forecast_off_after_leap(void)
{
	const uint64_t cap = 8ull << 20, ms = 1000000;
	struct ut_pace_sample ps = { 0 };
	struct ut_redo_pace p;
	uint64_t t, cur = 1, on_at_900 = 0;
	int due_off;

	ut_redo_pace_init(&p, cap);
	ut_redo_pace_forecast(&p, UT_LOG_EAGER_AGE(cap));
	ps.n_dirty = 500;
	ps.cleaners_idle = 0;
	/* 3 s at the stop, then the checkpoint at a twentieth of the log */
	for (t = 100; t <= 4200; t += 100) {
		cur += 400 * 1024;
		ps.now_ns = t * ms;
		ps.cur_lsn = cur;
		ps.age = t <= 3000 ? UT_FLUSH_STOP(cap) : cap / 20;
		ps.flush_age = t <= 3000 ? ps.age - cap / 64 : cap / 40;
		ps.head_lsn = cur - cap / 80;
		ps.pages_written = t * 2300 / 1000;
		ut_redo_pace_adjust(&p, &ps);
		if (t == 4000) /* 0.9 s after the first sample under on_age */
			on_at_900 = (uint64_t)p.rate;
	}
	due_off = ut_redo_pace_due(&p, 4201 * ms);
	ktap_ok(on_at_900 > 0 && p.rate == 0 && due_off,
		"forecast pacing: after the checkpoint leaps under on_age it stays on for a second (rate %.1f MiB/s 0.9 s after the leap, %.1f 1.1 s after), and once off the next writer over on_age adjusts at once (%s)",
		on_at_900 / MIB, p.rate / MIB, due_off ? "due" : "not due");
}

/* One stall of the cleaners, 0.8 s, after 5 s of steady page writes: the
 * writers add share_pct of their rate through it, at age: what the
 * forecast keeps room for afterwards (its stall_max, in seconds). */
static double stall_room_after(unsigned share_pct, uint64_t age)
{
	struct ut_pace_sample ps = { 0 };
	struct ut_redo_pace p;
	uint64_t i, pages = 0;
	double cur = 1;

	ut_redo_pace_init(&p, CAPACITY);
	ut_redo_pace_forecast(&p, UT_LOG_EAGER_AGE(CAPACITY));
	for (i = 1; i <= 58; i++) {
		int stalled = i > 50;

		cur += (p.rate ? p.rate : 8 * MIB) * 0.1 *
		       (stalled ? share_pct / 100.0 : 1);
		pages += stalled ? 0 : 30;
		ps.now_ns = i * UT_PACE_ADJUST_NS;
		ps.cur_lsn = (uint64_t)cur;
		ps.age = ps.flush_age = age;
		ps.head_lsn = ps.cur_lsn - 4096;
		ps.n_dirty = 1000;
		ps.pages_written = pages;
		ut_redo_pace_adjust(&p, &ps);
	}
	return p.stall_max;
}

static void test_forecast_stall_room(void)
{
	uint64_t mid = CAPACITY / 2, urgent = UT_PACE_URGENT(CAPACITY);
	double free_s = stall_room_after(100, mid),
	       held_s = stall_room_after(10, mid),
	       stop_s = stall_room_after(10, urgent);

	ktap_ok(free_s >= 0.7 && held_s <= 0.2 && stop_s >= 0.7,
		"forecast pacing: the room for a 0.8 s stall of the cleaners follows the redo the writers added through it (%.2f s at their rate, %.2f s at a tenth of it, %.2f s near the stop, where the log held them)",
		free_s, held_s, stop_s);
}

/* Six seconds of steady page writes with the published checkpoint
 * trailing the oldest dirty page (at a quarter of the log) by lag: the
 * rate the forecast then sets. */
static double rate_with_trail(uint64_t lag)
{
	struct ut_pace_sample ps = { 0 };
	struct ut_redo_pace p;
	uint64_t i;
	double cur = 1;

	ut_redo_pace_init(&p, CAPACITY);
	ut_redo_pace_forecast(&p, UT_LOG_EAGER_AGE(CAPACITY));
	for (i = 1; i <= 60; i++) {
		cur += (p.rate ? p.rate : 8 * MIB) * 0.1;
		ps.now_ns = i * UT_PACE_ADJUST_NS;
		ps.cur_lsn = (uint64_t)cur;
		ps.flush_age = CAPACITY / 4;
		ps.age = ps.flush_age + lag;
		ps.head_lsn = ps.cur_lsn - 4096;
		ps.n_dirty = 1000;
		ps.pages_written = 30 * i;
		ut_redo_pace_adjust(&p, &ps);
	}
	return p.rate;
}

static void test_forecast_trail(void)
{
	double none = rate_with_trail(0),
	       small = rate_with_trail(UT_PACE_MARGIN_MIN(CAPACITY) / 2),
	       big = rate_with_trail(CAPACITY / 8);

	ktap_ok(small == none && big < 0.95 * none,
		"forecast pacing: a checkpoint that trails the oldest dirty page by more than the target's margin lowers the rate (%.1f MiB/s with no trail, %.1f within the margin, %.1f at an eighth of the log)",
		none / MIB, small / MIB, big / MIB);
}

static void test_pace_off(void)
{
	struct ut_redo_pace p;
	uint64_t t, asked = 0, cur = 0;

	/* 2 MiB/s of redo with the age held at a quarter of the log */
	ut_redo_pace_init(&p, CAPACITY);
	for (t = 1; t < 60000; t++) {
		cur += 2 * 1024 * 1024 / 1000;
		asked += ut_redo_pace_admit(&p, t * 1000000, cur,
					    CAPACITY / 4) != 0;
	}
	ktap_ok(asked == 0 && p.rate == 0,
		"pacing: off while the age stays below half the log (a minute at a quarter: %llu waits)",
		(unsigned long long)asked);
}

int main(void)
{
	ktap_plan(12 + 2 * (int)SIM_POINTS);
	test_pct();
	test_target_bounds();
	test_steady();
	test_lazy_below_lwm();
	test_burst();
	test_idle();
	test_pace_off();
	test_forecast_light();
	test_forecast_stall_room();
	test_forecast_trail();
	test_forecast_off_after_leap();
	test_pace_hot_pages();
	test_sweep();
	return ktap_finish();
}
