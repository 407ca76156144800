// SPDX-License-Identifier: MIT
/*
 * progress.c - the progress line of long commands (progress.h): done of
 * total, the rate so far, and the time left at that rate, on stderr when
 * it is a terminal.
 */
#include <stdio.h>
#include <unistd.h>
#include "base/latch.h"
#include "progress.h"

#define PROGRESS_EVERY_NS 1000000000ull

void cli_progress_format_secs(char *buf, unsigned len, uint64_t secs)
{
	if (secs >= 3600)
		snprintf(buf, len, "%llu:%02llu:%02llu",
			 (unsigned long long)(secs / 3600),
			 (unsigned long long)(secs / 60 % 60),
			 (unsigned long long)(secs % 60));
	else if (secs >= 60)
		snprintf(buf, len, "%llu:%02llu",
			 (unsigned long long)(secs / 60),
			 (unsigned long long)(secs % 60));
	else
		snprintf(buf, len, "%llu s", (unsigned long long)secs);
}

void cli_progress_start(struct cli_progress *p, const char *what,
			uint64_t total)
{
	p->what = what;
	p->total = total;
	p->on = isatty(STDERR_FILENO);
	p->drawn = 0;
	p->t0_ns = ut_now_ns();
	p->next_ns = p->t0_ns; /* the first line at once, then every second */
}

static void progress_draw(struct cli_progress *p, uint64_t done, uint64_t now)
{
	double secs = (now - p->t0_ns) / 1e9, rate = done / secs;
	char left[32] = "?";

	if (rate > 0 && p->total > done)
		cli_progress_format_secs(left, sizeof(left),
					 (uint64_t)((p->total - done) / rate +
						    0.5));
	fprintf(stderr, "\r\033[K%llu of %llu %s (%.0f%%), %.0f/s, %s left",
		(unsigned long long)done, (unsigned long long)p->total, p->what,
		p->total ? 100.0 * done / p->total : 100.0, rate, left);
	p->drawn = 1;
}

/* whether a line is due: one clock read every 1024 calls, a line at
 * most once a second; *now gets the time when it is */
static int progress_due(struct cli_progress *p, uint64_t done, uint64_t *now)
{
	if (!p->on || (done & 1023))
		return 0;
	*now = ut_now_ns();
	if (*now < p->next_ns)
		return 0;
	p->next_ns = *now + PROGRESS_EVERY_NS;
	return 1;
}

void cli_progress_update(struct cli_progress *p, uint64_t done)
{
	uint64_t now;

	if (progress_due(p, done, &now))
		progress_draw(p, done, now);
}

void cli_progress_update_share(struct cli_progress *p, uint64_t done,
			       double share, uint64_t bytes)
{
	double secs;
	char left[32] = "?";
	uint64_t now;

	if (!progress_due(p, done, &now))
		return;
	secs = (now - p->t0_ns) / 1e9;
	if (share > 0 && share < 1)
		cli_progress_format_secs(left, sizeof(left),
					 (uint64_t)(secs * (1 - share) / share +
						    0.5));
	fprintf(stderr,
		"\r\033[K%llu %s, %.1f MB/s, %.0f%% of the way, %s left",
		(unsigned long long)done, p->what,
		secs > 0 ? bytes / secs / 1e6 : 0.0, 100.0 * share, left);
	p->drawn = 1;
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = 0;
}
