/* SPDX-License-Identifier: MIT */
/*
 * fscaps.h - what the filesystem under a path guarantees, and whether a
 * page guard is safe there.
 *
 * The facts come from the kernel: /proc/self/mountinfo (type, device,
 * mount options such as data=journal, commit=, nobarrier), statfs (block
 * size), statx (DIOALIGN, WRITE_ATOMIC units), /sys/dev/block (rotational,
 * atomic_write_* limits), /proc/fs/jbd2/DEV/info (journal transaction
 * size).  Nothing here knows the engine or its guards: fscaps says what
 * the filesystem does (what it journals, what the devices under it write
 * whole, whether it copies on write), each in a sentence a verdict can
 * quote, and each guard's file judges from them whether it is safe there
 * (ut_guard_ops.verdict, engine/guard/).
 */
#ifndef UNTORN_FSCAPS_H
#define UNTORN_FSCAPS_H

#include <stddef.h>
#include <stdint.h>
#include "blockstack.h"

#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x00000040
#endif
#ifndef STATX_WRITE_ATOMIC
#define STATX_WRITE_ATOMIC 0x00010000U
#endif

enum ut_data_mode {
	UT_DATA_NA = 0, /* not ext3/ext4 */
	UT_DATA_ORDERED,
	UT_DATA_JOURNAL,
	UT_DATA_WRITEBACK,
};

struct ut_mount {
	unsigned major, minor;
	char root[256];
	char mount_point[1024];
	char mount_opts[512];
	char fstype[64];
	char source[256];
	char super_opts[1024];
};

struct ut_fscaps {
	char path[1024];
	struct ut_mount mnt;
	int found_mount;
	enum ut_data_mode data_mode;
	int commit_s; /* jbd2 commit interval; -1 unknown */
	int barrier; /* 1 on (default), 0 nobarrier */
	int durable; /* 0: tmpfs, overlay, fuse, 9p, ... */
	int cow; /* btrfs (with datacow), zfs */
	int no_journal; /* ext3/4 made without a journal */
	int delalloc; /* ext4 delays allocation (not nodelalloc, not
		       * data=journal): a chattr +j file is then not journalled */
	int journal_flag; /* chattr +j (FS_JOURNAL_DATA_FL) on the path, and
			   * on every file directly in it for a directory */
	int nocow; /* btrfs: the mount, the path, or a file or
		    * directory under it is NOCOW (chattr +C, nodatacow) */
	int nocow_mount; /* mounted nodatacow */
	int nocow_path; /* the path itself has chattr +C */
	unsigned nocow_files, files_seen; /* under a directory path */
	unsigned nocow_dirs, dirs_seen; /* at any depth */
	int scan_incomplete; /* a directory unreadable, or past the limits:
			      * copy-on-write is not proven */
	int nocow_first_is_dir;
	char nocow_first[1024]; /* the first NOCOW entry, relative to path */
	char nocow_root[1024]; /* the path as scanned */
	uint32_t fs_block;
	uint32_t dio_mem_align, dio_offset_align; /* 0: no O_DIRECT */
	uint32_t atomic_min, atomic_max, atomic_segments;
	/* statx's unit_max_opt (Linux 6.16+): the largest atomic write the
	 * device does itself (XFS: the rest is its software path, written
	 * out of place); 0 none, or a kernel that does not say */
	uint32_t atomic_max_opt;
	int rotational; /* -1 unknown */
	uint64_t dev_atomic_max, dev_atomic_unit_min, dev_atomic_unit_max;
	char dev_name[64];
	uint32_t jbd2_max_txn_blocks; /* 0 unknown */
	int jw_module; /* /dev/untorn_jw exists */
	struct ut_block_stack stack; /* what the devices under it write whole */
	/* set by a caller that measured it (untorn-fscheck --probe): page
	 * writes split across two jbd2 transactions here; 0 pages: not
	 * measured, and the verdict quotes the project's own figure */
	unsigned long probe_pages, probe_split;
};

/* Engines, for the verdict: one LSN per page (InnoDB, untorn
 * --single-lsn) or untorn's block-granular pages. */
enum ut_engine_kind {
	UT_ENGINE_SINGLE_LSN,
	UT_ENGINE_BLOCK_LSN,
};

struct ut_verdict {
	int safe;
	char reason[384];
	char fix[512];
};

/* Fills caps for path (which must exist).  Returns 0 or -errno. */
int ut_fscaps_probe(const char *path, struct ut_fscaps *caps);

/* Whether ext4 journals the file data under the path: mounted
 * data=journal, or chattr +j where allocation is not delayed. */
int ut_fscaps_data_journalled(const struct ut_fscaps *c);

/* Whether ext4 journals the data of the files in dir (it has a journal,
 * and ut_fscaps_data_journalled): then an fsync of dir commits the
 * journal, which makes every write to them that returned before it
 * durable.  0 where not, or where dir cannot be probed. */
int ut_fscaps_dir_journals_data(const char *dir);

/*
 * Facts for the verdicts, each filling v (safe, reason, fix) as a verdict
 * says it.  A fix may hold {mkfs-journal}, {mkfs-atomic} and
 * {fix-journal} (the script's name as installed), {mount}, {device},
 * {path} and {nocow}, which ut_verdict_say expands for c.
 */
void ut_verdict_say(const struct ut_fscaps *c, struct ut_verdict *v, int safe,
		    const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* What rules out every guard (no durable device, no cache flushes):
 * 1 with v filled, or 0. */
int ut_fscaps_unusable(const struct ut_fscaps *c, struct ut_verdict *v);

/* ext3/4 made without a journal, so nothing makes a page write whole:
 * 1 with v filled (unsafe), or 0. */
int ut_fscaps_no_journal(const struct ut_fscaps *c, struct ut_verdict *v);

/* Copy-on-write proven for the whole path (btrfs with no NOCOW entry
 * under it, zfs): 1 with v filled (safe; unsafe when a directory under
 * it could not be read), or 0. */
int ut_fscaps_cow_proven(const struct ut_fscaps *c, struct ut_verdict *v);

/* btrfs, but something under the path is NOCOW (c->nocow): v says what
 * is overwritten in place (unsafe); keep is the way on that needs no
 * change (InnoDB's "keep innodb_doublewrite=ON"), which the fix starts
 * with. */
void ut_fscaps_nocow(const struct ut_fscaps *c, const char *keep,
		     struct ut_verdict *v);

/* How ext4 journals the data: "data=journal" or "chattr +j (on
 * nodelalloc)", for a reason to quote. */
const char *ut_fscaps_journalled_how(const struct ut_fscaps *c);

/*
 * What the filesystem's data journal keeps whole: are pages of page_size
 * bytes checksummed in blocks of block_size bytes (block_size ==
 * page_size: one LSN a page) written whole by ext4's journal here?  Fills
 * v: safe when each block lies in one journalled filesystem block, or a
 * page joins one jbd2 transaction through /dev/untorn_jw (uses_jw: the
 * engine writes its pages through the module when it is loaded).  Not
 * ext3/4: unsafe, the fix "make an ext4 filesystem mounted data=journal
 * ({mkfs-journal}), or " followed by elsewhere.
 */
void ut_fscaps_journal_keeps(const struct ut_fscaps *c, uint32_t page_size,
			     uint32_t block_size, int uses_jw,
			     const char *elsewhere, struct ut_verdict *v);

/* Whether the device itself writes a page_size write atomically, rather
 * than the filesystem's software path (XFS 6.16+: out of place, remapped
 * in a transaction): statx's unit_max_opt, or before it the device's
 * units (sysfs); ext4 has no software path. */
int ut_fscaps_atomic_in_hardware(const struct ut_fscaps *c, uint32_t page_size);

/* InnoDB's question: is turning its doublewrite buffer off safe? */
void ut_fscaps_innodb_verdict(const struct ut_fscaps *caps, uint32_t page_size,
			      struct ut_verdict *v);

/* ---- sysfs (fscaps.c, blockstack.c) ---- */

/* dir/leaf's contents, newline kept, into buf: 0, or -1 unreadable. */
int ut_sysfs_read(const char *dir, const char *leaf, char *buf, size_t len);
/* dir/leaf as a decimal number, or dflt when unreadable. */
uint64_t ut_sysfs_u64(const char *dir, const char *leaf, uint64_t dflt);

/* The block device under a mount, as major:minor in *maj, *mnr: its own
 * device number, or, for an anonymous one (major 0: btrfs), the device
 * its source names; unchanged (0:N) when the source is no device. */
void ut_mount_device(const struct ut_mount *m, unsigned *maj, unsigned *mnr);

/* ---- parsers (pure, for tests and fuzzing) ---- */

/* One /proc/self/mountinfo line; returns 0 or -EINVAL. */
int ut_mountinfo_parse(const char *line, struct ut_mount *m);

/* Fills data_mode, commit_s, barrier from ext4 mount options. */
void ut_mount_opts_parse(const char *opts, enum ut_data_mode *mode,
			 int *commit_s, int *barrier);
/* "N transactions (M requested), each up to B blocks": returns B or 0. */
uint32_t ut_jbd2_info_parse(const char *text);
/* The jbd2 journal's size on c's device, from the ext3/4 superblock's
 * backup of the journal inode: read from the device when asked (root),
 * not by every probe; 0 where it cannot be read or there is none. */
uint64_t ut_fscaps_journal_bytes(const struct ut_fscaps *c);
/* The size of the internal journal an ext3/4 superblock (its 1024
 * bytes, from byte 1024 of the device) records; 0: not ext3/4, no
 * journal, an external one, or no backup of its inode. */
uint64_t ut_ext4_journal_bytes(const unsigned char *sb);

#endif
