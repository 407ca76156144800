// SPDX-License-Identifier: MIT
/*
 * probes.c - the semaphores of the engine's USDT probes (probes.h).  A
 * tracer attaching to a probe increments its semaphore (the kernel does,
 * through the uprobe reference counter), which turns the probe site on.
 */
#include "base/probes.h"

#ifdef UT_HAVE_SDT
#define UT_PROBE_DEFINE(name)                       \
	volatile unsigned short UT_PROBE_SEMA(name) \
		__attribute__((section(".probes"), used));
UT_PROBE_LIST(UT_PROBE_DEFINE)
#endif
