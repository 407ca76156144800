// SPDX-License-Identifier: MIT
/*
 * shape.c - a tree's fragmentation from its leaves in key order: a step
 * from one leaf to the next is sequential when the next leaf is the next
 * page of the file (what a sequential read or InnoDB's linear read-ahead
 * rewards); every other step is a jump, measured in pages.
 */
#include "tree/shape.h"

void ut_leaf_steps_of(const uint32_t *leaves, size_t n, struct ut_leaf_steps *s)
{
	size_t i;

	s->leaves = n;
	s->steps = n > 1 ? n - 1 : 0;
	s->jumps = 0;
	s->jump_pages = 0;
	for (i = 1; i < n; i++) {
		if (leaves[i] == leaves[i - 1] + 1)
			continue;
		s->jumps++;
		s->jump_pages += leaves[i] > leaves[i - 1] ?
					 leaves[i] - leaves[i - 1] :
					 leaves[i - 1] - leaves[i];
	}
}
