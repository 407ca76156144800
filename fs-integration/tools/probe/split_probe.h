/* SPDX-License-Identifier: MIT */
/*
 * split_probe.h - untorn-fscheck --probe: page writes split across two
 * jbd2 transactions, counted on the filesystem being judged.
 */
#ifndef UNTORN_SPLIT_PROBE_H
#define UNTORN_SPLIT_PROBE_H

#include <stdint.h>
#include "fscaps.h"

struct ut_split_probe {
	int measured; /* 0: why says what was missing */
	unsigned long pages, split;
	unsigned seconds, sync_every;
	char why[256];
};

/*
 * Writes page_size pages to a file made (and left unnamed) in the
 * directory of caps for seconds, an fdatasync every few, while
 * ebpf/torn-split.bt counts this process's writes on that filesystem.
 * Where nothing can be measured (data not journalled, not root, no
 * tracefs, no bpftrace) fills why and returns 0.  Returns -errno when the
 * directory cannot be written.
 */
int ut_split_probe(const struct ut_fscaps *caps, uint32_t page_size,
		   unsigned seconds, struct ut_split_probe *r);

#endif
