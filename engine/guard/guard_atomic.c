// SPDX-License-Identifier: MIT
/*
 * guard_atomic.c - the atomic guard: each page is one O_DIRECT write
 * with RWF_ATOMIC, which the filesystem or device lands all or nothing
 * (XFS with reflink on Linux 6.16+, or hardware atomic units).  A page
 * is whole once written, so nothing waits for the data file's sync but
 * the next checkpoint.
 */
#include "fscaps.h"
#include "guard/guard.h"

static int atomic_write(struct ut_open_guard *g, struct ut_guard_batch *b)
{
	return ut_guard_write_in_place(g, b, RWF_ATOMIC);
}

const struct ut_guard_ops ut_guard_atomic = {
	.id = UT_GUARD_ATOMIC,
	.name = "atomic",
	.help = "each page is one O_DIRECT RWF_ATOMIC write, landed all or nothing",
	.bench_fs = "xfs",
	.whole_writes = "an RWF_ATOMIC page write cannot be split",
	.direct = UT_DIRECT_MUST,
	.direct_why = "RWF_ATOMIC needs it",
	.verdict = ut_verdict_atomic,
	.write = atomic_write,
};
