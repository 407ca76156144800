/* SPDX-License-Identifier: MIT */
/*
 * redo.h - the redo log: a circular file of 512-byte blocks, an in-memory
 * log buffer, and group commit.
 *
 * An LSN is a byte position in the endless log stream, block headers and
 * trailers included; the byte at LSN x lives at file offset
 * UT_LOG_HDR_SIZE + x % capacity.  Block layout:
 *
 *   0 le64 block_lsn (LSN of the block's first byte)
 *   8 le16 data_len  (payload bytes used, 0..UT_LOG_PAYLOAD)
 *  10 le16 first_group (offset of the first group that starts here, or 0)
 *  12 payload ... 508 le32 CRC32C of bytes 0..507
 *
 * The payload is a stream of groups, one per mini-transaction:
 *   le32 len (bytes of records that follow), le16 n_recs, records
 * A record never spans a page block (docs/architecture.md):
 *   WRITE: u8 1, le32 page_no, u8 block, le16 offset in block, le16 len, bytes
 *   INIT:  u8 2, le32 page_no, le16 type, le16 level
 *   MOVE:  u8 3, le32 page_no, u8 block, le16 dst offset in block,
 *          le16 src offset in block, le16 len (a memmove within the block;
 *          format 3 logs only)
 * A group's LSN for block-LSN purposes is the LSN just past its end.
 *
 * Group commit: committers append under the log mutex; ut_redo_flush_to()
 * makes one of them the writer, which writes everything appended so far and
 * its fdatasync as one linked io_uring submission while the others wait.
 */
#ifndef UNTORN_REDO_H
#define UNTORN_REDO_H

#include <pthread.h>
#include <stdint.h>
#include <untorn/err.h>
#include "base/latch.h"
#include "io/ring.h"

#define UT_LOG_FILE "untorn.redo"
#define UT_LOG_BLOCK 512u
#define UT_LOG_BLOCK_HDR 12u
#define UT_LOG_BLOCK_TRL 4u
#define UT_LOG_PAYLOAD (UT_LOG_BLOCK - UT_LOG_BLOCK_HDR - UT_LOG_BLOCK_TRL)
#define UT_LOG_HDR_SIZE 4096u
#define UT_LOG_SIZE_MIN (8u << 20)
#define UT_LOG_SIZE_DEFAULT (64u << 20)
#define UT_LOG_GROUP_HDR 6u
/*
 * block_lsn of an unused block: a log made by format 2 has every block of
 * its circular area written as one (data_len 0, a valid checksum) before
 * use, so a torn write leaves unused or earlier-lap blocks behind, never
 * zeros -- and an all-zero block in it is damage.  Format 1 logs were
 * left zero.
 */
#define UT_LOG_UNUSED_LSN UINT64_MAX

#define UT_REC_WRITE 1
#define UT_REC_INIT 2
#define UT_REC_MOVE 3
#define UT_REC_WRITE_HDR 10u
#define UT_REC_INIT_SIZE 9u
#define UT_REC_MOVE_SIZE 12u

struct ut_redo {
	int fd;
	char path[4200];
	uint64_t capacity; /* bytes of the circular area */
	int filled; /* made of unused blocks (format 2), not zeros */
	int moves; /* may hold MOVE records (format 3) */
	struct ut_mutex mutex; /* everything below */
	pthread_cond_t flushed_cond;
	pthread_cond_t space_cond;
	uint64_t cur_lsn; /* next byte to append */
	uint64_t flushed_lsn; /* durable up to here */
	uint64_t buf_lsn; /* LSN of buf[0], block aligned */
	unsigned char *buf;
	size_t buf_size;
	unsigned char *wbuf; /* the writer's copy */
	int writer_active;
	uint64_t ckpt_lsn; /* last checkpoint: the log may not pass it */
	int error; /* a failed log write: the log is dead */
	void (*need_space)(void *arg); /* asks for a checkpoint */
	void *need_space_arg;
	uint64_t writes, fsyncs, bytes_written;
	/* the log's directory where ext4 journals the log's data: its fsync
	 * commits the journal in place of the log's fdatasync (else -1) */
	int commit_fd;
	uint64_t commits; /* syncs that were such commits */
	uint64_t groups_appended, groups_written; /* mtr groups */
};

/* Creates DIR/untorn.redo of size bytes (header + circular area). */
int ut_redo_create(const char *path, uint64_t size, const uint8_t uuid[16],
		   struct ut_err *err);
/* The format of the log at path (1, 2, 3: redo.c), read from its header
 * alone, or -errno (-EPROTO: not an untorn redo log). */
int ut_redo_format(const char *path);
int ut_redo_open(struct ut_redo *log, const char *path, const uint8_t uuid[16],
		 struct ut_err *err);
void ut_redo_close(struct ut_redo *log);
/*
 * Makes each group commit durable by a commit of ext4's journal (an
 * fsync of the log's directory) instead of the log file's fdatasync,
 * where ext4 journals the log's data (data=journal, or chattr +j without
 * delalloc): the log's write is in a jbd2 transaction once it returns,
 * and the commit makes it durable, while since Linux 6.5 the fdatasync
 * also writes every journalled block of the file home and waits.
 * Returns 1 if so, 0 where the log's data is not journalled (it keeps
 * its fdatasync), or -errno.
 */
int ut_redo_commit_journal(struct ut_redo *log);
/* Writes the whole circular area back to what a new log holds (unused
 * blocks, or zeros in format 1) and syncs it: after damage was accepted,
 * so that the damaged blocks do not stay in the circle. */
int ut_redo_clear(struct ut_redo *log, struct ut_err *err);
/* Starts appending at lsn (after recovery); checkpoint at ckpt. */
void ut_redo_start(struct ut_redo *log, uint64_t lsn, uint64_t ckpt);

/* LSN reached by appending n payload bytes at lsn. */
uint64_t ut_lsn_add(uint64_t lsn, uint64_t n);
/* Next group boundary at or after lsn that starts a fresh block. */
uint64_t ut_lsn_next_block(uint64_t lsn);

/* Appends one group; returns its start and end LSN. The caller holds the
 * log mutex (ut_redo_reserve) so it can order other work with the LSN. */
void ut_redo_append_locked(struct ut_redo *log, const void *group, size_t len,
			   uint64_t *start, uint64_t *end);
/* Takes the log mutex once the buffer and the log file have room for len
 * bytes (waiting for the writer or a checkpoint if needed); -E2BIG for a
 * group over ut_redo_group_max(). */
int ut_redo_reserve(struct ut_redo *log, size_t len);
/* The longest group the log takes: half its buffer. */
size_t ut_redo_group_max(const struct ut_redo *log);
void ut_redo_release(struct ut_redo *log);

/* Makes the log durable up to lsn (group commit). */
int ut_redo_flush_to(struct ut_redo *log, uint64_t lsn);
uint64_t ut_redo_current(struct ut_redo *log);
/*
 * Where a checkpoint may be taken: oldest_dirty(arg), the oldest LSN of a
 * page not yet written (0: none), read under the log mutex, so that no
 * mini-transaction (which appends and dirties its pages while holding
 * it) falls between that and the current LSN, which it is without one.
 */
uint64_t ut_redo_checkpoint_lsn(struct ut_redo *log,
				uint64_t (*oldest_dirty)(void *arg), void *arg);
/* need_space(arg) is called when an append must wait for a checkpoint,
 * without the log mutex held (callees may take the log mutex under
 * their own). */
void ut_redo_set_need_space(struct ut_redo *log, void (*need_space)(void *arg),
			    void *arg);
/* Bytes of log between the checkpoint and the current LSN. */
uint64_t ut_redo_age(struct ut_redo *log);
void ut_redo_set_checkpoint(struct ut_redo *log, uint64_t ckpt);

/* ---- reading, for recovery ---- */

struct ut_redo_scan {
	uint64_t start_lsn;
	uint64_t end_lsn; /* just past the last complete group */
	uint64_t groups;
	uint64_t records;
	uint64_t bytes;
	const char *stop_reason;
	/*
	 * The log stopped at damage at damage_lsn: a checksum mismatch in
	 * a block that is not all zeros, a length out of range, an all-zero
	 * block in a format 2 log, or a malformed group with sound log
	 * after it -- not what a torn last write leaves (a 512-byte log
	 * block is one sector, which a power cut does not tear).  Sound
	 * blocks of this lap follow it up to sound_after_lsn, 0 when none
	 * do (the damage is at the log's end).  damage_lsn is 0 when the
	 * log is not damaged.
	 */
	uint64_t damage_lsn;
	uint64_t sound_after_lsn;
	/*
	 * A format 1 log stopped at an all-zero block in its first lap, and sound
	 * blocks follow within one log write (the log buffer's size): the
	 * tail of a write interrupted with its later sectors on disk, or
	 * zeroed damage -- they cannot be told apart.  Recovery goes on to
	 * gap_lsn and reports the blocks it did not apply.  0 when not so.
	 */
	uint64_t gap_lsn;
	uint64_t gap_sound_after_lsn;
	unsigned char *stream; /* payload bytes from start_lsn */
	size_t stream_len;
	uint64_t *group_end; /* per group: end LSN */
	size_t *group_off; /* per group: offset in stream */
};

/* Reads and validates the log from lsn to its valid end. */
int ut_redo_scan(struct ut_redo *log, struct ut_ring *ring, uint64_t lsn,
		 struct ut_redo_scan *scan, struct ut_err *err);
void ut_redo_scan_free(struct ut_redo_scan *scan);
/* The log holds nothing after the scan's start: no group, no torn tail,
 * no damage, no gap (the log of a store closed cleanly). */
int ut_redo_scan_empty(const struct ut_redo_scan *scan);

#endif
