/* SPDX-License-Identifier: MIT */
/*
 * guard_list.h - the table of guards: one UT_GUARD(NAME) line per guard,
 * naming its struct ut_guard_ops ut_guard_NAME (guard_NAME.c).  The order
 * is the order `untorn guards` lists them in, and the scripts' tables.
 * guard.c includes this twice, to declare the ops and to fill the table.
 */
UT_GUARD(doublewrite)
UT_GUARD(journal)
UT_GUARD(atomic)
UT_GUARD(none)
UT_GUARD(sector)
#ifdef UT_TEST_GUARD
UT_GUARD(test) /* tests/guard_test.c, in the build-testguard tree only */
#endif
