/* SPDX-License-Identifier: MIT */
/*
 * mycnf.h - the MySQL/MariaDB server options that say where InnoDB writes
 * its pages, read from my_print_defaults or from the option files.
 */
#ifndef UNTORN_MYCNF_H
#define UNTORN_MYCNF_H

#include <limits.h>
#include <stddef.h>

/* The options as the server would see them; "" where not set. */
struct ut_mycnf {
	char datadir[PATH_MAX];
	char data_home_dir[PATH_MAX];
	char data_file_path[PATH_MAX];
	char undo_directory[PATH_MAX];
	char log_group_home_dir[PATH_MAX];
	char doublewrite_dir[PATH_MAX];
	char page_size[32];
	char doublewrite[32];
	char flush_method[32];
	/* the redo log's capacity: MySQL 8.0.30+'s one option, or the
	 * older file size and count (MariaDB 10.5+ keeps one file) */
	char redo_log_capacity[32];
	char log_file_size[32];
	char log_files_in_group[32];
	char source[PATH_MAX + 64]; /* where they were read from */
};

/*
 * One option as my_print_defaults prints it ("--name=value") or as an
 * option file holds it ("name = value"): dashes and underscores alike,
 * loose-, skip-, disable- and enable- prefixes as the server takes them.
 */
void ut_mycnf_option(struct ut_mycnf *cnf, const char *name, const char *value);

/*
 * The [mysqld]-side groups of the option files: defaults_file alone
 * when given, else the server's default list.  Honours !include and
 * !includedir.  Returns 0, or -errno with what failed in err.
 */
int ut_mycnf_from_files(const char *defaults_file, struct ut_mycnf *cnf,
			char *err, size_t errlen);

/*
 * The same through `my_print_defaults --mysqld`, the server's own
 * reader.  Returns -ENOENT when it is not installed.
 */
int ut_mycnf_from_tool(const char *defaults_file, struct ut_mycnf *cnf,
		       char *err, size_t errlen);

#endif
