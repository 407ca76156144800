// SPDX-License-Identifier: MIT
/*
 * file.c - creating a preallocated file with a synced header.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <untorn/sysio.h>
#include "io/file.h"

int ut_file_create(const char *path, uint64_t size, const void *hdr,
		   uint32_t hdr_len, const char *fix, struct ut_err *err)
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
	n = ut_sys.pwrite(fd, hdr, hdr_len, 0);
	ret = n == hdr_len ? ut_sys.fdatasync(fd) : (n < 0 ? n : -EIO);
	if (ret)
		ut_err_set(err, ret, "%s: cannot write its header: %s; check the device",
			   path, strerror(-ret));
out_close:
	ut_sys.close(fd);
	if (ret)
		unlink(path);
	return ret;
}
