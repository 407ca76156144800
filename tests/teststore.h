/* SPDX-License-Identifier: MIT */
/*
 * teststore.h - a doublewrite store made in the test's scratch directory
 * and the engine opened on it, for the tests that drive the engine
 * (include after testlib.h and <untorn/engine.h>, <untorn/store.h>).
 * Failures are said as KTAP diagnostics.
 */
#ifndef UT_TESTSTORE_H
#define UT_TESTSTORE_H

/* Makes store `name` under the scratch directory; its path into dir. */
static inline int test_store_make(char *dir, size_t cap, const char *name,
				  uint32_t page_size, uint64_t log_size)
{
	struct ut_init_opts io = { .page_size = page_size,
				   .guard = UT_GUARD_DOUBLEWRITE,
				   .log_size = log_size };
	struct ut_err err = { "" };

	snprintf(dir, cap, "%s/%s", test_scratch, name);
	if (ut_store_init(dir, &io, &err)) {
		ktap_diag("init: %s", err.msg);
		return -1;
	}
	return 0;
}

/* The engine on dir with a pool of pool bytes; NULL when it fails. */
static inline struct ut_engine *test_engine_open(const char *dir, uint64_t pool,
						 enum ut_commit_mode commit)
{
	struct ut_engine_opts o;
	struct ut_engine *eng;
	struct ut_err err = { "" };

	ut_engine_opts_default(&o);
	o.pool_bytes = pool;
	o.commit = commit;
	if (ut_engine_open(dir, &o, &eng, NULL, &err)) {
		ktap_diag("open: %s", err.msg);
		return NULL;
	}
	return eng;
}

#endif
