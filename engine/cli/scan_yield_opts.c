// SPDX-License-Identifier: MIT
/*
 * scan_yield_opts.c - a scan of the command line yielding to other work
 * (scan_yield_opts.h).
 */
#include <string.h>
#include "scan_yield_opts.h"

/* The library's defaults for the count (ut_scan_yield_default: a floor
 * for sectors only), --lra-spare over them. */
void cli_yield_setup(struct cli_yield *cy, const struct cli_ra *ra,
		     struct ut_engine *eng, const struct ut_scan_opts *so,
		     uint64_t (*count)(void *), void *arg, const char *unit,
		     const char *measure)
{
	const char *data = ut_engine_data_path(eng);

	memset(cy, 0, sizeof(*cy));
	ut_scan_yield_default(&cy->y, count ? UT_YIELD_WORK : UT_YIELD_SECTORS);
	if (ra->spare_given)
		cy->y.spare_pct = ra->spare_pct;
	if (so->readahead != UT_RA_LOGICAL) {
		snprintf(cy->why, sizeof(cy->why),
			 "only logical read-ahead yields");
		return;
	}
	if (ra->sleep_given) {
		snprintf(cy->why, sizeof(cy->why),
			 "--lra-sleep %u pauses by hand", ra->sleep_ms);
		return;
	}
	if (!cy->y.spare_pct) {
		snprintf(cy->why, sizeof(cy->why), "--lra-spare 0");
		return;
	}
	if (count) {
		cy->y.other_work = count;
		cy->y.arg = arg;
		cy->unit = unit;
		snprintf(cy->measure, sizeof(cy->measure), "%s", measure);
	} else if (other_io_open(&cy->oio, data, cy->why, sizeof(cy->why))) {
		return;
	} else {
		cy->y.other_work = other_io_sectors;
		cy->y.arg = &cy->oio;
		cy->unit = "sectors";
		snprintf(cy->measure, sizeof(cy->measure),
			 "sectors other processes read and wrote on device %u:%u",
			 cy->oio.major, cy->oio.minor);
	}
	cy->on = 1;
}

struct ut_scan_yield *cli_yield_of(struct cli_yield *cy)
{
	return cy->on ? &cy->y : NULL;
}

void cli_yield_output(struct cli_yield *cy, FILE *out)
{
	size_t n = strlen(cy->measure);

	if (!cy->on || cy->y.other_work != other_io_sectors ||
	    !other_io_output(&cy->oio, out))
		return;
	snprintf(cy->measure + n, sizeof(cy->measure) - n,
		 " (less this process's reads and its output, a file on that disk)");
}

/* The share of its speed alone the other work kept over the scan: its
 * work in the reads and the pauses over the scan's time, against its
 * rate in the pauses; < 0 where no work was seen in a pause. */
static double yield_kept(const struct ut_scan_yield *y, double seconds)
{
	double reading = seconds - y->paused_seconds;

	/* floor_per_s >= 0: a rate at or under it is none */
	if (y->other_rate_paused <= y->floor_per_s || seconds <= 0)
		return -1;
	if (reading < 0)
		reading = 0;
	return (y->other_rate_reading * reading +
		y->other_rate_paused * y->paused_seconds) /
	       (y->other_rate_paused * seconds);
}

void cli_yield_print(const struct cli_yield *cy, double seconds, FILE *out)
{
	const struct ut_scan_yield *y = &cy->y;
	double kept = yield_kept(y, seconds);

	if (!cy->on) {
		fprintf(out, "yield: none (%s)\n", cy->why);
		return;
	}
	fprintf(out,
		"yield: to leave other work %u %% of its speed, counted in %s (%.0f a second or less counted as none): %llu pauses, %.2f s in all; %s a second %.0f while the scan read, %.0f while it paused",
		y->spare_pct, cy->measure, y->floor_per_s,
		(unsigned long long)y->pauses, y->paused_seconds, cy->unit,
		y->other_rate_reading, y->other_rate_paused);
	if (kept >= 0)
		fprintf(out, ": other work kept %.0f %% of its speed\n",
			kept * 100);
	else if (y->other_rate_reading > 0)
		fprintf(out,
			": no pause saw other work, so what it kept is not known\n");
	else
		fprintf(out, ": no other work seen\n");
}

void cli_yield_json(const struct cli_yield *cy, double seconds, struct json *j)
{
	const struct ut_scan_yield *y = &cy->y;
	double kept = yield_kept(y, seconds);

	json_obj_open(j, "yield");
	json_bool(j, "on", cy->on);
	if (!cy->on) {
		json_str(j, "why_not", cy->why);
		json_obj_close(j);
		return;
	}
	json_u64(j, "spare_pct", y->spare_pct);
	json_str(j, "counted", cy->measure);
	json_str(j, "unit", cy->unit);
	json_f64(j, "floor_per_s", y->floor_per_s);
	json_u64(j, "pauses", y->pauses);
	json_f64(j, "paused_seconds", y->paused_seconds);
	json_f64(j, "other_rate_reading", y->other_rate_reading);
	json_f64(j, "other_rate_paused", y->other_rate_paused);
	/* -1: no pause saw other work */
	json_f64(j, "other_kept", kept);
	json_obj_close(j);
}
