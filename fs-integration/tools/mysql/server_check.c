// SPDX-License-Identifier: MIT
/*
 * server_check.c - untorn-fscheck --mysql: may this MySQL/MariaDB server
 * run with innodb_doublewrite off?  Takes the server's options (datadir,
 * innodb_page_size, innodb_doublewrite, the InnoDB directories), reads
 * the real page size from the system tablespace, checks the filesystem
 * of every directory InnoDB writes pages to (tables placed elsewhere by
 * DATA DIRECTORY included), and prints a verdict per directory, one for
 * the server, the [mysqld] lines to paste and the /etc/fstab change that
 * would make a directory safe.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/err.h"
#include "base/parse.h"
#include "base/json_quote.h"
#include "fscaps.h"
#include "fstab_line.h"
#include "ibdata.h"
#include "mycnf.h"
#include "server_check.h"

#define PLACES_MAX 32
#define ISL_NAMED_MAX 3 /* DATA DIRECTORY tables named per directory */

struct place {
	char path[PATH_MAX]; /* where the server puts its files */
	char probed[PATH_MAX]; /* the existing directory asked: path, or
				* its nearest existing parent */
	char roles[512];
	int pages; /* holds InnoDB pages (not only the redo log) */
	unsigned isl_tables;
	struct ut_fscaps caps;
	struct ut_verdict v;
};

struct server {
	const char *defaults_file; /* NULL: the server's own list */
	struct ut_mycnf cnf;
	char datadir[PATH_MAX];
	int datadir_default;
	char ibdata[PATH_MAX];

	uint32_t page_size;
	char page_from[3 * PATH_MAX];
	int dblwr_on;
	uint64_t redo_bytes; /* 0: not set, the server's default */
	char redo_from[160];
	struct place places[PLACES_MAX];
	int n_places;
};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("untorn-fscheck: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int read_options(const char *defaults_file, struct ut_mycnf *cnf)
{
	char err[PATH_MAX + 128] = "";
	struct stat st;
	int ret;

	if (defaults_file && access(defaults_file, R_OK))
		return fail("--defaults-file %s: %s; give the server's option file (e.g. /etc/mysql/my.cnf)",
			    defaults_file, strerror(errno));
	/* my_print_defaults reads a directory as an empty file, and the
	 * verdict would then be about the default datadir */
	if (defaults_file && (stat(defaults_file, &st) || !S_ISREG(st.st_mode)))
		return fail("--defaults-file %s is not a file; give the server's option file (e.g. /etc/mysql/my.cnf), not a directory",
			    defaults_file);
	ret = ut_mycnf_from_tool(defaults_file, cnf, err, sizeof(err));
	if (ret == -ENOENT)
		ret = ut_mycnf_from_files(defaults_file, cnf, err, sizeof(err));
	if (ret)
		return fail("cannot read the server's options: %s; fix the option file or give one with --defaults-file",
			    err);
	return 0;
}

/* path resolved as the server does: empty is the datadir, relative is
 * under the datadir */
static void resolve(const struct server *s, const char *opt, char *out,
		    size_t len)
{
	int n;

	if (!opt[0])
		n = snprintf(out, len, "%s", s->datadir);
	else if (opt[0] == '/')
		n = snprintf(out, len, "%s", opt);
	else
		n = snprintf(out, len, "%s/%s", s->datadir,
			     strncmp(opt, "./", 2) ? opt : opt + 2);
	if (n < 0 || (size_t)n >= len)
		out[0] = '\0'; /* longer than PATH_MAX: no directory */
	while (strlen(out) > 1 && out[strlen(out) - 1] == '/')
		out[strlen(out) - 1] = '\0';
}

static int parse_doublewrite(struct server *s)
{
	static const char *const on[] = {
		"1", "on", "true", "fast", "detect_and_recover", NULL
	};
	static const char *const off[] = { "0", "off", "false", "detect_only",
					   NULL };
	const char *w = s->cnf.doublewrite;
	int i;

	s->dblwr_on = 1;
	if (!w[0])
		return 0;
	for (i = 0; on[i]; i++)
		if (!strcasecmp(w, on[i]))
			return 0;
	for (i = 0; off[i]; i++)
		if (!strcasecmp(w, off[i])) {
			s->dblwr_on = 0;
			return 0;
		}
	return fail("innodb_doublewrite = %s in %s is not a value the server takes; use ON or OFF",
		    w, s->cnf.source);
}

/* innodb_page_size from the options: 4k..64k, "16k" or "16384" */
static int option_page_size(const struct server *s, uint32_t *ps)
{
	uint64_t v;

	if (!s->cnf.page_size[0]) {
		*ps = 16384;
		return 0;
	}
	if (ut_parse_size(s->cnf.page_size, 65536, &v) || v < 4096 ||
	    (v & (v - 1)))
		return fail("innodb_page_size = %s in %s is not a power of two from 4k to 64k; fix the option file",
			    s->cnf.page_size, s->cnf.source);
	*ps = (uint32_t)v;
	return 0;
}

/* The fix for a file the check could not read: root only helps where
 * permission was the cause. */
static const char *read_fix(int ret)
{
	if (ret == -EACCES || ret == -EPERM)
		return "run as the server's user or as root";
	return "check the path and the device under it (dmesg shows I/O errors)";
}

/* the page size: the system tablespace's own, else the option's */
static int find_page_size(struct server *s)
{
	char first[PATH_MAX], home[PATH_MAX];
	const char *format;
	uint32_t opt = 16384;
	int ret;

	ret = option_page_size(s, &opt);
	if (ret)
		return ret;
	snprintf(first, sizeof(first), "%s",
		 s->cnf.data_file_path[0] ? s->cnf.data_file_path : "ibdata1");
	first[strcspn(first, ";:")] = '\0';
	resolve(s, s->cnf.data_home_dir, home, sizeof(home));
	if (snprintf(s->ibdata, sizeof(s->ibdata), "%s/%s", home, first) >=
	    (int)sizeof(s->ibdata))
		return fail(
			"innodb_data_file_path and innodb_data_home_dir make a path longer than PATH_MAX; fix the option file");
	ret = ut_ibdata_page_size(s->ibdata, &s->page_size, &format);
	if (ret == -ENOENT) {
		s->page_size = opt;
		ret = snprintf(s->page_from, sizeof(s->page_from),
			       "%s (%s; %s does not exist yet)",
			       s->cnf.page_size[0] ? "innodb_page_size" :
						     "the default",
			       s->cnf.source, s->ibdata);
		if (ret >= (int)sizeof(s->page_from))
			s->page_from[sizeof(s->page_from) - 1] = '\0';
		return 0;
	}
	if (ret == -EILSEQ)
		return fail("%s: its first page is not an InnoDB tablespace header; check innodb_data_file_path, or run the server's own recovery first",
			    s->ibdata);
	if (ret)
		return fail("%s: %s; %s", s->ibdata, strerror(-ret),
			    read_fix(ret));
	if (snprintf(s->page_from, sizeof(s->page_from), "%s, %s format",
		     s->ibdata, format) < 0)
		s->page_from[0] = '\0';
	if (s->cnf.page_size[0] && opt != s->page_size)
		fprintf(stderr,
			"untorn-fscheck: warning: innodb_page_size = %s, but %s was made with %u-byte pages (the server will not start until the option matches); checking %u\n",
			s->cnf.page_size, s->ibdata, s->page_size,
			s->page_size);
	return 0;
}

/* buf += sep + text, when all of it fits (sep only after something) */
static void append(char *buf, size_t len, const char *sep, const char *text)
{
	size_t used = strlen(buf);

	if (used + strlen(sep) + strlen(text) >= len)
		return;
	snprintf(buf + used, len - used, "%s%s", used ? sep : "", text);
}

/* the nearest directory of path that exists */
static void existing_parent(const char *path, char *out, size_t len)
{
	struct stat st;
	char *slash;

	snprintf(out, len, "%s", path);
	while (stat(out, &st) || !S_ISDIR(st.st_mode)) {
		slash = strrchr(out, '/');
		if (!slash || slash == out) {
			snprintf(out, len, "/");
			return;
		}
		*slash = '\0';
	}
}

static struct place *add_place(struct server *s, const char *path,
			       const char *role, int pages)
{
	struct place *p;
	int i;

	for (i = 0; i < s->n_places; i++) {
		p = &s->places[i];
		if (strcmp(p->path, path))
			continue;
		if (role[0] && !strstr(p->roles, role))
			append(p->roles, sizeof(p->roles), ", ", role);
		p->pages |= pages;
		return p;
	}
	if (s->n_places == PLACES_MAX)
		return NULL;
	p = &s->places[s->n_places++];
	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	snprintf(p->roles, sizeof(p->roles), "%s", role);
	p->pages = pages;
	return p;
}

/* the DATA DIRECTORY of one table: the .isl file in DB/ names its .ibd */
static void add_isl(struct server *s, const char *db, const char *name)
{
	char isl[PATH_MAX * 2], target[PATH_MAX], *slash, role[PATH_MAX];
	struct place *p;
	FILE *f;

	snprintf(isl, sizeof(isl), "%s/%s/%s", s->datadir, db, name);
	f = fopen(isl, "r");
	if (!f)
		return;
	if (!fgets(target, sizeof(target), f))
		target[0] = '\0';
	fclose(f);
	target[strcspn(target, "\n")] = '\0';
	slash = strrchr(target, '/');
	if (target[0] != '/' || !slash)
		return;
	*slash = '\0';
	snprintf(role, sizeof(role), "DATA DIRECTORY of %s/%.*s", db,
		 (int)(strlen(name) - 4), name);
	p = add_place(s, target[0] ? target : "/", "", 1);
	if (!p)
		return;
	if (p->isl_tables++ < ISL_NAMED_MAX)
		append(p->roles, sizeof(p->roles), ", ", role);
}

static void add_isl_places(struct server *s)
{
	struct dirent *db, *f;
	DIR *top, *sub;
	char path[PATH_MAX * 2];
	size_t n;

	top = opendir(s->datadir);
	if (!top)
		return;
	while ((db = readdir(top))) {
		if (db->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->datadir, db->d_name);
		sub = opendir(path);
		if (!sub)
			continue;
		while ((f = readdir(sub))) {
			n = strlen(f->d_name);
			if (n > 4 && !strcmp(f->d_name + n - 4, ".isl"))
				add_isl(s, db->d_name, f->d_name);
		}
		closedir(sub);
	}
	closedir(top);
}

static void collect_places(struct server *s)
{
	char dir[PATH_MAX];

	add_place(s, s->datadir, "datadir", 1);
	resolve(s, s->cnf.data_home_dir, dir, sizeof(dir));
	add_place(s, dir, "innodb_data_home_dir (system tablespace)", 1);
	resolve(s, s->cnf.undo_directory, dir, sizeof(dir));
	add_place(s, dir, "innodb_undo_directory", 1);
	if (s->cnf.doublewrite_dir[0]) {
		resolve(s, s->cnf.doublewrite_dir, dir, sizeof(dir));
		add_place(s, dir, "innodb_doublewrite_dir", 1);
	}
	add_isl_places(s);
	resolve(s, s->cnf.log_group_home_dir, dir, sizeof(dir));
	add_place(s, dir, "innodb_log_group_home_dir (redo log)", 0);
}

static int probe_places(struct server *s)
{
	struct place *p;
	int i, ret;

	for (i = 0; i < s->n_places; i++) {
		p = &s->places[i];
		existing_parent(p->path, p->probed, sizeof(p->probed));
		ret = ut_fscaps_probe(p->probed, &p->caps);
		if (ret)
			return fail("%s: %s; %s", p->probed, strerror(-ret),
				    read_fix(ret));
		ut_fscaps_innodb_verdict(&p->caps, s->page_size, &p->v);
	}
	return 0;
}

static const char *mode_name(const struct ut_fscaps *c)
{
	if (c->no_journal)
		return " (no journal)";
	switch (c->data_mode) {
	case UT_DATA_ORDERED:
		return " data=ordered";
	case UT_DATA_JOURNAL:
		return " data=journal";
	case UT_DATA_WRITEBACK:
		return " data=writeback";
	default:
		return "";
	}
}

/* would data=journal make this directory safe?  (the fstab change) */
static int journal_would_fix(const struct server *s, const struct place *p)
{
	struct ut_fscaps what_if = p->caps;
	struct ut_verdict v;

	if (p->v.safe || strcmp(p->caps.mnt.fstype, "ext4") ||
	    p->caps.no_journal || p->caps.data_mode == UT_DATA_JOURNAL)
		return 0;
	what_if.data_mode = UT_DATA_JOURNAL;
	ut_fscaps_innodb_verdict(&what_if, s->page_size, &v);
	return v.safe;
}

/* one size option as the server reads it (digits, then K, M, G or
 * nothing): 0, or exit 2's one line */
static int redo_size(const char *opt, const char *val, const char *src,
		     uint64_t *out)
{
	if (!ut_parse_size(val, 1ull << 50, out) && *out)
		return 0;
	return fail("%s = %s in %s is not a size the server takes; give bytes, or a number with K, M or G",
		    opt, val, src);
}

/*
 * The redo log's capacity: innodb_redo_log_capacity (MySQL 8.0.30+), or
 * innodb_log_file_size times innodb_log_files_in_group (one file unless
 * set: MariaDB 10.5+ has only one; MySQL before 8.0.30 defaults to two).
 */
static int parse_redo(struct server *s)
{
	const struct ut_mycnf *c = &s->cnf;
	uint64_t size, files = 1;
	int ret;

	if (c->redo_log_capacity[0]) {
		snprintf(s->redo_from, sizeof(s->redo_from),
			 "innodb_redo_log_capacity = %s", c->redo_log_capacity);
		return redo_size("innodb_redo_log_capacity",
				 c->redo_log_capacity, c->source,
				 &s->redo_bytes);
	}
	if (!c->log_file_size[0]) {
		snprintf(s->redo_from, sizeof(s->redo_from),
			 "not set: the server's default, 96 MiB on MariaDB 10.5+, 100 MiB on MySQL 8.0.30+");
		return 0;
	}
	ret = redo_size("innodb_log_file_size", c->log_file_size, c->source,
			&size);
	if (ret)
		return ret;
	if (c->log_files_in_group[0] &&
	    ut_parse_count(c->log_files_in_group, 1, 100, &files))
		return fail("innodb_log_files_in_group = %s in %s is not a count from 1 to 100",
			    c->log_files_in_group, c->source);
	s->redo_bytes = size * files;
	snprintf(s->redo_from, sizeof(s->redo_from),
		 "innodb_log_file_size = %s x %llu file%s%s", c->log_file_size,
		 (unsigned long long)files, files > 1 ? "s" : "",
		 c->log_files_in_group[0] ?
			 "" :
			 " (innodb_log_files_in_group not set)");
	return 0;
}

static int server_safe(const struct server *s)
{
	int i;

	for (i = 0; i < s->n_places; i++)
		if (s->places[i].pages && !s->places[i].v.safe)
			return 0;
	return 1;
}

/* The jbd2 journal a place's page writes wait in beside the redo log:
 * its filesystem's, on data=journal; 0 elsewhere or where unreadable. */
static uint64_t place_journal_bytes(const struct place *p)
{
	return p->caps.data_mode == UT_DATA_JOURNAL ?
		       ut_fscaps_journal_bytes(&p->caps) :
		       0;
}

static void print_place(const struct place *p)
{
	const struct ut_fscaps *c = &p->caps;
	uint64_t journal;

	printf("\n%s  (%s)\n", p->path, p->roles);
	if (strcmp(p->path, p->probed))
		printf("    not made yet: the filesystem of %s\n", p->probed);
	printf("    %s%s on %s, mounted at %s, %u-byte blocks\n", c->mnt.fstype,
	       mode_name(c), c->mnt.source, c->mnt.mount_point, c->fs_block);
	if (!p->pages) {
		printf("    redo log only: InnoDB writes it in checksummed 512-byte blocks, no doublewrite involved%s\n",
		       c->data_mode == UT_DATA_JOURNAL ?
			       "; on data=journal every commit also goes through the data journal: data=ordered serves it better" :
			       "");
		return;
	}
	journal = place_journal_bytes(p);
	if (journal)
		printf("    jbd2 journal %llu MiB: on data=journal page writes wait there, durable, before they go home, as in the redo log\n",
		       (unsigned long long)(journal >> 20));
	printf("    doublewrite off: %s: %s", p->v.safe ? "SAFE" : "UNSAFE",
	       p->v.reason);
	if (!p->v.safe && p->v.fix[0])
		printf("; fix: %s", p->v.fix);
	printf("\n");
}

static void print_fstab(const struct server *s)
{
	const struct place *p;
	char line[4096], tool[PATH_MAX];
	int i, j, shown = 0;

	for (i = 0; i < s->n_places; i++) {
		p = &s->places[i];
		if (!journal_would_fix(s, p))
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(s->places[j].caps.mnt.mount_point,
				    p->caps.mnt.mount_point))
				break;
		if (j < i)
			continue;
		if (!shown++)
			printf("\n# /etc/fstab: mount with data=journal (ext4 cannot switch it on remount: unmount and mount again; for / set rootflags=data=journal on the kernel command line; %s %s prints every step, its journal's size included, and --apply carries them out)\n",
			       ut_tool_name("fix-journal", tool, sizeof(tool)),
			       p->caps.mnt.mount_point);
		/* the one rule: scripts/fix-journal prints the same line */
		if (!ut_fstab_line(&p->caps.mnt, "data=journal", line,
				   sizeof(line)))
			printf("%s\n", line);
	}
}

/* the option file the [mysqld] lines belong in, as the user has them */
static const char *where_to_paste(const struct server *s)
{
	static char where[PATH_MAX + 64];
	static const char *const dirs[] = { "/etc/mysql/mariadb.conf.d",
					    "/etc/mysql/mysql.conf.d",
					    "/etc/my.cnf.d", NULL };
	struct stat st;
	int i;

	if (s->defaults_file) {
		snprintf(where, sizeof(where),
			 "in the [mysqld] section of %.*s", PATH_MAX,
			 s->defaults_file);
		return where;
	}
	for (i = 0; dirs[i]; i++)
		if (!stat(dirs[i], &st) && S_ISDIR(st.st_mode)) {
			snprintf(where, sizeof(where),
				 "a new file %s/90-doublewrite.cnf", dirs[i]);
			return where;
		}
	return "in the [mysqld] section of /etc/my.cnf";
}

static void print_text(const struct server *s, int safe)
{
	const char *bad = NULL;
	int i;

	printf("options         %s\n", s->cnf.source);
	printf("datadir         %s%s\n", s->datadir,
	       s->datadir_default ? " (not set: the server's default)" : "");
	printf("page size       %u (%s)\n", s->page_size, s->page_from);
	if (s->cnf.doublewrite[0])
		printf("doublewrite     %s (innodb_doublewrite = %s)\n",
		       s->dblwr_on ? "ON" : "OFF", s->cnf.doublewrite);
	else
		printf("doublewrite     ON (the default)\n");
	printf("flush method    %s\n",
	       s->cnf.flush_method[0] ? s->cnf.flush_method : "the default");
	if (s->redo_bytes)
		printf("redo log        %llu MiB (%s)\n",
		       (unsigned long long)(s->redo_bytes >> 20), s->redo_from);
	else
		printf("redo log        %s\n", s->redo_from);
	for (i = 0; i < s->n_places; i++) {
		print_place(&s->places[i]);
		if (!bad && s->places[i].pages && !s->places[i].v.safe)
			bad = s->places[i].path;
	}
	printf("\nserver: ");
	if (safe && s->dblwr_on)
		printf("SAFE to turn the doublewrite buffer off: every directory InnoDB writes pages to keeps a %u-byte page write whole\n",
		       s->page_size);
	else if (safe)
		printf("SAFE as configured: the doublewrite buffer is off and every directory InnoDB writes pages to keeps a %u-byte page write whole\n",
		       s->page_size);
	else if (s->dblwr_on)
		printf("UNSAFE to turn the doublewrite buffer off: %s can tear a %u-byte page; keep innodb_doublewrite = ON\n",
		       bad, s->page_size);
	else
		printf("AT RISK as configured: the doublewrite buffer is off and %s can tear a %u-byte page, which InnoDB cannot repair after a crash; set innodb_doublewrite = ON and restart\n",
		       bad, s->page_size);
	printf("\n# [mysqld] lines: %s\n[mysqld]\ninnodb_doublewrite = %s\n",
	       where_to_paste(s), safe ? "OFF" : "ON");
	if (!safe)
		print_fstab(s);
}

static void json_string(const char *key, const char *val, const char *tail)
{
	printf("\"%s\": ", key);
	json_quote(stdout, val);
	fputs(tail, stdout);
}

static void print_json(const struct server *s, int safe)
{
	const struct place *p;
	int i;

	printf("{\n  ");
	json_string("options", s->cnf.source, ",\n  ");
	json_string("datadir", s->datadir, ",\n  ");
	printf("\"page_size\": %u,\n  ", s->page_size);
	json_string("page_size_from", s->page_from, ",\n  ");
	printf("\"doublewrite\": %s,\n  ", s->dblwr_on ? "true" : "false");
	/* 0: not set, the server's default */
	printf("\"redo_log_bytes\": %llu,\n  ",
	       (unsigned long long)s->redo_bytes);
	json_string("redo_log_from", s->redo_from, ",\n  ");
	printf("\"directories\": [\n");
	for (i = 0; i < s->n_places; i++) {
		p = &s->places[i];
		printf("    {");
		json_string("path", p->path, ", ");
		json_string("roles", p->roles, ", ");
		json_string("probed", p->probed, ", ");
		json_string("fstype", p->caps.mnt.fstype, ", ");
		json_string("data_mode", mode_name(&p->caps), ", ");
		json_string("mount_point", p->caps.mnt.mount_point, ", ");
		printf("\"pages\": %s, \"safe\": %s, ",
		       p->pages ? "true" : "false",
		       p->v.safe ? "true" : "false");
		json_string("reason", p->v.reason, ", ");
		json_string("fix", p->v.fix, "");
		printf(", \"jbd2_journal_bytes\": %llu",
		       (unsigned long long)place_journal_bytes(p));
		printf(", \"data_journal_would_fix\": %s}%s\n",
		       journal_would_fix(s, p) ? "true" : "false",
		       i + 1 < s->n_places ? "," : "");
	}
	printf("  ],\n  \"doublewrite_off_safe\": %s\n}\n",
	       safe ? "true" : "false");
}

/* the server's options and its datadir (the default when not set) */
static int read_server(struct server *s, const char *defaults_file)
{
	int ret;

	s->defaults_file = defaults_file;
	ret = read_options(defaults_file, &s->cnf);
	if (ret)
		return ret;
	s->datadir_default = !s->cnf.datadir[0];
	snprintf(s->datadir, sizeof(s->datadir), "%s",
		 s->datadir_default ? "/var/lib/mysql" : s->cnf.datadir);
	while (strlen(s->datadir) > 1 &&
	       s->datadir[strlen(s->datadir) - 1] == '/')
		s->datadir[strlen(s->datadir) - 1] = '\0';
	return 0;
}

int ut_mysql_datadir(const char *defaults_file, char *out, size_t len)
{
	struct server *s;
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s)
		return fail("out of memory");
	ret = read_server(s, defaults_file);
	if (!ret)
		snprintf(out, len, "%s", s->datadir);
	free(s);
	return ret;
}

int ut_mysql_check(const char *defaults_file, int as_json,
		   struct ut_mysql_facts *facts)
{
	struct server *s;
	int ret, safe;

	s = calloc(1, sizeof(*s));
	if (!s)
		return fail("out of memory");
	ret = read_server(s, defaults_file);
	if (ret)
		goto out_free;
	ret = parse_doublewrite(s);
	if (!ret)
		ret = parse_redo(s);
	if (!ret)
		ret = find_page_size(s);
	if (ret)
		goto out_free;
	collect_places(s);
	ret = probe_places(s);
	if (ret)
		goto out_free;
	safe = server_safe(s);
	if (facts) {
		facts->page_size = s->page_size;
		facts->redo_bytes = s->redo_bytes;
	}
	if (as_json)
		print_json(s, safe);
	else
		print_text(s, safe);
	ret = safe ? 0 : 1;
out_free:
	free(s);
	return ret;
}
