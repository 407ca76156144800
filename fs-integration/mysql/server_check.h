/* SPDX-License-Identifier: MIT */
/*
 * server_check.h - untorn-fscheck --mysql: the verdict for a MySQL or
 * MariaDB server from its own configuration.
 */
#ifndef UNTORN_SERVER_CHECK_H
#define UNTORN_SERVER_CHECK_H

/*
 * Reads the server's options (defaults_file, or the server's own list
 * when NULL), checks every directory InnoDB writes to and prints one
 * verdict per directory, one for the server, the [mysqld] lines and the
 * /etc/fstab change.  Returns the exit status: 0 when the doublewrite
 * buffer may be off, 1 when it must stay on, 2 on an error (said in one
 * line on stderr).
 */
int ut_mysql_check(const char *defaults_file, int as_json);

#endif
