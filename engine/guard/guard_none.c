// SPDX-License-Identifier: MIT
/*
 * guard_none.c - no guard: pages are overwritten in place and nothing
 * repairs one a power cut tears.  For benchmarks (what a guard costs)
 * and crash simulations that must see torn pages; init refuses it
 * without --unsafe.  The data file is synced before each checkpoint,
 * not after each batch.
 */
#include "guard/guard.h"

static int none_write(struct ut_open_guard *g, struct ut_guard_batch *b)
{
	return ut_guard_write_in_place(g, b, 0);
}

const struct ut_guard_ops ut_guard_none = {
	.id = UT_GUARD_NONE,
	.name = "none",
	.help = "pages are overwritten in place, unprotected (benchmarks only)",
	.needs_unsafe =
		"guard 'none' leaves pages torn by a crash unrepairable; add --unsafe if that is what you want (benchmarks only)",
	.bench_fs = "ext4-ordered",
	.direct = UT_DIRECT_MAY,
	.verdict = ut_verdict_in_place,
	.write = none_write,
};
