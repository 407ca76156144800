/* SPDX-License-Identifier: MIT */
/*
 * server_check.h - untorn-fscheck --mysql: the verdict for a MySQL or
 * MariaDB server from its own configuration.
 */
#ifndef UNTORN_SERVER_CHECK_H
#define UNTORN_SERVER_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* What a measurement on the server's disk takes from its options. */
struct ut_mysql_facts {
	uint32_t page_size; /* the page size the server writes */
	uint64_t redo_bytes; /* its redo log's capacity; 0: its default */
};

/*
 * Reads the server's options (defaults_file, or the server's own list
 * when NULL), checks every directory InnoDB writes to and prints one
 * verdict per directory, one for the server, the [mysqld] lines and the
 * /etc/fstab change.  Returns the exit status: 0 when the doublewrite
 * buffer may be off, 1 when it must stay on, 2 on an error (said in one
 * line on stderr); on 0 and 1 *facts (when not NULL) is filled in.
 */
int ut_mysql_check(const char *defaults_file, int as_json,
		   struct ut_mysql_facts *facts);

/*
 * The server's datadir (its default when the options set none), for a
 * caller that must check a path against it before the verdict prints
 * (--mysql --measure DIR).  Returns 0, or 2 said in one line on stderr.
 */
int ut_mysql_datadir(const char *defaults_file, char *out, size_t len);

#endif
