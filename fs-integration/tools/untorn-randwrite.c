// SPDX-License-Identifier: MIT
/*
 * untorn-randwrite.c - what does RWF_ATOMIC cost on this filesystem,
 * without the engine?  Random, aligned O_DIRECT writes of one size at a
 * queue depth through io_uring, each with RWF_ATOMIC or without it: the
 * writes fio's randwrite job issues with `atomic=1` from fio 3.38 on.
 * Debian bookworm's fio 3.33 cannot (its atomic=1 is the never-merged
 * O_ATOMIC open flag, which Linux ignores), so this stands in for it.
 *
 * USAGE: untorn-randwrite [--atomic] [--bs SIZE] [--qd N] [--seconds S]
 *                         [--size SIZE] [--json] FILE
 * FILE must not exist: it is made, unlinked at once (nothing is left
 * behind, even after a kill), written through once (so every measured
 * write overwrites, as a store's page writes do) and measured.
 * Exit: 0 measured; 1 the filesystem refused a write (one line: cause,
 * fix); 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/parse.h"
#include "base/json_quote.h"
#include "fscaps.h"

#define QD_MAX 256
/* latencies in log-linear buckets: 64 to each power of two, so a
 * percentile is within 1/64 of the truth, in a fixed 32 KiB */
#define LAT_SUB 64
#define LAT_BUCKETS 4096

static const char usage[] =
	"usage: untorn-randwrite [--atomic] [--bs SIZE] [--qd N] [--seconds S]\n"
	"                        [--size SIZE] [--json] FILE\n"
	"Random BS-aligned O_DIRECT writes of BS bytes over SIZE bytes of FILE, N in\n"
	"flight through io_uring, for S seconds: writes a second, MB/s, mean and\n"
	"p99 latency.  FILE must not exist: it is made, written through once, and\n"
	"removed.\n"
	"  --atomic     each write with RWF_ATOMIC (BS within the file's atomic\n"
	"               write units, statx); without it the same writes plain\n"
	"  --bs SIZE    bytes a write (default 16k, untorn's page)\n"
	"  --qd N       writes in flight (default 8; 1-256)\n"
	"  --seconds S  measured seconds (default 10)\n"
	"  --size SIZE  bytes of FILE written over (default 1g)\n"
	"  --json       the result as one JSON object\n";

struct rw_args {
	const char *path;
	uint64_t bs, size;
	unsigned qd, seconds;
	int atomic, json;
};

struct rw_result {
	uint64_t writes;
	double seconds, mean_us, p50_us, p99_us;
	uint32_t unit_min, unit_max;
};

/* a whole number from 1 to max */
static int parse_count(const char *s, unsigned max, unsigned *out)
{
	uint64_t v;
	int ret = ut_parse_count(s, 1, max, &v);

	if (!ret)
		*out = (unsigned)v;
	return ret;
}

static int bad_value(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "untorn-randwrite: %s %s: give %s\n", opt, val, want);
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct rw_args *a)
{
	static const struct option opts[] = {
		{ "atomic", no_argument, NULL, 'a' },
		{ "bs", required_argument, NULL, 'b' },
		{ "qd", required_argument, NULL, 'q' },
		{ "seconds", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'z' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char what[256];
	int c;

	*a = (struct rw_args){
		.bs = 16384, .size = 1ULL << 30, .qd = 8, .seconds = 10
	};
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			a->atomic = 1;
			break;
		case 'b':
			if (ut_parse_size(optarg, 1ULL << 20, &a->bs) ||
			    a->bs < 512 || (a->bs & (a->bs - 1)))
				return bad_value("--bs", optarg,
						 "a power of two from 512 to 1m, e.g. 16k");
			break;
		case 'q':
			if (parse_count(optarg, QD_MAX, &a->qd))
				return bad_value("--qd", optarg,
						 "writes in flight, 1 to 256");
			break;
		case 's':
			if (parse_count(optarg, 86400, &a->seconds))
				return bad_value("--seconds", optarg,
						 "whole seconds, 1 to 86400");
			break;
		case 'z':
			if (ut_parse_size(optarg, 1ULL << 40, &a->size))
				return bad_value("--size", optarg,
						 "a size such as 1g");
			break;
		case 'j':
			a->json = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			ut_getopt_error(argv, what, sizeof(what));
			fprintf(stderr,
				"untorn-randwrite: %s; try 'untorn-randwrite --help'\n",
				what);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr,
			"untorn-randwrite: give one FILE to make, e.g. /mnt/xfs/rw.data\n");
		return -EINVAL;
	}
	a->path = argv[optind];
	if (a->size < a->bs * a->qd || a->size % a->bs) {
		fprintf(stderr,
			"untorn-randwrite: --size must be a multiple of --bs and hold --qd writes; e.g. --size 1g\n");
		return -EINVAL;
	}
	return 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* the file written through once, so that every measured write
 * overwrites; in 1 MiB writes */
static int fill(int fd, const struct rw_args *a)
{
	const size_t chunk = 1 << 20;
	uint64_t off, len;
	void *buf;
	ssize_t n;
	int ret = 0;

	if (posix_memalign(&buf, 4096, chunk))
		return -ENOMEM;
	memset(buf, 0xa5, chunk);
	for (off = 0; off < a->size && !ret; off += len) {
		len = a->size - off < chunk ? a->size - off : chunk;
		n = pwrite(fd, buf, len, off);
		if (n != (ssize_t)len)
			ret = n < 0 ? -errno : -EIO;
	}
	if (!ret && fdatasync(fd))
		ret = -errno;
	free(buf);
	return ret;
}

static void queue_write(struct io_uring *ring, int fd, void *buf,
			const struct rw_args *a, uint64_t blocks, double *start,
			unsigned slot)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	uint64_t off = ((uint64_t)random() * RAND_MAX + random()) % blocks;

	io_uring_prep_write(sqe, fd, buf, a->bs, off * a->bs);
	sqe->rw_flags = a->atomic ? RWF_ATOMIC : 0;
	io_uring_sqe_set_data64(sqe, slot);
	start[slot] = now_us();
}

static unsigned lat_bucket(uint64_t us)
{
	unsigned shift = 0;

	while ((us >> shift) >= 2 * LAT_SUB)
		shift++;
	return shift * LAT_SUB + (unsigned)(us >> shift);
}

/* the middle of the latencies bucket idx holds, in microseconds */
static double lat_value(unsigned idx)
{
	unsigned shift = idx < 2 * LAT_SUB ? 0 : idx / LAT_SUB - 1;

	return (double)((uint64_t)(idx - shift * LAT_SUB) << shift) +
	       (double)(1ULL << shift) / 2;
}

static double lat_percentile(const uint64_t *hist, uint64_t n, double q)
{
	uint64_t seen = 0, want = (uint64_t)(q * n);
	unsigned i;

	for (i = 0; i < LAT_BUCKETS; i++) {
		seen += hist[i];
		if (seen > want)
			return lat_value(i);
	}
	return lat_value(LAT_BUCKETS - 1);
}

static int submit(struct io_uring *ring)
{
	int ret = io_uring_submit(ring);

	return ret < 0 ? ret : 0;
}

static int run(int fd, const struct rw_args *a, char *bufs, struct rw_result *r)
{
	uint64_t blocks = a->size / a->bs, *hist, us;
	double start[QD_MAX], t0, end, sum = 0;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned i, slot;
	int ret;

	hist = calloc(LAT_BUCKETS, sizeof(*hist));
	if (!hist)
		return -ENOMEM;
	ret = io_uring_queue_init(a->qd, &ring, 0);
	if (ret)
		goto out_free;
	t0 = now_us();
	end = t0 + a->seconds * 1e6;
	for (i = 0; i < a->qd; i++)
		queue_write(&ring, fd, bufs + (size_t)i * a->bs, a, blocks,
			    start, i);
	ret = submit(&ring);
	for (i = 0; !ret && i < a->qd;) {
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret)
			break;
		slot = (unsigned)io_uring_cqe_get_data64(cqe);
		ret = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		if (ret != (int)a->bs) {
			ret = ret < 0 ? ret : -EIO;
			break;
		}
		ret = 0;
		us = (uint64_t)(now_us() - start[slot]);
		sum += (double)us;
		hist[lat_bucket(us) < LAT_BUCKETS ? lat_bucket(us) :
						    LAT_BUCKETS - 1]++;
		r->writes++;
		if (now_us() >= end) {
			i++; /* draining: this slot is not refilled */
			continue;
		}
		queue_write(&ring, fd, bufs + (size_t)slot * a->bs, a, blocks,
			    start, slot);
		ret = submit(&ring);
	}
	if (ret)
		goto out_ring;
	r->seconds = (now_us() - t0) / 1e6;
	r->mean_us = sum / r->writes;
	r->p50_us = lat_percentile(hist, r->writes, 0.50);
	r->p99_us = lat_percentile(hist, r->writes, 0.99);
out_ring:
	io_uring_queue_exit(&ring);
out_free:
	free(hist);
	return ret;
}

static void report(const struct rw_args *a, const struct rw_result *r)
{
	double iops = r->writes / r->seconds;

	if (a->json) {
		printf("{\"file\": ");
		json_quote(stdout, a->path);
		printf(", \"atomic\": %s, \"bs\": %" PRIu64
		       ", \"qd\": %u, \"size\": %" PRIu64
		       ", \"atomic_unit_min\": %u, \"atomic_unit_max\": %u"
		       ", \"writes\": %" PRIu64
		       ", \"seconds\": %.3f, \"iops\": %.1f, \"mb_s\": %.2f"
		       ", \"mean_us\": %.1f, \"p50_us\": %.1f, \"p99_us\": %.1f}\n",
		       a->atomic ? "true" : "false", a->bs, a->qd, a->size,
		       r->unit_min, r->unit_max, r->writes, r->seconds, iops,
		       iops * a->bs / 1e6, r->mean_us, r->p50_us, r->p99_us);
		return;
	}
	printf("%s %" PRIu64
	       "-byte writes, %u in flight: %.0f writes/s, %.1f MB/s, latency mean %.0f us, p50 %.0f us, p99 %.0f us (%" PRIu64
	       " writes in %.1f s)\n",
	       a->atomic ? "RWF_ATOMIC" : "plain", a->bs, a->qd, iops,
	       iops * a->bs / 1e6, r->mean_us, r->p50_us, r->p99_us, r->writes,
	       r->seconds);
}

static void failed(const struct rw_args *a, const char *what, int err)
{
	const char *fix = "check the filesystem (dmesg)";

	if (err == -ENOSPC)
		fix = "free space there or give a smaller --size";
	else if (err == -ENOMEM)
		fix = "free memory or give a smaller --qd";
	fprintf(stderr, "untorn-randwrite: %s: %s: %s; %s\n", a->path, what,
		strerror(-err), fix);
}

/* --atomic: BS within the file's atomic write units, or say what to do */
static int check_atomic(const struct rw_args *a, struct rw_result *r)
{
	struct ut_fscaps caps;
	int ret = ut_fscaps_probe(a->path, &caps);

	if (ret) {
		fprintf(stderr,
			"untorn-randwrite: %s: cannot read what the filesystem offers: %s\n",
			a->path, strerror(-ret));
		return ret;
	}
	r->unit_min = caps.atomic_min;
	r->unit_max = caps.atomic_max;
	if (!a->atomic ||
	    (a->bs >= caps.atomic_min && a->bs <= caps.atomic_max))
		return 0;
	fprintf(stderr,
		"untorn-randwrite: %s: atomic writes of %" PRIu64
		" bytes are not offered here (statx: units %u-%u bytes on %s); use XFS with reflink on Linux 6.16+ (scripts/mkfs-atomic), or a --bs within the units\n",
		a->path, a->bs, caps.atomic_min, caps.atomic_max,
		caps.mnt.fstype);
	return -EOPNOTSUPP;
}

int main(int argc, char **argv)
{
	struct rw_result r = { 0 };
	struct rw_args a;
	char *bufs;
	int fd, ret;

	if (parse_args(argc, argv, &a))
		return 2;
	if (posix_memalign((void **)&bufs, 4096, a.bs * a.qd)) {
		fprintf(stderr,
			"untorn-randwrite: out of memory for %u buffers of %" PRIu64
			" bytes; give a smaller --qd or --bs\n",
			a.qd, a.bs);
		return 1;
	}
	memset(bufs, 0x5a, a.bs * a.qd);
	fd = open(a.path, O_RDWR | O_CREAT | O_EXCL | O_DIRECT, 0600);
	if (fd < 0) {
		ret = errno;
		fprintf(stderr,
			"untorn-randwrite: %s: %s; give a new file's path on the filesystem to measure (it is removed afterwards)\n",
			a.path, strerror(ret));
		free(bufs);
		return ret == EEXIST || ret == ENOENT ? 2 : 1;
	}
	ret = check_atomic(&a, &r);
	/* unnamed from here on: nothing is left behind, even on a kill */
	unlink(a.path);
	if (ret)
		goto out_close;
	ret = fill(fd, &a);
	if (ret) {
		failed(&a, "writing the file through", ret);
		goto out_close;
	}
	ret = run(fd, &a, bufs, &r);
	if (ret) {
		failed(&a, a.atomic ? "an RWF_ATOMIC write" : "a write", ret);
		goto out_close;
	}
	report(&a, &r);
out_close:
	close(fd);
	free(bufs);
	return ret ? 1 : 0;
}
