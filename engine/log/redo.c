// SPDX-License-Identifier: MIT
/*
 * redo.c - the redo log file, the log buffer and group commit.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/err.h"
#include "base/crc32c.h"
#include "io/sysio.h"
#include "fscaps.h"
#include "base/probes.h"
#include "base/bytes.h"
#include "io/file.h"
#include "base/mem.h"
#include "log/redo.h"

#define LOG_MAGIC "UNTORNLG"
/*
 * 1: circular area left zero; 2: filled with unused blocks; 3: MOVE
 * records too.  A log keeps the format it was made with: a store made
 * before format 3 logs every moved byte, and a binary that predates it
 * refuses a format 3 log rather than read MOVE as damage.
 */
#define LOG_VERSION 3u
/*
 * The log buffer: what writers may append while the group commit before
 * theirs is under way, half the log up to 64 MiB (at least 8).  Half a
 * second of redo is not enough where a commit can take a second: on
 * ext4 data=journal the kernel's writeback of the data file queues
 * ahead of the journal's commit, and with 8 MiB the writers waited
 * for it every half-minute (docs/results/2026-11-29-log-buffer.md);
 * a larger log runs more redo a second through longer held commits,
 * and 32 MiB stopped a 256 MiB log's writers at every writeback
 * (docs/results/2026-11-29-journal-stall-room.md).
 * A format 1 log keeps 8 MiB: its recovery tells a torn write's zeros
 * from damage by how far one write can reach (redo_scan.c).
 */
#define LOG_BUF_MIN (8u << 20)
#define LOG_BUF_MAX (64u << 20)
#define BLK_LSN 0
#define BLK_DATA_LEN 8
#define BLK_FIRST_GROUP 10
#define BLK_CRC (UT_LOG_BLOCK - UT_LOG_BLOCK_TRL)
#define SCAN_CHUNK (1u << 20)

/* ---- LSN arithmetic ------------------------------------------------- */

uint64_t ut_lsn_add(uint64_t lsn, uint64_t n)
{
	uint64_t off, room;

	while (n) {
		off = lsn % UT_LOG_BLOCK;
		room = UT_LOG_BLOCK_HDR + UT_LOG_PAYLOAD - off;
		if (n < room)
			return lsn + n;
		lsn += room + UT_LOG_BLOCK_TRL + UT_LOG_BLOCK_HDR;
		n -= room;
	}
	return lsn;
}

uint64_t ut_lsn_next_block(uint64_t lsn)
{
	if (lsn % UT_LOG_BLOCK == UT_LOG_BLOCK_HDR)
		return lsn;
	return (lsn / UT_LOG_BLOCK + 1) * UT_LOG_BLOCK + UT_LOG_BLOCK_HDR;
}

static uint64_t lsn_block(uint64_t lsn)
{
	return lsn / UT_LOG_BLOCK * UT_LOG_BLOCK;
}

static uint64_t lsn_file_off(const struct ut_redo *log, uint64_t lsn)
{
	return UT_LOG_HDR_SIZE + lsn % log->capacity;
}

/* ---- the file ------------------------------------------------------- */

/* What every block of a new log holds until it is first written. */
static void unused_block(unsigned char *blk)
{
	memset(blk, 0, UT_LOG_BLOCK);
	put_le64(blk + BLK_LSN, UT_LOG_UNUSED_LSN);
	put_le32(blk + BLK_CRC, ut_crc32c(0, blk, BLK_CRC));
}

static void log_header(unsigned char *hdr, uint64_t capacity,
		       const uint8_t uuid[16])
{
	memset(hdr, 0, UT_LOG_HDR_SIZE);
	memcpy(hdr, LOG_MAGIC, 8);
	put_le32(hdr + 8, LOG_VERSION);
	put_le64(hdr + 16, capacity);
	memcpy(hdr + 24, uuid, 16);
	put_le32(hdr + 12, ut_crc32c(0, hdr + 16, UT_LOG_HDR_SIZE - 16));
}

int ut_redo_create(const char *path, uint64_t size, const uint8_t uuid[16],
		   struct ut_err *err)
{
	uint64_t capacity =
		(size - UT_LOG_HDR_SIZE) / UT_LOG_BLOCK * UT_LOG_BLOCK;
	unsigned char *hdr, blk[UT_LOG_BLOCK];
	int ret;

	hdr = ut_io_alloc(UT_LOG_HDR_SIZE);
	if (!hdr)
		return ut_err_set(err, -ENOMEM, "out of memory");
	log_header(hdr, capacity, uuid);
	unused_block(blk);
	ret = ut_file_create_filled(path, UT_LOG_HDR_SIZE + capacity, hdr,
				    UT_LOG_HDR_SIZE, blk, UT_LOG_BLOCK,
				    "free space or choose a smaller --log-size",
				    err);
	free(hdr);
	return ret;
}

int ut_redo_clear(struct ut_redo *log, struct ut_err *err)
{
	unsigned char blk[UT_LOG_BLOCK];
	int ret;

	if (log->filled)
		unused_block(blk);
	else
		memset(blk, 0, sizeof(blk));
	ret = ut_file_fill(log->fd, UT_LOG_HDR_SIZE,
			   UT_LOG_HDR_SIZE + log->capacity, blk, UT_LOG_BLOCK);
	if (!ret)
		ret = ut_sys.fdatasync(log->fd);
	if (ret)
		ut_err_set(err, ret,
			   "%s: cannot clear the damaged redo log: %s; check the device",
			   log->path, strerror(-ret));
	return ret;
}

static int log_check_header(const unsigned char *hdr, const uint8_t uuid[16],
			    uint64_t *capacity, int *filled, int *moves)
{
	uint32_t version = get_le32(hdr + 8);

	if (memcmp(hdr, LOG_MAGIC, 8))
		return -EPROTO;
	if (get_le32(hdr + 12) != ut_crc32c(0, hdr + 16, UT_LOG_HDR_SIZE - 16))
		return -EBADMSG;
	if (version < 1 || version > LOG_VERSION)
		return -ENOTSUP;
	*filled = version >= 2;
	*moves = version >= 3;
	if (memcmp(hdr + 24, uuid, 16))
		return -EXDEV;
	*capacity = get_le64(hdr + 16);
	if (*capacity < UT_LOG_SIZE_MIN / 2 || *capacity % UT_LOG_BLOCK ||
	    *capacity > (1ull << 40))
		return -EINVAL;
	return 0;
}

/* The log buffer's size for this log (LOG_BUF_MIN..LOG_BUF_MAX). */
static size_t log_buf_size(const struct ut_redo *log)
{
	uint64_t half = log->capacity / 2 / UT_LOG_BLOCK * UT_LOG_BLOCK;

	if (!log->filled || half < LOG_BUF_MIN)
		return LOG_BUF_MIN;
	return half > LOG_BUF_MAX ? LOG_BUF_MAX : half;
}

int ut_redo_format(const char *path)
{
	unsigned char hdr[16];
	ssize_t n;
	int fd;

	fd = ut_sys.open(path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	n = ut_sys.pread(fd, hdr, sizeof(hdr), 0);
	ut_sys.close(fd);
	if (n < 0)
		return (int)n;
	if (n != sizeof(hdr) || memcmp(hdr, LOG_MAGIC, 8))
		return -EPROTO;
	return (int)get_le32(hdr + 8);
}

int ut_redo_open(struct ut_redo *log, const char *path, const uint8_t uuid[16],
		 struct ut_err *err)
{
	unsigned char *hdr;
	struct stat sb;
	ssize_t n;
	int ret;

	memset(log, 0, sizeof(*log));
	log->commit_fd = -1;
	snprintf(log->path, sizeof(log->path), "%s", path);
	log->fd = ut_sys.open(path, O_RDWR, 0);
	if (log->fd < 0)
		return ut_err_set(err, log->fd,
				  "%s: cannot open the redo log: %s; a store needs its %s",
				  path, strerror(-log->fd), UT_LOG_FILE);
	ret = -ENOMEM;
	hdr = ut_io_alloc(UT_LOG_HDR_SIZE);
	if (!hdr)
		goto out_free;
	n = ut_sys.pread(log->fd, hdr, UT_LOG_HDR_SIZE, 0);
	ret = n == UT_LOG_HDR_SIZE ?
		      log_check_header(hdr, uuid, &log->capacity, &log->filled,
				       &log->moves) :
		      -EPROTO;
	if (ret) {
		ut_err_set(err, ret,
			   "%s: %s; restore the store's redo log from the same backup as its data file",
			   path,
			   ret == -EXDEV ?
				   "the redo log belongs to another store" :
			   ret == -EBADMSG ? "log header checksum mismatch" :
			   ret == -ENOTSUP ? "unknown log format version" :
					     "not an untorn redo log");
		goto out_free;
	}
	ret = ut_sys.fstat(log->fd, &sb);
	if (!ret && (uint64_t)sb.st_size < UT_LOG_HDR_SIZE + log->capacity) {
		ret = ut_err_set(err, -EINVAL,
				 "%s: truncated: %llu bytes, the header says %llu; restore the redo log from a backup",
				 path, (unsigned long long)sb.st_size,
				 (unsigned long long)(UT_LOG_HDR_SIZE +
						      log->capacity));
		goto out_free;
	}
	free(hdr);
	hdr = NULL;
	log->buf_size = log_buf_size(log);
	ret = -ENOMEM;
	log->buf = ut_io_alloc(log->buf_size);
	log->wbuf = ut_io_alloc(log->buf_size);
	if (!log->buf || !log->wbuf)
		goto out_free;
	ut_mutex_init(&log->mutex, UT_LATCH_LOG);
	ut_cond_init(&log->flushed_cond);
	ut_cond_init(&log->space_cond);
	return 0;

out_free:
	free(hdr);
	free(log->buf);
	free(log->wbuf);
	ut_sys.close(log->fd);
	return ret;
}

void ut_redo_close(struct ut_redo *log)
{
	ut_mutex_destroy(&log->mutex);
	pthread_cond_destroy(&log->flushed_cond);
	pthread_cond_destroy(&log->space_cond);
	free(log->buf);
	free(log->wbuf);
	if (log->commit_fd >= 0)
		ut_sys.close(log->commit_fd);
	ut_sys.close(log->fd);
}

int ut_redo_commit_journal(struct ut_redo *log)
{
	char real[PATH_MAX], *dir;
	struct stat file_st, dir_st;
	int fd, ret;

	/* the directory the log's file is in, through a link to its own
	 * filesystem (init --redo-dir) */
	if (!realpath(log->path, real))
		return -errno;
	dir = dirname(real);
	if (!ut_fscaps_dir_journals_data(dir))
		return 0;
	fd = ut_sys.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	/* the file on the directory's filesystem (not a bind mount of a
	 * file from another), whose journal the fsync commits */
	ret = ut_sys.fstat(log->fd, &file_st);
	if (!ret)
		ret = ut_sys.fstat(fd, &dir_st);
	if (ret || file_st.st_dev != dir_st.st_dev) {
		ut_sys.close(fd);
		return ret;
	}
	log->commit_fd = fd;
	return 1;
}

void ut_redo_start(struct ut_redo *log, uint64_t lsn, uint64_t ckpt)
{
	log->cur_lsn = lsn;
	log->flushed_lsn = lsn;
	log->buf_lsn = lsn_block(lsn);
	log->ckpt_lsn = ckpt;
	memset(log->buf, 0, UT_LOG_BLOCK);
	put_le64(log->buf + BLK_LSN, log->buf_lsn);
}

/* ---- appending ------------------------------------------------------ */

void ut_redo_append_locked(struct ut_redo *log, const void *group, size_t len,
			   uint64_t *start, uint64_t *end)
{
	const unsigned char *src = group;
	uint64_t lsn = log->cur_lsn, off, room;
	unsigned char *blk;
	size_t n;

	*start = lsn;
	blk = log->buf + (lsn_block(lsn) - log->buf_lsn);
	if (!get_le16(blk + BLK_FIRST_GROUP))
		put_le16(blk + BLK_FIRST_GROUP, lsn % UT_LOG_BLOCK);
	while (len) {
		off = lsn % UT_LOG_BLOCK;
		room = UT_LOG_BLOCK_HDR + UT_LOG_PAYLOAD - off;
		n = len < room ? len : room;
		memcpy(log->buf + (lsn - log->buf_lsn), src, n);
		src += n;
		len -= n;
		lsn = ut_lsn_add(lsn, n);
		if (lsn % UT_LOG_BLOCK == UT_LOG_BLOCK_HDR) {
			blk = log->buf + (lsn_block(lsn) - log->buf_lsn);
			memset(blk, 0, UT_LOG_BLOCK_HDR);
			put_le64(blk + BLK_LSN, lsn_block(lsn));
		}
	}
	log->cur_lsn = lsn;
	log->groups_appended++;
	*end = lsn;
}

static uint64_t bytes_needed(size_t len)
{
	return (len / UT_LOG_PAYLOAD + 2) * UT_LOG_BLOCK;
}

size_t ut_redo_group_max(const struct ut_redo *log)
{
	return (log->buf_size / 2 / UT_LOG_BLOCK - 2) * UT_LOG_PAYLOAD;
}

int ut_redo_reserve(struct ut_redo *log, size_t len)
{
	uint64_t need = bytes_needed(len);
	int ret, asked = 0;

	if (need > log->buf_size / 2)
		return -E2BIG;
	ut_mutex_lock(&log->mutex);
	for (;;) {
		if (log->cur_lsn + need - log->buf_lsn > log->buf_size) {
			ut_mutex_unlock(&log->mutex);
			ret = ut_redo_flush_to(log, log->cur_lsn);
			if (ret)
				return ret;
			ut_mutex_lock(&log->mutex);
			continue;
		}
		if (log->cur_lsn + need - lsn_block(log->ckpt_lsn) >=
		    log->capacity) {
			/* ask without the log mutex: the cleaners take
			 * their mutex first and then the log's */
			if (log->need_space && !asked) {
				ut_mutex_unlock(&log->mutex);
				log->need_space(log->need_space_arg);
				ut_mutex_lock(&log->mutex);
				asked = 1;
				continue;
			}
			asked = 0;
			ut_cond_wait(&log->space_cond, &log->mutex,
				     UT_LATCH_LOG, 100000000ull);
			continue;
		}
		return 0;
	}
}

void ut_redo_release(struct ut_redo *log)
{
	ut_mutex_unlock(&log->mutex);
}

/* ---- group commit --------------------------------------------------- */

/* Copies [buf_lsn, end) into wbuf with each block's length and CRC. */
static size_t log_snapshot(struct ut_redo *log, uint64_t end)
{
	uint64_t blk_lsn, used;
	unsigned char *blk;
	size_t off, len;

	if (end % UT_LOG_BLOCK == UT_LOG_BLOCK_HDR)
		len = lsn_block(end) - log->buf_lsn;
	else
		len = lsn_block(end) + UT_LOG_BLOCK - log->buf_lsn;
	memcpy(log->wbuf, log->buf, len);
	for (off = 0; off < len; off += UT_LOG_BLOCK) {
		blk = log->wbuf + off;
		blk_lsn = log->buf_lsn + off;
		used = end > blk_lsn + UT_LOG_BLOCK_HDR ?
			       end - blk_lsn - UT_LOG_BLOCK_HDR :
			       0;
		if (used > UT_LOG_PAYLOAD)
			used = UT_LOG_PAYLOAD;
		put_le64(blk + BLK_LSN, blk_lsn);
		put_le16(blk + BLK_DATA_LEN, used);
		put_le32(blk + BLK_CRC, ut_crc32c(0, blk, BLK_CRC));
	}
	return len;
}

static int log_write(struct ut_redo *log, uint64_t from, size_t len)
{
	struct ut_ring *ring = ut_ring_thread();
	uint64_t off = lsn_file_off(log, from);
	uint64_t first = UT_LOG_HDR_SIZE + log->capacity - off;
	struct ut_io ios[3];
	unsigned n = 0;

	if (!ring)
		return -ENOMEM;
	if (first > len)
		first = len;
	ut_io_write(&ios[n++], log->fd, log->wbuf, first, off);
	if (first < len)
		ut_io_write(&ios[n++], log->fd, log->wbuf + first, len - first,
			    UT_LOG_HDR_SIZE);
	/* an fsync of the directory commits ext4's journal whole
	 * (ut_redo_commit_journal) */
	ut_io_fdatasync(&ios[n++],
			log->commit_fd >= 0 ? log->commit_fd : log->fd);
	ios[0].flags = UT_IO_LINK;
	if (n == 3)
		ios[1].flags = UT_IO_LINK;
	/* the writer holds no lock here: ut_engine_stats reads these */
	__atomic_fetch_add(&log->writes, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&log->fsyncs, 1, __ATOMIC_RELAXED);
	if (log->commit_fd >= 0)
		__atomic_fetch_add(&log->commits, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&log->bytes_written, len, __ATOMIC_RELAXED);
	return ut_ring_run(ring, ios, n);
}

/* After a write up to end: drop the blocks before end's block. */
static void log_compact(struct ut_redo *log, uint64_t end)
{
	uint64_t keep = lsn_block(end);
	size_t tail;

	if (keep <= log->buf_lsn)
		return;
	tail = lsn_block(log->cur_lsn) + UT_LOG_BLOCK - keep;
	memmove(log->buf, log->buf + (keep - log->buf_lsn), tail);
	log->buf_lsn = keep;
}

int ut_redo_flush_to(struct ut_redo *log, uint64_t lsn)
{
	uint64_t end, from, groups, t0;
	size_t len;
	int ret = 0;

	ut_mutex_lock(&log->mutex);
	if (lsn > log->cur_lsn)
		lsn = log->cur_lsn; /* nothing beyond the head to write */
	while (log->flushed_lsn < lsn && !log->error) {
		if (log->writer_active) {
			ut_cond_wait(&log->flushed_cond, &log->mutex,
				     UT_LATCH_LOG_FLUSH, 0);
			continue;
		}
		log->writer_active = 1;
		end = log->cur_lsn;
		from = log->buf_lsn;
		len = log_snapshot(log, end);
		groups = log->groups_appended - log->groups_written;
		log->groups_written = log->groups_appended;
		ut_mutex_unlock(&log->mutex);
		t0 = UT_PROBE_ENABLED(log__group__commit) ? ut_now_ns() : 0;
		ret = log_write(log, from, len);
		if (t0)
			UT_PROBE(log__group__commit, groups, len, end,
				 ut_now_ns() - t0);
		ut_mutex_lock(&log->mutex);
		log->writer_active = 0;
		if (ret) {
			log->error = ret;
		} else {
			log->flushed_lsn = end;
			log_compact(log, end);
		}
		pthread_cond_broadcast(&log->flushed_cond);
	}
	if (log->flushed_lsn < lsn)
		ret = log->error;
	ut_mutex_unlock(&log->mutex);
	return ret;
}

uint64_t ut_redo_current(struct ut_redo *log)
{
	uint64_t lsn;

	ut_mutex_lock(&log->mutex);
	lsn = log->cur_lsn;
	ut_mutex_unlock(&log->mutex);
	return lsn;
}

uint64_t ut_redo_checkpoint_lsn(struct ut_redo *log,
				uint64_t (*oldest_dirty)(void *arg), void *arg)
{
	uint64_t lsn;

	ut_mutex_lock(&log->mutex);
	lsn = oldest_dirty(arg);
	if (!lsn)
		lsn = log->cur_lsn;
	ut_mutex_unlock(&log->mutex);
	return lsn;
}

void ut_redo_set_need_space(struct ut_redo *log, void (*need_space)(void *arg),
			    void *arg)
{
	log->need_space = need_space;
	log->need_space_arg = arg;
}

uint64_t ut_redo_age(struct ut_redo *log)
{
	uint64_t age;

	ut_mutex_lock(&log->mutex);
	age = log->cur_lsn - log->ckpt_lsn;
	ut_mutex_unlock(&log->mutex);
	return age;
}

void ut_redo_set_checkpoint(struct ut_redo *log, uint64_t ckpt)
{
	ut_mutex_lock(&log->mutex);
	if (ckpt > log->ckpt_lsn)
		log->ckpt_lsn = ckpt;
	pthread_cond_broadcast(&log->space_cond);
	ut_mutex_unlock(&log->mutex);
}
