/* SPDX-License-Identifier: MIT */
/*
 * ra_opts.h - the read-ahead options `bench scan` and `dump` share:
 * --lra-size (the window), --lra-sleep, --lra-spare, and the device's figures
 * --device-iops/--device-mbps; parsed, checked against the pool before
 * the store is opened, and applied to the scan's options after.
 */
#ifndef UNTORN_CLI_RA_OPTS_H
#define UNTORN_CLI_RA_OPTS_H

#include <getopt.h>
#include <stdint.h>
#include <untorn/engine.h>
#include "scan_model.h"

/* clang-format off */
#define CLI_RA_OPTIONS						\
	{ "lra-size", required_argument, NULL, 'L' },		\
	{ "lra-sleep", required_argument, NULL, 'S' },		\
	{ "lra-spare", required_argument, NULL, 'Y' },		\
	{ "device-iops", required_argument, NULL, 'I' },	\
	{ "device-mbps", required_argument, NULL, 'M' }
/* clang-format on */

struct cli_ra {
	const char *cmd; /* for the messages: "dump", "bench scan" */
	const char *lra_arg, *pool_arg; /* as typed; NULL: not given */
	uint64_t lra_size, iops, mbps;
	unsigned sleep_ms;
	int sleep_given;
	unsigned spare_pct; /* --lra-spare: the share of its speed other
			     * work keeps (0: do not yield); not given,
			     * ut_scan_yield_default's */
	int spare_given;
};

/* Takes option c ('L', 'S', 'Y', 'I' or 'M'); 0, or EXIT_ERROR (said). */
int cli_ra_option(struct cli_ra *ra, int c, const char *arg);
/* Before the store is opened: the window against the pool, the figures
 * given both or neither; 0, or EXIT_ERROR (said). */
int cli_ra_check(const struct cli_ra *ra, uint64_t pool_bytes);
/* After it is opened: the window in this store's pages (less than one is
 * refused), the pause, and, when fit and the figures are given, merging
 * as the bound does; 0, or EXIT_ERROR (said). */
int cli_ra_apply(const struct cli_ra *ra, struct ut_engine *eng,
		 struct ut_scan_opts *so, int fit);
/* The device's figures, when given. */
int cli_ra_device(const struct cli_ra *ra, struct ut_scan_device *dev);

#endif
