/* SPDX-License-Identifier: MIT */
/*
 * progress.h - a progress line on stderr for a long command: how much is
 * done of how much, the rate, and an estimate of the time left, redrawn
 * in place: at once, then at most once a second.  Drawn only when stderr is a terminal,
 * so CI logs and pipes stay quiet; the line is erased at the end.
 */
#ifndef UNTORN_CLI_PROGRESS_H
#define UNTORN_CLI_PROGRESS_H

#include <stdint.h>

struct cli_progress {
	const char *what; /* "rows" */
	uint64_t total;
	uint64_t t0_ns, next_ns;
	int on; /* stderr is a terminal */
	int drawn; /* a line is on the screen */
};

void cli_progress_start(struct cli_progress *p, const char *what,
			uint64_t total);
/* Cheap between redraws: one clock read every 1024 calls. */
void cli_progress_update(struct cli_progress *p, uint64_t done);
/* Where the total is not known but the share done is (a scan's place in
 * the key range): "N rows, X MB/s, P% of the way, T left". */
void cli_progress_update_share(struct cli_progress *p, uint64_t done,
			       double share, uint64_t bytes);
void cli_progress_end(struct cli_progress *p);
/* "1:02:03", "4:05" or "6 s": the estimate's format, for the tests. */
void cli_progress_format_secs(char *buf, unsigned len, uint64_t secs);

#endif
