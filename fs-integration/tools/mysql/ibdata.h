/* SPDX-License-Identifier: MIT */
/*
 * ibdata.h - the page size of an InnoDB tablespace, from its first page.
 */
#ifndef UNTORN_IBDATA_H
#define UNTORN_IBDATA_H

#include <stdint.h>

/*
 * The page size the tablespace at path was made with, from the flags in
 * its FSP header (both MySQL's format and MariaDB's full_crc32).  *format
 * names the format.  Returns 0, -errno from reading it, or -EILSEQ when
 * the first page holds no valid InnoDB header.
 */
int ut_ibdata_page_size(const char *path, uint32_t *page_size,
			const char **format);

/* The same from the FSP header's flags word. */
int ut_ibdata_flags_page_size(uint32_t flags, uint32_t *page_size,
			      const char **format);

#endif
