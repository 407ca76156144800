/* SPDX-License-Identifier: MIT */
/*
 * tree_census.h - the tree's shape for `untorn info`, read from a store
 * opened read-only (tree_census.c).
 */
#ifndef UNTORN_CLI_TREE_CENSUS_H
#define UNTORN_CLI_TREE_CENSUS_H

#include <limits.h>
#include <stdint.h>

struct ut_store;

struct tree_census {
	int known; /* 0: why says why the tree was not read */
	char why[PATH_MAX + 700];
	unsigned height; /* levels, the leaves' included */
	uint64_t rows, leaves;
	double fragmentation; /* leaf-to-leaf steps that jump / all steps */
	double mean_jump_pages;
};

/* Reads the tree when the data file holds it whole (nothing in the redo
 * log after the checkpoint); fills c either way. */
void tree_census_read(const struct ut_store *st, struct tree_census *c);

#endif
