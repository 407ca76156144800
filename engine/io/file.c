// SPDX-License-Identifier: MIT
/*
 * file.c - creating a preallocated file with a synced header, its body
 * left zero or filled with a repeated block; a directory's fsync.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/err.h"
#include "io/sysio.h"
#include "base/mem.h"
#include "io/file.h"

#define FILL_CHUNK (1u << 20)

int ut_dir_sync(const char *dir)
{
	int fd = ut_sys.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	int ret;

	if (fd < 0)
		return fd;
	ret = ut_sys.fsync(fd);
	ut_sys.close(fd);
	return ret;
}

int ut_file_fill(int fd, uint64_t from, uint64_t size, const void *blk,
		 uint32_t blk_len)
{
	unsigned char *chunk;
	uint64_t off, n;
	ssize_t done;
	uint32_t i;
	int ret = 0;

	chunk = ut_io_alloc(FILL_CHUNK);
	if (!chunk)
		return -ENOMEM;
	for (i = 0; i < FILL_CHUNK; i += blk_len)
		memcpy(chunk + i, blk, blk_len);
	for (off = from; off < size && !ret; off += n) {
		n = size - off < FILL_CHUNK ? size - off : FILL_CHUNK;
		done = ut_sys.pwrite(fd, chunk, n, off);
		ret = done == (ssize_t)n ? 0 : (done < 0 ? done : -EIO);
	}
	free(chunk);
	return ret;
}

int ut_file_create_filled(const char *path, uint64_t size, const void *hdr,
			  uint32_t hdr_len, const void *blk, uint32_t blk_len,
			  const char *fix, struct ut_err *err)
{
	ssize_t n;
	int fd, ret;

	fd = ut_sys.open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return ut_err_set(err, fd, "%s: cannot create: %s", path,
				  strerror(-fd));
	ret = ut_sys.fallocate(fd, 0, 0, size);
	if (ret == -EOPNOTSUPP)
		ret = ut_sys.ftruncate(fd, size);
	if (ret) {
		ut_err_set(err, ret, "%s: cannot allocate %llu bytes: %s; %s",
			   path, (unsigned long long)size, strerror(-ret), fix);
		goto out_close;
	}
	if (blk) {
		/* synced before the header: a header on disk means a body */
		ret = ut_file_fill(fd, hdr_len, size, blk, blk_len);
		if (!ret)
			ret = ut_sys.fdatasync(fd);
		if (ret) {
			ut_err_set(err, ret,
				   "%s: cannot fill %llu bytes: %s; %s", path,
				   (unsigned long long)size, strerror(-ret),
				   fix);
			goto out_close;
		}
	}
	n = ut_sys.pwrite(fd, hdr, hdr_len, 0);
	ret = n == hdr_len ? ut_sys.fdatasync(fd) : (n < 0 ? n : -EIO);
	if (ret)
		ut_err_set(err, ret,
			   "%s: cannot write its header: %s; check the device",
			   path, strerror(-ret));
out_close:
	ut_sys.close(fd);
	if (ret)
		unlink(path);
	return ret;
}

int ut_file_create(const char *path, uint64_t size, const void *hdr,
		   uint32_t hdr_len, const char *fix, struct ut_err *err)
{
	return ut_file_create_filled(path, size, hdr, hdr_len, NULL, 0, fix,
				     err);
}
