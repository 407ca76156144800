// SPDX-License-Identifier: MIT
/*
 * cmd_info.c - `untorn info DIR`: superblock, checkpoint slots, geometry,
 * where the redo log and doublewrite file live, the I/O path in use and
 * the tree's shape (tree_census.c), as text or JSON.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "base/crc32c.h"
#include "store/store.h"
#include "cli.h"
#include "guard/guard.h"
#include "log/redo.h"
#include "store/placement.h"
#include "tree_census.h"

static const char *page_format(const struct ut_store *st)
{
	if (st->sb.flags & UT_SB_SINGLE_LSN)
		return "single-lsn: one LSN and checksum per page (InnoDB's design)";
	if (st->geom.layout == UT_LAYOUT_COMPACT)
		return "block-granular, compact: a checksum and the page's LSN per block (12-byte headers)";
	return "block-granular: an LSN and checksum per block";
}

static const char info_help[] =
	"usage: untorn info DIR [--json] [--wait S]\n"
	"\n"
	"Prints what the superblock records (format, page and block size, guard,\n"
	"store id), both checkpoint slots, the data file's size, where the redo\n"
	"log (and its format: 3 logs a leaf's slot shift as MOVE records, a log\n"
	"made before logs every moved slot) and the doublewrite file are (their\n"
	"own directories if given at init), the I/O path (io_uring, or the\n"
	"pread/pwrite fallback and why), and the tree's shape: its levels, rows\n"
	"and leaves, and how often a step from one leaf to the next in key order\n"
	"jumps in the file (fragmentation, what read-ahead has to undo), read\n"
	"from the data file when the redo log holds nothing after the\n"
	"checkpoint.  Reads only, holding the store's lock shared, as check\n"
	"does.\n"
	"\n" CLI_WAIT_HELP;

static void uuid_str(const uint8_t *u, char *buf)
{
	int i;

	for (i = 0; i < 16; i++)
		sprintf(buf + 2 * i, "%02x", u[i]);
}

static void time_str(uint64_t t, char *buf, size_t len)
{
	time_t tt = t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "invalid (%llu)", (unsigned long long)t);
}

static const char *slot_status(int e)
{
	if (!e)
		return "ok";
	return e == UT_SB_ECRC ? "checksum mismatch" : "damaged";
}

/* how the engine writes pages here, and the guard's note on it */
static const char *page_writes(const struct ut_store *st, char *note,
			       size_t len)
{
	const struct ut_guard_ops *ops = ut_guard_ops(st->sb.guard);

	note[0] = '\0';
	return ops->page_writes ? ops->page_writes(st->sb.flags, note, len) :
				  "io_uring";
}

static void info_text_writes(const struct ut_store *st)
{
	char note[512];

	page_writes(st, note, sizeof(note));
	if (note[0])
		printf("page writes  %s\n", note);
}

static void tree_json(struct json *j, const struct tree_census *c)
{
	json_obj_open(j, "tree");
	json_bool(j, "read", c->known);
	if (c->known) {
		json_u64(j, "height", c->height);
		json_u64(j, "rows", c->rows);
		json_u64(j, "leaves", c->leaves);
		json_f64(j, "fragmentation", c->fragmentation);
		json_f64(j, "mean_jump_pages", c->mean_jump_pages);
	} else {
		json_str(j, "why", c->why);
	}
	json_obj_close(j);
}

static void tree_text(const struct tree_census *c)
{
	if (!c->known) {
		printf("tree         not read: %s\n", c->why);
		return;
	}
	printf("tree         %u level%s, %llu rows in %llu lea%s; %.1f %% of the steps from a leaf to the next jump (mean %.0f pages)\n",
	       c->height, c->height == 1 ? "" : "s",
	       (unsigned long long)c->rows, (unsigned long long)c->leaves,
	       c->leaves == 1 ? "f" : "ves", 100.0 * c->fragmentation,
	       c->mean_jump_pages);
}

/* The redo log's format (redo.h), or 0 when its header cannot be read. */
static int log_format(const struct ut_store *st)
{
	char path[PATH_MAX + 32];
	int v;

	snprintf(path, sizeof(path), "%s/%s", st->dir, UT_LOG_FILE);
	v = ut_redo_format(path);
	return v > 0 ? v : 0;
}

static void info_json(const struct ut_store *st, const char *uuid,
		      const char *created, const struct tree_census *c)
{
	const struct ut_guard_ops *guard = ut_guard_ops(st->sb.guard);
	char where[PATH_MAX], key[64], note[512];
	struct json j;
	int i;

	json_begin(&j, stdout);
	json_str(&j, "store", st->dir);
	json_str(&j, "data_file", st->data_path);
	json_u64(&j, "format_version", st->sb.version);
	json_u64(&j, "page_size", st->geom.page_size);
	json_u64(&j, "block_size", st->geom.block_size);
	json_u64(&j, "blocks_per_page", st->geom.n_blocks);
	json_u64(&j, "area_size", st->geom.area_size);
	json_str(&j, "guard", guard->name);
	ut_place_where(st->dir, UT_LOG_FILE, where, sizeof(where));
	json_str(&j, "redo_log", where);
	json_u64(&j, "redo_log_format", log_format(st));
	if (guard->file) {
		snprintf(key, sizeof(key), "%s_file", guard->file->label);
		ut_place_where(st->dir, guard->file->name, where,
			       sizeof(where));
		json_str(&j, key, where);
	}
	json_str(&j, "page_writes", page_writes(st, note, sizeof(note)));
	json_bool(&j, "single_lsn", !!(st->sb.flags & UT_SB_SINGLE_LSN));
	json_str(&j, "block_headers",
		 st->geom.layout == UT_LAYOUT_COMPACT ? "compact" : "full");
	json_bool(&j, "unsafe", !!(st->sb.flags & UT_SB_UNSAFE));
	json_str(&j, "store_id", uuid);
	json_str(&j, "created", created);
	json_u64(&j, "extent_pages", st->sb.extent_pages);
	json_u64(&j, "file_pages", st->file_pages);
	json_u64(&j, "pages_in_use", st->ckpt.n_pages);
	json_u64(&j, "root_page", st->ckpt.root_page);
	json_obj_open(&j, "checkpoint");
	json_u64(&j, "slot", st->ckpt_slot);
	json_u64(&j, "seq", st->ckpt.seq);
	json_u64(&j, "lsn", st->ckpt.checkpoint_lsn);
	json_obj_close(&j);
	json_arr_open(&j, "slots");
	for (i = 0; i < 2; i++)
		json_str(&j, NULL, slot_status(st->slot_err[i]));
	json_arr_close(&j);
	json_obj_open(&j, "io");
	json_str(&j, "path",
		 ut_ring_uses_uring(st->ring) ? "io_uring" : "pread");
	json_str(&j, "fallback_reason", ut_ring_fallback_reason(st->ring));
	json_obj_close(&j);
	json_str(&j, "crc32c", ut_crc32c_impl());
	tree_json(&j, c);
	json_end(&j);
}

/* The redo log and the guard's file (the doublewrite file): in the
 * store, or linked to their own directories (init --redo-dir,
 * --dblwr-dir). */
static void info_text_files(const struct ut_store *st)
{
	const struct ut_guard_ops *guard = ut_guard_ops(st->sb.guard);
	int format = log_format(st);
	char where[PATH_MAX];

	ut_place_where(st->dir, UT_LOG_FILE, where, sizeof(where));
	printf("redo log     %s (format %d%s)\n", where, format,
	       format >= 3 ?
		       ": slot moves as MOVE records" :
		       ", made before MOVE records: every moved slot logged");
	if (!guard->file)
		return;
	ut_place_where(st->dir, guard->file->name, where, sizeof(where));
	printf("%-12s %s\n", guard->file->label, where);
}

static void info_text(const struct ut_store *st, const char *uuid,
		      const char *created, const struct tree_census *c)
{
	printf("store        %s\n", st->dir);
	printf("data file    %s: %llu pages allocated, %u in use\n",
	       st->data_path, (unsigned long long)st->file_pages,
	       st->ckpt.n_pages);
	printf("format       version %u\n", st->sb.version);
	printf("page size    %u bytes: %u blocks of %u, %u bytes of records\n",
	       st->geom.page_size, st->geom.n_blocks, st->geom.block_size,
	       st->geom.area_size);
	printf("guard        %s%s\n", ut_guard_name(st->sb.guard),
	       st->sb.flags & UT_SB_UNSAFE ? " (made with --unsafe)" : "");
	info_text_files(st);
	info_text_writes(st);
	printf("page format  %s\n", page_format(st));
	printf("store id     %s\n", uuid);
	printf("created      %s\n", created);
	printf("checkpoint   LSN %llu, seq %llu, from slot %d (slot 0 %s, slot 1 %s)\n",
	       (unsigned long long)st->ckpt.checkpoint_lsn,
	       (unsigned long long)st->ckpt.seq, st->ckpt_slot,
	       slot_status(st->slot_err[0]), slot_status(st->slot_err[1]));
	printf("root page    %u\n", st->ckpt.root_page);
	if (ut_ring_uses_uring(st->ring))
		printf("I/O path     io_uring\n");
	else
		printf("I/O path     pread/pwrite (%s)\n",
		       ut_ring_fallback_reason(st->ring));
	printf("crc32c       %s\n", ut_crc32c_impl());
	tree_text(c);
}

int cmd_info(int argc, char **argv)
{
	char uuid[33], created[32];
	struct tree_census census;
	struct ut_store *st;
	struct ut_err err = { "" };
	const char *dir;
	int as_json, ret;

	ret = cli_parse_json_dir("info", info_help, argc, argv, &as_json, &dir);
	if (ret)
		return ret == 1 ? EXIT_OK : ret;
	ret = ut_store_open_wait(dir, UT_OPEN_RDONLY, cli_wait_ms, &st, &err);
	if (ret)
		return cli_fail_err(&err, ret);
	uuid_str(st->sb.uuid, uuid);
	time_str(st->sb.created, created, sizeof(created));
	tree_census_read(st, &census);
	if (as_json)
		info_json(st, uuid, created, &census);
	else
		info_text(st, uuid, created, &census);
	ut_store_close(st);
	return EXIT_OK;
}
