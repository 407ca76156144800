/* SPDX-License-Identifier: MIT */
/*
 * measure.h - untorn-fscheck --measure: what turning the doublewrite off
 * buys on the filesystem being judged, measured there.
 */
#ifndef UNTORN_MEASURE_H
#define UNTORN_MEASURE_H

#include <stdint.h>

struct ut_measure_args {
	const char *path;
	unsigned seconds; /* about how long the whole takes */
	uint32_t page_size; /* the verdict's */
	uint64_t redo_bytes; /* the server's redo capacity; 0: the script's */
	int untorn_engine; /* the status answers untorn's question */
	int as_json;
};

/*
 * Runs the measuring script (scripts/doublewrite-cost, installed as
 * untorn-doublewrite-cost) on a->path and waits for it: doublewrite, none
 * and the copyless guard safe there with a redo log of a->redo_bytes (the
 * script's default when 0), and doublewrite with 4x it, in a directory of
 * its own inside path; it prints the table and the sentence (or, with as_json, the one
 * JSON object, the verdict in it).  Returns its exit status: 0 measured
 * and safe, 1 measured and unsafe, 2 it failed and said why; -ENOENT or
 * -ENOEXEC when it cannot be found or started, -EINTR when it was killed.
 */
int ut_measure(const struct ut_measure_args *a);

/*
 * --mysql --measure DIR: DIR must be a directory on the server's datadir's
 * filesystem (the figure is then the server's disk) and outside the
 * datadir (the server takes a directory there for a database).  Returns
 * 0, or 2 said in one line on stderr.
 */
int ut_measure_check_dir(const char *dir, const char *datadir);

#endif
