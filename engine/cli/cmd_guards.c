// SPDX-License-Identifier: MIT
/*
 * cmd_guards.c - `untorn guards`: the guard table as users and scripts
 * read it.  The scripts take their lists of guards and each guard's facts
 * (init's --unsafe, the filesystem it is measured on, the filesystems it
 * is safe and crash-tested on, its fio job) from here, never from a list
 * of their own.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "guard/guard.h"

static const char guards_help[] =
	"usage: untorn guards [--list | --json | --get FACT NAME]\n"
	"\n"
	"The guards this build has: what keeps a page whole across a power cut.\n"
	"\n"
	"  (none)           each guard, its id, what it does and its facts\n"
	"  --list           the names, one a line, in the table's order\n"
	"  --json           every guard's facts, one JSON object\n"
	"  --get FACT NAME  one fact of guard NAME, for scripts:\n"
	"                     id, help, init_flags (--unsafe or nothing),\n"
	"                     expect (safe: no unrecoverable page after a crash on\n"
	"                     its filesystem; detect: torn pages found, not repaired),\n"
	"                     bench_fs (ext4-ordered, ext4-journal, xfs),\n"
	"                     whole_writes (why a page write cannot be cut mid-page,\n"
	"                     or nothing), direct (never, may, must), file,\n"
	"                     restore_phase, options, judges_devices (yes when\n"
	"                     the verdict reads the devices under the filesystem,\n"
	"                     so a store on a device no verdict knows, a model\n"
	"                     or a snapshot, needs --unsafe; or nothing),\n"
	"                     safe_on (the scripts' filesystems, of ext4-ordered,\n"
	"                     ext4-journal and xfs, on which its verdict can pass\n"
	"                     as they are made, the device permitting; nothing\n"
	"                     for a guard init takes only with --unsafe),\n"
	"                     crash_fs (those the power-cut tests cut under it\n"
	"                     on: where its verdict passes as they are made on a\n"
	"                     loop device, with the block size init picks there;\n"
	"                     its bench_fs for a guard that needs --unsafe),\n"
	"                     crash_tested (yes when crash-matrix and the kernel\n"
	"                     suite cut the power under it, or nothing),\n"
	"                     single_lsn (one LSN a page, InnoDB's format, on its\n"
	"                     safe_on filesystems: safe, untorn_jw (safe where\n"
	"                     that module is loaded), no; nothing for a guard\n"
	"                     init takes only with --unsafe), fio_job (its page\n"
	"                     writes without the engine, fio-jobs/JOB.fio; or\n"
	"                     nothing)\n";

static const char *const direct_names[] = {
	[UT_DIRECT_NEVER] = "never",
	[UT_DIRECT_MAY] = "may",
	[UT_DIRECT_MUST] = "must",
};

/* The guard's init options, as init takes them: "--dblwr-dir DIR ...". */
static void options_of(const struct ut_guard_ops *ops, char *out, size_t len)
{
	const struct ut_guard_opt *o;
	size_t n = 0;

	out[0] = '\0';
	if (ops->file && ops->file->dir_opt)
		n += snprintf(out + n, len - n, "--%s DIR", ops->file->dir_opt);
	for (o = ops->opts; o && o->name && n < len; o++)
		n += snprintf(out + n, len - n, "%s--%s %s", n ? " " : "",
			      o->name, o->arg);
}

/*
 * The filesystems the scripts make (scripts/lib/devices.sh), as the
 * verdict sees them: 4 KiB blocks, barriers, ext4 data=ordered with
 * delayed allocation; what only the device tells (its atomic writes,
 * the unit its layers write whole) at its best, so a guard refused on
 * one is refused on every device.
 */
static const struct {
	const char *kind;
	const char *fstype;
	enum ut_data_mode mode;
} fs_kinds[] = {
	{ "ext4-ordered", "ext4", UT_DATA_ORDERED },
	{ "ext4-journal", "ext4", UT_DATA_JOURNAL },
	{ "xfs", "xfs", UT_DATA_NA },
};

/*
 * Kind k's facts: with the device at its best (loop 0: atomic writes of
 * up to 1 MiB, 4 KiB written whole), or as crash-sim and the kernel
 * suite make it on a loop device (loop 1): 512-byte sectors, no atomic
 * unit of its own, so only XFS's software atomic writes (out of place,
 * Linux 6.16+) take an RWF_ATOMIC page.
 */
static void kind_caps(unsigned k, int loop, struct ut_fscaps *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->mnt.fstype, sizeof(c->mnt.fstype), "%s",
		 fs_kinds[k].fstype);
	c->data_mode = fs_kinds[k].mode;
	c->delalloc = fs_kinds[k].mode == UT_DATA_ORDERED;
	c->durable = 1;
	c->barrier = 1;
	c->commit_s = -1;
	c->rotational = -1;
	c->fs_block = 4096;
	c->atomic_min = 512;
	c->atomic_max = 1u << 20;
	c->stack.unit = 4096;
	if (!loop)
		return;
	c->stack.unit = 512;
	if (strcmp(fs_kinds[k].fstype, "xfs"))
		c->atomic_min = c->atomic_max = 0;
}

#define N_KINDS (sizeof(fs_kinds) / sizeof(fs_kinds[0]))

/* Whether the guard's verdict passes on kind k (loop: as kind_caps) for
 * 16 KiB pages of block bytes (0: the block size init picks there), with
 * the untorn_jw module loaded or not. */
static int kind_safe(const struct ut_guard_ops *ops, unsigned k, int loop,
		     uint32_t block, int jw)
{
	struct ut_guard_args args = { 0 };
	struct ut_fscaps c;
	struct ut_verdict v;
	struct ut_err err;

	kind_caps(k, loop, &c);
	c.jw_module = jw;
	if (!block && ops->block_size &&
	    ops->block_size(&c, 16384, &args, &block, &err))
		return 0;
	ut_guard_verdict(ops, &c, 16384, block ? block : c.fs_block, &v);
	return v.safe;
}

/* "ext4-ordered xfs": the kinds on which the guard's verdict passes for
 * 16 KiB pages of 4 KiB blocks ("" for a guard that needs --unsafe). */
static const char *safe_on(const struct ut_guard_ops *ops, char *buf,
			   size_t len)
{
	size_t n = 0;
	unsigned k;

	buf[0] = '\0';
	if (ops->needs_unsafe)
		return buf;
	for (k = 0; k < N_KINDS; k++)
		if (kind_safe(ops, k, 0, 4096, 0) && n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? " " : "",
				      fs_kinds[k].kind);
	return buf;
}

/*
 * "ext4-ordered xfs": the kinds the crash tests cut the power under it
 * on: those its verdict passes on as they are made on a loop device,
 * with the block size init picks there; for a guard that needs --unsafe
 * (shown to detect torn pages, not to repair them), the one it is
 * measured on.  "" for a guard no such filesystem takes.
 */
static const char *crash_fs(const struct ut_guard_ops *ops, char *buf,
			    size_t len)
{
	size_t n = 0;
	unsigned k;

	if (ops->needs_unsafe) {
		snprintf(buf, len, "%s",
			 ops->bench_fs ? ops->bench_fs : "ext4-ordered");
		return buf;
	}
	buf[0] = '\0';
	for (k = 0; k < N_KINDS; k++)
		if (kind_safe(ops, k, 1, 0, 0) && n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? " " : "",
				      fs_kinds[k].kind);
	return buf;
}

/*
 * One LSN a page (16 KiB blocks) on the kinds the guard is safe on:
 * "safe" on every one, "untorn_jw" on every one once the module is
 * loaded, else "no"; "" for a guard safe on none of them.
 */
static const char *single_lsn(const struct ut_guard_ops *ops)
{
	int any = 0, plain = 1, jw = 1;
	unsigned k;

	if (ops->needs_unsafe)
		return "";
	for (k = 0; k < N_KINDS; k++) {
		if (!kind_safe(ops, k, 0, 4096, 0))
			continue;
		any = 1;
		plain &= kind_safe(ops, k, 0, 16384, 0);
		jw &= kind_safe(ops, k, 0, 16384, 1);
	}
	if (!any)
		return "";
	return plain ? "safe" : jw ? "untorn_jw" : "no";
}

/* One fact as text ("" when the guard has none of it); NULL: no such fact. */
static const char *fact(const struct ut_guard_ops *ops, const char *key,
			char *buf, size_t len)
{
	if (!strcmp(key, "id")) {
		snprintf(buf, len, "%u", ops->id);
		return buf;
	}
	if (!strcmp(key, "name"))
		return ops->name;
	if (!strcmp(key, "help"))
		return ops->help;
	if (!strcmp(key, "init_flags"))
		return ops->needs_unsafe ? "--unsafe" : "";
	if (!strcmp(key, "expect"))
		return ops->needs_unsafe ? "detect" : "safe";
	if (!strcmp(key, "bench_fs"))
		return ops->bench_fs ? ops->bench_fs : "ext4-ordered";
	if (!strcmp(key, "whole_writes"))
		return ops->whole_writes ? ops->whole_writes : "";
	if (!strcmp(key, "direct"))
		return direct_names[ops->direct];
	if (!strcmp(key, "file"))
		return ops->file ? ops->file->name : "";
	if (!strcmp(key, "restore_phase"))
		return ops->restore ? (ops->restore_phase ? ops->restore_phase :
							    "guard-restore") :
				      "";
	if (!strcmp(key, "judges_devices"))
		return ops->block_size ? "yes" : "";
	if (!strcmp(key, "options")) {
		options_of(ops, buf, len);
		return buf;
	}
	if (!strcmp(key, "safe_on"))
		return safe_on(ops, buf, len);
	if (!strcmp(key, "single_lsn"))
		return single_lsn(ops);
	if (!strcmp(key, "crash_fs"))
		return crash_fs(ops, buf, len);
	if (!strcmp(key, "crash_tested"))
		return crash_fs(ops, buf, len)[0] ? "yes" : "";
	if (!strcmp(key, "fio_job"))
		return ops->fio_job ? ops->fio_job : "";
	return NULL;
}

static const char *const facts[] = {
	"id",	    "help",	      "init_flags",
	"expect",   "bench_fs",	      "whole_writes",
	"direct",   "file",	      "restore_phase",
	"options",  "judges_devices", "safe_on",
	"crash_fs", "crash_tested",   "single_lsn",
	"fio_job"
};
#define N_FACTS (sizeof(facts) / sizeof(facts[0]))

static int guards_get(const char *key, const char *name)
{
	const struct ut_guard_ops *ops = ut_guard_find(name);
	const char *v;
	char buf[512];

	if (!ops)
		return cli_usage_fail("guards", "unknown guard '%s' (%s)", name,
				      ut_guard_names());
	v = fact(ops, key, buf, sizeof(buf));
	if (!v)
		return cli_usage_fail("guards",
				      "unknown fact '%s'; see untorn guards --help",
				      key);
	printf("%s\n", v);
	return EXIT_OK;
}

static void guards_json(void)
{
	const struct ut_guard_ops *ops;
	struct json j;
	char buf[512];
	unsigned i, k;

	json_begin(&j, stdout);
	json_arr_open(&j, "guards");
	for (i = 0; (ops = ut_guard_at(i)); i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "name", ops->name);
		for (k = 0; k < N_FACTS; k++)
			if (!strcmp(facts[k], "id"))
				json_u64(&j, "id", ops->id);
			else
				json_str(&j, facts[k],
					 fact(ops, facts[k], buf, sizeof(buf)));
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_end(&j);
}

static void guards_text(void)
{
	const struct ut_guard_ops *ops;
	char buf[512];
	unsigned i;

	for (i = 0; (ops = ut_guard_at(i)); i++) {
		printf("%-12s (id %u) %s\n", ops->name, ops->id, ops->help);
		printf("             init %s, measured on %s, O_DIRECT: %s",
		       ops->needs_unsafe ? "needs --unsafe" :
					   "checks the filesystem",
		       fact(ops, "bench_fs", buf, sizeof(buf)),
		       direct_names[ops->direct]);
		if (ops->file)
			printf(", keeps %s", ops->file->name);
		options_of(ops, buf, sizeof(buf));
		if (buf[0])
			printf(", options: %s", buf);
		printf("\n");
	}
}

int cmd_guards(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "get", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const struct ut_guard_ops *ops;
	const char *get = NULL;
	int c, list = 0, json = 0;
	unsigned i;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			list = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'g':
			get = optarg;
			break;
		case 'h':
			fputs(guards_help, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("guards", argv);
		}
	}
	if (list + json + !!get > 1)
		return cli_usage_fail("guards",
				      "give one of --list, --json and --get");
	if (get)
		return optind == argc - 1 ?
			       guards_get(get, argv[optind]) :
			       cli_usage_fail("guards",
					      "--get FACT takes one guard NAME");
	if (optind != argc)
		return cli_usage_fail("guards", "unexpected argument '%s'",
				      argv[optind]);
	if (json)
		guards_json();
	else if (list)
		for (i = 0; (ops = ut_guard_at(i)); i++)
			printf("%s\n", ops->name);
	else
		guards_text();
	return EXIT_OK;
}
