// SPDX-License-Identifier: MIT
/*
 * untorn-hdd - a disk model for measurements: a FUSE filesystem holding
 * one file, disk.img, whose every read, write and flush costs what a 7200
 * rpm disk would charge.  A loop device on that file is the emulated disk.
 *
 * Cost of a request at offset o of n bytes, one head, in arrival order:
 *   - streaming (o continues the previous request): n / transfer rate;
 *   - otherwise: seek(d) + rotational latency + n / transfer rate, with
 *     seek(d) = seek_min + (seek_max - seek_min) * sqrt(d / disk size)
 *     and the latency uniform in [0, one rotation);
 *   - a flush (fsync): flush_ms.
 * The head is a lock held while the request's time passes on a virtual
 * clock, so requests queue the way they do on a single actuator.
 *
 * USAGE: untorn-hdd BACKING_FILE MOUNTPOINT [--seek-min MS] [--seek-max MS]
 *                   [--rpm N] [--mbps N] [--flush-ms MS] [-f]
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

struct hdd {
	int fd;
	uint64_t size;
	double seek_min_ms, seek_max_ms, rpm, mbps, flush_ms;
	pthread_mutex_t head;
	uint64_t head_pos;		/* byte after the last request */
	uint64_t head_free_ns;		/* virtual clock: when the head is free */
	uint64_t rng;
	uint64_t requests, streamed, busy_ns;
};

static struct hdd hdd = {
	.seek_min_ms = 0.5, .seek_max_ms = 6.0, .rpm = 7200, .mbps = 190,
	.flush_ms = 4.0, .rng = 0x9e3779b97f4a7c15ull,
	.head = PTHREAD_MUTEX_INITIALIZER,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static double uniform(void)
{
	hdd.rng ^= hdd.rng << 13;
	hdd.rng ^= hdd.rng >> 7;
	hdd.rng ^= hdd.rng << 17;
	return (hdd.rng >> 11) * (1.0 / 9007199254740992.0);
}

/* What one request costs, in ns; moves the head.  Head lock held. */
static uint64_t service_ns(uint64_t off, uint64_t len)
{
	double ms = len / (hdd.mbps * 1e6) * 1e3;
	uint64_t dist;

	if (off != hdd.head_pos) {
		dist = off > hdd.head_pos ? off - hdd.head_pos : hdd.head_pos - off;
		ms += hdd.seek_min_ms + (hdd.seek_max_ms - hdd.seek_min_ms) *
		      sqrt((double)dist / (hdd.size ? hdd.size : 1));
		ms += uniform() * 60000.0 / hdd.rpm;
	} else {
		hdd.streamed++;
	}
	hdd.head_pos = off + len;
	return (uint64_t)(ms * 1e6);
}

/* Occupies the head for cost ns, then returns: callers hold the lock. */
static void occupy(uint64_t cost)
{
	uint64_t start = now_ns();
	struct timespec until;

	if (hdd.head_free_ns > start)
		start = hdd.head_free_ns;
	hdd.head_free_ns = start + cost;
	hdd.busy_ns += cost;
	hdd.requests++;
	until.tv_sec = hdd.head_free_ns / 1000000000ull;
	until.tv_nsec = hdd.head_free_ns % 1000000000ull;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
}

static int hdd_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
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
	fi->direct_io = 1;	/* every request reaches the model */
	return 0;
}

static int hdd_read(const char *path, char *buf, size_t len, off_t off,
		    struct fuse_file_info *fi)
{
	ssize_t n;

	(void)path;
	(void)fi;
	pthread_mutex_lock(&hdd.head);
	occupy(service_ns(off, len));
	n = pread(hdd.fd, buf, len, off);
	pthread_mutex_unlock(&hdd.head);
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
	pthread_mutex_lock(&hdd.head);
	occupy(service_ns(off, len));
	n = pwrite(hdd.fd, buf, len, off);
	pthread_mutex_unlock(&hdd.head);
	return n < 0 ? -errno : (int)n;
}

static int hdd_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	(void)datasync;
	(void)fi;
	pthread_mutex_lock(&hdd.head);
	occupy((uint64_t)(hdd.flush_ms * 1e6));
	pthread_mutex_unlock(&hdd.head);
	return 0;
}

static void *hdd_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	conn->max_write = 1 << 20;
	conn->max_read = 1 << 20;	/* must match -o max_read */
	return NULL;
}

static void hdd_destroy(void *data)
{
	(void)data;
	fprintf(stderr, "untorn-hdd: %llu requests, %llu streamed, head busy %.1f s\n",
		(unsigned long long)hdd.requests, (unsigned long long)hdd.streamed,
		hdd.busy_ns / 1e9);
}

static const struct fuse_operations hdd_ops = {
	.getattr	= hdd_getattr,
	.readdir	= hdd_readdir,
	.open		= hdd_open,
	.read		= hdd_read,
	.write		= hdd_write,
	.fsync		= hdd_fsync,
	.init		= hdd_init,
	.destroy	= hdd_destroy,
};

static int parse_model(int *argc, char **argv)
{
	int i, out = 1;

	for (i = 1; i < *argc; i++) {
		double *v = NULL;

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
		if (!v) {
			argv[out++] = argv[i];
			continue;
		}
		if (i + 1 >= *argc || (*v = atof(argv[i + 1])) < 0 ||
		    (v == &hdd.rpm && *v < 1) || (v == &hdd.mbps && *v <= 0)) {
			fprintf(stderr, "untorn-hdd: %s needs a positive number\n", argv[i]);
			return -1;
		}
		i++;
	}
	*argc = out;
	return 0;
}

int main(int argc, char **argv)
{
	struct stat st;
	char *fargv[16];
	int fargc = 0, i;

	if (parse_model(&argc, argv) || argc < 3) {
		fprintf(stderr, "usage: untorn-hdd BACKING_FILE MOUNTPOINT [--seek-min MS] [--seek-max MS] [--rpm N] [--mbps N] [--flush-ms MS] [-f]\n");
		return 2;
	}
	hdd.fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (hdd.fd < 0 || fstat(hdd.fd, &st)) {
		fprintf(stderr, "untorn-hdd: %s: %s; give an existing backing file\n",
			argv[1], strerror(errno));
		return 2;
	}
	hdd.size = st.st_size;
	fargv[fargc++] = argv[0];
	fargv[fargc++] = argv[2];
	fargv[fargc++] = "-o";
	fargv[fargc++] = "allow_other,default_permissions,fsname=untorn-hdd,max_read=1048576";
	for (i = 3; i < argc && fargc < 15; i++)
		fargv[fargc++] = argv[i];
	fargv[fargc] = NULL;
	return fuse_main(fargc, fargv, &hdd_ops, NULL);
}
