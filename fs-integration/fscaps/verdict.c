// SPDX-License-Identifier: MIT
/*
 * verdict.c - the facts a verdict quotes, each as a sentence of reason
 * and one of fix (what rules every guard out, what ext4's journal keeps
 * whole, copy-on-write, NOCOW, atomic writes in hardware), and InnoDB's
 * verdict from them.  Whether a guard of untorn's is safe is its own
 * file's (engine/guard/guard_NAME.c, ut_guard_ops.verdict).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/err.h"
#include "fscaps.h"

/*
 * The fix as the user types it: {mkfs-journal}, {mkfs-atomic} and
 * {fix-journal} become
 * the script's name as installed here (ut_tool_name), {mount} the mount
 * point and {device} the filesystem's device, never a placeholder.
 */
static void fix_expand(const struct ut_fscaps *c, const char *fix, char *out,
		       size_t len)
{
	static const char *const tools[] = { "mkfs-journal", "mkfs-atomic",
					     "fix-journal" };
	char name[1100], key[32];
	const char *sub, *end;
	size_t n = 0, i;

	out[0] = '\0';
	while (*fix && n + 1 < len) {
		end = *fix == '{' ? strchr(fix, '}') : NULL;
		if (!end || (size_t)(end - fix) >= sizeof(key)) {
			out[n++] = *fix++;
			out[n] = '\0';
			continue;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(end - fix - 1),
			 fix + 1);
		sub = NULL;
		for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
			if (!strcmp(key, tools[i]))
				sub = ut_tool_name(key, name, sizeof(name));
		if (!strcmp(key, "mount"))
			sub = c->mnt.mount_point[0] ? c->mnt.mount_point :
						      c->path;
		if (!strcmp(key, "device"))
			sub = c->mnt.source[0] ? c->mnt.source :
						 "the filesystem's device";
		if (!strcmp(key, "path"))
			sub = c->nocow_root[0] ? c->nocow_root : c->path;
		if (!strcmp(key, "nocow")) {
			if (snprintf(name, sizeof(name), "%s/%s", c->nocow_root,
				     c->nocow_first) < (int)sizeof(name))
				sub = name;
		}
		if (!sub) {
			out[n++] = *fix++;
			out[n] = '\0';
			continue;
		}
		n += snprintf(out + n, len - n, "%s", sub);
		if (n >= len)
			n = len - 1;
		fix = end + 1;
	}
}

void ut_verdict_say(const struct ut_fscaps *c, struct ut_verdict *v, int safe,
		    const char *fix, const char *fmt, ...)
{
	va_list ap;

	v->safe = safe;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
	fix_expand(c, fix ? fix : "", v->fix, sizeof(v->fix));
}

/* What rules out every guard: no durable device, or no cache flushes. */
int ut_fscaps_unusable(const struct ut_fscaps *c, struct ut_verdict *v)
{
	if (!c->durable) {
		ut_verdict_say(c, v, 0,
			       "put the store on a local ext4 or XFS filesystem on a real or loop block device",
			       "%s keeps no crash-safe copy on a block device untorn can reason about",
			       c->mnt.fstype[0] ? c->mnt.fstype :
						  "this filesystem");
		return 1;
	}
	if (!c->barrier) {
		ut_verdict_say(c, v, 0,
			       "remount with barriers: mount -o remount,barrier {mount} (and drop nobarrier from /etc/fstab)",
			       "mounted nobarrier: the device's write cache is never flushed, so no fdatasync proves anything");
		return 1;
	}
	return 0;
}

/* ext4 without a journal: nothing makes a page write whole */
int ut_fscaps_no_journal(const struct ut_fscaps *c, struct ut_verdict *v)
{
	if (!c->no_journal)
		return 0;
	ut_verdict_say(c, v, 0,
		       "add a journal: unmount, tune2fs -O has_journal {device}, then mount with -o data=journal (or make a new filesystem with {mkfs-journal})",
		       "this %s has no journal (made with -O ^has_journal): data=journal is impossible and pages are overwritten in place",
		       c->mnt.fstype);
	return 1;
}

/*
 * btrfs, but something under the path is NOCOW: overwritten in place.
 * keep is the way on that needs no change ("keep innodb_doublewrite=ON",
 * or a guard's own); the fix that follows it is the one that works for
 * what was found (tests/fscheck_test.sh follows each).
 */
void ut_fscaps_nocow(const struct ut_fscaps *c, const char *keep,
		     struct ut_verdict *v)
{
	char fix[512];

	if (c->nocow_mount) {
		snprintf(fix, sizeof(fix),
			 "%s, or remount with copy-on-write: mount -o remount,datacow {mount} (and drop nodatacow from /etc/fstab), then run this check again: files made while nodatacow stay NOCOW and it names them",
			 keep);
		ut_verdict_say(c, v, 0, fix,
			       "btrfs mounted nodatacow: every file made on it is overwritten in place, not copied on write, and a crash can tear its pages");
		return;
	}
	if (c->nocow_path || c->nocow_dirs) {
		snprintf(fix, sizeof(fix),
			 "%s, or chattr -C %s and every NOCOW directory under it (a directory's flag clears; files already in them stay NOCOW: copy each, cp --reflink=never F F.new && mv F.new F, with the server stopped), then run this check again",
			 keep, c->nocow_path ? "{path}" : "{nocow}");
		ut_verdict_say(c, v, 0, fix,
			       "btrfs, but %s%s is NOCOW (chattr +C; %u NOCOW directories and %u NOCOW files under the path): every file made in it later is overwritten in place, not copied on write, and a crash can tear it",
			       c->nocow_path ? "the path " : "the directory ",
			       c->nocow_path ? c->path : c->nocow_first,
			       c->nocow_dirs, c->nocow_files);
		return;
	}
	snprintf(fix, sizeof(fix),
		 "%s, or copy each NOCOW file into a new one, which the directory's copy-on-write then covers (cp --reflink=never F F.new && mv F.new F, with the server stopped: +C cannot be removed from a file with data), then run this check again",
		 keep);
	ut_verdict_say(c, v, 0, fix,
		       "btrfs, but %u of %u files under the path are NOCOW (chattr +C; the first: %s): their pages are overwritten in place, not copied on write, and a crash can tear them",
		       c->nocow_files, c->files_seen, c->nocow_first);
}

/* copy-on-write proven for the whole path */
int ut_fscaps_cow_proven(const struct ut_fscaps *c, struct ut_verdict *v)
{
	if (!c->cow)
		return 0;
	if (c->scan_incomplete) {
		ut_verdict_say(c, v, 0,
			       "run the check as root, on the datadir itself (a path with fewer than 1 000 000 entries)",
			       "%s, but not every directory under the path could be read (or it holds more than 1 000 000 entries), so a NOCOW file or directory (chattr +C) may be among them",
			       c->mnt.fstype);
		return 1;
	}
	ut_verdict_say(c, v, 1, NULL,
		       "%s is copy-on-write: a page is never overwritten in place%s",
		       c->mnt.fstype,
		       strcmp(c->mnt.fstype, "btrfs") ?
			       "" :
			       " (no file or directory under the path is NOCOW)");
	return 1;
}

/* How the data is journalled, for the reasons. */
const char *ut_fscaps_journalled_how(const struct ut_fscaps *c)
{
	return c->data_mode == UT_DATA_JOURNAL ? "data=journal" :
						 "chattr +j (on nodelalloc)";
}

/* data=ordered or writeback: not journalled, and what would make it so */
static void not_journalled(const struct ut_fscaps *c, struct ut_verdict *v)
{
	if (c->journal_flag && c->delalloc) {
		ut_verdict_say(c, v, 0,
			       "mount with -o nodelalloc (set it in /etc/fstab too): ext4 journals a chattr +j file's data only without delayed allocation",
			       "the files have chattr +j, but the mount delays allocation, so their data is not journalled and an interrupted page write stays torn");
		return;
	}
	ut_verdict_say(c, v, 0,
		       "mount with -o data=journal (ext4 cannot change it on remount: {fix-journal} {mount} prints the steps, fstab and journal size included) or use {mkfs-journal}; or mount with -o nodelalloc and chattr +j the store's directory before init (needs CAP_SYS_RESOURCE)",
		       "mounted data=%s: file data is not journalled, so an interrupted page write stays torn",
		       c->data_mode == UT_DATA_WRITEBACK ? "writeback" :
							   "ordered");
}

/* The split rate the reason quotes: this mount's, when it was measured. */
static const char *split_measured(const struct ut_fscaps *c, char *buf,
				  size_t len)
{
	if (!c->probe_pages)
		return "measured on ext4 by this project: 0.06-0.08% of 16 KiB writes; --probe measures this mount";
	snprintf(buf, len,
		 "measured here: %lu of %lu page writes split, %.3f%%%s",
		 c->probe_split, c->probe_pages,
		 100.0 * c->probe_split / c->probe_pages,
		 c->probe_split ?
			 "" :
			 "; none in a short run does not prove none can");
	return buf;
}

/*
 * uses_jw: the engine writes its pages through /dev/untorn_jw when the
 * module is loaded (untorn's journal guard does; stock InnoDB does not)
 */
void ut_fscaps_journal_keeps(const struct ut_fscaps *c, uint32_t page_size,
			     uint32_t block_size, int uses_jw,
			     const char *elsewhere, struct ut_verdict *v)
{
	char measured[160], fix[256];

	if (strcmp(c->mnt.fstype, "ext4") && strcmp(c->mnt.fstype, "ext3")) {
		snprintf(fix, sizeof(fix),
			 "make an ext4 filesystem mounted data=journal ({mkfs-journal}), or %s",
			 elsewhere);
		ut_verdict_say(c, v, 0, fix,
			       "%s does not journal file data; only ext4 with data=journal does",
			       c->mnt.fstype);
		return;
	}
	if (ut_fscaps_no_journal(c, v))
		return;
	if (!ut_fscaps_data_journalled(c)) {
		not_journalled(c, v);
		return;
	}
	if (block_size <= c->fs_block) {
		if (block_size == page_size)
			ut_verdict_say(c, v, 1, NULL,
				       "%s journals each %u-byte block whole and a %u-byte page fits in one block",
				       ut_fscaps_journalled_how(c), c->fs_block,
				       page_size);
		else
			ut_verdict_say(c, v, 1, NULL,
				       "%s journals each %u-byte block whole; a page torn between blocks is rebuilt block by block from redo (block-granular page format)",
				       ut_fscaps_journalled_how(c),
				       c->fs_block);
		return;
	}
	if (c->fs_block < 4096) {
		ut_verdict_say(c, v, 0,
			       "remake the filesystem with 4 KiB blocks (mkfs.ext4 -b 4096, as {mkfs-journal} does; the block size cannot be changed in place), then each 4 KiB block is journalled whole",
			       "this ext4 has %u-byte blocks: data=journal keeps only %u bytes whole, so %u-byte pages (checksummed in %u-byte blocks) can tear",
			       c->fs_block, c->fs_block, page_size, block_size);
		return;
	}
	if (c->jw_module && uses_jw) {
		ut_verdict_say(c, v, 1, NULL,
			       "the untorn_jw module is loaded and the engine writes each %u-byte page through it: the whole page joins one jbd2 transaction",
			       page_size);
		return;
	}
	if (c->jw_module) {
		ut_verdict_say(c, v, 0,
			       "keep the doublewrite buffer, or have the engine write its pages through /dev/untorn_jw (ut_jw_pwrite() in libuntorn, untorn-jw-write)",
			       "the untorn_jw module is loaded, but this engine writes %u-byte pages with pwrite(2), whose %u-byte blocks can straddle two jbd2 transactions",
			       page_size, c->fs_block);
		return;
	}
	ut_verdict_say(c, v, 0,
		       "keep the doublewrite buffer, use pages of at most the block size (e.g. innodb_page_size=4k on 4 KiB blocks), or an engine with per-block LSNs (untorn)",
		       "ext4 %s journals each %u-byte block under its own handle: a %u-byte page with one LSN can straddle two transactions and tear (%s)",
		       ut_fscaps_journalled_how(c), c->fs_block, page_size,
		       split_measured(c, measured, sizeof(measured)));
}

/*
 * Does the device itself write a page atomically, or the filesystem's
 * software path (XFS 6.16+: out of place, remapped in a transaction)?
 * ext4 has no software path; XFS says so in statx's unit_max_opt from
 * 6.16, and before it had only the device's units (sysfs).
 */
int ut_fscaps_atomic_in_hardware(const struct ut_fscaps *c, uint32_t page_size)
{
	if (!strcmp(c->mnt.fstype, "ext4"))
		return 1;
	if (c->atomic_max_opt)
		return c->atomic_max_opt >= page_size;
	return c->dev_atomic_unit_max >= page_size;
}

/*
 * What makes InnoDB's pages whole where they are overwritten in place:
 * only a fix that works on this filesystem.  ext4 turns data=journal on
 * by a remount (fix-journal); that keeps a page whole only when it fits
 * in one block, and a new innodb_page_size is a new instance.  No mount
 * option makes another filesystem journal its data.
 */
static const char *innodb_fix(const struct ut_fscaps *c, uint32_t page_size)
{
	int ext4 = !strcmp(c->mnt.fstype, "ext4") ||
		   !strcmp(c->mnt.fstype, "ext3");

	if (ext4 && page_size <= c->fs_block)
		return "keep innodb_doublewrite=ON, or mount with data=journal: {fix-journal} {mount} prints the steps (fstab and journal size included)";
	if (ext4)
		return "keep innodb_doublewrite=ON: no mount keeps pages larger than the block whole (data=journal journals each block under its own handle); innodb_page_size=4k with data=journal would, but a new page size means a new instance and a dump and reload (mariadb-dump/mysqldump), then {fix-journal} {mount}";
	return "keep innodb_doublewrite=ON: no mount option makes this filesystem journal its data; a new filesystem would — btrfs with copy-on-write, or ext4 data=journal ({mkfs-journal}) with innodb_page_size=4k, which for a larger page size means a new instance and a dump and reload (mariadb-dump/mysqldump)";
}

void ut_fscaps_innodb_verdict(const struct ut_fscaps *c, uint32_t page_size,
			      struct ut_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (ut_fscaps_unusable(c, v))
		return;
	if (ut_fscaps_cow_proven(c, v))
		return;
	if (c->nocow) {
		ut_fscaps_nocow(c, "keep innodb_doublewrite=ON", v);
		return;
	}
	if (c->no_journal && page_size > c->fs_block) {
		ut_verdict_say(c, v, 0,
			       "keep innodb_doublewrite=ON; a journal (unmount, tune2fs -O has_journal {device}, mount with -o data=journal) keeps pages whole only when they are no larger than the block (innodb_page_size=4k on 4 KiB blocks)",
			       "this %s has no journal (made with -O ^has_journal) and overwrites %u-byte pages in place",
			       c->mnt.fstype, page_size);
		return;
	}
	if (ut_fscaps_no_journal(c, v))
		return;
	if (ut_fscaps_data_journalled(c)) {
		ut_fscaps_journal_keeps(c, page_size, page_size, 0,
					"keep innodb_doublewrite=ON", v);
		return;
	}
	ut_verdict_say(c, v, 0, innodb_fix(c, page_size),
		       "%s overwrites %u-byte pages in place and a crash can tear them; InnoDB has one LSN per page and cannot rebuild a torn one",
		       c->mnt.fstype, page_size);
}
