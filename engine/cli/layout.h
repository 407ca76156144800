/* SPDX-License-Identifier: MIT */
/*
 * layout.h - the key orders `untorn load --layout` inserts in, and so the
 * shapes a tree takes on disk (the tests load the same ones):
 *   sequential  keys 0..N-1 in order: leaves follow each other in the file
 *   random      the same keys in a random order: every leaf splits, leaves
 *               all over the file
 *   split       Facebook's case: keys (user << 32 | object), first half of
 *               the rows loaded in key order (every user's first objects),
 *               then objects appended to users chosen at random, each
 *               insert into the middle of the tree, so leaves split and
 *               their new halves go to the end of the file
 */
#ifndef UNTORN_LAYOUT_H
#define UNTORN_LAYOUT_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum layout_kind { LAYOUT_SEQUENTIAL, LAYOUT_RANDOM, LAYOUT_SPLIT };

/* objects a user has, on average: a user spans several leaves, and
 * appending to it splits its last one */
#define LAYOUT_SPLIT_OBJECTS 1024

struct layout_gen {
	enum layout_kind kind;
	uint64_t rows, done, i, mask;
	uint64_t users, base; /* split: users, objects each in the first half */
	uint32_t *next; /* split: each user's next object */
	uint64_t rng;
};

static inline const char *layout_name(enum layout_kind k)
{
	static const char *const names[] = { "sequential", "random", "split" };

	return names[k];
}

static inline int layout_parse(const char *s, enum layout_kind *k)
{
	int i;

	for (i = LAYOUT_SEQUENTIAL; i <= LAYOUT_SPLIT; i++)
		if (!strcmp(s, layout_name((enum layout_kind)i))) {
			*k = (enum layout_kind)i;
			return 0;
		}
	return -EINVAL;
}

static inline int layout_init(struct layout_gen *g, enum layout_kind kind,
			      uint64_t rows)
{
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->rows = rows;
	g->mask = 1;
	while (g->mask < rows)
		g->mask <<= 1;
	g->mask -= 1;
	g->rng = 0x9e3779b97f4a7c15ull;
	if (kind != LAYOUT_SPLIT)
		return 0;
	g->users = rows / LAYOUT_SPLIT_OBJECTS ? rows / LAYOUT_SPLIT_OBJECTS :
						 1;
	g->base = rows / 2 / g->users;
	g->next = calloc(g->users, sizeof(*g->next));
	return g->next ? 0 : -ENOMEM;
}

static inline void layout_free(struct layout_gen *g)
{
	free(g->next);
	g->next = NULL;
}

/* xorshift64*: the random users of split */
static inline uint64_t layout_rand(struct layout_gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dull;
}

/* Keys in random order without an N-sized array: an odd multiplier is a
 * bijection modulo a power of two; values >= rows are skipped. */
static inline uint64_t layout_permute(uint64_t i, uint64_t mask)
{
	return ((i * 0x9e3779b97f4a7c15ull) ^
		((i * 0x9e3779b97f4a7c15ull & mask) >> 7)) &
	       mask;
}

static inline uint64_t layout_split_key(struct layout_gen *g)
{
	uint64_t u;

	if (g->done < g->users * g->base) {
		/* the first half, in key order: user by user */
		u = g->done / g->base;
		return u << 32 | g->next[u]++;
	}
	u = layout_rand(g) % g->users;
	return u << 32 | g->next[u]++;
}

/* The next key to insert: 0, or 1 when all rows are given. */
static inline int layout_next(struct layout_gen *g, uint64_t *key)
{
	if (g->done == g->rows)
		return 1;
	switch (g->kind) {
	case LAYOUT_SEQUENTIAL:
		*key = g->done;
		break;
	case LAYOUT_RANDOM:
		do
			*key = layout_permute(g->i++, g->mask);
		while (*key >= g->rows);
		break;
	case LAYOUT_SPLIT:
		*key = layout_split_key(g);
		break;
	}
	g->done++;
	return 0;
}

#endif
