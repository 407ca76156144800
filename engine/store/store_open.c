// SPDX-License-Identifier: MIT
/*
 * store_open.c - opening a store: every check that stands between a
 * directory on disk and pages the engine may trust, each failing with one
 * line naming the file, the cause and the fix.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/err.h"
#include "base/crc32c.h"
#include "store/store.h"
#include "io/sysio.h"
#include "base/bytes.h"
#include "fscaps.h"
#include "guard/guard.h"
#include "base/mem.h"

static int open_dir_check(const char *dir, struct ut_err *err)
{
	struct stat sb;

	if (stat(dir, &sb) < 0) {
		if (errno == ENOENT)
			return ut_err_set(err, -ENOENT,
					  "%s: no such directory; create a store there with 'untorn init %s'",
					  dir, dir);
		return ut_err_set(err, -errno,
				  "%s: %s; check the path and its permissions",
				  dir, strerror(errno));
	}
	if (!S_ISDIR(sb.st_mode))
		return ut_err_set(err, -ENOTDIR,
				  "%s: not a directory; give the store's directory",
				  dir);
	return 0;
}

static int open_data_file(struct ut_store *st, struct ut_err *err)
{
	struct stat sb;
	int fd;

	fd = ut_sys.open(st->data_path,
			 (st->read_only ? O_RDONLY : O_RDWR) | O_NONBLOCK |
				 O_NOFOLLOW,
			 0);
	if (fd == -ENOENT)
		return ut_err_set(err, fd,
				  "%s: holds no untorn store (no %s); create one with 'untorn init %s'",
				  st->dir, UT_DATA_FILE, st->dir);
	if (fd < 0)
		return ut_err_set(err, fd,
				  "%s: cannot open: %s; check its permissions",
				  st->data_path, strerror(-fd));
	if (ut_sys.fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		ut_sys.close(fd);
		return ut_err_set(err, -EINVAL,
				  "%s: not a regular file; the data file must be the one 'untorn init' made",
				  st->data_path);
	}
	st->data_fd = fd;
	return 0;
}

/*
 * "writer pid 12 (untorn bench write s)"; returns how many holders are
 * live.  A holder whose command line is gone is exiting (its memory is
 * freed before its descriptors): it is about to let go, as a dead one is.
 */
static int describe_holders(struct ut_store *st, char *buf, size_t size)
{
	struct ut_lock_holder h[8];
	int n = ut_lock_holders(st->data_fd, h, 8), i, live = 0, first = -1;

	for (i = 0; i < n; i++) {
		if (!h[i].cmd[0])
			continue;
		if (first < 0)
			first = i;
		live++;
	}
	if (!live) {
		snprintf(buf, size,
			 "no process this user can see (another user's, or one that ended with I/O in flight: 'fuser -v %s' as root names a live one)",
			 st->data_path);
		return 0;
	}
	snprintf(buf, size, "%s pid %d (%s)%s",
		 h[first].exclusive ? "writer" : "reader", h[first].pid,
		 h[first].cmd, live > 1 ? " and other processes" : "");
	return live;
}

/*
 * The store lock comes before any read, so that nothing a live writer may
 * be writing is read as if at rest, and a refusal has touched nothing.
 * A lock that no process holds is a dead process's I/O still landing
 * (lock.c): that ends by itself, so it is waited for, a while.
 */
static int open_lock(struct ut_store *st, unsigned wait_ms, struct ut_err *err)
{
	int excl = !st->read_only;
	char who[PATH_MAX + 256];
	unsigned drain;
	int ret, seen = 0;

	ret = ut_lock_take(st->data_fd, excl, wait_ms);
	for (drain = 0; ret == -EBUSY && drain < UT_LOCK_DRAIN_MS;
	     drain += 10) {
		seen = describe_holders(st, who, sizeof(who));
		if (seen)
			break;
		ret = ut_lock_take(st->data_fd, excl, 10);
	}
	if (!ret)
		return 0;
	if (ret != -EBUSY)
		return ut_err_set(err, ret,
				  "%s: cannot lock the store: %s; keep stores on a local filesystem that supports fcntl locks",
				  st->data_path, strerror(-ret));
	if (!seen)
		describe_holders(st, who, sizeof(who));
	if (wait_ms)
		return ut_err_set(err, ret,
				  "%s: store still in use by %s after waiting %u.%03u s; let it finish or stop it, then try again",
				  st->dir, who, wait_ms / 1000, wait_ms % 1000);
	return ut_err_set(err, ret,
			  "%s: store in use by %s; wait for it to finish, or give --wait SECONDS to queue behind it",
			  st->dir, who);
}

static int read_at(struct ut_store *st, void *buf, uint32_t len, uint64_t off)
{
	struct ut_io io;

	ut_io_read(&io, st->data_fd, buf, len, off);
	return ut_ring_run(st->ring, &io, 1);
}

static int sb_error(struct ut_store *st, const unsigned char *sec, int ret,
		    struct ut_err *err)
{
	const char *p = st->data_path;

	switch (ret) {
	case UT_SB_EMAGIC:
		return ut_err_set(err, ret,
				  "%s: not an untorn data file (no superblock magic); point at a directory made by 'untorn init'",
				  p);
	case UT_SB_ECRC:
		return ut_err_set(err, ret,
				  "%s: superblock checksum mismatch (stored %08x); the header sector is damaged: restore the store from a backup",
				  p, get_le32(sec + 12));
	case UT_SB_EVERSION:
		return ut_err_set(err, ret,
				  "%s: format version %u, this untorn reads versions %u and %u; use the untorn release that made the store",
				  p, get_le32(sec + 8), UT_FORMAT_VERSION,
				  UT_FORMAT_COMPACT);
	}
	return ut_err_set(err, ret,
			  "%s: superblock holds an invalid field (page size %u, block size %u, extent %u pages, guard %u); the header is damaged: restore the store from a backup",
			  p, get_le32(sec + 16), get_le32(sec + 20),
			  get_le32(sec + 24), get_le32(sec + 28));
}

static const char *slot_reason(int e)
{
	switch (e) {
	case 0:
		return "ok";
	case UT_SB_EMAGIC:
		return "no slot magic";
	case UT_SB_ECRC:
		return "checksum mismatch";
	}
	return "invalid field";
}

static int open_superblock(struct ut_store *st, struct ut_err *err)
{
	unsigned char *region;
	int ret;

	region = ut_io_alloc(UT_SB_REGION);
	if (!region)
		return -ENOMEM;
	ret = read_at(st, region, UT_SB_REGION, 0);
	if (ret == -ENODATA) {
		ut_err_set(err, ret,
			   "%s: truncated: too short to hold a superblock (%u bytes); restore the store from a backup",
			   st->data_path, UT_SB_REGION);
		goto out_free;
	}
	if (ret) {
		ut_err_set(err, ret,
			   "%s: cannot read the superblock: %s; check the device",
			   st->data_path, strerror(-ret));
		goto out_free;
	}
	ret = ut_sb_decode(region, &st->sb);
	if (ret) {
		sb_error(st, region, ret, err);
		goto out_free;
	}
	if (!ut_guard_ops(st->sb.guard)) {
		ret = ut_err_set(err, -EINVAL,
				 "%s: the superblock names guard %u, which this build does not have (it has %s): open it with the build that made it, or restore the store from a backup",
				 st->data_path, st->sb.guard, ut_guard_names());
		goto out_free;
	}
	ut_geom_init_layout(&st->geom, st->sb.page_size, st->sb.block_size,
			    ut_sb_layout(&st->sb));
	ret = ut_ckpt_pick(region, st->sb.uuid, &st->ckpt, st->slot_err);
	if (ret < 0) {
		ut_err_set(err, ret,
			   "%s: both checkpoint slots are damaged (slot 0: %s, slot 1: %s); restore the store from a backup",
			   st->data_path, slot_reason(st->slot_err[0]),
			   slot_reason(st->slot_err[1]));
		goto out_free;
	}
	st->ckpt_slot = ret;
	ret = 0;
out_free:
	free(region);
	return ret;
}

/*
 * Looks for page 1 written with another page size: its block 0 at offset
 * ps, checksummed, naming page 1 and recording page shift log2(ps).
 * Returns that page size, or 0.
 */
static uint32_t probe_page_size(struct ut_store *st, uint64_t file_size)
{
	unsigned char *blk;
	uint32_t ps, bs, found = 0;

	blk = ut_io_alloc(UT_PAGE_SIZE_MAX);
	if (!blk)
		return 0;
	for (ps = UT_PAGE_SIZE_MIN; ps <= UT_PAGE_SIZE_MAX && !found;
	     ps <<= 1) {
		if (ps == st->geom.page_size || file_size < 2ull * ps)
			continue;
		if (read_at(st, blk, ps, ps))
			continue;
		bs = 1u << (blk[29] & 31);
		if (get_le32(blk + 4) != 1 || blk[28] != ilog2_u32(ps) ||
		    bs < UT_BLOCK_SIZE_MIN || bs > ps)
			continue;
		if (get_le32(blk) == ut_block_crc(blk, bs, 0))
			found = ps;
	}
	free(blk);
	return found;
}

/* Page 1 (the root since init) verifies under the superblock's geometry. */
static int page1_sound(struct ut_store *st, uint64_t file_size)
{
	unsigned char *page;
	int ret;

	if (file_size < 2ull * st->geom.page_size)
		return 0;
	page = ut_io_alloc(st->geom.page_size);
	if (!page)
		return 0;
	ret = read_at(st, page, st->geom.page_size, st->geom.page_size);
	if (!ret)
		ret = ut_page_verify(&st->geom, page, 1, NULL);
	free(page);
	return ret == 0;
}

static int open_check_size(struct ut_store *st, struct ut_err *err)
{
	uint32_t ps = st->geom.page_size, other;
	struct stat sb;
	int ret;

	ret = ut_sys.fstat(st->data_fd, &sb);
	if (ret)
		return ut_err_set(err, ret, "%s: cannot stat: %s",
				  st->data_path, strerror(-ret));
	other = 0;
	if (sb.st_size % ps || !page1_sound(st, sb.st_size))
		other = probe_page_size(st, sb.st_size);
	if (other)
		return ut_err_set(err, -EINVAL,
				  "%s: pages are %u bytes but the superblock says %u: the data file and its superblock come from different stores; restore a matching pair from a backup",
				  st->data_path, other, ps);
	if (sb.st_size % ps)
		return ut_err_set(err, -EINVAL,
				  "%s: size %llu is not a multiple of the %u-byte page size: the file was truncated or damaged; restore the store from a backup",
				  st->data_path, (unsigned long long)sb.st_size,
				  ps);
	st->file_pages = sb.st_size / ps;
	if (st->file_pages > UINT32_MAX)
		return ut_err_set(err, -EFBIG,
				  "%s: %llu pages exceed the format's 2^32 page limit: the file was extended by something else; restore the store from a backup",
				  st->data_path,
				  (unsigned long long)st->file_pages);
	if (st->file_pages < st->ckpt.n_pages)
		return ut_err_set(err, -EINVAL,
				  "%s: truncated: holds %llu pages but the checkpoint says %u are in use; restore the store from a backup",
				  st->data_path,
				  (unsigned long long)st->file_pages,
				  st->ckpt.n_pages);
	return 0;
}

/*
 * A store opened for writing is checked again: the filesystem may have
 * been remounted (data=ordered) or the store copied elsewhere since init.
 * Then page I/O gets its own O_DIRECT descriptor where the guard wants it.
 */
static int open_check_fs(struct ut_store *st, struct ut_fscaps *caps,
			 struct ut_err *err)
{
	const struct ut_guard_ops *guard = ut_guard_ops(st->sb.guard);
	struct ut_verdict v;
	int ret;

	ret = ut_fscaps_probe(st->dir, caps);
	if (ret)
		return ut_err_set(err, ret,
				  "%s: cannot read the filesystem's facts: %s",
				  st->dir, strerror(-ret));
	if (st->sb.flags & UT_SB_UNSAFE)
		return 0;
	ut_guard_verdict(guard, caps, st->geom.page_size, st->geom.block_size,
			 &v);
	if (v.safe)
		return 0;
	return ut_err_set(err, -EINVAL,
			  "%s: the store uses guard '%s', which is no longer safe here: %s; %s",
			  st->dir, guard->name, v.reason, v.fix);
}

static int open_page_fd(struct ut_store *st, const struct ut_fscaps *caps,
			struct ut_err *err)
{
	const struct ut_guard_ops *guard = ut_guard_ops(st->sb.guard);
	enum ut_guard_direct direct = guard->direct;
	int want = direct == UT_DIRECT_MUST ||
		   (direct == UT_DIRECT_MAY && caps->dio_offset_align &&
		    caps->dio_offset_align <= st->geom.block_size);
	int fd, ret;

	st->page_fd = st->data_fd;
	if (!want)
		return 0;
	fd = ut_sys.open(st->data_path, O_RDWR | O_DIRECT | O_NOFOLLOW, 0);
	if (fd >= 0) {
		ret = ut_lock_move_io(st->data_fd, fd);
		if (ret) {
			ut_sys.close(fd);
			return ut_err_set(err, ret,
					  "%s: cannot lock the O_DIRECT descriptor: %s; keep stores on a local filesystem that supports fcntl locks",
					  st->data_path, strerror(-ret));
		}
		st->page_fd = fd;
		st->direct = 1;
		return 0;
	}
	if (direct != UT_DIRECT_MUST)
		return 0; /* buffered I/O is correct, just slower */
	return ut_err_set(err, fd,
			  "%s: cannot open with O_DIRECT, which guard '%s' needs (%s): %s; use --guard %s on this filesystem",
			  st->data_path, guard->name,
			  guard->direct_why ? guard->direct_why :
					      "its pages bypass the page cache",
			  strerror(-fd), ut_guard_name(UT_GUARD_DEFAULT));
}

static int open_ring(struct ut_store *st, struct ut_err *err)
{
	int ret;

	ret = ut_ring_init(&st->ring, UT_RING_DEPTH, 0);
	if (ret)
		return ut_err_set(err, ret, "cannot set up I/O: %s",
				  strerror(-ret));
	if (ut_ring_uses_uring(st->ring))
		ut_ring_register_files(st->ring, &st->data_fd, 1);
	return 0;
}

int ut_store_open_wait(const char *dir, unsigned flags, unsigned wait_ms,
		       struct ut_store **stp, struct ut_err *err)
{
	struct ut_store *st;
	int ret;

	ret = open_dir_check(dir, err);
	if (ret)
		return ret;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->data_fd = -1;
	st->read_only = !!(flags & UT_OPEN_RDONLY);
	snprintf(st->dir, sizeof(st->dir), "%s", dir);
	snprintf(st->data_path, sizeof(st->data_path), "%s/%s", dir,
		 UT_DATA_FILE);
	ret = open_data_file(st, err);
	if (ret)
		goto out_free;
	ret = open_lock(st, wait_ms, err);
	if (ret)
		goto out_close;
	ret = open_ring(st, err);
	if (ret)
		goto out_close;
	ret = open_superblock(st, err);
	if (ret)
		goto out_ring;
	ret = open_check_size(st, err);
	if (ret)
		goto out_ring;
	st->page_fd = st->data_fd;
	if (!st->read_only) {
		struct ut_fscaps caps;

		ret = open_check_fs(st, &caps, err);
		if (!ret)
			ret = open_page_fd(st, &caps, err);
		if (ret)
			goto out_ring;
	}
	*stp = st;
	return 0;

out_ring:
	ut_ring_exit(st->ring);
out_close:
	ut_sys.close(st->data_fd);
out_free:
	free(st);
	return ret;
}

int ut_store_open(const char *dir, unsigned flags, struct ut_store **stp,
		  struct ut_err *err)
{
	return ut_store_open_wait(dir, flags, 0, stp, err);
}

void ut_store_close(struct ut_store *st)
{
	if (!st)
		return;
	ut_ring_exit(st->ring);
	if (st->page_fd != st->data_fd)
		ut_sys.close(st->page_fd);
	ut_sys.close(st->data_fd);
	free(st);
}
