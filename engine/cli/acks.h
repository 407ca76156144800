/* SPDX-License-Identifier: MIT */
/*
 * acks.h - acknowledged commits: key -> highest version that a writer
 * saw committed (from `bench write --ack-fd`), for crash verification.
 */
#ifndef UNTORN_ACKS_H
#define UNTORN_ACKS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

/* Reads "key version" lines; returns 0 or -1. */
static inline int acks_read(struct acks *a, FILE *in)
{
	unsigned long long key, ver;
	char line[128];

	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%llu %llu", &key, &ver) != 2)
			continue; /* a line cut by the crash */
		if (acks_put(a, key, ver))
			return -1;
		a->lines++;
	}
	return 0;
}

static inline void acks_free(struct acks *a)
{
	free(a->key);
	free(a->ver);
	a->key = a->ver = NULL;
	a->cap = a->n = 0;
}

#endif
