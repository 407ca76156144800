// SPDX-License-Identifier: MIT
/*
 * fscaps.c - probing the facts of the filesystem under a path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "fscaps.h"

/* struct statx as of Linux 6.16; older kernels leave the tail zero. */
struct ut_statx {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	uint64_t times[8];
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t mnt_id;
	uint32_t dio_mem_align, dio_offset_align;
	uint64_t subvol;
	uint32_t atomic_write_unit_min, atomic_write_unit_max;
	uint32_t atomic_write_segments_max;
	uint32_t dio_read_offset_align;
	uint32_t atomic_write_unit_max_opt;
	uint32_t spare2;
	uint64_t spare3[8];
};

#define UT_STATX_DIOALIGN 0x00002000U

_Static_assert(sizeof(struct ut_statx) == 256, "struct statx is 256 bytes");

/* ---- parsers -------------------------------------------------------- */

/* Copies the next space-separated field, undoing mountinfo's \040 escapes. */
static const char *next_field(const char *p, char *out, size_t len)
{
	size_t n = 0;

	while (*p == ' ')
		p++;
	if (!*p || *p == '\n')
		return NULL;
	while (*p && *p != ' ' && *p != '\n') {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' &&
		    p[2] <= '7' && p[3] >= '0' && p[3] <= '7') {
			if (n + 1 < len)
				out[n++] = (p[1] - '0') * 64 +
					   (p[2] - '0') * 8 + (p[3] - '0');
			p += 4;
			continue;
		}
		if (n + 1 < len)
			out[n++] = *p;
		p++;
	}
	out[n] = 0;
	return p;
}

void ut_mount_device(const struct ut_mount *m, unsigned *maj, unsigned *mnr)
{
	struct stat src;

	*maj = m->major;
	*mnr = m->minor;
	if (*maj == 0 && m->source[0] && !stat(m->source, &src) &&
	    S_ISBLK(src.st_mode)) {
		*maj = major(src.st_rdev);
		*mnr = minor(src.st_rdev);
	}
}

int ut_mountinfo_parse(const char *line, struct ut_mount *m)
{
	char field[1024];
	const char *p = line;
	int i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < 2; i++) /* mount id, parent id */
		if (!(p = next_field(p, field, sizeof(field))))
			return -EINVAL;
	if (!(p = next_field(p, field, sizeof(field))) ||
	    sscanf(field, "%u:%u", &m->major, &m->minor) != 2)
		return -EINVAL;
	if (!(p = next_field(p, m->root, sizeof(m->root))) ||
	    !(p = next_field(p, m->mount_point, sizeof(m->mount_point))) ||
	    !(p = next_field(p, m->mount_opts, sizeof(m->mount_opts))))
		return -EINVAL;
	do { /* optional fields up to "-" */
		if (!(p = next_field(p, field, sizeof(field))))
			return -EINVAL;
	} while (strcmp(field, "-"));
	if (!(p = next_field(p, m->fstype, sizeof(m->fstype))) ||
	    !(p = next_field(p, m->source, sizeof(m->source))))
		return -EINVAL;
	if (!next_field(p, m->super_opts, sizeof(m->super_opts)))
		m->super_opts[0] = 0;
	return 0;
}

static int opt_has(const char *opts, const char *name, const char **value)
{
	size_t n = strlen(name);
	const char *p = opts;

	while (p && *p) {
		if (!strncmp(p, name, n) &&
		    (p[n] == ',' || p[n] == 0 || p[n] == '=')) {
			if (value)
				*value = p[n] == '=' ? p + n + 1 : NULL;
			return 1;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

void ut_mount_opts_parse(const char *opts, enum ut_data_mode *mode,
			 int *commit_s, int *barrier)
{
	const char *v;

	*mode = UT_DATA_ORDERED;
	if (opt_has(opts, "data", &v) && v) {
		if (!strncmp(v, "journal", 7))
			*mode = UT_DATA_JOURNAL;
		else if (!strncmp(v, "writeback", 9))
			*mode = UT_DATA_WRITEBACK;
	}
	*commit_s = -1;
	if (opt_has(opts, "commit", &v) && v)
		*commit_s = atoi(v);
	*barrier = !(opt_has(opts, "nobarrier", NULL) ||
		     (opt_has(opts, "barrier", &v) && v && *v == '0'));
}

uint32_t ut_jbd2_info_parse(const char *text)
{
	const char *p = strstr(text, "each up to ");
	unsigned long blocks;

	if (!p || sscanf(p, "each up to %lu blocks", &blocks) != 1 ||
	    blocks > UINT32_MAX)
		return 0;
	return blocks;
}

/* ext3/4 superblock fields (struct ext4_super_block, offsets in it) */
#define EXT4_SB_MAGIC_OFF 0x38
#define EXT4_SB_MAGIC 0xef53
#define EXT4_SB_COMPAT_OFF 0x5c
#define EXT4_COMPAT_HAS_JOURNAL 0x4
#define EXT4_SB_JOURNAL_INUM_OFF 0xe0
#define EXT4_SB_JNL_BACKUP_TYPE_OFF 0xfd
#define EXT4_JNL_BACKUP_BLOCKS 1
/* s_jnl_blocks[17]: the journal inode's i_block, then i_size_high, i_size */
#define EXT4_SB_JNL_SIZE_HI_OFF (0x10c + 15 * 4)
#define EXT4_SB_JNL_SIZE_LO_OFF (0x10c + 16 * 4)
#define EXT4_SB_SIZE 1024

static uint32_t le32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint64_t ut_ext4_journal_bytes(const unsigned char *sb)
{
	unsigned magic = sb[EXT4_SB_MAGIC_OFF] |
			 (unsigned)sb[EXT4_SB_MAGIC_OFF + 1] << 8;

	if (magic != EXT4_SB_MAGIC ||
	    !(le32_at(sb + EXT4_SB_COMPAT_OFF) & EXT4_COMPAT_HAS_JOURNAL) ||
	    !le32_at(sb + EXT4_SB_JOURNAL_INUM_OFF) ||
	    sb[EXT4_SB_JNL_BACKUP_TYPE_OFF] != EXT4_JNL_BACKUP_BLOCKS)
		return 0;
	return (uint64_t)le32_at(sb + EXT4_SB_JNL_SIZE_HI_OFF) << 32 |
	       le32_at(sb + EXT4_SB_JNL_SIZE_LO_OFF);
}

/* ---- probing -------------------------------------------------------- */

static int find_mount(const char *real, dev_t dev, struct ut_mount *best)
{
	struct ut_mount m;
	size_t best_len = 0, n;
	char line[4096];
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (ut_mountinfo_parse(line, &m))
			continue;
		n = strlen(m.mount_point);
		if (strncmp(real, m.mount_point, n) ||
		    (real[n] != '/' && real[n] != 0 &&
		     strcmp(m.mount_point, "/")))
			continue;
		if (n < best_len || (makedev(m.major, m.minor) != dev &&
				     found && n == best_len))
			continue;
		*best = m;
		best_len = n;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

int ut_sysfs_read(const char *dir, const char *leaf, char *buf, size_t len)
{
	char path[PATH_MAX + 64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, leaf);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

uint64_t ut_sysfs_u64(const char *dir, const char *leaf, uint64_t dflt)
{
	char buf[64];

	return ut_sysfs_read(dir, leaf, buf, sizeof(buf)) ?
		       dflt :
		       strtoull(buf, NULL, 10);
}

/* Block device facts: rotational, atomic write limits, kernel name. */
static void probe_device(struct ut_fscaps *c, dev_t dev)
{
	char dir[256], queue[300], link[512], buf[32];
	ssize_t n;

	c->rotational = -1;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	n = readlink(dir, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = 0;
	snprintf(c->dev_name, sizeof(c->dev_name), "%s",
		 strrchr(link, '/') + 1);
	if (ut_sysfs_read(dir, "partition", buf, sizeof(buf)) == 0)
		snprintf(queue, sizeof(queue), "%s/../queue", dir);
	else
		snprintf(queue, sizeof(queue), "%s/queue", dir);
	c->rotational = ut_sysfs_u64(queue, "rotational", (uint64_t)-1);
	c->dev_atomic_max = ut_sysfs_u64(queue, "atomic_write_max_bytes", 0);
	c->dev_atomic_unit_min =
		ut_sysfs_u64(queue, "atomic_write_unit_min_bytes", 0);
	c->dev_atomic_unit_max =
		ut_sysfs_u64(queue, "atomic_write_unit_max_bytes", 0);
}

uint64_t ut_fscaps_journal_bytes(const struct ut_fscaps *c)
{
	unsigned char sb[EXT4_SB_SIZE];
	char path[96];
	ssize_t n;
	int fd;

	if (!c->dev_name[0])
		return 0;
	snprintf(path, sizeof(path), "/dev/%s", c->dev_name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = pread(fd, sb, sizeof(sb), EXT4_SB_SIZE);
	close(fd);
	return n == (ssize_t)sizeof(sb) ? ut_ext4_journal_bytes(sb) : 0;
}

static void probe_jbd2(struct ut_fscaps *c)
{
	char dir[128], text[1024];

	if (!c->dev_name[0])
		return;
	snprintf(dir, sizeof(dir), "/proc/fs/jbd2/%s-8", c->dev_name);
	if (ut_sysfs_read(dir, "info", text, sizeof(text)) == 0)
		c->jbd2_max_txn_blocks = ut_jbd2_info_parse(text);
}

/*
 * An ext4 made without a journal (mkfs.ext4 -O ^has_journal) mounts with
 * the same options as one with: its sysfs journal_task says "<none>".
 */
static void probe_ext4_journal(struct ut_fscaps *c)
{
	char dir[128], text[32];

	if (strcmp(c->mnt.fstype, "ext4") && strcmp(c->mnt.fstype, "ext3"))
		return;
	snprintf(dir, sizeof(dir), "/sys/fs/ext4/%s", c->dev_name);
	if (!c->dev_name[0] ||
	    ut_sysfs_read(dir, "journal_task", text, sizeof(text)))
		return;
	c->no_journal = !strncmp(text, "<none>", 6);
}

/* The inode flags of path (FS_IOC_GETFLAGS), 0 when unreadable. */
static int path_flags(const char *path)
{
	int fd, flags = 0, ret;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ret = ioctl(fd, FS_IOC_GETFLAGS, &flags);
	close(fd);
	return ret ? 0 : flags;
}

static int path_nocow(const char *path)
{
	return !!(path_flags(path) & FS_NOCOW_FL);
}

/* chattr +j on path and, for a directory, on each regular file in it */
static int journal_flag_all(const char *path)
{
	char file[PATH_MAX + 256];
	struct dirent *de;
	struct stat sb;
	int all = !!(path_flags(path) & FS_JOURNAL_DATA_FL);
	DIR *d;

	if (!all || stat(path, &sb) || !S_ISDIR(sb.st_mode))
		return all;
	d = opendir(path);
	if (!d)
		return all;
	while (all && (de = readdir(d))) {
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		if (!lstat(file, &sb) && S_ISREG(sb.st_mode))
			all = !!(path_flags(file) & FS_JOURNAL_DATA_FL);
	}
	closedir(d);
	return all;
}

/*
 * ext4's per-file data journaling: a file with chattr +j has its data
 * journalled as under data=journal, but only on a mount without delayed
 * allocation (ext4_inode_journal_mode); a directory's +j is inherited by
 * the files made in it.
 */
static void probe_journal_flag(struct ut_fscaps *c, const char *path)
{
	if (strcmp(c->mnt.fstype, "ext4"))
		return;
	c->delalloc = c->data_mode != UT_DATA_JOURNAL &&
		      !opt_has(c->mnt.super_opts, "nodelalloc", NULL);
	c->journal_flag = journal_flag_all(path);
}

#define NOCOW_SCAN_MAX 1000000 /* entries looked at under a directory */
#define NOCOW_SCAN_DEPTH 64

/* Notes one NOCOW entry under the path; the first one found is named. */
static void note_nocow(struct ut_fscaps *c, const char *path, int is_dir)
{
	size_t skip = strlen(c->nocow_root);

	if (is_dir)
		c->nocow_dirs++;
	else
		c->nocow_files++;
	if (c->nocow_first[0])
		return;
	if (!strncmp(path, c->nocow_root, skip) && path[skip] == '/')
		path += skip + 1;
	snprintf(c->nocow_first, sizeof(c->nocow_first), "%s%s", path,
		 is_dir ? "/" : "");
	c->nocow_first_is_dir = is_dir;
}

/*
 * Walks everything under dir on the same filesystem: a NOCOW file is
 * overwritten in place, and a NOCOW directory hands its flag to every
 * file made in it later (a new table's .ibd), so both count, at any
 * depth, empty or not.  What cannot be read, or lies past the limits,
 * leaves the scan incomplete: no proof of copy-on-write.
 */
static void scan_nocow(struct ut_fscaps *c, const char *dir, dev_t dev,
		       int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		c->scan_incomplete = 1;
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] ||
		     (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (c->files_seen + c->dirs_seen >= NOCOW_SCAN_MAX) {
			c->scan_incomplete = 1;
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &sb) || sb.st_dev != dev)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			c->dirs_seen++;
			if (path_flags(path) & FS_NOCOW_FL)
				note_nocow(c, path, 1);
			if (depth < NOCOW_SCAN_DEPTH)
				scan_nocow(c, path, dev, depth + 1);
			else
				c->scan_incomplete = 1;
		} else if (S_ISREG(sb.st_mode)) {
			c->files_seen++;
			if (path_nocow(path))
				note_nocow(c, path, 0);
		}
	}
	closedir(d);
}

/*
 * btrfs overwrites a NOCOW file in place (chattr +C, the usual advice for
 * databases on btrfs, or nodatacow): its pages can tear like on ext4.
 */
static void probe_nocow(struct ut_fscaps *c, const char *path)
{
	struct stat sb;

	if (strcmp(c->mnt.fstype, "btrfs"))
		return;
	c->nocow_mount = opt_has(c->mnt.super_opts, "nodatacow", NULL);
	c->nocow_path = path_nocow(path);
	if (snprintf(c->nocow_root, sizeof(c->nocow_root), "%s", path) >=
	    (int)sizeof(c->nocow_root))
		c->scan_incomplete = 1;
	if (!stat(path, &sb) && S_ISDIR(sb.st_mode))
		scan_nocow(c, path, sb.st_dev, 0);
	c->nocow = c->nocow_mount || c->nocow_path || c->nocow_files ||
		   c->nocow_dirs;
	if (c->nocow)
		c->cow = 0;
}

/*
 * O_DIRECT alignment and atomic write units are facts of regular files:
 * for a directory, ask about an unnamed O_TMPFILE in it (leaves no trace);
 * if that is not allowed, about the directory itself.
 */
static void probe_statx(struct ut_fscaps *c, const char *path)
{
	struct ut_statx stx;
	struct stat sb;
	int fd = -1, ret;

	memset(&stx, 0, sizeof(stx));
	if (!stat(path, &sb) && S_ISDIR(sb.st_mode))
		fd = open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0) {
		ret = syscall(SYS_statx, fd, "", AT_EMPTY_PATH,
			      UT_STATX_DIOALIGN | STATX_WRITE_ATOMIC, &stx);
		close(fd);
	} else {
		ret = syscall(SYS_statx, AT_FDCWD, path, 0,
			      UT_STATX_DIOALIGN | STATX_WRITE_ATOMIC, &stx);
	}
	if (ret)
		return;
	if (stx.mask & UT_STATX_DIOALIGN) {
		c->dio_mem_align = stx.dio_mem_align;
		c->dio_offset_align = stx.dio_offset_align;
	}
	if (stx.mask & STATX_WRITE_ATOMIC) {
		c->atomic_min = stx.atomic_write_unit_min;
		c->atomic_max = stx.atomic_write_unit_max;
		c->atomic_segments = stx.atomic_write_segments_max;
		c->atomic_max_opt = stx.atomic_write_unit_max_opt;
	}
}

static void classify(struct ut_fscaps *c)
{
	static const char *const volatile_fs[] = {
		"tmpfs",    "ramfs", "overlay",	 "9p",	"squashfs",
		"devtmpfs", "proc",  "sysfs",	 "nfs", "nfs4",
		"cifs",	    "smb3",  "virtiofs",
	};
	const char *t = c->mnt.fstype;
	unsigned i;

	c->durable = strncmp(t, "fuse", 4) != 0;
	for (i = 0; i < sizeof(volatile_fs) / sizeof(volatile_fs[0]); i++)
		if (!strcmp(t, volatile_fs[i]))
			c->durable = 0;
	c->cow = (!strcmp(t, "btrfs") &&
		  !opt_has(c->mnt.super_opts, "nodatacow", NULL)) ||
		 !strcmp(t, "zfs");
	c->barrier = 1;
	c->commit_s = -1;
	if (!strcmp(t, "ext4") || !strcmp(t, "ext3"))
		ut_mount_opts_parse(c->mnt.super_opts, &c->data_mode,
				    &c->commit_s, &c->barrier);
	else if (opt_has(c->mnt.super_opts, "nobarrier", NULL))
		c->barrier = 0;
}

/*
 * The devices under the filesystem, down to the disks.  btrfs reports an
 * anonymous device number: its mount's source names the device.
 */
static void probe_stack(struct ut_fscaps *c, dev_t dev)
{
	unsigned maj = major(dev), mnr = minor(dev);

	if (maj == 0 && c->found_mount)
		ut_mount_device(&c->mnt, &maj, &mnr);
	ut_block_stack_probe("/sys", "/proc/self/mountinfo", maj, mnr,
			     &c->stack);
}

int ut_fscaps_data_journalled(const struct ut_fscaps *c)
{
	return c->data_mode == UT_DATA_JOURNAL ||
	       (c->journal_flag && !c->delalloc);
}

int ut_fscaps_dir_journals_data(const char *dir)
{
	struct ut_fscaps caps;

	return !ut_fscaps_probe(dir, &caps) &&
	       !strcmp(caps.mnt.fstype, "ext4") && !caps.no_journal &&
	       ut_fscaps_data_journalled(&caps);
}

int ut_fscaps_probe(const char *path, struct ut_fscaps *c)
{
	char real[PATH_MAX];
	struct statfs sfs;
	struct stat sb;
	int ret;

	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	if (!realpath(path, real) || stat(real, &sb) || statfs(real, &sfs))
		return -errno;
	c->fs_block = sfs.f_bsize;
	ret = find_mount(real, sb.st_dev, &c->mnt);
	c->found_mount = !ret;
	classify(c);
	probe_statx(c, real);
	probe_device(c, sb.st_dev);
	probe_stack(c, sb.st_dev);
	probe_jbd2(c);
	probe_ext4_journal(c);
	probe_nocow(c, real);
	probe_journal_flag(c, real);
	c->jw_module = access("/dev/untorn_jw", F_OK) == 0;
	return 0;
}
