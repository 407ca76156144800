// SPDX-License-Identifier: MIT
/*
 * ibdata.c - the page size of an InnoDB tablespace (ibdata1, or any
 * .ibd), read from the flags of the FSP header on its first page: a
 * server's innodb_page_size cannot change after its datadir is made, so
 * the file says what the pages really are.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "ibdata.h"

#define FIL_PAGE_TYPE 24 /* 2 bytes, big-endian */
#define FIL_PAGE_TYPE_FSP_HDR 8 /* the first page of every tablespace */
#define FIL_PAGE_DATA 38 /* the FSP header follows the file page header */
#define FSP_SPACE_FLAGS 16 /* within the FSP header */
#define FLAGS_OFFSET (FIL_PAGE_DATA + FSP_SPACE_FLAGS)

/* MySQL and MariaDB before full_crc32: PAGE_SSIZE in bits 6-9, 0 = 16k */
#define FSP_FLAGS_POS_PAGE_SSIZE 6
/* MariaDB's full_crc32 (10.5+): a marker in bit 4, PAGE_SSIZE in bits 0-3 */
#define FSP_FLAGS_FCRC32_MARKER (1U << 4)
#define FSP_FLAGS_SSIZE_MASK 0xfU

#define SSIZE_MIN 3 /* 4k: 512 << 3 */
#define SSIZE_MAX 7 /* 64k */

int ut_ibdata_flags_page_size(uint32_t flags, uint32_t *page_size,
			      const char **format)
{
	uint32_t ssize;

	if (flags & FSP_FLAGS_FCRC32_MARKER) {
		ssize = flags & FSP_FLAGS_SSIZE_MASK;
		*format = "full_crc32";
	} else {
		ssize = (flags >> FSP_FLAGS_POS_PAGE_SSIZE) &
			FSP_FLAGS_SSIZE_MASK;
		*format = "original";
		if (!ssize) {
			*page_size = 16384;
			return 0;
		}
	}
	if (ssize < SSIZE_MIN || ssize > SSIZE_MAX)
		return -EILSEQ;
	*page_size = 512U << ssize;
	return 0;
}

int ut_ibdata_page_size(const char *path, uint32_t *page_size,
			const char **format)
{
	unsigned char head[FLAGS_OFFSET + 4];
	uint32_t flags;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, head, sizeof(head), 0);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	if ((size_t)n < sizeof(head) ||
	    (head[FIL_PAGE_TYPE] << 8 | head[FIL_PAGE_TYPE + 1]) !=
		    FIL_PAGE_TYPE_FSP_HDR)
		return -EILSEQ;
	flags = (uint32_t)head[FLAGS_OFFSET] << 24 |
		head[FLAGS_OFFSET + 1] << 16 | head[FLAGS_OFFSET + 2] << 8 |
		head[FLAGS_OFFSET + 3];
	return ut_ibdata_flags_page_size(flags, page_size, format);
}
