/* SPDX-License-Identifier: MIT */
/*
 * store_cache.h - how much of the page cache a store's files hold: its
 * data file, redo log and guard file (every regular file in the store's
 * directory, a redo log placed elsewhere through its link too), sampled
 * by a benchmark once a second to report the memory a guard uses beyond
 * the buffer pool.  A guard that writes through the page cache (the
 * journal guard on ext4 data=journal) holds its pages twice; one that
 * writes with O_DIRECT holds next to nothing.  cachestat(2) (Linux 6.5)
 * counts them; mincore(2) on a mapping where it is missing.
 */
#ifndef UNTORN_CLI_STORE_CACHE_H
#define UNTORN_CLI_STORE_CACHE_H

#include <stdint.h>

#define STORE_CACHE_FILES 16

struct store_cache {
	int fd[STORE_CACHE_FILES];
	unsigned n;
	uint64_t peak; /* the most bytes held at one sample */
};

/* Opens the regular files in the store directory dir: 0, or -errno. */
int store_cache_open(struct store_cache *sc, const char *dir);
/* The bytes of the page cache the files hold now; peak follows. */
uint64_t store_cache_sample(struct store_cache *sc);
void store_cache_close(struct store_cache *sc);

#endif
