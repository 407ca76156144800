/* SPDX-License-Identifier: MIT */
/*
 * untorn.h - the libuntorn API in one include.
 *
 * libuntorn is the page-store I/O path behind the `untorn` command: the
 * transactional engine (open a store, put/get/delete/scan rows, read-ahead
 * scans, statistics), the store's data file, superblock and lock, the
 * block-granular page format, batched io_uring I/O with a pread/pwrite
 * fallback, the page checker, the untorn_jw module's user side, size
 * parsing and the one-line errors every call fills.
 *
 * Not included: the system call table tests replace to inject faults
 * (<untorn/sysio.h>, a mutable global that only a test should touch).
 */
#ifndef UNTORN_H
#define UNTORN_H

#include <untorn/check.h>
#include <untorn/crc32c.h>
#include <untorn/engine.h>
#include <untorn/err.h>
#include <untorn/guard.h>
#include <untorn/jw.h>
#include <untorn/latch.h>
#include <untorn/page.h>
#include <untorn/parse.h>
#include <untorn/recovery.h>
#include <untorn/scan_model.h>
#include <untorn/ring.h>
#include <untorn/store.h>
#include <untorn/superblock.h>

#endif
