/* SPDX-License-Identifier: MIT */
/*
 * untorn.h - the libuntorn API in one include.
 *
 * libuntorn is the transactional page engine behind the `untorn`
 * command: make a store (ut_store_init), open it, recovering it after a
 * crash (ut_engine_open), put/get/delete rows alone or in transactions
 * (ut_txn_*), scan them in key order with read-ahead, read the
 * statistics, and the one-line errors the calls fill; and, for any
 * engine's pages, writes through the untorn_jw module (ut_jw_*).
 * libuntorn(3) lists the calls; each has its man page.
 *
 * The headers below are all the library installs.  The pieces the
 * engine is made of (the page format, the superblock, io_uring batches,
 * latches, the page checker, the system call table tests replace) have
 * their headers beside their sources in the tree, for the commands and
 * tests built with it.
 */
#ifndef UNTORN_H
#define UNTORN_H

#include <untorn/engine.h>
#include <untorn/err.h>
#include <untorn/guard.h>
#include <untorn/jw.h>
#include <untorn/recovery.h>
#include <untorn/store.h>

#endif
