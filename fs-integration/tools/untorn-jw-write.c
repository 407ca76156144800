// SPDX-License-Identifier: MIT
/*
 * untorn-jw-write.c - write a range of an ext4 data=journal file in one jbd2
 * transaction through the untorn_jw module, from the shell: the bytes from
 * standard input (or a repeated byte), then one line naming the transaction.
 * For scripts and tests of other engines' pages; engines call
 * ut_jw_pwrite() (untorn/jw.h) instead.
 *
 * USAGE: untorn-jw-write [--dsync] [--fill BYTE] [--count N] [--plain] [--syncer]
 *                        [--json]
 *                        FILE OFFSET LENGTH
 *        untorn-jw-write --info
 * Exit: 0 written; 1 the module or kernel refused (one line: cause, fix);
 * 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <untorn/jw.h>
#include "base/parse.h"

static const char usage[] =
	"usage: untorn-jw-write [--dsync] [--fill BYTE] [--count N] [--plain] [--syncer]\n"
	"                       [--json]\n"
	"                       FILE OFFSET LENGTH\n"
	"       untorn-jw-write --info\n"
	"Writes LENGTH bytes (at most 64 KiB) at OFFSET of FILE, an existing file on\n"
	"ext4 data=journal, in one jbd2 transaction through the untorn_jw module\n"
	"(/dev/untorn_jw).  The bytes come from standard input, or are BYTE repeated.\n"
	"  --dsync     fdatasync the range before returning\n"
	"  --fill B    write byte B (0-255) instead of reading standard input\n"
	"  --count N   N writes of LENGTH bytes one after the other from OFFSET (the\n"
	"              bytes of each from standard input, or BYTE), for workloads\n"
	"  --plain     the same writes with pwrite(2), without the module: stock ext4,\n"
	"              to compare with (no transaction to report)\n"
	"  --syncer    a second thread fdatasyncs FILE in a loop while the writes run:\n"
	"              jbd2 commits as often as they can be (where stock ext4 splits\n"
	"              pages between transactions)\n"
	"  --json      the result as one JSON object\n"
	"  --info      the module's version and limits\n";

struct jw_args {
	const char *path;
	uint64_t off, len;
	uint64_t count;
	int fill, dsync, json, info, plain, syncer;
};

static int parse_args(int argc, char **argv, struct jw_args *a)
{
	static const struct option opts[] = {
		{ "dsync", no_argument, NULL, 'd' },
		{ "fill", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "info", no_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "plain", no_argument, NULL, 'p' },
		{ "syncer", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	char what[256];
	int c;

	a->fill = -1;
	a->count = 1;
	opterr = 0; /* refusals are one line, ours */
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			a->dsync = 1;
			break;
		case 'j':
			a->json = 1;
			break;
		case 'i':
			a->info = 1;
			break;
		case 'p':
			a->plain = 1;
			break;
		case 's':
			a->syncer = 1;
			break;
		case 'c':
			if (ut_parse_size(optarg, 1u << 30, &a->count) ||
			    !a->count)
				return fprintf(stderr,
					       "untorn-jw-write: --count takes a number 1 or more, not '%s'\n",
					       optarg),
				       -EINVAL;
			break;
		case 'f':
			if (ut_parse_size(optarg, 255, &v))
				return fprintf(stderr,
					       "untorn-jw-write: --fill takes a byte 0-255, not '%s'\n",
					       optarg),
				       -EINVAL;
			a->fill = (int)v;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case 'V':
			printf("untorn-jw-write %s\n", UNTORN_VERSION);
			exit(0);
		default:
			ut_getopt_error(argv, what, sizeof(what));
			fprintf(stderr,
				"untorn-jw-write: %s; try 'untorn-jw-write --help'\n",
				what);
			return -EINVAL;
		}
	}
	if (a->info)
		return optind == argc ? 0 : -EINVAL;
	if (argc - optind != 3) {
		fprintf(stderr,
			"untorn-jw-write: give FILE OFFSET LENGTH; try --help\n");
		return -EINVAL;
	}
	a->path = argv[optind];
	if (ut_parse_size(argv[optind + 1], INT64_MAX, &a->off) ||
	    ut_parse_size(argv[optind + 2], 65536, &a->len)) {
		fprintf(stderr,
			"untorn-jw-write: OFFSET and LENGTH are byte counts (suffixes k, M; LENGTH at most 64k), not '%s' '%s'\n",
			argv[optind + 1], argv[optind + 2]);
		return -EINVAL;
	}
	if (a->len == 0) {
		fprintf(stderr,
			"untorn-jw-write: LENGTH 0 writes nothing; write 1 byte to 64 KiB\n");
		return -EINVAL;
	}
	return 0;
}

static int read_input(unsigned char *buf, size_t len, int fill)
{
	size_t got = 0;
	ssize_t n;

	if (fill >= 0) {
		memset(buf, fill, len);
		return 0;
	}
	while (got < len) {
		n = read(0, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENODATA;
		got += (size_t)n;
	}
	return 0;
}

static int show_info(int jw_fd)
{
	struct ut_jw_info info;
	int ret = ut_jw_info(jw_fd, &info);

	if (ret) {
		fprintf(stderr, "untorn-jw-write: %s\n", ut_jw_strerror(ret));
		return 1;
	}
	printf("untorn_jw version %u: writes up to %u bytes, %u jbd2 credits reserved per 4 KiB page\n",
	       info.version, info.max_bytes, info.credits_per_page);
	return 0;
}

struct syncer {
	pthread_t thread;
	int fd;
	atomic_int stop;
};

static void *syncer_run(void *arg)
{
	struct syncer *sy = arg;

	while (!atomic_load(&sy->stop))
		fdatasync(sy->fd);
	return NULL;
}

/* one write of the workload: through the module, or pwrite(2) with --plain */
static ssize_t write_one(int jw_fd, int fd, const struct jw_args *a,
			 const unsigned char *buf, uint64_t off,
			 struct ut_jw_status *st)
{
	ssize_t n;

	if (!a->plain)
		return ut_jw_pwrite(jw_fd, fd, buf, a->len, (off_t)off,
				    a->dsync ? UT_JW_DSYNC : 0, st);
	n = pwrite(fd, buf, a->len, (off_t)off);
	if (n < 0)
		return -errno;
	if ((uint64_t)n != a->len)
		return -EIO;
	if (a->dsync && fdatasync(fd) < 0)
		return -errno;
	return n;
}

static void report(const struct jw_args *a, const struct ut_jw_status *first,
		   const struct ut_jw_status *last)
{
	const char *how = a->plain ? "pwrite" : "untorn_jw";

	if (a->json) {
		printf("{\"file\": \"%s\", \"offset\": %" PRIu64
		       ", \"bytes\": %" PRIu64 ", \"count\": %" PRIu64
		       ", \"via\": \"%s\"",
		       a->path, a->off, a->len, a->count, how);
		if (!a->plain)
			printf(", \"tid\": %u, \"last_tid\": %u, \"credits\": %u",
			       first->tid, last->tid, first->credits);
		printf("}\n");
	} else if (a->plain) {
		printf("%s: %" PRIu64 " x %" PRIu64 " bytes from %" PRIu64
		       " with pwrite(2)\n",
		       a->path, a->count, a->len, a->off);
	} else if (a->count == 1) {
		printf("%s: %" PRIu64 " bytes at %" PRIu64
		       " in jbd2 transaction %u (%u credits reserved)\n",
		       a->path, a->len, a->off, first->tid, first->credits);
	} else {
		printf("%s: %" PRIu64 " x %" PRIu64 " bytes from %" PRIu64
		       ", each in one jbd2 transaction (%u to %u; %u credits reserved each)\n",
		       a->path, a->count, a->len, a->off, first->tid, last->tid,
		       first->credits);
	}
}

static int do_write(int jw_fd, const struct jw_args *a)
{
	struct ut_jw_status first = { 0 }, st = { 0 };
	struct syncer sy = { 0 };
	unsigned char *buf;
	ssize_t ret = 0;
	uint64_t i;
	int fd;

	buf = malloc(a->len);
	if (!buf)
		return fprintf(stderr, "untorn-jw-write: out of memory\n"), 1;
	fd = open(a->path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "untorn-jw-write: %s: %s\n", a->path,
			strerror(errno));
		goto out_free_buf;
	}
	sy.fd = fd;
	atomic_init(&sy.stop, 0);
	if (a->syncer && pthread_create(&sy.thread, NULL, syncer_run, &sy)) {
		fprintf(stderr,
			"untorn-jw-write: cannot start the syncer thread\n");
		ret = -EAGAIN;
		goto out_close;
	}
	for (i = 0; i < a->count; i++) {
		ret = read_input(buf, a->len, a->fill);
		if (ret) {
			fprintf(stderr,
				"untorn-jw-write: standard input ended before %" PRIu64
				" bytes; give that many, or --fill\n",
				a->len * a->count);
			goto out_stop_syncer;
		}
		ret = write_one(jw_fd, fd, a, buf, a->off + i * a->len, &st);
		if (ret < 0) {
			fprintf(stderr, "untorn-jw-write: %s: %s\n", a->path,
				a->plain ? strerror((int)-ret) :
					   ut_jw_strerror((int)ret));
			goto out_stop_syncer;
		}
		if (i == 0)
			first = st;
	}
	ret = 0;
out_stop_syncer:
	if (a->syncer) {
		atomic_store(&sy.stop, 1);
		pthread_join(sy.thread, NULL);
	}
	if (!ret)
		report(a, &first, &st);
out_close:
	close(fd);
out_free_buf:
	free(buf);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct jw_args a = { 0 };
	int jw_fd, ret;

	if (parse_args(argc, argv, &a))
		return 2;
	jw_fd = a.plain && !a.info ? -1 : ut_jw_open();
	if (jw_fd < 0 && (!a.plain || a.info)) {
		fprintf(stderr, "untorn-jw-write: %s\n", ut_jw_strerror(jw_fd));
		return 1;
	}
	ret = a.info ? show_info(jw_fd) : do_write(jw_fd, &a);
	if (jw_fd >= 0)
		close(jw_fd);
	return ret;
}
