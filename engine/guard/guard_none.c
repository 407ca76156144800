// SPDX-License-Identifier: MIT
/*
 * guard_none.c - no guard: pages are overwritten in place and nothing
 * repairs one a power cut tears.  For benchmarks (what a guard costs)
 * and crash simulations that must see torn pages; init refuses it
 * without --unsafe.  The data file is synced before each checkpoint,
 * not after each batch.
 */
#include "fscaps.h"
#include "guard/guard.h"

static int none_write(struct ut_open_guard *g, struct ut_guard_batch *b)
{
	return ut_guard_write_in_place(g, b, 0);
}

/* Safe only where nothing is overwritten in place: copy-on-write. */
static void none_verdict(const struct ut_fscaps *c, uint32_t page_size,
			 uint32_t block_size, struct ut_verdict *v)
{
	(void)page_size;
	(void)block_size;
	if (ut_fscaps_cow_proven(c, v) || ut_fscaps_no_journal(c, v))
		return;
	if (c->nocow)
		ut_fscaps_nocow(c, "use --guard doublewrite", v);
	else
		ut_verdict_say(c, v, 0,
			       "use --guard doublewrite, journal or atomic",
			       "pages are overwritten in place with nothing to repair a torn one");
}

const struct ut_guard_ops ut_guard_none = {
	.id = UT_GUARD_NONE,
	.name = "none",
	.help = "pages are overwritten in place, unprotected (benchmarks only)",
	.needs_unsafe =
		"guard 'none' leaves pages torn by a crash unrepairable; add --unsafe if that is what you want (benchmarks only)",
	.bench_fs = "ext4-ordered",
	.direct = UT_DIRECT_MAY,
	.verdict = none_verdict,
	.write = none_write,
};
