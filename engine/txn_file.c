// SPDX-License-Identifier: MIT
/*
 * txn_file.c - a large transaction's commit file (txn_file.h): written
 * and made durable before its writes are applied, read back at open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/bytes.h"
#include "base/crc32c.h"
#include "base/err.h"
#include "io/file.h"
#include "io/sysio.h"
#include "txn_file.h"

#define HDR_BYTES 4096u
#define HDR_MAGIC "UNTORNTX"
#define HDR_VERSION 1u
/* header fields */
#define H_MAGIC 0 /* 8 bytes */
#define H_VERSION 8 /* le32 */
#define H_CRC 12 /* le32, of the header with this field 0 */
#define H_UUID 16 /* 16 bytes */
#define H_N 32 /* le64 writes */
#define H_BYTES 40 /* le64 bytes of writes after the header */
#define H_BODY_CRC 48 /* le32 */
#define H_END 52
/* a write: le64 key, le32 length, le32 flags, the value */
#define W_HDR 16u
#define W_DELETE 1u
#define CHUNK (1u << 20)

static int write_all(int fd, const void *buf, size_t len, off_t off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = ut_sys.pwrite(fd, p, len, off);

		if (n < 0 && (n == -EINTR || n == -EAGAIN))
			continue;
		if (n < 0)
			return (int)n;
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

/* The writes after the header, in chunks: their bytes and CRC. */
static int body_write(int fd, const struct ut_tree_op *ops, size_t n,
		      uint64_t *bytes, uint32_t *crc)
{
	unsigned char *buf = malloc(CHUNK);
	off_t off = HDR_BYTES;
	size_t used = 0, i;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	*crc = 0;
	for (i = 0; i < n && !ret; i++) {
		uint32_t len = ops[i].del ? 0 : ops[i].len;

		if (used + W_HDR + len > CHUNK) {
			ret = write_all(fd, buf, used, off);
			off += (off_t)used;
			used = 0;
		}
		put_le64(buf + used, ops[i].key);
		put_le32(buf + used + 8, len);
		put_le32(buf + used + 12, ops[i].del ? W_DELETE : 0);
		if (len)
			memcpy(buf + used + W_HDR, ops[i].val, len);
		*crc = ut_crc32c(*crc, buf + used, W_HDR + len);
		used += W_HDR + len;
	}
	if (!ret && used)
		ret = write_all(fd, buf, used, off);
	*bytes = (uint64_t)(off - HDR_BYTES) + used;
	free(buf);
	return ret;
}

static void hdr_fill(unsigned char *h, const uint8_t uuid[16], uint64_t n,
		     uint64_t bytes, uint32_t body_crc)
{
	memset(h, 0, HDR_BYTES);
	memcpy(h + H_MAGIC, HDR_MAGIC, 8);
	put_le32(h + H_VERSION, HDR_VERSION);
	memcpy(h + H_UUID, uuid, 16);
	put_le64(h + H_N, n);
	put_le64(h + H_BYTES, bytes);
	put_le32(h + H_BODY_CRC, body_crc);
	put_le32(h + H_CRC, ut_crc32c(0, h, H_END));
}

/* A new file dir/untorn.txn.XXXXXX: its fd, its name in path. */
static int file_create(const char *dir, char *path, size_t cap)
{
	static unsigned seq;
	unsigned tries;
	int fd;

	for (tries = 0; tries < 100; tries++) {
		snprintf(path, cap, "%s/" UT_TXN_FILE_PREFIX "%d.%u", dir,
			 (int)getpid(),
			 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
		fd = ut_sys.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
				 0644);
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}

int ut_txn_file_write(const char *dir, const uint8_t uuid[16],
		      const struct ut_tree_op *ops, size_t n, char *path,
		      size_t cap, struct ut_err *err)
{
	unsigned char *h = malloc(HDR_BYTES);
	uint64_t bytes = 0;
	uint32_t crc = 0;
	int fd, ret;

	if (!h)
		return ut_err_set(err, -ENOMEM,
				  "out of memory for a commit file's header");
	fd = file_create(dir, path, cap);
	if (fd < 0) {
		ret = fd;
		goto out_free;
	}
	ret = body_write(fd, ops, n, &bytes, &crc);
	if (ret)
		goto out_unlink;
	hdr_fill(h, uuid, n, bytes, crc);
	ret = write_all(fd, h, HDR_BYTES, 0);
	if (!ret)
		ret = ut_sys.fdatasync(fd);
	if (!ret)
		ret = ut_dir_sync(dir);
	if (ret)
		goto out_spoil;
	ut_sys.close(fd);
	free(h);
	return 0;

out_spoil:
	/* the header may reach the disk later, and the file with it: zero
	 * it, durably, before the file goes, or say it may survive */
	memset(h, 0, HDR_BYTES);
	if (write_all(fd, h, HDR_BYTES, 0) || ut_sys.fdatasync(fd)) {
		ut_sys.close(fd);
		free(h);
		return ut_err_set(err, -EUCLEAN,
				  "%s: a transaction's commit file could not be made durable (%s) nor spoilt: it may survive a crash and be applied at the next open; close the store and open it again",
				  path, strerror(-ret));
	}
out_unlink:
	ut_sys.close(fd);
	unlink(path);
out_free:
	free(h);
	if (ret == -ENOSPC || ret == -EDQUOT)
		return ut_err_set(err, ret,
				  "%s: no space for the commit file of a transaction of %zu writes (%llu MiB); free space on the filesystem, or commit in smaller transactions: nothing was applied",
				  dir, n,
				  (unsigned long long)((bytes + HDR_BYTES) >>
						       20));
	return ut_err_set(err, ret,
			  "%s: cannot write a commit file for a transaction of %zu writes: %s; nothing was applied",
			  dir, n, strerror(-ret));
}

int ut_txn_file_remove(const char *path)
{
	char dir[4200], *slash;

	if (unlink(path))
		return -errno;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	return ut_dir_sync(slash ? dir : ".");
}

void ut_txn_file_release(struct ut_txn_file *f)
{
	free(f->ops);
	if (f->map)
		munmap(f->map, f->map_len);
	f->ops = NULL;
	f->map = NULL;
}

/*
 * One write of a checked body, at *p before end: 0 and *op filled, or
 * -EBADMSG when it is not one this store's commit would have written
 * (its header or value past the end, a flag unknown, a delete with a
 * value, a value over value_max, a key not above the one before).
 */
static int write_parse(unsigned char **p, const unsigned char *end,
		       uint32_t value_max, const struct ut_tree_op *prev,
		       struct ut_tree_op *op)
{
	uint32_t len, flags;

	if (end - *p < W_HDR)
		return -EBADMSG;
	len = get_le32(*p + 8);
	flags = get_le32(*p + 12);
	if ((size_t)(end - *p - W_HDR) < len || (flags & ~W_DELETE) ||
	    ((flags & W_DELETE) && len) || len > value_max)
		return -EBADMSG;
	op->key = get_le64(*p);
	if (prev && op->key <= prev->key)
		return -EBADMSG;
	op->len = len;
	op->del = !!(flags & W_DELETE);
	op->val = *p + W_HDR;
	*p += W_HDR + len;
	return 0;
}

/* 0 when the mapped file is a commit file of the store, its writes in
 * f->ops; -EBADMSG when it does not check. */
static int file_parse(struct ut_txn_file *f, const uint8_t uuid[16],
		      uint32_t value_max)
{
	unsigned char *h = f->map, *p, *end;
	uint64_t n, bytes, i;
	unsigned char hdr[H_END];

	if (!h || f->map_len < HDR_BYTES || memcmp(h + H_MAGIC, HDR_MAGIC, 8) ||
	    get_le32(h + H_VERSION) != HDR_VERSION)
		return -EBADMSG;
	memcpy(hdr, h, H_END);
	put_le32(hdr + H_CRC, 0);
	if (ut_crc32c(0, hdr, H_END) != get_le32(h + H_CRC))
		return -EBADMSG;
	if (memcmp(h + H_UUID, uuid, 16))
		return -ESTALE; /* another store's: not ours to apply or remove */
	n = get_le64(h + H_N);
	bytes = get_le64(h + H_BYTES);
	if (bytes > f->map_len - HDR_BYTES || n > bytes / W_HDR ||
	    ut_crc32c(0, h + HDR_BYTES, bytes) != get_le32(h + H_BODY_CRC))
		return -EBADMSG;
	f->ops = malloc((n ? n : 1) * sizeof(*f->ops));
	if (!f->ops)
		return -ENOMEM;
	p = h + HDR_BYTES;
	end = p + bytes;
	for (i = 0; i < n; i++)
		if (write_parse(&p, end, value_max, i ? &f->ops[i - 1] : NULL,
				&f->ops[i]))
			return -EBADMSG;
	if (p != end)
		return -EBADMSG;
	f->n = n;
	return 0;
}

/* Maps dir/name and checks it: 0, -EBADMSG, or -errno. */
static int file_open(const char *dir, const char *name, const uint8_t uuid[16],
		     uint32_t value_max, struct ut_txn_file *f)
{
	struct stat st;
	int fd, ret;

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s/%s", dir, name);
	fd = ut_sys.open(f->path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	ret = ut_sys.fstat(fd, &st);
	if (!ret && st.st_size < (off_t)HDR_BYTES)
		ret = -EBADMSG;
	if (!ret) {
		f->map_len = (size_t)st.st_size;
		f->map = mmap(NULL, f->map_len, PROT_READ, MAP_SHARED, fd, 0);
		if (f->map == MAP_FAILED) {
			f->map = NULL;
			ret = -errno;
		}
	}
	ut_sys.close(fd);
	if (!ret)
		ret = file_parse(f, uuid, value_max);
	if (ret)
		ut_txn_file_release(f);
	return ret;
}

int ut_txn_file_first(const char *dir, const uint8_t uuid[16],
		      uint32_t value_max, struct ut_txn_file *f, unsigned *bad,
		      struct ut_err *err)
{
	struct dirent *e;
	int ret = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return ut_err_set(err, -errno,
				  "%s: cannot list the store's directory for commit files: %s",
				  dir, strerror(errno));
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, UT_TXN_FILE_PREFIX,
			    strlen(UT_TXN_FILE_PREFIX)))
			continue;
		ret = file_open(dir, e->d_name, uuid, value_max, f);
		if (ret == -ESTALE) {
			ret = 0;
			continue;
		}
		if (ret == -EBADMSG) { /* never committed: its writes go */
			(*bad)++;
			ret = ut_txn_file_remove(f->path);
			if (ret)
				break;
			continue;
		}
		if (ret)
			break;
		closedir(d);
		return 1;
	}
	closedir(d);
	if (ret)
		return ut_err_set(err, ret, "%s: %s", f->path, strerror(-ret));
	return 0;
}
