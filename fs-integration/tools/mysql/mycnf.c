// SPDX-License-Identifier: MIT
/*
 * mycnf.c - reading a MySQL/MariaDB server's options: through
 * my_print_defaults when it is installed (the server's own reader, with
 * its version's groups), else from the option files by the rules of
 * mysys' my_default.c: [groups], !include FILE, !includedir DIR (its
 * *.cnf files in name order), quotes, end-of-line comments, and later
 * values overriding earlier ones.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mycnf.h"

#define INCLUDE_DEPTH_MAX 10

/* the groups the server reads that do not name a version */
static const char *const server_groups[] = {
	"mysqld", "server", "mariadb", "mariadbd", "client-server", NULL,
};

struct option_slot {
	const char *name;
	size_t offset, size;
};

#define SLOT(opt, field)                                      \
	{                                                     \
		opt, offsetof(struct ut_mycnf, field),        \
			sizeof(((struct ut_mycnf *)0)->field) \
	}
static const struct option_slot slots[] = {
	SLOT("datadir", datadir),
	SLOT("innodb_data_home_dir", data_home_dir),
	SLOT("innodb_data_file_path", data_file_path),
	SLOT("innodb_undo_directory", undo_directory),
	SLOT("innodb_log_group_home_dir", log_group_home_dir),
	SLOT("innodb_doublewrite_dir", doublewrite_dir),
	SLOT("innodb_page_size", page_size),
	SLOT("innodb_doublewrite", doublewrite),
	SLOT("innodb_flush_method", flush_method),
	SLOT("innodb_redo_log_capacity", redo_log_capacity),
	SLOT("innodb_log_file_size", log_file_size),
	SLOT("innodb_log_files_in_group", log_files_in_group),
};

static int strip_prefix(char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n))
		return 0;
	memmove(name, name + n, strlen(name + n) + 1);
	return 1;
}

void ut_mycnf_option(struct ut_mycnf *cnf, const char *name, const char *value)
{
	char key[128], *p;
	size_t i;

	if (name[0] == '-' && name[1] == '-')
		name += 2;
	snprintf(key, sizeof(key), "%s", name);
	for (p = key; *p; p++)
		*p = *p == '-' ? '_' : tolower((unsigned char)*p);
	strip_prefix(key, "loose_");
	if (strip_prefix(key, "maximum_"))
		return;
	if (strip_prefix(key, "skip_") || strip_prefix(key, "disable_"))
		value = "0";
	else if (strip_prefix(key, "enable_"))
		value = "1";
	for (i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		if (!strcmp(key, slots[i].name)) {
			snprintf((char *)cnf + slots[i].offset, slots[i].size,
				 "%s", value ? value : "1");
			return;
		}
}

static int is_server_group(const char *group)
{
	int i;

	for (i = 0; server_groups[i]; i++)
		if (!strcasecmp(group, server_groups[i]))
			return 1;
	return 0;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* a value as the option file holds it: an end comment after white
 * space, quotes around it, and the escapes \n \t \r \b \s \\ \' \" */
static void unquote(char *v)
{
	static const char esc_in[] = "ntrbs\\'\"", esc_out[] = "\n\t\r\b \\'\"";
	char quote = 0, *r, *w;

	for (r = v; *r; r++) {
		if (quote) {
			if (*r == '\\' && r[1])
				r++;
			else if (*r == quote)
				quote = 0;
		} else if (*r == '"' || *r == '\'') {
			quote = *r;
		} else if (*r == '#' && r > v &&
			   isspace((unsigned char)r[-1])) {
			*r = '\0';
			break;
		}
	}
	r = trim(v);
	if ((*r == '"' || *r == '\'') && strlen(r) > 1 &&
	    r[strlen(r) - 1] == *r) {
		r[strlen(r) - 1] = '\0';
		r++;
	}
	for (w = v; *r; r++) {
		const char *e;

		if (*r == '\\' && r[1] && (e = strchr(esc_in, r[1]))) {
			*w++ = esc_out[e - esc_in];
			r++;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static int read_file(const char *path, struct ut_mycnf *cnf, int depth,
		     char *err, size_t errlen);

static int has_cnf_suffix(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, ".cnf");
}

static int read_dir(const char *dir, struct ut_mycnf *cnf, int depth, char *err,
		    size_t errlen)
{
	struct dirent **names;
	char path[PATH_MAX];
	int n, i, ret = 0;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return 0; /* the server skips a missing directory too */
	for (i = 0; i < n; i++) {
		if (!ret && has_cnf_suffix(names[i]->d_name)) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 names[i]->d_name);
			ret = read_file(path, cnf, depth + 1, err, errlen);
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

static int directive(char *line, struct ut_mycnf *cnf, int depth, char *err,
		     size_t errlen)
{
	if (!strncmp(line, "!includedir", 11) &&
	    isspace((unsigned char)line[11]))
		return read_dir(trim(line + 11), cnf, depth, err, errlen);
	if (!strncmp(line, "!include", 8) && isspace((unsigned char)line[8]))
		return read_file(trim(line + 8), cnf, depth + 1, err, errlen);
	return 0;
}

static void option_line(char *line, struct ut_mycnf *cnf)
{
	char *eq = strchr(line, '=');

	if (!eq) {
		unquote(line);
		ut_mycnf_option(cnf, trim(line), NULL);
		return;
	}
	*eq = '\0';
	unquote(eq + 1);
	ut_mycnf_option(cnf, trim(line), eq + 1);
}

static int read_file(const char *path, struct ut_mycnf *cnf, int depth,
		     char *err, size_t errlen)
{
	char buf[4096], *line, *end;
	int in_group = 0, ret = 0;
	FILE *f;

	if (depth > INCLUDE_DEPTH_MAX) {
		snprintf(err, errlen,
			 "%s: !include nested deeper than %d files", path,
			 INCLUDE_DEPTH_MAX);
		return -ELOOP;
	}
	f = fopen(path, "r");
	if (!f) {
		if (depth > 0 && errno == ENOENT)
			return 0; /* a missing !include is skipped, as the server does */
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while (!ret && fgets(buf, sizeof(buf), f)) {
		line = trim(buf);
		if (!*line || *line == '#' || *line == ';')
			continue;
		if (*line == '!') {
			ret = directive(line, cnf, depth, err, errlen);
			continue;
		}
		if (*line == '[') {
			end = strchr(line, ']');
			if (end)
				*end = '\0';
			in_group = is_server_group(trim(line + 1));
			continue;
		}
		if (in_group)
			option_line(line, cnf);
	}
	fclose(f);
	return ret;
}

int ut_mycnf_from_files(const char *defaults_file, struct ut_mycnf *cnf,
			char *err, size_t errlen)
{
	const char *env[] = { "MARIADB_HOME", "MYSQL_HOME", NULL };
	char path[PATH_MAX];
	const char *home;
	int i, ret;

	memset(cnf, 0, sizeof(*cnf));
	if (defaults_file) {
		snprintf(cnf->source, sizeof(cnf->source), "the option file %s",
			 defaults_file);
		return read_file(defaults_file, cnf, 0, err, errlen);
	}
	snprintf(cnf->source, sizeof(cnf->source),
		 "the option files /etc/my.cnf, /etc/mysql/my.cnf, ~/.my.cnf");
	ret = read_file("/etc/my.cnf", cnf, 1, err, errlen);
	if (!ret)
		ret = read_file("/etc/mysql/my.cnf", cnf, 1, err, errlen);
	for (i = 0; !ret && env[i]; i++) {
		home = getenv(env[i]);
		if (home) {
			snprintf(path, sizeof(path), "%s/my.cnf", home);
			ret = read_file(path, cnf, 1, err, errlen);
		}
	}
	home = getenv("HOME");
	if (!ret && home) {
		snprintf(path, sizeof(path), "%s/.my.cnf", home);
		ret = read_file(path, cnf, 1, err, errlen);
	}
	return ret;
}

/* my_print_defaults' stdout, a pipe from a child that runs it */
static FILE *run_tool(const char *defaults_file, pid_t *pid)
{
	char arg[PATH_MAX + 32];
	int fds[2];

	if (pipe(fds))
		return NULL;
	*pid = fork();
	if (*pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (*pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null,
			     STDERR_FILENO); /* our refusal is the one line */
		close(fds[0]);
		close(fds[1]);
		if (defaults_file) {
			snprintf(arg, sizeof(arg), "--defaults-file=%s",
				 defaults_file);
			execlp("my_print_defaults", "my_print_defaults", arg,
			       "--mysqld", (char *)NULL);
		} else {
			execlp("my_print_defaults", "my_print_defaults",
			       "--mysqld", (char *)NULL);
		}
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(fds[1]);
	return fdopen(fds[0], "r");
}

int ut_mycnf_from_tool(const char *defaults_file, struct ut_mycnf *cnf,
		       char *err, size_t errlen)
{
	char line[PATH_MAX + 128], *eq;
	int status;
	pid_t pid;
	FILE *out;

	memset(cnf, 0, sizeof(*cnf));
	out = run_tool(defaults_file, &pid);
	if (!out) {
		snprintf(err, errlen, "cannot run my_print_defaults: %s",
			 strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		eq = strchr(line, '=');
		if (eq)
			*eq++ = '\0';
		ut_mycnf_option(cnf, line, eq);
	}
	fclose(out);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		status = 1 << 8;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	if (WEXITSTATUS(status)) {
		snprintf(err, errlen, "my_print_defaults%s%s failed (exit %d)",
			 defaults_file ? " --defaults-file=" : "",
			 defaults_file ? defaults_file : "",
			 WEXITSTATUS(status));
		return -EINVAL;
	}
	snprintf(cnf->source, sizeof(cnf->source),
		 "my_print_defaults%s%s --mysqld",
		 defaults_file ? " --defaults-file=" : "",
		 defaults_file ? defaults_file : "");
	return 0;
}
