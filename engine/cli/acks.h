/* SPDX-License-Identifier: MIT */
/*
 * acks.h - acknowledged commits: key -> highest version that a writer
 * saw committed (from `bench write --ack-fd`), for crash verification.
 */
#ifndef UNTORN_ACKS_H
#define UNTORN_ACKS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct acks {
	uint64_t *key, *ver; /* ver 0: empty slot */
	size_t cap, n;
	uint64_t lines;
};

static inline int acks_put(struct acks *a, uint64_t key, uint64_t ver)
{
	size_t i;

	if (!ver)
		return 0;
	if (2 * (a->n + 1) > a->cap) {
		struct acks b = { .cap = a->cap ? a->cap * 2 : 1 << 16,
				  .lines = a->lines };

		b.key = malloc(b.cap * sizeof(uint64_t));
		b.ver = calloc(b.cap, sizeof(uint64_t));
		if (!b.key || !b.ver) {
			free(b.key);
			free(b.ver);
			return -1;
		}
		for (i = 0; i < a->cap; i++)
			if (a->ver[i])
				acks_put(&b, a->key[i], a->ver[i]);
		free(a->key);
		free(a->ver);
		*a = b;
	}
	for (i = (key * 0x9e3779b97f4a7c15ull) & (a->cap - 1); a->ver[i];
	     i = (i + 1) & (a->cap - 1))
		if (a->key[i] == key)
			break;
	if (!a->ver[i])
		a->n++;
	a->key[i] = key;
	if (ver > a->ver[i])
		a->ver[i] = ver;
	return 0;
}

/* A decimal number up to the next ' ' or '\n'; the end, or NULL. */
static inline const char *acks_num(const char *p, uint64_t *v)
{
	const char *start = p;

	*v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (*v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return NULL;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	return p == start ? NULL : p;
}

/*
 * Reads "KEY VERSION" lines (decimal, version >= 1).  A last line with
 * no newline was cut short while being written (its commit's record not
 * complete): it is skipped and counted in *cut.  Returns 0; -EBADMSG
 * with *bad_line (1-based) set for a malformed line; -errno when the
 * file cannot be read (a directory: -EISDIR); -ENOMEM.
 */
static inline int acks_read(struct acks *a, FILE *in, uint64_t *bad_line,
			    unsigned *cut)
{
	uint64_t key, ver;
	const char *p;
	char line[128];
	size_t len;

	*bad_line = 0;
	*cut = 0;
	while (fgets(line, sizeof(line), in)) {
		len = strlen(line);
		if (len && line[len - 1] != '\n' && len + 1 < sizeof(line) &&
		    feof(in)) {
			(*cut)++;
			break;
		}
		p = acks_num(line, &key);
		if (p && *p == ' ')
			p = acks_num(p + 1, &ver);
		else
			p = NULL;
		if (!p || *p != '\n' || !ver) {
			*bad_line = a->lines + 1;
			return -EBADMSG;
		}
		if (acks_put(a, key, ver))
			return -ENOMEM;
		a->lines++;
	}
	return ferror(in) ? -(errno ? errno : EIO) : 0;
}

static inline void acks_free(struct acks *a)
{
	free(a->key);
	free(a->ver);
	a->key = a->ver = NULL;
	a->cap = a->n = 0;
}

#endif
