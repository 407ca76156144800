// SPDX-License-Identifier: MIT
/*
 * lw_replay.c - reads the log a dm-log-writes target wrote and replays
 * it onto a device, the way xfstests' replay-log does, for power-cut
 * tests: the state of the disk after any logged write, or with the last
 * write torn after K sectors.
 *
 * USAGE: lw_replay LOG --list
 *        lw_replay LOG --replay DEV --from A --to B [--tear K]
 *   --list    one line per entry: INDEX FLAGS SECTOR SECTORS [MARK]
 *             (FLAGS: write (it carries data), flush, fua, discard, mark,
 *             meta, joined by ','; SECTOR and SECTORS in the log's sector
 *             size)
 *   --replay  applies entries A..B-1 (0-based) to DEV: data writes as
 *             logged, discards as zeros; A > 0 continues an earlier
 *             replay to A.  --tear K writes only the first K sectors of
 *             entry B-1.
 * The log must be complete: remove the log-writes target first (its
 * destructor writes the final entry count).  Exit 0, 2 on bad input.
 * Format: drivers/md/dm-log-writes.c (super in sector 0; an entry is a
 * header sector, the mark text inside it, then the data).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LW_MAGIC 0x6a736677736872ull
#define LW_VERSION 1
#define LW_FLUSH (1u << 0)
#define LW_FUA (1u << 1)
#define LW_DISCARD (1u << 2)
#define LW_MARK (1u << 3)
#define LW_META (1u << 4)

struct lw_super {
	uint64_t magic, version, nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct lw_entry {
	uint64_t sector, nr_sectors, flags, data_len;
} __attribute__((packed));

struct lw_log {
	int fd;
	const char *path;
	uint32_t sectorsize;
	uint64_t nr_entries;
	off_t size; /* of the log device */
	off_t pos; /* of the next entry's header */
	uint64_t index; /* of the next entry */
	char *buf; /* one sector, then data */
	size_t buf_cap;
};

/* The one line: what is wrong, and what to do. */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("lw_replay: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int read_at(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n;

	while (len) {
		n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ENODATA;
		buf = (char *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

static int write_at(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf = (const char *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

static int log_open(struct lw_log *log, const char *path)
{
	struct lw_super sb;
	int ret;

	log->path = path;
	log->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (log->fd < 0)
		return fail("%s: %s; give the log device of a removed log-writes target",
			    path, strerror(errno));
	log->size = lseek(log->fd, 0, SEEK_END);
	ret = read_at(log->fd, &sb, sizeof(sb), 0);
	if (ret || le64toh(sb.magic) != LW_MAGIC)
		return fail("%s: not a dm-log-writes log (no magic in sector 0); give the log device of a log-writes target",
			    path);
	if (le64toh(sb.version) != LW_VERSION)
		return fail("%s: log version %" PRIu64
			    ", this reads version %d",
			    path, le64toh(sb.version), LW_VERSION);
	log->sectorsize = le32toh(sb.sectorsize);
	if (log->sectorsize < 512 || log->sectorsize > 65536 ||
	    (log->sectorsize & (log->sectorsize - 1)))
		return fail("%s: sector size %u in the log is not a power of two in 512..65536",
			    path, log->sectorsize);
	log->nr_entries = le64toh(sb.nr_entries);
	log->pos = log->sectorsize;
	log->index = 0;
	log->buf_cap = 1 << 20;
	log->buf = malloc(log->buf_cap);
	return log->buf ? 0 : fail("out of memory");
}

/* Reads the next entry's header (and mark text); -ENODATA past the end. */
static int log_next(struct lw_log *log, struct lw_entry *e, char *mark,
		    size_t mark_len)
{
	uint64_t len;
	int ret;

	if (log->index >= log->nr_entries)
		return -ENODATA;
	ret = read_at(log->fd, log->buf, log->sectorsize, log->pos);
	if (ret)
		return ret;
	memcpy(e, log->buf, sizeof(*e));
	e->sector = le64toh(e->sector);
	e->nr_sectors = le64toh(e->nr_sectors);
	e->flags = le64toh(e->flags);
	e->data_len = le64toh(e->data_len);
	mark[0] = 0;
	if (e->flags & LW_MARK) {
		len = e->data_len < mark_len - 1 ? e->data_len : mark_len - 1;
		if (e->data_len > log->sectorsize - sizeof(*e))
			return -EUCLEAN;
		memcpy(mark, log->buf + sizeof(*e), len);
		mark[len] = 0;
	}
	if (e->nr_sectors > (uint64_t)(log->size / log->sectorsize))
		return -EUCLEAN;
	return 0;
}

/* Bytes of data that follow the entry's header in the log. */
static uint64_t entry_data_bytes(const struct lw_log *log,
				 const struct lw_entry *e)
{
	if (e->flags & (LW_DISCARD | LW_MARK))
		return 0;
	return e->nr_sectors * log->sectorsize;
}

static void log_skip(struct lw_log *log, const struct lw_entry *e)
{
	log->pos += log->sectorsize + entry_data_bytes(log, e);
	log->index++;
}

static void flags_name(uint64_t flags, uint64_t nr_sectors, char *out,
		       size_t len)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
		{ LW_FLUSH, "flush" },	   { LW_FUA, "fua" },
		{ LW_DISCARD, "discard" }, { LW_MARK, "mark" },
		{ LW_META, "meta" },
	};
	size_t i, n = 0;

	out[0] = 0;
	if (!(flags & (LW_DISCARD | LW_MARK)) && nr_sectors)
		n += snprintf(out + n, len - n, "write");
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && n < len; i++)
		if (flags & names[i].bit)
			n += snprintf(out + n, len - n, "%s%s", n ? "," : "",
				      names[i].name);
}

static int list_entries(struct lw_log *log)
{
	char mark[512], flags[64];
	struct lw_entry e;
	int ret;

	while (!(ret = log_next(log, &e, mark, sizeof(mark)))) {
		flags_name(e.flags, e.nr_sectors, flags, sizeof(flags));
		printf("%" PRIu64 " %s %" PRIu64 " %" PRIu64 "%s%s\n",
		       log->index, flags, e.sector,
		       (e.flags & LW_MARK) ? 0 : e.nr_sectors,
		       mark[0] ? " " : "", mark);
		log_skip(log, &e);
	}
	return ret == -ENODATA ? 0 : ret;
}

/* Writes zeros over a discarded range. */
static int zero_range(struct lw_log *log, int dev, off_t off, uint64_t len)
{
	size_t chunk;
	int ret;

	memset(log->buf, 0, log->buf_cap);
	while (len) {
		chunk = len < log->buf_cap ? len : log->buf_cap;
		ret = write_at(dev, log->buf, chunk, off);
		if (ret)
			return ret;
		off += chunk;
		len -= chunk;
	}
	return 0;
}

/* Copies the first SECTORS sectors of an entry's data to the device. */
static int apply_write(struct lw_log *log, int dev, const struct lw_entry *e,
		       uint64_t sectors)
{
	off_t src = log->pos + log->sectorsize,
	      dst = (off_t)e->sector * log->sectorsize;
	uint64_t len = sectors * log->sectorsize;
	size_t chunk;
	int ret;

	while (len) {
		chunk = len < log->buf_cap ? len : log->buf_cap;
		ret = read_at(log->fd, log->buf, chunk, src);
		if (ret)
			return ret;
		ret = write_at(dev, log->buf, chunk, dst);
		if (ret)
			return ret;
		src += chunk;
		dst += chunk;
		len -= chunk;
	}
	return 0;
}

static int apply_entry(struct lw_log *log, int dev, const struct lw_entry *e,
		       uint64_t sectors)
{
	if (e->flags & LW_MARK)
		return 0;
	if (e->flags & LW_DISCARD)
		return zero_range(log, dev, (off_t)e->sector * log->sectorsize,
				  e->nr_sectors * log->sectorsize);
	return apply_write(log, dev, e, sectors);
}

static int replay(struct lw_log *log, const char *dev_path, uint64_t from,
		  uint64_t to, int64_t tear)
{
	char mark[512];
	struct lw_entry e;
	uint64_t sectors;
	int dev, ret = 0;

	if (to > log->nr_entries)
		return fail("%s: --to %" PRIu64 " is past the log's %" PRIu64
			    " entries",
			    log->path, to, log->nr_entries);
	dev = open(dev_path, O_WRONLY | O_CLOEXEC);
	if (dev < 0)
		return fail("%s: %s; give the device to replay onto", dev_path,
			    strerror(errno));
	while (log->index < to &&
	       !(ret = log_next(log, &e, mark, sizeof(mark)))) {
		if (log->index >= from) {
			sectors = e.nr_sectors;
			if (log->index == to - 1 && tear >= 0) {
				if ((uint64_t)tear >= e.nr_sectors ||
				    (e.flags & (LW_DISCARD | LW_MARK)))
					ret = -EINVAL;
				sectors = tear;
			}
			if (!ret)
				ret = apply_entry(log, dev, &e, sectors);
			if (ret)
				break;
		}
		log_skip(log, &e);
	}
	if (!ret && fsync(dev))
		ret = -errno;
	close(dev);
	if (ret == -EINVAL)
		return fail("--tear %" PRId64 ": entry %" PRIu64
			    " is not a write of more sectors than that",
			    tear, to - 1);
	if (ret)
		return fail("replaying entry %" PRIu64 " of %s onto %s: %s",
			    log->index, log->path, dev_path,
			    ret == -EUCLEAN ? "the entry is malformed" :
			    ret == -ENODATA ? "the log is truncated" :
					      strerror(-ret));
	return 0;
}

static int parse_u64(const char *what, const char *arg, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-')
		return fail("%s takes a number, not '%s'", what, arg);
	return 0;
}

static int usage(void)
{
	return fail(
		"usage: lw_replay LOG --list | lw_replay LOG --replay DEV --from A --to B [--tear K]");
}

int main(int argc, char **argv)
{
	uint64_t from = 0, to = UINT64_MAX, tear_arg;
	const char *dev = NULL;
	struct lw_log log = { .fd = -1 };
	int64_t tear = -1;
	int i, list = 0, ret;

	if (argc < 3)
		return usage();
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			list = 1;
		} else if (i + 1 >= argc) {
			return usage();
		} else if (!strcmp(argv[i], "--replay")) {
			dev = argv[++i];
		} else if (!strcmp(argv[i], "--from")) {
			if (parse_u64("--from", argv[++i], &from))
				return 2;
		} else if (!strcmp(argv[i], "--to")) {
			if (parse_u64("--to", argv[++i], &to))
				return 2;
		} else if (!strcmp(argv[i], "--tear")) {
			if (parse_u64("--tear", argv[++i], &tear_arg))
				return 2;
			tear = (int64_t)tear_arg;
		} else {
			return usage();
		}
	}
	if (list == !!dev || (dev && (to == UINT64_MAX || from >= to)))
		return usage();
	ret = log_open(&log, argv[1]);
	if (!ret)
		ret = list ? list_entries(&log) :
			     replay(&log, dev, from, to, tear);
	if (ret < 0)
		ret = fail("%s: entry %" PRIu64 ": %s", log.path, log.index,
			   ret == -EUCLEAN ? "malformed" :
			   ret == -ENODATA ? "the log is truncated" :
					     strerror(-ret));
	free(log.buf);
	if (log.fd >= 0)
		close(log.fd);
	return ret ? 2 : 0;
}
