// SPDX-License-Identifier: MIT
/*
 * redo_scan.c - reading the redo log back for recovery: validate blocks
 * from the checkpoint on, stop at the first block that is not the next
 * one written (checksum, stale lap, unused, zeros), tell damage from a
 * torn last write, and cut the payload stream
 * into complete, well-formed groups.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "base/crc32c.h"
#include "base/bytes.h"
#include "base/mem.h"
#include "log/redo.h"

#define SCAN_CHUNK (1u << 20)

struct scan_state {
	struct ut_redo *log;
	struct ut_redo_scan *scan;
	size_t cap;
	int done;
	uint64_t damage_lsn; /* the block the scan stopped at, if damaged */
	uint64_t zero_lsn; /* ... if all zeros in a format 1 log */
};

static int block_sound(const unsigned char *blk, uint64_t blk_lsn)
{
	return get_le32(blk + UT_LOG_BLOCK - 4) ==
		       ut_crc32c(0, blk, UT_LOG_BLOCK - 4) &&
	       get_le64(blk) == blk_lsn && get_le16(blk + 8) <= UT_LOG_PAYLOAD;
}

static int stream_push(struct ut_redo_scan *scan, size_t *cap,
		       const unsigned char *p, size_t n)
{
	unsigned char *grown;

	if (scan->stream_len + n > *cap) {
		*cap = (*cap ? *cap * 2 : SCAN_CHUNK) + n;
		grown = realloc(scan->stream, *cap);
		if (!grown)
			return -ENOMEM;
		scan->stream = grown;
	}
	memcpy(scan->stream + scan->stream_len, p, n);
	scan->stream_len += n;
	return 0;
}

/* Takes one block; sets st->done when the log ends here. */
static int scan_block(struct scan_state *st, const unsigned char *blk,
		      uint64_t blk_lsn)
{
	struct ut_redo_scan *scan = st->scan;
	uint64_t skip = 0;
	uint16_t used;

	if (get_le32(blk + UT_LOG_BLOCK - 4) !=
	    ut_crc32c(0, blk, UT_LOG_BLOCK - 4)) {
		int zero = is_zero(blk, UT_LOG_BLOCK);

		scan->stop_reason =
			!zero ? "block checksum mismatch (garbage, not a torn write)" :
			st->log->filled ?
				"all-zero block (zeroed damage: this log has none)" :
				"unused block";
		if (zero && !st->log->filled)
			st->zero_lsn = blk_lsn;
		else
			st->damage_lsn = blk_lsn;
		st->done = 1;
		return 0;
	}
	if (get_le64(blk) == UT_LOG_UNUSED_LSN) {
		scan->stop_reason = "unused block";
		st->done = 1;
		return 0;
	}
	if (get_le64(blk) != blk_lsn) {
		scan->stop_reason = "block from an earlier lap of the log";
		st->done = 1;
		return 0;
	}
	used = get_le16(blk + 8);
	if (used > UT_LOG_PAYLOAD) {
		scan->stop_reason = "block length out of range (garbage tail)";
		st->damage_lsn = blk_lsn;
		st->done = 1;
		return 0;
	}
	if (blk_lsn < scan->start_lsn)
		skip = scan->start_lsn - blk_lsn - UT_LOG_BLOCK_HDR;
	if (used > skip &&
	    stream_push(scan, &st->cap, blk + UT_LOG_BLOCK_HDR + skip,
			used - skip))
		return -ENOMEM;
	if (used < UT_LOG_PAYLOAD) {
		scan->stop_reason = "end of log";
		st->done = 1;
	}
	return 0;
}

/*
 * Reads the circular area from lsn (block aligned) up to limit in chunks
 * and hands each block to fn, which returns 0 to go on, 1 to stop, or
 * -errno.  Returns 0, the first error, or 1 when fn stopped.
 */
static int for_each_block(struct ut_redo *log, struct ut_ring *ring,
			  uint64_t lsn, uint64_t limit,
			  int (*fn)(void *arg, const unsigned char *blk,
				    uint64_t blk_lsn),
			  void *arg, struct ut_err *err)
{
	uint64_t off, n, i;
	unsigned char *chunk;
	struct ut_io io;
	int ret = 0;

	chunk = ut_io_alloc(SCAN_CHUNK);
	if (!chunk)
		return -ENOMEM;
	while (!ret && lsn < limit) {
		off = UT_LOG_HDR_SIZE + lsn % log->capacity;
		n = UT_LOG_HDR_SIZE + log->capacity - off;
		if (n > SCAN_CHUNK)
			n = SCAN_CHUNK;
		if (n > limit - lsn)
			n = limit - lsn;
		ut_io_read(&io, log->fd, chunk, n, off);
		ret = ut_ring_run(ring, &io, 1);
		if (ret) {
			ut_err_set(err, ret,
				   "%s: cannot read the redo log at LSN %llu: %s",
				   log->path, (unsigned long long)lsn,
				   strerror(-ret));
			break;
		}
		for (i = 0; i < n && !ret; i += UT_LOG_BLOCK)
			ret = fn(arg, chunk + i, lsn + i);
		lsn += n;
	}
	free(chunk);
	return ret;
}

static int scan_one(void *arg, const unsigned char *blk, uint64_t blk_lsn)
{
	struct scan_state *st = arg;
	int ret = scan_block(st, blk, blk_lsn);

	return ret ? ret : st->done;
}

static int scan_blocks(struct ut_redo *log, struct ut_ring *ring,
		       struct scan_state *st, struct ut_err *err)
{
	uint64_t lsn = st->scan->start_lsn / UT_LOG_BLOCK * UT_LOG_BLOCK;
	int ret;

	ret = for_each_block(log, ring, lsn, lsn + log->capacity, scan_one, st,
			     err);
	if (ret < 0)
		return ret;
	if (!st->done)
		st->scan->stop_reason = "log full circle";
	return 0;
}

static int note_sound(void *arg, const unsigned char *blk, uint64_t blk_lsn)
{
	if (block_sound(blk, blk_lsn))
		*(uint64_t *)arg = blk_lsn;
	return 0;
}

/*
 * After the block the scan stopped at (damaged, or all zeros): the last
 * block further on that is sound in this lap of the log (its LSN is the
 * one its place holds now), or 0.  Reads the rest of the circular area;
 * only a log that stopped at such a block pays this.
 */
static int probe_after(struct ut_redo *log, struct ut_ring *ring,
		       struct scan_state *st, uint64_t from, uint64_t *last,
		       struct ut_err *err)
{
	uint64_t limit = st->scan->start_lsn / UT_LOG_BLOCK * UT_LOG_BLOCK +
			 log->capacity;

	return for_each_block(log, ring, from + UT_LOG_BLOCK, limit, note_sound,
			      last, err);
}

/*
 * Whether the block the scan stopped at is damage or a torn last write.
 * A damaged block (checksum, length, zeros in a filled log) is never
 * torn by a power cut: a 512-byte log block is one sector, and what a
 * torn write leaves unwritten holds what it held (an unused block or
 * one of an earlier lap).  So it is damage even at the log's very end,
 * where it may have held the last commits.  In a format 1 log a zero
 * block is a torn write's: a fresh log is zeros -- unless the place was
 * written in an earlier lap, or sound log lies further on than one write
 * (the log buffer) reaches.
 */
static int judge_stop(struct ut_redo *log, struct ut_ring *ring,
		      struct scan_state *st, struct ut_err *err)
{
	struct ut_redo_scan *scan = st->scan;
	uint64_t at = st->damage_lsn ? st->damage_lsn : st->zero_lsn, last = 0;
	int ret;

	ret = probe_after(log, ring, st, at, &last, err);
	if (ret)
		return ret;
	if (st->damage_lsn) {
		scan->damage_lsn = at;
		scan->sound_after_lsn = last;
		return 0;
	}
	if (!last)
		return 0;
	if (at >= log->capacity || last - at > log->buf_size) {
		scan->damage_lsn = at;
		scan->sound_after_lsn = last;
	} else {
		scan->gap_lsn = at;
		scan->gap_sound_after_lsn = last;
	}
	return 0;
}

/* Checks a group's records are well formed; returns their count or -1. */
static long group_check(const unsigned char *p, size_t len, unsigned n_recs)
{
	size_t pos = 0;
	unsigned i;
	uint16_t rlen;

	for (i = 0; i < n_recs; i++) {
		if (pos >= len)
			return -1;
		if (p[pos] == UT_REC_WRITE) {
			if (pos + UT_REC_WRITE_HDR > len)
				return -1;
			rlen = get_le16(p + pos + 8);
			if (!rlen || p[pos + 5] >= 128 ||
			    get_le16(p + pos + 6) + (uint32_t)rlen > 65536 ||
			    pos + UT_REC_WRITE_HDR + rlen > len)
				return -1;
			pos += UT_REC_WRITE_HDR + rlen;
		} else if (p[pos] == UT_REC_INIT) {
			if (pos + UT_REC_INIT_SIZE > len)
				return -1;
			pos += UT_REC_INIT_SIZE;
		} else if (p[pos] == UT_REC_MOVE) {
			if (pos + UT_REC_MOVE_SIZE > len)
				return -1;
			rlen = get_le16(p + pos + 10);
			if (!rlen || p[pos + 5] >= 128 ||
			    get_le16(p + pos + 6) + (uint32_t)rlen > 65536 ||
			    get_le16(p + pos + 8) + (uint32_t)rlen > 65536)
				return -1;
			pos += UT_REC_MOVE_SIZE;
		} else {
			return -1;
		}
	}
	return pos == len ? (long)n_recs : -1;
}

/*
 * The stream ends inside a group: a log write cut short.  Said so unless
 * the log stopped at damage, whatever block the scan stopped at: a write
 * cut at a block's edge (SIGKILL stops a buffered write at a page's)
 * leaves its last block whole and the scan stops at the unused or
 * earlier-lap block after it: the report says what happened (recovery
 * starts the new log a lap ahead, past the cut group's blocks, either
 * way).
 */
static void torn_tail(struct ut_redo_scan *scan)
{
	if (!scan->damage_lsn)
		scan->stop_reason = "incomplete group (torn tail)";
}

static int scan_groups(struct ut_redo_scan *scan)
{
	size_t pos = 0, cap = 0, glen;
	uint64_t lsn = scan->start_lsn;
	unsigned n_recs;
	long recs;
	void *grown;

	while (pos + UT_LOG_GROUP_HDR <= scan->stream_len) {
		glen = get_le32(scan->stream + pos);
		n_recs = get_le16(scan->stream + pos + 4);
		if (pos + UT_LOG_GROUP_HDR + glen > scan->stream_len) {
			torn_tail(scan);
			break;
		}
		recs = group_check(scan->stream + pos + UT_LOG_GROUP_HDR, glen,
				   n_recs);
		if (recs <= 0) {
			scan->stop_reason = "malformed group (garbage tail)";
			/* sound blocks past this group: not a torn write */
			if (scan->stream_len - pos >
			    UT_LOG_GROUP_HDR + glen + UT_LOG_PAYLOAD) {
				scan->damage_lsn = lsn;
				scan->sound_after_lsn =
					ut_lsn_add(scan->start_lsn,
						   scan->stream_len);
			}
			break;
		}
		if (scan->groups == cap) {
			cap = cap ? cap * 2 : 1024;
			grown = realloc(scan->group_end,
					cap * sizeof(uint64_t));
			if (!grown)
				return -ENOMEM;
			scan->group_end = grown;
			grown = realloc(scan->group_off, cap * sizeof(size_t));
			if (!grown)
				return -ENOMEM;
			scan->group_off = grown;
		}
		lsn = ut_lsn_add(lsn, UT_LOG_GROUP_HDR + glen);
		scan->group_off[scan->groups] = pos;
		scan->group_end[scan->groups++] = lsn;
		scan->records += recs;
		pos += UT_LOG_GROUP_HDR + glen;
	}
	if (pos + UT_LOG_GROUP_HDR > scan->stream_len && pos < scan->stream_len)
		torn_tail(scan);
	scan->end_lsn = lsn;
	scan->bytes = pos;
	return 0;
}

int ut_redo_scan(struct ut_redo *log, struct ut_ring *ring, uint64_t lsn,
		 struct ut_redo_scan *scan, struct ut_err *err)
{
	struct scan_state st = { .log = log, .scan = scan };
	int ret;

	memset(scan, 0, sizeof(*scan));
	scan->start_lsn = lsn;
	scan->end_lsn = lsn;
	ret = scan_blocks(log, ring, &st, err);
	if (!ret && (st.damage_lsn || st.zero_lsn))
		ret = judge_stop(log, ring, &st, err);
	if (!ret)
		ret = scan_groups(scan);
	if (ret == -ENOMEM)
		ut_err_set(err, ret, "out of memory reading %llu bytes of redo",
			   (unsigned long long)scan->stream_len);
	return ret;
}

void ut_redo_scan_free(struct ut_redo_scan *scan)
{
	free(scan->stream);
	free(scan->group_end);
	free(scan->group_off);
	memset(scan, 0, sizeof(*scan));
}

int ut_redo_scan_empty(const struct ut_redo_scan *scan)
{
	/* a group is in the stream: no stream, no group */
	return !scan->stream_len && !scan->damage_lsn && !scan->gap_lsn;
}
