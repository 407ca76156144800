/* SPDX-License-Identifier: MIT */
/*
 * ktap.h - KTAP output for untorn's test programs, in the spirit of the
 * kernel's kselftest.h: a plan, one "ok"/"not ok" line per test case,
 * "# SKIP <reason>" for what cannot run here, and the kselftest exit codes
 * (0 pass, 1 fail, 4 skip).
 */
#ifndef UNTORN_KTAP_H
#define UNTORN_KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define KTAP_EXIT_PASS 0
#define KTAP_EXIT_FAIL 1
#define KTAP_EXIT_SKIP 4

static int ktap_planned, ktap_done, ktap_pass, ktap_fail, ktap_skip;

static inline void ktap_plan(int n)
{
	ktap_planned = n;
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
}

static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Reports one test case; returns cond so callers can stop on failure. */
static inline int ktap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", cond ? "" : "not ", ++ktap_done);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (cond)
		ktap_pass++;
	else
		ktap_fail++;
	return cond;
}

static inline void ktap_skip_case(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("ok %d %s # SKIP ", ++ktap_done, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	ktap_skip++;
}

static inline int ktap_finish(void)
{
	if (ktap_done != ktap_planned) {
		printf("# planned %d tests, ran %d\n", ktap_planned, ktap_done);
		ktap_fail++;
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       ktap_pass, ktap_fail, ktap_skip);
	fflush(stdout);
	if (ktap_fail)
		return KTAP_EXIT_FAIL;
	return ktap_pass ? KTAP_EXIT_PASS : KTAP_EXIT_SKIP;
}

#endif
