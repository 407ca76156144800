/* SPDX-License-Identifier: MIT */
/*
 * untorn.h - the libuntorn API in one include.
 *
 * libuntorn is the page-store I/O path behind the `untorn` command: the
 * block-granular page format, batched io_uring I/O with a pread/pwrite
 * fallback, the store's data file and superblock, the page checker, and
 * the system call table tests use to inject faults.
 */
#ifndef UNTORN_H
#define UNTORN_H

#include <untorn/check.h>
#include <untorn/crc32c.h>
#include <untorn/err.h>
#include <untorn/page.h>
#include <untorn/parse.h>
#include <untorn/ring.h>
#include <untorn/store.h>
#include <untorn/superblock.h>
#include <untorn/sysio.h>

#endif
