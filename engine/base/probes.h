/* SPDX-License-Identifier: MIT */
/*
 * probes.h - the engine's USDT probes (provider `untorn`, sys/sdt.h), each
 * with a semaphore so that a probe costs one load and a branch while no
 * tracer is attached, and its arguments are only computed while one is.
 * ebpf/PROBES.md lists every probe and its arguments.
 *
 *	UT_PROBE(latch__wait__done, cls, latch, wait_ns);
 *	if (UT_PROBE_ENABLED(ring__complete)) ... extra work for a probe ...
 *
 * Every probe used must be named in UT_PROBE_LIST, which defines the
 * semaphores (probes.c).  Built without sys/sdt.h (UT_HAVE_SDT unset),
 * the probes compile to nothing.
 */
#ifndef UNTORN_PROBES_H
#define UNTORN_PROBES_H

#define UT_PROBE_LIST(X)            \
	X(latch__wait__start)       \
	X(latch__wait__done)        \
	X(latch__release)           \
	X(dblwr__slot__wait__start) \
	X(dblwr__slot__acquire)     \
	X(dblwr__slot__release)     \
	X(flush__batch__start)      \
	X(flush__batch__done)       \
	X(ring__submit)             \
	X(ring__complete)           \
	X(log__group__commit)       \
	X(checkpoint__done)         \
	X(pace__adjust)             \
	X(recovery__phase__start)   \
	X(recovery__phase__done)

#ifdef UT_HAVE_SDT
#define _SDT_HAS_SEMAPHORES 1
#define SDT_USE_VARIADIC 1
#include <sys/sdt.h>

#define UT_PROBE_SEMA(name) untorn_##name##_semaphore
#define UT_PROBE_DECLARE(name) \
	extern volatile unsigned short UT_PROBE_SEMA(name);
UT_PROBE_LIST(UT_PROBE_DECLARE)

#define UT_PROBE_ENABLED(name) __builtin_expect(UT_PROBE_SEMA(name) != 0, 0)
#define UT_PROBE(name, ...)                                       \
	do {                                                      \
		if (UT_PROBE_ENABLED(name))                       \
			STAP_PROBEV(untorn, name, ##__VA_ARGS__); \
	} while (0)
#else
#define UT_PROBE_ENABLED(name) 0
#define UT_PROBE(name, ...) \
	do {                \
	} while (0)
#endif

#endif
