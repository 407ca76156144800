/* SPDX-License-Identifier: MIT */
/*
 * shape.h - how a tree's leaves lie in the data file: the
 * leaf-to-next-leaf steps (in key order) that are not to the next page,
 * and how far those jump.
 */
#ifndef UNTORN_TREE_SHAPE_H
#define UNTORN_TREE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

struct ut_leaf_steps {
	uint64_t leaves;
	uint64_t steps; /* leaves - 1 */
	uint64_t jumps; /* steps whose next leaf is not the next page */
	uint64_t jump_pages; /* the jumps' distances, summed */
};

/* The steps of leaves[0..n), page numbers in key order. */
void ut_leaf_steps_of(const uint32_t *leaves, size_t n,
		      struct ut_leaf_steps *s);

#endif
