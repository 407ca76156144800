// SPDX-License-Identifier: MIT
/*
 * store_cache.c - the page cache a store's files hold (store_cache.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "store_cache.h"

/* cachestat(2), Linux 6.5: one number on every architecture */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct cachestat_range {
	uint64_t off, len;
};

struct cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		nr_recently_evicted;
};

/* a mincore(2) look maps and counts this much of a file at a time */
#define MINCORE_CHUNK (256ull << 20)

int store_cache_open(struct store_cache *sc, const char *dir)
{
	char path[4096];
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int fd;

	memset(sc, 0, sizeof(*sc));
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d)) && sc->n < STORE_CACHE_FILES) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
			close(fd);
			continue;
		}
		sc->fd[sc->n++] = fd;
	}
	closedir(d);
	return 0;
}

/* Pages of fd in the page cache by mincore(2): -1 where it cannot map. */
static int64_t mincore_pages(int fd, long page)
{
	unsigned char vec[MINCORE_CHUNK / 4096];
	uint64_t off, len, i, n = 0;
	struct stat sb;
	void *p;

	if (fstat(fd, &sb))
		return -1;
	for (off = 0; off < (uint64_t)sb.st_size; off += MINCORE_CHUNK) {
		len = (uint64_t)sb.st_size - off;
		if (len > MINCORE_CHUNK)
			len = MINCORE_CHUNK;
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
		if (p == MAP_FAILED)
			return -1;
		if (mincore(p, len, vec)) {
			munmap(p, len);
			return -1;
		}
		for (i = 0; i < (len + page - 1) / page; i++)
			n += vec[i] & 1;
		munmap(p, len);
	}
	return (int64_t)n;
}

/* Bytes of fd in the page cache: cachestat, else mincore; 0 unknown. */
static uint64_t file_cached(int fd)
{
	struct cachestat_range r = { 0, 0 };
	long page = sysconf(_SC_PAGESIZE);
	struct cachestat cs;
	int64_t n;

	if (!syscall(__NR_cachestat, fd, &r, &cs, 0))
		return cs.nr_cache * (uint64_t)page;
	n = mincore_pages(fd, page);
	return n > 0 ? (uint64_t)n * (uint64_t)page : 0;
}

uint64_t store_cache_sample(struct store_cache *sc)
{
	uint64_t sum = 0;
	unsigned i;

	for (i = 0; i < sc->n; i++)
		sum += file_cached(sc->fd[i]);
	if (sum > sc->peak)
		sc->peak = sum;
	return sum;
}

void store_cache_close(struct store_cache *sc)
{
	while (sc->n)
		close(sc->fd[--sc->n]);
}
