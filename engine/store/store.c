// SPDX-License-Identifier: MIT
/*
 * store.c - making, opening and validating a store directory and its
 * data file; growing the file; writing checkpoint slots.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include "base/err.h"
#include "store/store.h"
#include "io/file.h"
#include "io/sysio.h"
#include "guard/guard.h"
#include "fscaps.h"
#include "base/mem.h"
#include "log/redo.h"
#include "store/placement.h"

#define EXTENT_BYTES_MIN (1u << 20)
#define EXTENT_PAGES_MIN 64u
#define ZERO_CHUNK (1u << 20)

static uint32_t extent_pages_for(uint32_t page_size)
{
	uint32_t pages = EXTENT_BYTES_MIN / page_size;

	return pages < EXTENT_PAGES_MIN ? EXTENT_PAGES_MIN : pages;
}

/* ---- preallocation --------------------------------------------------- */

static int zero_fill(struct ut_ring *ring, int fd, uint64_t off, uint64_t len)
{
	struct ut_io io;
	uint32_t chunk;
	void *zeros;
	int ret = 0;

	zeros = ut_io_alloc(ZERO_CHUNK);
	if (!zeros)
		return -ENOMEM;
	while (len && !ret) {
		chunk = len < ZERO_CHUNK ? len : ZERO_CHUNK;
		ut_io_write(&io, fd, zeros, chunk, off);
		ret = ut_ring_run(ring, &io, 1);
		off += chunk;
		len -= chunk;
	}
	free(zeros);
	return ret;
}

static int extend_file(struct ut_ring *ring, int fd, const char *path,
		       uint64_t from, uint64_t to, struct ut_err *err)
{
	int ret;

	ret = ut_sys.fallocate(fd, 0, from, to - from);
	if (ret == -EOPNOTSUPP)
		ret = zero_fill(ring, fd, from, to - from);
	if (ret == -ENOSPC || ret == -EDQUOT)
		return ut_err_set(err, ret,
				  "%s: no space left to grow the data file to %llu bytes; free space on the filesystem or move the store",
				  path, (unsigned long long)to);
	if (ret)
		return ut_err_set(err, ret,
				  "%s: cannot grow the data file to %llu bytes: %s; check the filesystem and the device",
				  path, (unsigned long long)to, strerror(-ret));
	return 0;
}

int ut_store_grow(struct ut_store *st, uint64_t min_pages, struct ut_err *err)
{
	uint64_t extent = st->sb.extent_pages;
	uint64_t pages;
	int ret;

	if (st->read_only)
		return ut_err_set(err, -EROFS, "%s: opened read-only",
				  st->data_path);
	if (min_pages > UINT32_MAX)
		return ut_err_set(err, -EFBIG,
				  "%s: %llu pages exceed the format's 2^32 page limit; use a larger page size",
				  st->data_path, (unsigned long long)min_pages);
	pages = (min_pages + extent - 1) / extent * extent;
	if (pages <= st->file_pages)
		return 0;
	if (pages > UINT32_MAX)
		return ut_err_set(err, -EFBIG,
				  "%s: %llu pages exceed the format's 2^32 page limit; use a larger page size",
				  st->data_path, (unsigned long long)pages);
	ret = extend_file(ut_ring_thread(), st->data_fd, st->data_path,
			  st->file_pages * st->geom.page_size,
			  pages * st->geom.page_size, err);
	if (ret)
		return ret;
	st->file_pages = pages;
	return 0;
}

/* ---- init ----------------------------------------------------------- */

static int dir_check_empty(const char *dir, struct ut_err *err)
{
	struct dirent *de;
	int has_store = 0, has_other = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return ut_err_set(err, -errno,
				  "%s: cannot read the directory: %s; check its permissions",
				  dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!strcmp(de->d_name, UT_DATA_FILE))
			has_store = 1;
		else
			has_other = 1;
	}
	closedir(d);
	if (has_store)
		return ut_err_set(err, -EEXIST,
				  "%s: already holds an untorn store; use it as it is, or remove it before running init again",
				  dir);
	if (has_other)
		return ut_err_set(err, -ENOTEMPTY,
				  "%s: is not empty and holds no untorn store; choose an empty or new directory",
				  dir);
	return 0;
}

/* Makes dir exist and be empty; *created tells whether we made it. */
static int dir_prepare(const char *dir, int *created, struct ut_err *err)
{
	struct stat st;

	*created = 0;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return ut_err_set(err, -ENOTDIR,
					  "%s: exists and is not a directory; choose a directory path",
					  dir);
		return dir_check_empty(dir, err);
	}
	if (errno != ENOENT)
		return ut_err_set(err, -errno,
				  "%s: %s; check the path and its permissions",
				  dir, strerror(errno));
	if (mkdir(dir, 0755) < 0) {
		if (errno == ENOENT)
			return ut_err_set(err, -ENOENT,
					  "%s: the parent directory does not exist; create it first",
					  dir);
		return ut_err_set(err, -errno,
				  "%s: cannot create the directory: %s; check the parent's permissions",
				  dir, strerror(errno));
	}
	*created = 1;
	return 0;
}

static int fs_block_size(const char *dir, uint32_t *bsize)
{
	struct statfs sfs;

	if (statfs(dir, &sfs) < 0)
		return -errno;
	*bsize = sfs.f_bsize;
	return 0;
}

/* Refuses a guard the filesystem under dir cannot honour. */
static int init_check_fs(const char *dir, const struct ut_init_opts *o,
			 const struct ut_geom *g, struct ut_err *err)
{
	const struct ut_guard_ops *guard = ut_guard_ops(o->guard);
	struct ut_fscaps caps;
	struct ut_verdict v;
	int undo = 0, ret;

	if (o->unsafe)
		return 0;
	ret = ut_fscaps_probe(dir, &caps);
	if (ret)
		return ut_err_set(err, ret,
				  "%s: cannot read the filesystem's facts: %s",
				  dir, strerror(-ret));
	ret = guard->dir_setup ? guard->dir_setup(dir, &caps, &undo, err) : 0;
	if (ret)
		goto out_undo;
	ut_guard_verdict(guard, &caps, g->page_size, g->block_size, &v);
	if (v.safe)
		return 0;
	ret = ut_err_set(err, -EINVAL,
			 "%s: guard '%s' is not safe here: %s; %s (or --unsafe for a crash simulation)",
			 dir, guard->name, v.reason, v.fix);
out_undo:
	if (undo && guard->dir_undo) /* refused: the directory as it was */
		guard->dir_undo(dir);
	return ret;
}

/* The guard's own options and directory: each the chosen guard's, and
 * as it checks them. */
static int init_check_guard(const struct ut_guard_ops *guard,
			    const struct ut_init_opts *o, struct ut_err *err)
{
	const struct ut_guard_args *a = &o->guard_args;
	const struct ut_guard_ops *owner;
	unsigned i;
	int ret;

	if (a->n > UT_GUARD_ARGS_MAX)
		return ut_err_set(err, -EINVAL,
				  "%u guard options; give at most %u", a->n,
				  UT_GUARD_ARGS_MAX);
	for (i = 0; i < a->n; i++) {
		owner = ut_guard_opt_owner(a->v[i].name);
		if (owner != guard)
			return ut_err_set(err, -EINVAL,
					  "--%s is %s; guard '%s' does not take it",
					  a->v[i].name,
					  owner ? "for another guard" :
						  "no guard's option",
					  guard->name);
	}
	if (o->guard_dir && (!guard->file || !guard->file->dir_opt))
		return ut_err_set(err, -EINVAL,
				  "a directory for the guard's file is for a guard that keeps one (--dblwr-dir: doublewrite); guard '%s' has no file of its own",
				  guard->name);
	ret = guard->init_check ? guard->init_check(a, err) : 0;
	if (!ret && o->guard_dir)
		ret = ut_place_check_dir(guard->file->what, o->guard_dir, err);
	return ret;
}

static int init_check_opts(const struct ut_init_opts *o, struct ut_err *err)
{
	const struct ut_guard_ops *guard = ut_guard_ops(o->guard);
	int ret = 0;

	if (!guard)
		return ut_err_set(err, -EINVAL,
				  "unknown guard %u; use one of %s", o->guard,
				  ut_guard_names());
	if (guard->needs_unsafe && !o->unsafe)
		return ut_err_set(err, -EINVAL, "%s", guard->needs_unsafe);
	if (o->log_size &&
	    (o->log_size < UT_LOG_SIZE_MIN || o->log_size > (1ull << 40)))
		return ut_err_set(err, -EINVAL,
				  "log size %llu is out of range; use 8M to 1T",
				  (unsigned long long)o->log_size);
	if (o->redo_dir)
		ret = ut_place_check_dir("redo log", o->redo_dir, err);
	if (!ret)
		ret = init_check_guard(guard, o, err);
	if (ret)
		return ret;
	if (o->page_size < UT_PAGE_SIZE_MIN ||
	    o->page_size > UT_PAGE_SIZE_MAX ||
	    (o->page_size & (o->page_size - 1)))
		return ut_err_set(err, -EINVAL,
				  "page size %u is not a power of two between 4 KiB and 64 KiB; use 4k, 8k, 16k, 32k or 64k",
				  o->page_size);
	return 0;
}

/* Below 4 KiB a full header in every block costs 1.2-4.7 % of a page: such
 * blocks take the compact layout (page/page.h). */
static enum ut_layout layout_for(uint32_t block_size)
{
	return block_size < 4096 ? UT_LAYOUT_COMPACT : UT_LAYOUT_FULL;
}

static int init_geometry(const char *dir, const struct ut_init_opts *o,
			 struct ut_geom *g, struct ut_err *err)
{
	const struct ut_guard_ops *guard = ut_guard_ops(o->guard);
	uint32_t bsize = o->single_lsn ? o->page_size : o->block_size;
	int ret;

	if (!bsize && guard->block_size) {
		struct ut_fscaps caps;

		ret = ut_fscaps_probe(dir, &caps);
		if (ret) {
			ut_err_set(err, ret,
				   "%s: cannot read the filesystem's facts: %s",
				   dir, strerror(-ret));
			return ret;
		}
		ret = guard->block_size(&caps, o->page_size, &o->guard_args,
					&bsize, err);
		if (ret)
			return ret;
	}
	if (!bsize) {
		ret = fs_block_size(dir, &bsize);
		if (ret) {
			ut_err_set(err, ret,
				   "%s: cannot read the filesystem block size: %s",
				   dir, strerror(-ret));
			return ret;
		}
	}
	ret = ut_geom_init_layout(g, o->page_size, bsize, layout_for(bsize));
	if (ret)
		ut_err_set(err, ret,
			   "%s: block size %u does not fit page size %u (it must be a power of two from 512 bytes up to the page size); use a larger --page-size or another --block-size",
			   dir, bsize, o->page_size);
	return ret;
}

/* Page 0 (superblock, both slots valid) and page 1 (empty root leaf). */
static void init_fill_pages(const struct ut_geom *g, const struct ut_sb *sb,
			    unsigned char *pages, void *area)
{
	struct ut_page_meta meta;
	struct ut_ckpt ck = {
		.checkpoint_lsn = UT_LSN_START,
		.n_pages = 2,
		.root_page = 1,
	};

	ut_sb_encode(sb, pages);
	ck.seq = 1;
	ut_ckpt_encode(&ck, sb->uuid, 0, pages + UT_SB_SECTOR);
	ck.seq = 2;
	ut_ckpt_encode(&ck, sb->uuid, 1, pages + 2 * UT_SB_SECTOR);
	ut_page_meta_init(g, &meta, 1, UT_PAGE_BTREE, 0, UT_LSN_START);
	memset(area, 0, g->area_size);
	ut_page_pack(g, &meta, area, pages + g->page_size);
}

static int init_write(const char *path, int fd, const struct ut_geom *g,
		      const struct ut_sb *sb, struct ut_err *err)
{
	struct ut_ring *ring;
	struct ut_io io[2];
	unsigned char *pages;
	void *area;
	int ret;

	ret = ut_ring_init(&ring, 8, 0);
	if (ret)
		return ut_err_set(err, ret, "cannot set up I/O: %s",
				  strerror(-ret));
	ret = -ENOMEM;
	pages = ut_io_alloc(2 * g->page_size);
	area = malloc(g->area_size);
	if (!pages || !area)
		goto out_free;
	ret = extend_file(ring, fd, path, 0,
			  (uint64_t)sb->extent_pages * g->page_size, err);
	if (ret)
		goto out_free;
	init_fill_pages(g, sb, pages, area);
	ut_io_write(&io[0], fd, pages, 2 * g->page_size, 0);
	io[0].flags = UT_IO_LINK;
	ut_io_fdatasync(&io[1], fd);
	ret = ut_ring_run(ring, io, 2);
	if (ret)
		ut_err_set(err, ret,
			   "%s: cannot write the superblock: %s; check the device",
			   path, strerror(-ret));
out_free:
	free(area);
	free(pages);
	ut_ring_exit(ring);
	return ret;
}

/* The file just made at path, for store_dir/name: linked from the store
 * (removed if that fails: nothing would find it to unwind) and, in a
 * directory of its own, that directory synced. */
static int place_finish(const char *dir, const char *own_dir, const char *name,
			const char *path, struct ut_err *err)
{
	int ret;

	ret = ut_place_link(dir, name, path, err);
	if (ret) {
		unlink(path);
		return ret;
	}
	if (!own_dir)
		return 0;
	ret = ut_dir_sync(own_dir);
	if (ret)
		ut_err_set(err, ret, "%s: cannot sync the directory: %s",
			   own_dir, strerror(-ret));
	return ret;
}

/* The redo log, and the guard's own file (the doublewrite file), each in
 * DIR or in its own directory, linked from DIR (placement.c). */
static int init_aux_files(const char *dir, const struct ut_init_opts *o,
			  const struct ut_sb *sb, struct ut_err *err)
{
	const struct ut_guard_ops *guard = ut_guard_ops(sb->guard);
	char path[PATH_MAX + 32];
	int ret;

	ret = ut_place_target(dir, o->redo_dir, UT_LOG_FILE, sb->uuid, path,
			      sizeof(path), err);
	if (!ret)
		ret = ut_redo_create(path,
				     o->log_size ? o->log_size :
						   UT_LOG_SIZE_DEFAULT,
				     sb->uuid, err);
	if (!ret)
		ret = place_finish(dir, o->redo_dir, UT_LOG_FILE, path, err);
	if (ret || !guard->create || !guard->file)
		return ret;
	ret = ut_place_target(dir, o->guard_dir, guard->file->name, sb->uuid,
			      path, sizeof(path), err);
	if (!ret)
		ret = guard->create(path, &o->guard_args, sb, err);
	if (!ret)
		ret = place_finish(dir, o->guard_dir, guard->file->name, path,
				   err);
	return ret;
}

static int store_create(const char *dir, const struct ut_init_opts *opts,
			struct ut_err *err)
{
	char path[PATH_MAX + 16];
	struct ut_geom geom;
	struct ut_sb sb;
	int created, fd, ret;

	ret = init_check_opts(opts, err);
	if (ret)
		return ret;
	ret = dir_prepare(dir, &created, err);
	if (ret)
		return ret;
	ret = init_geometry(dir, opts, &geom, err);
	if (!ret)
		ret = init_check_fs(dir, opts, &geom, err);
	if (ret)
		goto out_rmdir;
	memset(&sb, 0, sizeof(sb));
	sb.version = geom.layout == UT_LAYOUT_COMPACT ? UT_FORMAT_COMPACT :
							UT_FORMAT_VERSION;
	sb.page_size = geom.page_size;
	sb.block_size = geom.block_size;
	sb.extent_pages = extent_pages_for(geom.page_size);
	sb.guard = opts->guard;
	sb.flags = (opts->single_lsn ? UT_SB_SINGLE_LSN : 0) |
		   (opts->unsafe ? UT_SB_UNSAFE : 0) |
		   (geom.layout == UT_LAYOUT_COMPACT ? UT_SB_COMPACT : 0);
	sb.created = time(NULL);
	if (getrandom(sb.uuid, sizeof(sb.uuid), 0) != sizeof(sb.uuid)) {
		ret = ut_err_set(err, -EIO,
				 "cannot get random bytes for the store id");
		goto out_rmdir;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, UT_DATA_FILE);
	fd = ut_sys.open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		ret = ut_err_set(err, fd,
				 "%s: cannot create: %s; check the directory's permissions",
				 path, strerror(-fd));
		goto out_rmdir;
	}
	ret = init_write(path, fd, &geom, &sb, err);
	ut_sys.close(fd);
	if (ret)
		goto out_unlink;
	ret = init_aux_files(dir, opts, &sb, err);
	if (ret)
		goto out_unlink;
	ret = ut_dir_sync(dir);
	if (ret) {
		ut_err_set(err, ret, "%s: cannot sync the directory: %s", dir,
			   strerror(-ret));
		goto out_unlink;
	}
	return 0;

out_unlink:
	unlink(path);
	ut_place_remove(dir, UT_LOG_FILE);
	if (ut_guard_ops(opts->guard)->file)
		ut_place_remove(dir, ut_guard_ops(opts->guard)->file->name);
out_rmdir:
	if (created)
		rmdir(dir);
	return ret;
}

int ut_store_init(const char *dir, const struct ut_init_opts *opts,
		  struct ut_err *err)
{
	struct ut_init_opts o = *opts;

	/* zeroed options are the defaults the header names */
	if (!o.page_size)
		o.page_size = UT_PAGE_SIZE_DEFAULT;
	if (!o.guard)
		o.guard = UT_GUARD_DEFAULT;
	return store_create(dir, &o, err);
}

/* ---- checkpoint ----------------------------------------------------- */

void ut_store_set_slot_sync(struct ut_store *st, int (*sync)(void *arg),
			    void *arg)
{
	st->slot_sync = sync;
	st->slot_sync_arg = arg;
}

int ut_store_write_checkpoint(struct ut_store *st, struct ut_ckpt *ck,
			      struct ut_err *err)
{
	unsigned slot = st->ckpt_slot ^ 1;
	struct ut_io io[2];
	void *sector;
	int ret;

	if (st->read_only)
		return ut_err_set(err, -EROFS, "%s: opened read-only",
				  st->data_path);
	sector = ut_io_alloc(UT_SB_SECTOR);
	if (!sector)
		return ut_err_set(err, -ENOMEM, "out of memory");
	ck->seq = st->ckpt.seq + 1;
	ut_ckpt_encode(ck, st->sb.uuid, slot, sector);
	ut_io_write(&io[0], st->data_fd, sector, UT_SB_SECTOR,
		    (1 + slot) * UT_SB_SECTOR);
	if (st->slot_sync) {
		ret = ut_ring_run(ut_ring_thread(), io, 1);
		if (!ret)
			ret = st->slot_sync(st->slot_sync_arg);
	} else {
		io[0].flags = UT_IO_LINK;
		ut_io_fdatasync(&io[1], st->data_fd);
		ret = ut_ring_run(ut_ring_thread(), io, 2);
	}
	free(sector);
	if (ret)
		return ut_err_set(err, ret,
				  "%s: cannot write checkpoint slot %u: %s; check the device",
				  st->data_path, slot, strerror(-ret));
	st->ckpt = *ck;
	st->ckpt_slot = slot;
	st->slot_err[slot] = 0;
	return 0;
}
