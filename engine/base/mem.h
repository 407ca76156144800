/* SPDX-License-Identifier: MIT */
/*
 * mem.h - zeroed, 4 KiB-aligned buffers for page I/O (O_DIRECT-ready).
 */
#ifndef UNTORN_MEM_H
#define UNTORN_MEM_H

#include <stdlib.h>
#include <string.h>

#define UT_IO_ALIGN 4096

static inline void *ut_io_alloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, UT_IO_ALIGN, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

#endif
