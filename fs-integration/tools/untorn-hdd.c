// SPDX-License-Identifier: MIT
/*
 * untorn-hdd - a disk model for measurements: a FUSE filesystem holding
 * one file, disk.img, whose every read, write and flush costs what a 7200
 * rpm disk would charge.  A loop device on that file is the emulated disk.
 *
 * Cost of a request at offset o of n bytes, one head:
 *   - streaming (o continues the previous request): n / transfer rate;
 *   - otherwise: seek(d) + rotational latency + n / transfer rate, with
 *     seek(d) = seek_min + (seek_max - seek_min) * sqrt(d / disk size);
 *     the platter turns on the virtual clock, a track holds what passes
 *     the head in one rotation (rate x rotation time), and the latency is
 *     the wait, after the seek, until o's angle comes under the head;
 *   - a flush (fsync): flush_ms.
 * The head serves one request at a time on a virtual clock.  Requests
 * that wait for it form the command queue: with --ncq N (default 32) the
 * head takes next, among the N oldest, the one it can reach soonest
 * (shortest positioning time first, as NCQ firmware does), unless one has
 * waited over a second -- and a queued request that ends where the chosen
 * one starts goes first (the pieces of one command, split by FUSE at
 * 1 MiB, stream as the command would); --ncq 1 serves in arrival order.
 * The loop device
 * must use direct I/O (emulate-hdd does) to have several requests in
 * flight.  --trace FILE writes a line per request as the head serves it
 * (arrival, start and cost on the clock, offset, length, positioning),
 * to see the order a workload's requests reach the disk in.
 *
 * USAGE: untorn-hdd BACKING_FILE MOUNTPOINT [--seek-min MS] [--seek-max MS]
 *                   [--rpm N] [--mbps N] [--flush-ms MS] [--ncq N]
 *                   [--trace FILE] [-f]
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DISK_NAME "/disk.img"

#define AGING_NS 1000000000ull /* a request waiting longer goes next */

/* a request waiting for the head */
struct hdd_req {
	uint64_t off, len; /* len 0: a flush */
	uint64_t arrival_ns;
	int chosen;
	pthread_cond_t chosen_cond;
	struct hdd_req *next;
};

struct hdd {
	int fd;
	uint64_t size;
	double seek_min_ms, seek_max_ms, rpm, mbps, flush_ms, ncq;
	pthread_mutex_t queue_lock; /* everything below */
	struct hdd_req *queue; /* arrival order */
	int head_busy;
	uint64_t head_pos; /* byte after the last request */
	uint64_t head_free_ns; /* virtual clock: when the head is free */
	uint64_t requests, streamed, reordered, busy_ns;
	FILE *trace; /* --trace: a line per request served */
	uint64_t trace_t0;
};

static struct hdd hdd = {
	.seek_min_ms = 0.5,
	.seek_max_ms = 6.0,
	.rpm = 7200,
	.mbps = 190,
	.flush_ms = 4.0,
	.ncq = 32,
	.queue_lock = PTHREAD_MUTEX_INITIALIZER,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static double rotation_ns(void)
{
	return 60e9 / hdd.rpm;
}

/* the angle (0..1) of byte off on its track */
static double angle_of(uint64_t off)
{
	double track = hdd.mbps * 1e6 * rotation_ns() / 1e9;

	return fmod((double)off, track) / track;
}

/* Positioning time (seek + rotation) from the head's state, in ns. */
static double position_ns(uint64_t off, uint64_t at_ns)
{
	double seek, arrive, wait;
	uint64_t dist;

	if (off == hdd.head_pos)
		return 0;
	dist = off > hdd.head_pos ? off - hdd.head_pos : hdd.head_pos - off;
	seek = (hdd.seek_min_ms +
		(hdd.seek_max_ms - hdd.seek_min_ms) *
			sqrt((double)dist / (hdd.size ? hdd.size : 1))) *
	       1e6;
	arrive = fmod((at_ns + seek) / rotation_ns(), 1.0);
	wait = angle_of(off) - arrive;
	if (wait < 0)
		wait += 1.0;
	return seek + wait * rotation_ns();
}

/* What one request costs, in ns, starting at at_ns; moves the head. */
static uint64_t service_ns(const struct hdd_req *r, uint64_t at_ns)
{
	double ns;

	if (!r->len)
		return (uint64_t)(hdd.flush_ms * 1e6);
	ns = position_ns(r->off, at_ns) + r->len / (hdd.mbps * 1e6) * 1e9;
	if (r->off == hdd.head_pos)
		hdd.streamed++;
	hdd.head_pos = r->off + r->len;
	return (uint64_t)ns;
}

/*
 * A queued request, among the first ncq, that ends where r starts (or
 * NULL).  The pieces of one command reach the model separately and in
 * any order: the loop device passes a read of up to 1.25 MiB on as one
 * request, as a disk would get it, and FUSE splits it at 1 MiB.  A disk
 * reads such a command from its start, streaming; so does the model.
 */
static struct hdd_req *queued_before(const struct hdd_req *r)
{
	struct hdd_req *q;
	unsigned seen = 0;

	for (q = hdd.queue; q && seen < (unsigned)hdd.ncq;
	     q = q->next, seen++) {
		if (!q->len)
			break; /* nothing passes a flush */
		if (q->off + q->len == r->off)
			return q;
	}
	return NULL;
}

/* The queued request the head serves next (queue_lock held). */
static struct hdd_req *queue_pick(uint64_t at_ns)
{
	struct hdd_req *r, *best = hdd.queue, *before;
	double best_ns = -1, ns;
	unsigned seen = 0;

	if (!best || at_ns - best->arrival_ns > AGING_NS || best->len == 0)
		return best; /* starving, or a flush: in order */
	for (r = hdd.queue; r && seen < (unsigned)hdd.ncq;
	     r = r->next, seen++) {
		if (!r->len)
			break; /* nothing passes a flush */
		ns = position_ns(r->off, at_ns);
		if (best_ns < 0 || ns < best_ns) {
			best_ns = ns;
			best = r;
		}
	}
	/* offsets fall at each step: this ends */
	while (best_ns > 0 && (before = queued_before(best)))
		best = before;
	if (best != hdd.queue)
		hdd.reordered++;
	return best;
}

static void queue_remove(struct hdd_req *r)
{
	struct hdd_req **p;

	for (p = &hdd.queue; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			return;
		}
}

/* Hands the free head to the next request (queue_lock held). */
static void head_dispatch(void)
{
	uint64_t now = now_ns();
	struct hdd_req *r;

	if (hdd.head_busy || !hdd.queue)
		return;
	r = queue_pick(hdd.head_free_ns > now ? hdd.head_free_ns : now);
	queue_remove(r);
	r->chosen = 1;
	hdd.head_busy = 1;
	pthread_cond_signal(&r->chosen_cond);
}

/* The first fields of r's trace line (queue_lock held): times in us
 * since the model started, then the cost when known. */
static void trace_request(const struct hdd_req *r, uint64_t start)
{
	fprintf(hdd.trace, "%llu %llu %llu %llu %d",
		(unsigned long long)(r->arrival_ns - hdd.trace_t0) / 1000,
		(unsigned long long)(start - hdd.trace_t0) / 1000,
		(unsigned long long)r->off, (unsigned long long)r->len,
		r->len && r->off != hdd.head_pos);
}

/*
 * Queues a request, waits until the head takes it, lets its service time
 * pass on the virtual clock, and frees the head for the next one.
 */
static void occupy(uint64_t off, uint64_t len)
{
	struct hdd_req r = { .off = off, .len = len, .arrival_ns = now_ns() };
	struct hdd_req **tail;
	struct timespec until;
	uint64_t start, cost;

	pthread_cond_init(&r.chosen_cond, NULL);
	pthread_mutex_lock(&hdd.queue_lock);
	for (tail = &hdd.queue; *tail; tail = &(*tail)->next)
		;
	*tail = &r;
	head_dispatch();
	while (!r.chosen)
		pthread_cond_wait(&r.chosen_cond, &hdd.queue_lock);
	start = now_ns();
	if (hdd.head_free_ns > start)
		start = hdd.head_free_ns;
	if (hdd.trace)
		trace_request(&r, start);
	cost = service_ns(&r, start);
	if (hdd.trace)
		fprintf(hdd.trace, " %llu\n", (unsigned long long)cost / 1000);
	hdd.head_free_ns = start + cost;
	hdd.busy_ns += cost;
	hdd.requests++;
	pthread_mutex_unlock(&hdd.queue_lock);
	until.tv_sec = (start + cost) / 1000000000ull;
	until.tv_nsec = (start + cost) % 1000000000ull;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) ==
	       EINTR)
		;
	pthread_mutex_lock(&hdd.queue_lock);
	hdd.head_busy = 0;
	head_dispatch();
	pthread_mutex_unlock(&hdd.queue_lock);
	pthread_cond_destroy(&r.chosen_cond);
}

static int hdd_getattr(const char *path, struct stat *st,
		       struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, DISK_NAME))
		return -ENOENT;
	st->st_mode = S_IFREG | 0600;
	st->st_nlink = 1;
	st->st_size = hdd.size;
	st->st_blksize = 4096;
	st->st_blocks = hdd.size / 512;
	return 0;
}

static int hdd_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		       off_t off, struct fuse_file_info *fi,
		       enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, DISK_NAME + 1, NULL, 0, 0);
	return 0;
}

static int hdd_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, DISK_NAME))
		return -ENOENT;
	fi->direct_io = 1; /* every request reaches the model */
	return 0;
}

static int hdd_read(const char *path, char *buf, size_t len, off_t off,
		    struct fuse_file_info *fi)
{
	ssize_t n;

	(void)path;
	(void)fi;
	occupy(off, len);
	n = pread(hdd.fd, buf, len, off);
	return n < 0 ? -errno : (int)n;
}

static int hdd_write(const char *path, const char *buf, size_t len, off_t off,
		     struct fuse_file_info *fi)
{
	ssize_t n;

	(void)path;
	(void)fi;
	if ((uint64_t)off + len > hdd.size)
		return -ENOSPC;
	occupy(off, len);
	n = pwrite(hdd.fd, buf, len, off);
	return n < 0 ? -errno : (int)n;
}

static int hdd_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	(void)datasync;
	(void)fi;
	occupy(0, 0); /* the model's disk has no power to lose */
	return 0;
}

static void *hdd_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	conn->max_write = 1 << 20;
	conn->max_read = 1 << 20; /* must match -o max_read */
	/* let a command queue's worth of requests reach the model at once
	 * (the kernel's default is 12 asynchronous requests) */
	conn->max_background = 64;
	conn->congestion_threshold = 48;
	return NULL;
}

static void hdd_destroy(void *data)
{
	(void)data;
	fprintf(stderr,
		"untorn-hdd: %llu requests, %llu streamed, %llu reordered, head busy %.1f s\n",
		(unsigned long long)hdd.requests,
		(unsigned long long)hdd.streamed,
		(unsigned long long)hdd.reordered, hdd.busy_ns / 1e9);
	if (hdd.trace)
		fclose(hdd.trace);
}

static const struct fuse_operations hdd_ops = {
	.getattr = hdd_getattr,
	.readdir = hdd_readdir,
	.open = hdd_open,
	.read = hdd_read,
	.write = hdd_write,
	.fsync = hdd_fsync,
	.init = hdd_init,
	.destroy = hdd_destroy,
};

static int parse_model(int *argc, char **argv)
{
	int i, out = 1;

	for (i = 1; i < *argc; i++) {
		double *v = NULL;

		if (!strcmp(argv[i], "--trace")) {
			if (i + 1 >= *argc ||
			    !(hdd.trace = fopen(argv[i + 1], "we"))) {
				fprintf(stderr,
					"untorn-hdd: --trace needs a file it can write\n");
				return -1;
			}
			fprintf(hdd.trace,
				"# arrival_us start_us offset length positioned cost_us\n");
			hdd.trace_t0 =
				now_ns(); /* before any request arrives */
			i++;
			continue;
		}
		if (!strcmp(argv[i], "--seek-min"))
			v = &hdd.seek_min_ms;
		else if (!strcmp(argv[i], "--seek-max"))
			v = &hdd.seek_max_ms;
		else if (!strcmp(argv[i], "--rpm"))
			v = &hdd.rpm;
		else if (!strcmp(argv[i], "--mbps"))
			v = &hdd.mbps;
		else if (!strcmp(argv[i], "--flush-ms"))
			v = &hdd.flush_ms;
		else if (!strcmp(argv[i], "--ncq"))
			v = &hdd.ncq;
		if (!v) {
			argv[out++] = argv[i];
			continue;
		}
		if (i + 1 >= *argc || (*v = atof(argv[i + 1])) < 0 ||
		    (v == &hdd.rpm && *v < 1) || (v == &hdd.mbps && *v <= 0) ||
		    (v == &hdd.ncq && (*v < 1 || *v > 256))) {
			fprintf(stderr,
				"untorn-hdd: %s needs a positive number\n",
				argv[i]);
			return -1;
		}
		i++;
	}
	*argc = out;
	return 0;
}

static const char hdd_help[] =
	"untorn-hdd - a 7200 rpm disk model as a FUSE file: every request\n"
	"to the file is charged what a disk would take (seek by distance,\n"
	"rotation, transfer, cache flush).  Run by untorn-emulate-hdd, which\n"
	"puts a loop device on the file; run it by hand only to debug.\n"
	"\n"
	"USAGE: untorn-hdd BACKING_FILE MOUNTPOINT [--seek-min MS] [--seek-max MS]\n"
	"                  [--rpm N] [--mbps N] [--flush-ms MS] [--ncq N]\n"
	"                  [--trace FILE] [-f]\n"
	"  --seek-min MS   shortest seek (default 0.5)\n"
	"  --seek-max MS   full-stroke seek (default 6)\n"
	"  --rpm N         spindle speed (default 7200)\n"
	"  --mbps N        media transfer rate in MB/s (default 190)\n"
	"  --flush-ms MS   cache flush time (default 4)\n"
	"  --ncq N         command queue depth, shortest positioning first\n"
	"                  (default 32; 1: arrival order)\n"
	"  --trace FILE    a line per request served: arrival and start (us),\n"
	"                  offset, length, 1 if positioned, cost (us)\n"
	"  -f              stay in the foreground\n"
	"Exit: 0 unmounted, 2 bad usage or the backing file cannot be opened.\n";

int main(int argc, char **argv)
{
	struct stat st;
	char *fargv[16];
	int fargc = 0, i;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("untorn-hdd %s\n", UNTORN_VERSION);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("%s", hdd_help);
		return 0;
	}
	if (parse_model(&argc, argv) || argc < 3) {
		fprintf(stderr,
			"usage: untorn-hdd BACKING_FILE MOUNTPOINT [--seek-min MS] [--seek-max MS] [--rpm N] [--mbps N] [--flush-ms MS] [--ncq N] [--trace FILE] [-f]; see --help\n");
		return 2;
	}
	hdd.fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (hdd.fd < 0 || fstat(hdd.fd, &st)) {
		fprintf(stderr,
			"untorn-hdd: %s: %s; give an existing backing file\n",
			argv[1], strerror(errno));
		return 2;
	}
	hdd.size = st.st_size;
	fargv[fargc++] = argv[0];
	fargv[fargc++] = argv[2];
	fargv[fargc++] = "-o";
	/* max_threads: one FUSE thread per queued request, as deep as the
	 * command queue the model reorders */
	fargv[fargc++] =
		"allow_other,default_permissions,fsname=untorn-hdd,max_read=1048576,max_threads=64";
	for (i = 3; i < argc && fargc < 15; i++)
		fargv[fargc++] = argv[i];
	fargv[fargc] = NULL;
	return fuse_main(fargc, fargv, &hdd_ops, NULL);
}
