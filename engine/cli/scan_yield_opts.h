/* SPDX-License-Identifier: MIT */
/*
 * scan_yield_opts.h - how a scan of `bench scan` or `dump` yields to
 * other work (--lra-spare): what it counts -- the writers' commits when
 * the command runs writers, else the I/O other processes do on the
 * store's disk (other_io.h) -- or why it does not yield; and what it saw,
 * as a line and as JSON.
 */
#ifndef UNTORN_CLI_SCAN_YIELD_OPTS_H
#define UNTORN_CLI_SCAN_YIELD_OPTS_H

#include <stdio.h>
#include <untorn/engine.h>
#include "cli.h"
#include "other_io.h"
#include "ra_opts.h"

struct cli_yield {
	struct ut_scan_yield y;
	struct other_io oio;
	int on;
	const char *unit; /* what one unit of other work is */
	char measure[192]; /* what the count is */
	char why[320]; /* when off: why */
};

/* Sets cy up for a scan of eng with ra's options: counting count(arg)
 * (units of `unit`) when count is given, else the device's other I/O.
 * Never fails: where it cannot yield, cy->why says why. */
void cli_yield_setup(struct cli_yield *cy, const struct cli_ra *ra,
		     struct ut_engine *eng, const struct ut_scan_opts *so,
		     uint64_t (*count)(void *), void *arg, const char *unit,
		     const char *measure);
/* Where the scan's rows are written: a file on the store's disk is this
 * process's own I/O, not other work (other_io_output). */
void cli_yield_output(struct cli_yield *cy, FILE *out);
/* The yield to hand to ut_scan_readahead_yield, or NULL. */
struct ut_scan_yield *cli_yield_of(struct cli_yield *cy);
/* "yield: ..." -- what it did and what the other work kept over the
 * scan's seconds, or why it did not yield. */
void cli_yield_print(const struct cli_yield *cy, double seconds, FILE *out);
/* "yield": {...}, other_kept among them (-1: not known) */
void cli_yield_json(const struct cli_yield *cy, double seconds, struct json *j);

#endif
