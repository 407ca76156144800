// SPDX-License-Identifier: MIT
/*
 * ra_opts.c - the read-ahead options of `bench scan` and `dump`
 * (ra_opts.h).
 */
#include "cli.h"
#include "ra_opts.h"
#include "scan_defaults.h"

int cli_ra_option(struct cli_ra *ra, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 'L':
		ra->lra_arg = arg;
		return cli_parse_size(ra->cmd, "--lra-size", arg, 4096,
				      1ull << 40, &ra->lra_size);
	case 'S':
		if (cli_parse_count(ra->cmd, "--lra-sleep", arg, 0, 60000, &v))
			return EXIT_ERROR;
		ra->sleep_ms = v;
		ra->sleep_given = 1;
		return 0;
	case 'Y':
		if (cli_parse_count(ra->cmd, "--lra-spare", arg, 0,
				    UT_SCAN_SPARE_MAX, &v))
			return EXIT_ERROR;
		ra->spare_pct = v;
		ra->spare_given = 1;
		return 0;
	case 'I':
		return cli_parse_count(ra->cmd, "--device-iops", arg, 1,
				       100000000, &ra->iops);
	default:
		return cli_parse_count(ra->cmd, "--device-mbps", arg, 1,
				       1000000, &ra->mbps);
	}
}

int cli_ra_check(const struct cli_ra *ra, uint64_t pool_bytes)
{
	/* the smallest pool, in MiB, that takes the window */
	uint64_t pool_mib = (2 * ra->lra_size + (1 << 20) - 1) >> 20;
	char dflt[32]; /* the default pool, as --pool would say it */

	if (ra->sleep_given && ra->spare_given)
		return cli_usage_fail(ra->cmd,
				      "give --lra-sleep (a fixed pause) or --lra-spare (a pause that follows the other work), not both");
	if (!ra->iops != !ra->mbps)
		return cli_usage_fail(ra->cmd,
				      "the device's figures go together: give both --device-iops and --device-mbps");
	if (!ra->lra_arg || ra->lra_size <= pool_bytes / 2)
		return 0;
	snprintf(dflt, sizeof(dflt), "%lluM",
		 (unsigned long long)(pool_bytes >> 20));
	return cli_usage_fail(ra->cmd,
			      "--lra-size %s is %s the %s%s buffer pool (a window takes half of it at most: the next is read from half way through it, and the last quarter keeps the internal pages and the hot set); give --pool %lluM or more, or a smaller --lra-size",
			      ra->lra_arg,
			      ra->lra_size > pool_bytes ? "larger than" :
							  "more than half of",
			      ra->pool_arg ? ra->pool_arg : dflt,
			      ra->pool_arg ? "" : " (default)",
			      (unsigned long long)pool_mib);
}

int cli_ra_device(const struct cli_ra *ra, struct ut_scan_device *dev)
{
	dev->iops = (double)ra->iops;
	dev->mbps = (double)ra->mbps;
	return ra->iops && ra->mbps;
}

int cli_ra_apply(const struct cli_ra *ra, struct ut_engine *eng,
		 struct ut_scan_opts *so, int fit)
{
	uint32_t ps = ut_engine_page_size(eng);
	struct ut_scan_device dev;

	if (ra->lra_arg) {
		so->window_pages = ra->lra_size / ps;
		if (!so->window_pages)
			return cli_usage_fail(ra->cmd,
					      "--lra-size %s is less than one of this store's %u-byte pages",
					      ra->lra_arg, ps);
	}
	so->sleep_ms = ra->sleep_ms;
	if (fit && cli_ra_device(ra, &dev))
		ut_scan_fit_device(eng, &dev, so);
	return 0;
}
