/* SPDX-License-Identifier: MIT */
/*
 * engine.h - the transactional page engine: a clustered B+tree of u64
 * keys over the buffer pool, redo log with group commit, page cleaner
 * threads writing through the store's guard (doublewrite), checkpoints,
 * and crash recovery on open.
 *
 * A transaction (ut_txn_*) is all or nothing: its writes are applied at
 * its commit as one mini-transaction, one redo group, so that after any
 * crash recovery keeps every write of it or none, and no reader sees
 * some of them without the others.  ut_put() and ut_delete() are
 * transactions of one write.  A commit is durable when ut_txn_commit()
 * returns in `sync` commit mode, or within 100 ms of it in `lazy` mode.
 */
#ifndef UNTORN_ENGINE_H
#define UNTORN_ENGINE_H

#include <stdint.h>
#include <untorn/err.h>
#include <untorn/recovery.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ut_commit_mode {
	UT_COMMIT_SYNC,
	UT_COMMIT_LAZY,
};

/* How the page cleaners pace themselves for the redo log's sake: eager
 * (the default) flushes flat out whenever the checkpoint age is over a
 * tenth of the log; adaptive follows the age and the redo rate from half
 * the log on (InnoDB's adaptive flushing): writers are not stopped for
 * log space in steady state (docs/results/2026-11-24-flushing.md). */
enum ut_flushing {
	UT_FLUSHING_ADAPTIVE,
	UT_FLUSHING_EAGER,
};

struct ut_engine_opts {
	uint64_t pool_bytes; /* default 128 MiB */
	enum ut_commit_mode commit;
	unsigned cleaners; /* page cleaner threads, default 2 */
	unsigned batch; /* pages per flush batch, default 64 */
	int recovery_sync_reads; /* recovery reads one page per submit */
	int accept_log_loss; /* recover up to redo damage with sound log
				 * after it (else: refuse, nothing applied) */
	unsigned lock_wait_ms; /* wait this long for a store another
				 * process holds (0: fail at once, -EBUSY) */
	enum ut_flushing flushing; /* default eager */
	int no_pacing; /* writers only stopped at 5/8 of the log, never
			* paced (redo_pace.h): for comparisons */
	int pace_age; /* writer pacing's age mode (redo_pace.h), the
		       * default before the forecast mode: for comparisons */
};

struct ut_engine_stats {
	uint64_t commits;
	uint64_t pages_written;
	uint64_t page_bytes_written;
	uint64_t redo_bytes_written;
	uint64_t guard_copy_bytes; /* page bytes the guard wrote twice */
	uint64_t fsyncs;
	uint64_t checkpoints;
	/* waits for a free slot of the guard's copy, and their time */
	uint64_t guard_slot_waits, guard_slot_wait_ns;
	uint64_t pool_reads, pool_hits, pool_misses, pool_free_waits;
	/* row operations stopped for log space (the log-free check) */
	uint64_t log_space_waits, log_space_wait_ns;
	/* row operations paced while the log holds writers back, and the
	 * time they slept (redo_pace.h) */
	uint64_t log_pace_waits, log_pace_ns;
	uint64_t checkpoint_age; /* redo bytes since the checkpoint, now */
	uint64_t log_capacity;
	/* the filesystem's journal committed in place of a data file sync
	 * (the journal guard on ext4 data=journal; counted in fsyncs too) */
	uint64_t guard_commits;
	/* the same in place of the redo log's fdatasync, where ext4
	 * journals the log's data (counted in fsyncs too) */
	uint64_t redo_commits;
};

struct ut_engine;

#define UT_VALUE_MAX_FRACTION 8 /* value <= area / 8 */

void ut_engine_opts_default(struct ut_engine_opts *o);
/* Opens a store, running crash recovery when the log holds redo after
 * the checkpoint (rep may be NULL).  The store's lock is taken first,
 * exclusive: a store another process (or another open) holds gives
 * -EBUSY and err names the holder (ut_store_holders lists them). */
int ut_engine_open(const char *dir, const struct ut_engine_opts *o,
		   struct ut_engine **engp, struct ut_recovery_report *rep,
		   struct ut_err *err);
/* Flushes every dirty page, writes a checkpoint, stops the threads. */
int ut_engine_close(struct ut_engine *eng, struct ut_err *err);
/* ut_engine_close, filling *s (if not NULL) with the stats after the
 * final flush and checkpoint: the pages closing wrote are counted. */
int ut_engine_close_stats(struct ut_engine *eng, struct ut_engine_stats *s,
			  struct ut_err *err);

uint32_t ut_engine_value_max(const struct ut_engine *eng);
int ut_put(struct ut_engine *eng, uint64_t key, const void *val, uint32_t len,
	   struct ut_err *err);
/* -ENOENT when absent; *len gets the value's length (may exceed cap). */
int ut_get(struct ut_engine *eng, uint64_t key, void *buf, uint32_t cap,
	   uint32_t *len);
int ut_delete(struct ut_engine *eng, uint64_t key, struct ut_err *err);

/*
 * A transaction of several row writes, committed once (sysbench's
 * oltp_write_only: four statements, one commit): all or nothing.
 *
 * Its writes stay in the transaction (the last write to a key replaces
 * an earlier one) until ut_txn_commit() applies them together: after a
 * crash at any point, recovery keeps all of them or none, and what a
 * commit acknowledged is kept.  Readers (ut_get, ut_scan, another
 * transaction's ut_txn_get) see a transaction whole once its commit has
 * applied it, and nothing of it before; a scan running holds back
 * commits of several writes until it ends.  ut_txn_get() sees the
 * transaction's own writes.  ut_txn_rollback() lets them go.
 *
 * There are no row locks: writes are blind, and of two transactions
 * writing one key the one that commits last wins, all of its writes
 * together.  A delete of a key that another commit removed meanwhile
 * does nothing.
 *
 * A transaction is bounded by memory (its write set), not by the log:
 * one larger than a commit can apply as one redo group (keys for a
 * quarter of the pool's pages, redo for 3/32 of the log) commits
 * through a commit file in the store's directory, durable before any
 * write is applied, then applied in pieces; its keys wait for it
 * meanwhile, and readers see its writes key by key until it returns.
 * A write the memory cannot take fails with -ENOMEM and a message; the
 * transaction goes on without it.  Every begun transaction ends with
 * ut_txn_commit() or ut_txn_rollback(), which free what it holds.
 */
struct ut_txn {
	struct ut_engine *eng;
	uint64_t lsn; /* after the commit: its redo's end (0: no change) */
	unsigned writes; /* puts and deletes taken */
	void *ws; /* the write set (txn.c) */
};

void ut_txn_begin(struct ut_engine *eng, struct ut_txn *t);
int ut_txn_put(struct ut_txn *t, uint64_t key, const void *val, uint32_t len,
	       struct ut_err *err);
/* -ENOENT (the transaction goes on) when the key is absent, or deleted
 * by this transaction already. */
int ut_txn_delete(struct ut_txn *t, uint64_t key, struct ut_err *err);
/* ut_get() as this transaction sees the store: its own writes first. */
int ut_txn_get(struct ut_txn *t, uint64_t key, void *buf, uint32_t cap,
	       uint32_t *len);
/* Applies every write as one, then waits, in sync mode, for its redo to
 * be durable.  The transaction is over whatever it returns; on an error
 * none of its writes was applied, but for -EUCLEAN: pages changed in
 * memory before a failure, never expected (the commit reserves what it
 * needs first); or a transaction larger than one redo group committed
 * (its commit file durable) but not all applied: every later row write
 * fails, and the next open applies it whole. */
int ut_txn_commit(struct ut_txn *t, struct ut_err *err);
/* Ends the transaction, leaving no trace of it. */
void ut_txn_rollback(struct ut_txn *t);

typedef int (*ut_scan_fn)(uint64_t key, const void *val, uint32_t len,
			  void *user);
/* Calls fn for every key >= from in key order until fn returns non-zero.
 * fn must not write to the store: the scan holds what commits wait for. */
int ut_scan(struct ut_engine *eng, uint64_t from, ut_scan_fn fn, void *user);

enum ut_readahead {
	UT_RA_NONE, /* follow leaf next pointers, one read each */
	UT_RA_LINEAR, /* a run of sequential pages reads the next extent */
	UT_RA_LOGICAL, /* next N leaves from the level-1 pages, merged */
};

struct ut_scan_opts {
	enum ut_readahead readahead;
	unsigned batch; /* leaves per read-ahead batch (0: the default) */
	unsigned window_pages; /* logical: leaves read ahead of the scan
				 * in one sorted sweep (innodb_lra_size),
				 * instead of batch; the next window is read
				 * from half way through this one; at most
				 * ut_scan_window_max() */
	unsigned sleep_ms; /* logical: a pause before each window after
			    * the first (innodb_lra_sleep), to spare
			    * other work the disk */
	unsigned merge_pages; /* largest merged read, in pages (0: the
			       * default) */
	unsigned gap_pages; /* read through holes of up to this many
				 * pages to merge two reads (default 0) */
};

/* Fills o with the defaults `untorn bench scan` and `untorn dump` use:
 * logical read-ahead, a window of an extent's leaves, merged reads of
 * neighbours, no hole read through, no pause (ut_scan_opts_default(3)).
 * Change the fields after it. */
void ut_scan_opts_default(struct ut_scan_opts *o);

struct ut_scan_stats {
	uint64_t rows;
	uint64_t pages_read; /* pages that came from the disk */
	uint64_t ios; /* read requests */
	uint64_t bytes_read; /* by the device: pages, and holes read
				 * through (gap_pages) */
	uint64_t submits; /* io_uring_submit calls */
	double seconds;
	uint32_t page_size;
	unsigned batch; /* leaves per read-ahead batch, as used */
};

/* The largest read-ahead window, in pages: half the buffer pool (a window
 * and half the next are in it at once: the last quarter keeps the tree's
 * internal pages and the hot set). */
unsigned ut_scan_window_max(const struct ut_engine *eng);

/* The window, in leaves, a logical scan with o sorts and reads at once. */
unsigned ut_scan_window(const struct ut_engine *eng,
			const struct ut_scan_opts *o);

#define UT_SCAN_MERGE_MAX 1024 /* pages in one merged read, at most */

/* A scan in key order from `from` with read-ahead; fn as for ut_scan.
 * Writers may run meanwhile: the scan holds no latch between leaves. */
int ut_scan_readahead(struct ut_engine *eng, uint64_t from, ut_scan_fn fn,
		      void *user, const struct ut_scan_opts *o,
		      struct ut_scan_stats *st);
/*
 * A logical scan that yields to other work on its disk: before each window
 * after the first it pauses, long enough that the other work keeps
 * spare_pct percent of the rate it has while the scan pauses (measured in
 * the pauses: it follows the work as it changes).  other_work(arg) is a
 * count that grows with that work -- transactions committed, sectors
 * others moved on the device -- read at each window; where it does not
 * grow the scan does not pause (it looks again every 10 s), nor where it
 * grows by no more than floor_per_s a second: a trickle the scan need not
 * spare (0: any work counts).  The rest is what the scan saw: for the
 * results, not to be set.
 */
struct ut_scan_yield {
	unsigned spare_pct; /* 1-95; default: ut_scan_yield_default */
	uint64_t (*other_work)(void *arg);
	void *arg;
	double floor_per_s; /* other work a second counted as none */
	double paused_seconds; /* the pauses, in all */
	uint64_t pauses;
	double other_rate_reading; /* other work a second while the scan
				    * read, and while it paused */
	double other_rate_paused;
};

/* What other_work counts: units of work each of which counts (commits,
 * transactions), or the sectors others read and write on the scan's
 * device, where a trickle (the filesystem's own commits) is none. */
enum ut_yield_count {
	UT_YIELD_WORK,
	UT_YIELD_SECTORS,
};

/* Fills y with the defaults `untorn bench scan` and `untorn dump` use for
 * a count of that kind: spare_pct, and floor_per_s (none for units of
 * work); zero elsewhere.  Set other_work and arg after it. */
void ut_scan_yield_default(struct ut_scan_yield *y, enum ut_yield_count what);

/* ut_scan_readahead, yielding as y says (logical read-ahead only; with
 * o->sleep_ms, that pause instead).  NULL y: ut_scan_readahead. */
int ut_scan_readahead_yield(struct ut_engine *eng, uint64_t from, ut_scan_fn fn,
			    void *user, const struct ut_scan_opts *o,
			    struct ut_scan_yield *y, struct ut_scan_stats *st);
/* How the tree's leaves lie in the data file, in key order. */
struct ut_tree_shape {
	uint64_t leaves;
	uint64_t steps; /* leaves - 1: from each leaf to the next in key order */
	uint64_t jumps; /* steps whose next leaf is not the next page */
	double fragmentation; /* jumps / steps; 0 for a tree of one leaf */
	double mean_jump_pages; /* mean distance of the jumps, in pages */
};

/* Reads the tree's internal pages (through the buffer pool) for it. */
int ut_engine_tree_shape(struct ut_engine *eng, struct ut_tree_shape *s);

void ut_engine_stats(struct ut_engine *eng, struct ut_engine_stats *s);
const char *ut_engine_guard(const struct ut_engine *eng);
/* What writes the pages when the guard does not use io_uring: "untorn_jw"
 * (the journal guard through the module), or NULL */
const char *ut_engine_page_writer(const struct ut_engine *eng);
uint32_t ut_engine_page_size(const struct ut_engine *eng);
/* The bytes each checksummed block of a page holds (the page's size for
 * a --single-lsn store). */
uint32_t ut_engine_block_size(const struct ut_engine *eng);
const char *ut_engine_data_path(const struct ut_engine *eng);

#ifdef __cplusplus
}
#endif

#endif
