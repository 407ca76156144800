// SPDX-License-Identifier: MIT
/*
 * untorn-fscheck - may the doublewrite buffer be turned off on the
 * filesystem under PATH?  Prints the filesystem's facts and a verdict for
 * an engine with one LSN per page (InnoDB, MariaDB) and for untorn's
 * guards.  Exit status: 0 safe, 1 unsafe, 2 error; it answers InnoDB's
 * question unless --engine untorn is given.  With --mysql it asks a
 * MySQL/MariaDB server's own options instead (mysql/server_check.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/parse.h"
#include "base/json_quote.h"
#include "fscaps.h"
#include "guard/guard.h"
#include "mysql/server_check.h"
#include "probe/measure.h"
#include "probe/split_probe.h"

/*
 * --measure's SECONDS: the default, and the least that gives three rounds
 * of four runs (three guards and the 4x redo log) 5 s of warm-up and 10 s
 * measured (scripts/doublewrite-cost refuses less too; the help below says
 * both, and measure_test.sh reads the least from it)
 */
#define MEASURE_DEFAULT_S 420u
#define MEASURE_MIN_S 220u
/* --probe's SECONDS when none are given */
#define PROBE_DEFAULT_S 10u

static const char help_head[] =
	"usage: untorn-fscheck PATH [--page-size SIZE] [--engine innodb|untorn] [--probe[=SECONDS]]\n"
	"                      [--measure[=SECONDS]] [--json]\n"
	"       untorn-fscheck --mysql [--defaults-file FILE] [--measure[=SECONDS] DIR]\n"
	"                      [--json]\n"
	"\n"
	"Reads what the filesystem under PATH guarantees (type, mount options such\n"
	"as data=journal and barriers, block size, O_DIRECT alignment, atomic write\n"
	"units, device, journal) and says whether turning a doublewrite buffer off\n"
	"is safe there:\n"
	"  for InnoDB/MariaDB (one LSN per page, default page size 16k), and\n";

/* after the line print_help makes, "  for untorn's guards: ...": */
static const char help_tail[] =
	"\n"
	"exit status: 0 safe, 1 unsafe, 2 error.  The status answers the InnoDB\n"
	"question unless --engine untorn is given (then: safe when a guard other\n"
	"than doublewrite is safe for untorn).\n"
	"\n"
	"--probe[=SECONDS] backs the verdict with a measurement on this mount: it\n"
	"writes pages to an unnamed file there for SECONDS (default %u), a log\n"
	"file fdatasynced beside them, while ebpf/torn-split.bt counts how many\n"
	"straddle two jbd2 transactions (root, tracefs and bpftrace needed;\n"
	"without them the line says what is missing).\n"
	"\n"
	"--measure[=SECONDS] then measures what turning the doublewrite off buys\n"
	"here, and what a larger redo log buys instead: untorn's flush-bound\n"
	"preset (8 threads, lazy commits) for doublewrite, none and the guard\n"
	"without a second copy that is safe here, each with a redo log of the\n"
	"server's capacity (100 MiB, MySQL's default, unless --mysql reads the\n"
	"server's), and doublewrite with 4x that log, in alternating rounds\n"
	"(doublewrite, none, the guard, the 4x, then backwards; at least 3), in\n"
	"a directory of its own inside PATH (removed afterwards), sized to take\n"
	"about SECONDS (default %u, at least %u: ~15 s of fio and ~3 s a run\n"
	"to load its store once, then a round of four runs is 4 x (~1 s +\n"
	"warm-up + measured), at least 64 s; as many rounds as leave a run\n"
	"16 s, at most 9: the default's 5 measure 13 s a run after 5 s of\n"
	"warm-up), with fio's figures for the disk; a table of median\n"
	"[min-max] over the rounds and one sentence, which calls a difference\n"
	"one only when every round agrees and says which lever buys more\n"
	"(in --json, one object with the verdict in it).\n"
	"Exit 2 when the measurement fails.\n"
	"\n"
	"--mysql asks a MySQL or MariaDB server instead: its options (from\n"
	"my_print_defaults --mysqld, else the option files with their !include\n"
	"and !includedir; --defaults-file FILE reads that file alone), the page\n"
	"size its system tablespace was made with, and every directory InnoDB\n"
	"writes to (datadir, innodb_data_home_dir, innodb_undo_directory,\n"
	"innodb_doublewrite_dir, tables' DATA DIRECTORY, the redo log's\n"
	"innodb_log_group_home_dir).  One verdict per directory, one for the\n"
	"server, the [mysqld] lines and the /etc/fstab change; 0 when\n"
	"innodb_doublewrite may be OFF, 1 when it must stay ON, 2 error.\n"
	"With --measure DIR it then measures in DIR, a scratch directory on the\n"
	"datadir's filesystem and outside the datadir (nothing is written among\n"
	"the server's files), at the server's page size; in --json one object,\n"
	"{\"server\": ..., \"measure\": ...}.\n";

/* --probe's and --measure's SECONDS: none is dflt; from min to max */
static int parse_seconds(const char *s, unsigned dflt, unsigned min,
			 unsigned max, unsigned *out)
{
	uint64_t v;

	if (!s) {
		*out = dflt;
		return 0;
	}
	if (ut_parse_count(s, min, max, &v))
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int parse_page_size(const char *s, uint32_t *out)
{
	uint64_t v;
	int ret = ut_parse_size(s, 65536, &v);

	if (ret)
		return ret;
	if (v < 4096 || (v & (v - 1)))
		return -ERANGE;
	*out = v;
	return 0;
}

static void json_str(const char *key, const char *val, int comma)
{
	printf("  \"%s\": ", key);
	json_quote(stdout, val);
	printf("%s\n", comma ? "," : "");
}

static const char *data_mode_name(const struct ut_fscaps *c)
{
	static const char *const names[] = { "n/a", "ordered", "journal",
					     "writeback" };

	return c->no_journal ? "none (no journal)" : names[c->data_mode];
}

/* what the devices under the filesystem write whole (the sector guard) */
static void stack_text(const struct ut_fscaps *c)
{
	char layers[512];

	ut_block_stack_describe(&c->stack, layers, sizeof(layers));
	if (c->stack.unit)
		printf("written whole   %u bytes: %s\n", c->stack.unit, layers);
	else
		printf("written whole   unknown: %s\n", c->stack.unknown);
}

/* btrfs: copy-on-write, or the first thing that is NOCOW */
static void cow_text(const struct ut_fscaps *c)
{
	printf("copy-on-write   ");
	if (c->nocow_mount)
		printf("NO: mounted nodatacow");
	else if (c->nocow_path)
		printf("NO: the path is NOCOW (chattr +C)");
	else if (c->nocow)
		printf("NO: %s is NOCOW (chattr +C)", c->nocow_first);
	else if (c->scan_incomplete)
		printf("not proven: not every entry under the path could be read");
	else
		printf("yes");
	printf(" (%u of %u files, %u of %u directories NOCOW)\n",
	       c->nocow_files, c->files_seen, c->nocow_dirs, c->dirs_seen);
}

static void facts_text(const struct ut_fscaps *c)
{
	uint64_t journal = ut_fscaps_journal_bytes(c);

	printf("path            %s\n", c->path);
	printf("filesystem      %s on %s, mounted at %s\n", c->mnt.fstype,
	       c->mnt.source, c->mnt.mount_point);
	printf("mount options   per mount (VFS) %s; per filesystem (superblock) %s\n",
	       c->mnt.mount_opts, c->mnt.super_opts);
	printf("data mode       %s; commit %s; barriers %s\n",
	       data_mode_name(c), c->commit_s < 0 ? "default" : "set",
	       c->barrier ? "on" : "OFF");
	printf("block size      %u\n", c->fs_block);
	if (!strcmp(c->mnt.fstype, "ext4") && c->data_mode != UT_DATA_JOURNAL)
		printf("chattr +j       %s; delayed allocation %s\n",
		       c->journal_flag ? "set (per-file data journaling)" :
					 "not set",
		       c->delalloc ? "on (+j has no effect)" :
				     "off (nodelalloc)");
	if (!strcmp(c->mnt.fstype, "btrfs"))
		cow_text(c);
	stack_text(c);
	printf("O_DIRECT        %s (memory %u, offset %u)\n",
	       c->dio_offset_align ? "yes" : "no or unknown", c->dio_mem_align,
	       c->dio_offset_align);
	printf("atomic writes   %u..%u bytes (statx; the device's own up to %u), device %llu..%llu max %llu\n",
	       c->atomic_min, c->atomic_max, c->atomic_max_opt,
	       (unsigned long long)c->dev_atomic_unit_min,
	       (unsigned long long)c->dev_atomic_unit_max,
	       (unsigned long long)c->dev_atomic_max);
	printf("device          %s, %s\n",
	       c->dev_name[0] ? c->dev_name : "none",
	       c->rotational < 0 ? "rotational unknown" :
	       c->rotational	 ? "rotational" :
				   "non-rotational");
	if (journal)
		printf("jbd2 journal    %llu MiB (the superblock's journal size)\n",
		       (unsigned long long)(journal >> 20));
	if (c->jbd2_max_txn_blocks)
		printf("jbd2 journal    transactions of up to %u blocks (%u MiB)\n",
		       c->jbd2_max_txn_blocks,
		       (unsigned)((uint64_t)c->jbd2_max_txn_blocks *
					  c->fs_block >>
				  20));
	printf("untorn_jw       %s\n",
	       c->jw_module ?
		       "loaded: only a program that writes through /dev/untorn_jw (untorn's journal guard) gets whole-page transactions; InnoDB/MariaDB do not, and their verdict does not change" :
		       "not loaded (no /dev/untorn_jw): it serves only programs that write through it (untorn's journal guard), never InnoDB/MariaDB");
}

static void verdict_text(const char *who, const struct ut_verdict *v)
{
	printf("%-28s %s: %s", who, v->safe ? "SAFE" : "UNSAFE", v->reason);
	if (!v->safe && v->fix[0])
		printf("; fix: %s", v->fix);
	printf("\n");
}

static void verdict_json(const char *key, const struct ut_verdict *v, int comma)
{
	printf("  \"%s\": {\"safe\": %s, ", key, v->safe ? "true" : "false");
	printf("\"reason\": \"%s\", \"fix\": \"%s\"}%s\n", v->reason, v->fix,
	       comma ? "," : "");
}

static void probe_json(const struct ut_split_probe *pr)
{
	printf("  \"probe\": {\"measured\": %s, \"pages\": %lu, \"split\": %lu, ",
	       pr->measured ? "true" : "false", pr->pages, pr->split);
	printf("\"seconds\": %u, \"sync_every\": %u, ", pr->seconds,
	       pr->sync_every);
	json_str("why", pr->why, 0);
	printf("  },\n");
}

static void probe_text(const struct ut_split_probe *pr, uint32_t ps)
{
	if (!pr->measured) {
		printf("measured here   not measured: %s\n", pr->why);
		return;
	}
	printf("measured here   %lu of %lu %u-byte page writes split across two jbd2 transactions (%.3f%%) in %u s, an fdatasync every %u, a log fdatasynced beside them\n",
	       pr->split, pr->pages, ps,
	       pr->pages ? 100.0 * pr->split / pr->pages : 0.0, pr->seconds,
	       pr->sync_every);
}

static void report_json(const struct ut_fscaps *c, uint32_t ps,
			const struct ut_verdict *v,
			const struct ut_guard_ops **shown, unsigned n,
			const struct ut_split_probe *pr)
{
	char layers[512], key[64];
	unsigned i;

	printf("{\n");
	json_str("path", c->path, 1);
	json_str("fstype", c->mnt.fstype, 1);
	json_str("source", c->mnt.source, 1);
	json_str("mount_point", c->mnt.mount_point, 1);
	json_str("mount_options", c->mnt.super_opts, 1);
	json_str("data_mode", c->no_journal ? "none" : data_mode_name(c), 1);
	printf("  \"commit_s\": %d,\n  \"barrier\": %s,\n", c->commit_s,
	       c->barrier ? "true" : "false");
	printf("  \"block_size\": %u,\n  \"page_size\": %u,\n", c->fs_block,
	       ps);
	printf("  \"dio_mem_align\": %u,\n  \"dio_offset_align\": %u,\n",
	       c->dio_mem_align, c->dio_offset_align);
	printf("  \"atomic_write_unit_min\": %u,\n  \"atomic_write_unit_max\": %u,\n",
	       c->atomic_min, c->atomic_max);
	printf("  \"atomic_write_unit_max_opt\": %u,\n", c->atomic_max_opt);
	printf("  \"device_atomic_write_max_bytes\": %llu,\n",
	       (unsigned long long)c->dev_atomic_max);
	json_str("device", c->dev_name, 1);
	printf("  \"rotational\": %d,\n  \"jbd2_max_transaction_blocks\": %u,\n",
	       c->rotational, c->jbd2_max_txn_blocks);
	printf("  \"jbd2_journal_bytes\": %llu,\n",
	       (unsigned long long)ut_fscaps_journal_bytes(c));
	printf("  \"untorn_jw_loaded\": %s,\n",
	       c->jw_module ? "true" : "false");
	ut_block_stack_describe(&c->stack, layers, sizeof(layers));
	printf("  \"stack_atomic_unit\": %u,\n", c->stack.unit);
	json_str("stack_layers", layers, 1);
	json_str("stack_unknown", c->stack.unknown, 1);
	printf("  \"no_journal\": %s,\n  \"nocow\": %s,\n  \"nocow_files\": %u,\n",
	       c->no_journal ? "true" : "false", c->nocow ? "true" : "false",
	       c->nocow_files);
	printf("  \"nocow_dirs\": %u,\n  \"files_seen\": %u,\n  \"dirs_seen\": %u,\n",
	       c->nocow_dirs, c->files_seen, c->dirs_seen);
	printf("  \"nocow_scan_complete\": %s,\n",
	       c->scan_incomplete ? "false" : "true");
	json_str("nocow_first", c->nocow_first, 1);
	printf("  \"journal_data_flag\": %s,\n  \"delalloc\": %s,\n",
	       c->journal_flag ? "true" : "false",
	       c->delalloc ? "true" : "false");
	if (pr)
		probe_json(pr);
	verdict_json("innodb_doublewrite_off", &v[0], n > 0);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "untorn_%s", shown[i]->name);
		verdict_json(key, &v[i + 1], i + 1 < n);
	}
	printf("}\n");
}

#define GUARDS_MAX 16

/*
 * The guards whose verdict is given: every guard of the table that keeps
 * pages whole (not one that needs --unsafe), those without a copy of
 * their own first (the alternatives to a doublewrite buffer), then those
 * with one.
 */
/* The block size `untorn init --guard` would give a store here: the
 * guard's choice, else the filesystem block's (no larger than a page). */
static uint32_t init_block_size(const struct ut_guard_ops *ops,
				const struct ut_fscaps *caps, uint32_t ps)
{
	struct ut_guard_args none = { 0 };
	struct ut_err err;
	uint32_t bs = 0;

	if (ops->block_size && ops->block_size(caps, ps, &none, &bs, &err))
		bs = 0;
	if (!bs)
		bs = caps->fs_block;
	return bs < ps ? bs : ps;
}

static unsigned guards_shown(const struct ut_guard_ops **shown)
{
	const struct ut_guard_ops *ops;
	unsigned i, n = 0, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; (ops = ut_guard_at(i)) && n < GUARDS_MAX; i++)
			if (!ops->needs_unsafe && !ops->file == !pass)
				shown[n++] = ops;
	return n;
}

/*
 * PATH is a directory (the man page: "any existing directory"): a file
 * or a device is refused, naming what to give instead.  2, or 0 for a
 * directory and for a path that is not there (the probe says so).
 */
static int path_not_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat sb;

	if (stat(path, &sb) || S_ISDIR(sb.st_mode))
		return 0;
	if (!S_ISREG(sb.st_mode)) {
		fprintf(stderr,
			"untorn-fscheck: %s: not a directory but a device or special file; give a directory on the filesystem to check, e.g. the database's datadir\n",
			path);
		return 2;
	}
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s",
			 slash == path ? 1 : (int)(slash - path), path);
	fprintf(stderr,
		"untorn-fscheck: %s: a file, not a directory; give the directory it is in (%s), e.g. the database's datadir\n",
		path, dir);
	return 2;
}

/* --help, naming every guard the verdict judges: this build's */
static void print_help(void)
{
	const struct ut_guard_ops *shown[GUARDS_MAX];
	unsigned i, n = guards_shown(shown);

	fputs(help_head, stdout);
	printf("  for untorn's guards (per-block LSNs):");
	for (i = 0; i < n; i++) {
		if (i)
			fputs(i + 1 < n ? "," : " and", stdout);
		printf(" %s", shown[i]->name);
	}
	printf(".\n");
	printf(help_tail, PROBE_DEFAULT_S, MEASURE_DEFAULT_S, MEASURE_MIN_S);
}

/* --engine untorn: is a guard that writes no second copy safe here? */
static int copyless_safe(const struct ut_guard_ops **shown,
			 const struct ut_verdict *v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!shown[i]->file && v[i].safe)
			return 1;
	return 0;
}

/* opt (--probe, --measure) cannot write in dir: the cause, and its fix. */
static int cannot_write(const char *opt, const char *dir,
			const struct ut_fscaps *caps, int ret)
{
	const char *fix = "give a directory on a local filesystem with room";

	if (ret == -EROFS) {
		fprintf(stderr,
			"untorn-fscheck: %s: %s is on a read-only mount (%s); remount it rw (mount -o remount,rw %s) or give a directory on a writable filesystem\n",
			opt, dir, caps->mnt.mount_point, caps->mnt.mount_point);
		return 2;
	}
	if (ret == -EACCES || ret == -EPERM)
		fix = geteuid() ?
			      "give a directory this user can write to, or run as root" :
			      "give another directory (lsattr -d shows an immutable one)";
	else if (ret == -ENOSPC || ret == -EDQUOT)
		fix = "free some space there, or give a directory on a filesystem with room";
	fprintf(stderr,
		"untorn-fscheck: %s: cannot write pages in %s: %s; %s\n", opt,
		dir, strerror(-ret), fix);
	return 2;
}

/*
 * --measure: after the verdict, the measurement (the script prints it;
 * in --json, the one object with the verdict in it).  The status is the
 * verdict's, or 2 when the measurement failed.
 */
static int measure_after(const struct ut_measure_args *a, int safe)
{
	int ret;

	if (!a->as_json)
		printf("\n");
	ret = ut_measure(a);
	if (ret == -ENOENT) {
		fprintf(stderr,
			"untorn-fscheck: --measure: the measuring script (scripts/doublewrite-cost, installed as share/untorn/scripts/doublewrite-cost) is not beside this program; run make install, or the untorn-fscheck of a built checkout\n");
		return 2;
	}
	if (ret < 0) {
		fprintf(stderr,
			"untorn-fscheck: --measure: the measurement %s\n",
			ret == -EINTR ? "was killed" : "could not be started");
		return 2;
	}
	if (ret == 2)
		return 2; /* it said why */
	return safe ? 0 : 1;
}

/*
 * --mysql --measure DIR: the server's verdict, then the measurement in
 * DIR, a scratch directory on the datadir's filesystem, at the server's
 * page size; in --json one object, {"server": ..., "measure": ...}.
 * The status is the server's verdict, or 2.
 */
static int mysql_measure(const char *dir, const char *defaults_file,
			 unsigned seconds, int as_json)
{
	struct ut_measure_args a = { .path = dir,
				     .seconds = seconds,
				     .as_json = as_json };
	struct ut_mysql_facts facts = { 0 };
	char datadir[PATH_MAX];
	int ret;

	ret = ut_mysql_datadir(defaults_file, datadir, sizeof(datadir));
	if (!ret)
		ret = ut_measure_check_dir(dir, datadir);
	if (ret)
		return ret;
	if (as_json)
		printf("{\"server\": ");
	ret = ut_mysql_check(defaults_file, as_json, &facts);
	if (ret == 2) {
		if (as_json)
			printf("null, \"measure\": null}\n");
		return 2;
	}
	if (as_json)
		printf(", \"measure\": ");
	/* measured at the server's page size and redo capacity */
	a.page_size = facts.page_size;
	a.redo_bytes = facts.redo_bytes;
	ret = measure_after(&a, ret == 0);
	if (as_json)
		printf("%s}\n", ret == 2 ? "null" : "");
	return ret;
}

/* --mysql: the server says where its pages are and how large */
static int mysql_main(int paths, char **path, const char *defaults_file,
		      int mysql, int other_opts, unsigned measure_s,
		      int as_json)
{
	if (!mysql) {
		fprintf(stderr,
			"untorn-fscheck: --defaults-file goes with --mysql; add --mysql\n");
		return 2;
	}
	if (other_opts || (paths && !measure_s)) {
		fprintf(stderr,
			"untorn-fscheck: --mysql takes its directories and page size from the server; drop PATH, --page-size, --engine and --probe (a directory goes with --measure: where to measure)\n");
		return 2;
	}
	if (!measure_s)
		return ut_mysql_check(defaults_file, as_json, NULL);
	if (paths != 1) {
		fprintf(stderr,
			"untorn-fscheck: --mysql --measure writes nothing among the server's files: give one scratch directory on the datadir's filesystem to measure in, e.g. untorn-fscheck --mysql --measure /var/lib/untorn-scratch\n");
		return 2;
	}
	return mysql_measure(path[0], defaults_file, measure_s, as_json);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "page-size", required_argument, NULL, 'p' },
		{ "engine", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "mysql", no_argument, NULL, 'm' },
		{ "defaults-file", required_argument, NULL, 'd' },
		{ "probe", optional_argument, NULL, 'P' },
		{ "measure", optional_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	const struct ut_guard_ops *shown[GUARDS_MAX];
	struct ut_verdict v[GUARDS_MAX + 1];
	char who[64];
	unsigned i, n;
	struct ut_fscaps caps;
	uint32_t ps = 16384;
	const char *defaults_file = NULL;
	struct ut_split_probe probe;
	unsigned probe_s = 0, measure_s = 0;
	int c, as_json = 0, untorn = 0, mysql = 0, page_given = 0,
	       engine_given = 0, safe, ret;
	char what[256];

	opterr = 0; /* refusals are one line, ours */
	while ((c = getopt_long(argc, argv, "p:e:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_page_size(optarg, &ps)) {
				fprintf(stderr,
					"untorn-fscheck: page size '%s' is not a power of two from 4k to 64k; use e.g. --page-size 16k\n",
					optarg);
				return 2;
			}
			page_given = 1;
			break;
		case 'e':
			if (strcmp(optarg, "innodb") &&
			    strcmp(optarg, "untorn")) {
				fprintf(stderr,
					"untorn-fscheck: unknown engine '%s'; use --engine innodb or --engine untorn\n",
					optarg);
				return 2;
			}
			untorn = !strcmp(optarg, "untorn");
			engine_given = 1;
			break;
		case 'j':
			as_json = 1;
			break;
		case 'm':
			mysql = 1;
			break;
		case 'd':
			defaults_file = optarg;
			break;
		case 'P':
			if (parse_seconds(optarg, PROBE_DEFAULT_S, 1, 3600,
					  &probe_s)) {
				fprintf(stderr,
					"untorn-fscheck: --probe=%s: give whole seconds from 1 to 3600, e.g. --probe=10\n",
					optarg);
				return 2;
			}
			break;
		case 'M':
			if (parse_seconds(optarg, MEASURE_DEFAULT_S,
					  MEASURE_MIN_S, 86400, &measure_s)) {
				fprintf(stderr,
					"untorn-fscheck: --measure=%s: give whole seconds from %u to 86400 (three rounds of four runs need %u), e.g. --measure=%u\n",
					optarg, MEASURE_MIN_S, MEASURE_MIN_S,
					MEASURE_DEFAULT_S);
				return 2;
			}
			break;
		case 'h':
			print_help();
			return 0;
		case 'V':
			printf("untorn-fscheck %s\n", UNTORN_VERSION);
			return 0;
		default:
			ut_getopt_error(argv, what, sizeof(what));
			fprintf(stderr,
				"untorn-fscheck: %s; try 'untorn-fscheck --help'\n",
				what);
			return 2;
		}
	}
	if (measure_s && probe_s) {
		fprintf(stderr,
			"untorn-fscheck: --measure and --probe each write for a while; give one, then the other\n");
		return 2;
	}
	if (mysql || defaults_file)
		return mysql_main(argc - optind, argv + optind, defaults_file,
				  mysql, page_given || engine_given || probe_s,
				  measure_s, as_json);
	if (optind != argc - 1) {
		fprintf(stderr,
			"untorn-fscheck: give exactly one PATH; try 'untorn-fscheck --help'\n");
		return 2;
	}
	if (path_not_dir(argv[optind]))
		return 2;
	ret = ut_fscaps_probe(argv[optind], &caps);
	if (ret) {
		fprintf(stderr,
			"untorn-fscheck: %s: %s; give an existing directory, e.g. the database's datadir\n",
			argv[optind], strerror(-ret));
		return 2;
	}
	if (!caps.durable) {
		fprintf(stderr,
			"untorn-fscheck: %s: on %s, which keeps no crash-safe copy on a block device; check the directory where the data really lives (a local ext4 or XFS mount)\n",
			argv[optind], caps.mnt.fstype);
		return 2;
	}
	/* both write there: refused before the report */
	if ((measure_s || probe_s) && access(argv[optind], W_OK))
		return cannot_write(measure_s ? "--measure" : "--probe",
				    argv[optind], &caps, -errno);
	if (probe_s) {
		ret = ut_split_probe(&caps, ps, probe_s, &probe);
		if (ret)
			return cannot_write("--probe", argv[optind], &caps,
					    ret);
		if (probe.measured) {
			caps.probe_pages = probe.pages;
			caps.probe_split = probe.split;
		}
	}
	ut_fscaps_innodb_verdict(&caps, ps, &v[0]);
	n = guards_shown(shown);
	for (i = 0; i < n; i++)
		ut_guard_verdict(shown[i], &caps, ps,
				 init_block_size(shown[i], &caps, ps),
				 &v[i + 1]);
	safe = untorn ? copyless_safe(shown, v + 1, n) : v[0].safe;
	if (as_json && !measure_s) {
		report_json(&caps, ps, v, shown, n, probe_s ? &probe : NULL);
	} else if (!as_json) {
		facts_text(&caps);
		if (probe_s)
			probe_text(&probe, ps);
		printf("\ndoublewrite buffer off, %u-byte pages:\n", ps);
		verdict_text("InnoDB (one LSN per page)", &v[0]);
		for (i = 0; i < n; i++) {
			snprintf(who, sizeof(who), "untorn --guard %s",
				 shown[i]->name);
			verdict_text(who, &v[i + 1]);
		}
	}
	if (measure_s) {
		struct ut_measure_args a = { .path = argv[optind],
					     .seconds = measure_s,
					     .page_size = ps,
					     .untorn_engine = untorn,
					     .as_json = as_json };

		return measure_after(&a, safe);
	}
	return safe ? 0 : 1;
}
