// SPDX-License-Identifier: MIT
/*
 * features_test.c - what the running kernel offers the engine, probed at
 * run time and never guessed from the version number: io_uring and the
 * opcodes the engine submits (io_uring_get_probe, then a real read, write
 * and fsync), setup flags (SINGLE_ISSUER|DEFER_TASKRUN, COOP_TASKRUN:
 * retried without on EINVAL, as the ring does), registered files, statx
 * DIOALIGN and atomic write units, RWF_ATOMIC on an O_DIRECT write,
 * whether io_uring's buffered writes are punted to io-wq workers, what
 * O_DIRECT does on ext4 data=journal, whether a directory's fsync commits
 * ext4's journal (the journal guard's checkpoint), and the tracepoints
 * ebpf/ attaches to.  A feature the kernel lacks is "ok #
 * SKIP <why>"; one it claims but that does not work is "not ok".  One
 * column of the kernel matrix.
 *
 * UNTORN_TEST_DIR: where the probe files go (default /tmp): the
 * filesystem's answers (DIOALIGN, atomic units) are that filesystem's.
 * UNTORN_TEST_BDEV: a scratch block device whose last 64 KiB the
 * RWF_ATOMIC block device case overwrites (skipped without it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>
#include "fscaps.h"
#include "ktap.h"
#include "testlib.h"

#define PROBE_BYTES (1u << 20)
#define PAGE 16384u

static char probe_path[512];

/* io_uring_setup itself; returns 0 when rings can be made */
static int feature_uring(void)
{
	struct io_uring ring;
	int ret = io_uring_queue_init(8, &ring, 0);

	if (ret) {
		ktap_skip_case("io_uring_setup",
			       "io_uring_setup: %s (kernel without io_uring, or io_uring_disabled / a seccomp filter)",
			       strerror(-ret));
		return ret;
	}
	io_uring_queue_exit(&ring);
	ktap_ok(1, "io_uring_setup");
	return 0;
}

/* the opcodes ring.c submits, announced by the probe and then used */
static void feature_opcodes(int fd)
{
	static const struct {
		int op;
		const char *name;
	} ops[] = {
		{ IORING_OP_READ, "READ" },
		{ IORING_OP_WRITE, "WRITE" },
		{ IORING_OP_FSYNC, "FSYNC" },
	};
	struct io_uring_probe *probe;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	char missing[64] = "";
	static char buf[4096];
	unsigned i;
	int ret, res[3] = { 0 };

	if (io_uring_queue_init(8, &ring, 0))
		return;
	probe = io_uring_get_probe_ring(&ring);
	for (i = 0; probe && i < 3; i++)
		if (!io_uring_opcode_supported(probe, ops[i].op))
			snprintf(missing + strlen(missing),
				 sizeof(missing) - strlen(missing), " %s",
				 ops[i].name);
	if (!probe || missing[0]) {
		ktap_skip_case("io_uring opcodes READ, WRITE, FSYNC", "%s",
			       probe ? missing :
				       "io_uring_get_probe failed (kernel < 5.6)");
		goto out;
	}
	/* write, then fsync, then read: linked, as ring.c links a batch's
	 * fdatasync to its writes */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, buf, sizeof(buf), 0);
	io_uring_sqe_set_flags(sqe, IOSQE_IO_LINK);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
	io_uring_sqe_set_flags(sqe, IOSQE_IO_LINK);
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf, sizeof(buf), 0);
	ret = io_uring_submit_and_wait(&ring, 3);
	for (i = 0; ret == 3 && i < 3; i++) {
		if (io_uring_wait_cqe(&ring, &cqe))
			break;
		res[i] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	ktap_ok(ret == 3 && i == 3 && res[0] >= 0 && res[1] >= 0 && res[2] >= 0,
		"io_uring opcodes READ, WRITE, FSYNC announced and working (%d %d %d)",
		res[0], res[1], res[2]);
out:
	io_uring_free_probe(probe);
	io_uring_queue_exit(&ring);
}

static void feature_setup_flags(unsigned flags, const char *name,
				const char *since)
{
	struct io_uring_params p = { .flags = flags };
	struct io_uring ring;
	int ret = io_uring_queue_init_params(8, &ring, &p);

	if (ret == -EINVAL) {
		ktap_skip_case(name,
			       "EINVAL: this kernel does not know it (%s); the ring retries without",
			       since);
		return;
	}
	if (!ret)
		io_uring_queue_exit(&ring);
	ktap_ok(!ret, "%s%s%s", name, ret ? ": " : "",
		ret ? strerror(-ret) : "");
}

static void feature_register_files(int fd)
{
	struct io_uring ring;
	int ret;

	if (io_uring_queue_init(8, &ring, 0))
		return;
	ret = io_uring_register_files(&ring, &fd, 1);
	if (ret == -EINVAL || ret == -EOPNOTSUPP)
		ktap_skip_case("io_uring registered files", "%s",
			       strerror(-ret));
	else
		ktap_ok(!ret, "io_uring registered files%s%s", ret ? ": " : "",
			ret ? strerror(-ret) : "");
	io_uring_queue_exit(&ring);
}

/* iou-wrk-* threads of this process: io-wq workers */
static int io_wq_workers(void)
{
	char path[64], name[64];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	FILE *f;

	while (d && (de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/comm",
			 de->d_name);
		f = fopen(path, "r");
		if (f && fgets(name, sizeof(name), f) &&
		    !strncmp(name, "iou-wrk", 7))
			n++;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* 64 buffered page writes at once: done inline (the filesystem has async
 * buffered writes) or handed to io-wq worker threads */
static void feature_buffered_async(int fd)
{
	static char buf[64][PAGE];
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int i, bad = 0, workers;

	if (io_uring_queue_init(64, &ring, 0))
		return;
	for (i = 0; i < 64; i++)
		io_uring_prep_write(io_uring_get_sqe(&ring), fd, buf[i], PAGE,
				    (uint64_t)i * PAGE);
	io_uring_submit(&ring);
	workers = io_wq_workers(); /* while they are in flight */
	for (i = 0; i < 64 && !io_uring_wait_cqe(&ring, &cqe); i++) {
		bad += cqe->res != (int)PAGE;
		io_uring_cqe_seen(&ring, cqe);
	}
	workers = workers > io_wq_workers() ? workers : io_wq_workers();
	io_uring_queue_exit(&ring);
	if (bad || i != 64)
		ktap_ok(0, "io_uring buffered writes: %d of 64 failed",
			bad + 64 - i);
	else if (workers)
		ktap_skip_case("io_uring buffered writes without io-wq",
			       "punted to %d io-wq worker thread(s): this filesystem or kernel has no async buffered writes",
			       workers);
	else
		ktap_ok(1,
			"io_uring buffered writes without io-wq (async buffered writes)");
}

static void feature_statx(const char *dir)
{
	struct ut_fscaps caps;

	if (ut_fscaps_probe(dir, &caps)) {
		ktap_skip_case("statx DIOALIGN", "cannot probe %s", dir);
		ktap_skip_case("statx atomic write units", "cannot probe %s",
			       dir);
		return;
	}
	if (caps.dio_offset_align)
		ktap_ok(1,
			"statx DIOALIGN: O_DIRECT offsets aligned to %u on %s",
			caps.dio_offset_align, dir);
	else
		ktap_skip_case("statx DIOALIGN",
			       "no DIO alignment reported for %s (%s; kernel < 6.1 or no O_DIRECT there)",
			       dir, caps.mnt.fstype);
	if (caps.atomic_max)
		ktap_ok(1, "statx atomic write units: %u..%u on %s",
			caps.atomic_min, caps.atomic_max, dir);
	else
		ktap_skip_case("statx atomic write units",
			       "none on %s (%s; Linux >= 6.11, XFS >= 6.16 software atomics)",
			       dir, caps.mnt.fstype);
}

static void feature_rwf_atomic(void)
{
	struct iovec iov;
	void *buf;
	ssize_t n;
	int fd = open(probe_path, O_RDWR | O_DIRECT);

	if (fd < 0) {
		ktap_skip_case("RWF_ATOMIC write", "O_DIRECT open refused: %s",
			       strerror(errno));
		return;
	}
	if (posix_memalign(&buf, 4096, 4096))
		abort();
	memset(buf, 0x5a, 4096);
	iov.iov_base = buf;
	iov.iov_len = 4096;
	n = pwritev2(fd, &iov, 1, 0, RWF_ATOMIC);
	if (n < 0 && (errno == EOPNOTSUPP || errno == EINVAL))
		ktap_skip_case("RWF_ATOMIC write",
			       "pwritev2(RWF_ATOMIC) of 4 KiB: %s (no atomic writes here)",
			       strerror(errno));
	else
		ktap_ok(n == 4096,
			"RWF_ATOMIC write: 4 KiB with O_DIRECT (%zd)", n);
	free(buf);
	close(fd);
}

/* One of the device's atomic_write_* limits in sysfs; 0 if none. */
static unsigned long long bdev_atomic_limit(int fd, const char *leaf)
{
	unsigned long long unit = 0;
	char path[160];
	struct stat sb;
	FILE *f;

	if (fstat(fd, &sb) || !S_ISBLK(sb.st_mode))
		return 0;
	snprintf(path, sizeof(path),
		 "/sys/dev/block/%u:%u/queue/atomic_write_%s_bytes",
		 major(sb.st_rdev), minor(sb.st_rdev), leaf);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &unit) != 1)
		unit = 0;
	fclose(f);
	return unit;
}

/*
 * RWF_ATOMIC straight to a block device (Linux >= 6.11 on a device that
 * reports atomic units, e.g. scsi_debug atomic_wr=1): only when
 * UNTORN_TEST_BDEV names one, whose last 64 KiB it overwrites with one
 * 16 KiB write (or the device's nearest unit).
 */
static void feature_bdev_atomic(void)
{
	const char *bdev = getenv("UNTORN_TEST_BDEV");
	unsigned long long unit;
	struct iovec iov;
	off_t end;
	void *buf;
	ssize_t n;
	int fd;

	if (!bdev || !*bdev) {
		ktap_skip_case("RWF_ATOMIC on a block device",
			       "no scratch device given (UNTORN_TEST_BDEV)");
		return;
	}
	fd = open(bdev, O_RDWR | O_DIRECT);
	if (fd < 0 || (end = lseek(fd, 0, SEEK_END)) < 65536) {
		ktap_skip_case("RWF_ATOMIC on a block device",
			       "cannot open %s with O_DIRECT: %s", bdev,
			       strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	/* a 16 KiB page, within the device's unit range */
	unit = 16384;
	if (unit < bdev_atomic_limit(fd, "unit_min"))
		unit = bdev_atomic_limit(fd, "unit_min");
	if (unit > bdev_atomic_limit(fd, "unit_max"))
		unit = bdev_atomic_limit(fd, "unit_max");
	if (unit < 512 || unit > 65536) {
		ktap_skip_case("RWF_ATOMIC on a block device",
			       "the device reports no atomic write unit of 512 B..64 KiB (%llu..%llu)",
			       bdev_atomic_limit(fd, "unit_min"),
			       bdev_atomic_limit(fd, "unit_max"));
		close(fd);
		return;
	}
	if (posix_memalign(&buf, 4096, unit))
		abort();
	memset(buf, 0x3c, unit);
	iov.iov_base = buf;
	iov.iov_len = unit;
	n = pwritev2(fd, &iov, 1, end - 65536, RWF_ATOMIC);
	ktap_ok(n == (ssize_t)iov.iov_len,
		"RWF_ATOMIC on a block device: %zu bytes: %s", iov.iov_len,
		n < 0 ? strerror(errno) : "written");
	free(buf);
	close(fd);
}

/*
 * O_DIRECT on ext4 data=journal: ext4 cannot journal data that bypasses
 * the page cache, so it takes O_DIRECT and serves it buffered (statx
 * reports no DIO alignment); the journal guard relies on the data going
 * through the journal either way.  Refused opens are a kernel that
 * behaves otherwise: said, not failed.
 */
static void feature_dj_odirect(const char *dir)
{
	struct ut_fscaps caps;
	struct iovec iov;
	void *buf;
	ssize_t n;
	int fd;

	if (ut_fscaps_probe(dir, &caps) || caps.data_mode != UT_DATA_JOURNAL) {
		ktap_skip_case("O_DIRECT on ext4 data=journal",
			       "the test directory is not on ext4 data=journal");
		return;
	}
	fd = open(probe_path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		ktap_skip_case("O_DIRECT on ext4 data=journal",
			       "open(O_DIRECT) refused: %s", strerror(errno));
		return;
	}
	if (posix_memalign(&buf, 4096, 16384))
		abort();
	memset(buf, 0xa5, 16384);
	iov.iov_base = buf;
	iov.iov_len = 16384;
	n = pwritev2(fd, &iov, 1, 0, 0);
	ktap_ok(n == 16384,
		"O_DIRECT on ext4 data=journal: a 16 KiB write %s, served %s",
		n == 16384 ? "accepted" : "failed",
		caps.dio_offset_align ?
			"direct (statx reports DIO alignment)" :
			"buffered through the journal (no DIO alignment in statx)");
	free(buf);
	close(fd);
}

/* The commits jbd2 has made on the filesystem caps describes (the first
 * number of /proc/fs/jbd2/DEV-8/info, DEV the device fscaps found), or
 * -1 with why set. */
static long jbd2_commits(const struct ut_fscaps *caps, char *why, size_t len)
{
	char path[PATH_MAX];
	long n = -1;
	FILE *f;

	if (!caps->dev_name[0])
		return snprintf(why, len, "no block device found"), -1;
	snprintf(path, sizeof(path), "/proc/fs/jbd2/%s-8/info", caps->dev_name);
	f = fopen(path, "r");
	if (!f)
		return snprintf(why, len, "%s: %s", path, strerror(errno)), -1;
	if (fscanf(f, "%ld transactions", &n) != 1) {
		snprintf(why, len, "%s: no transaction count", path);
		n = -1;
	}
	fclose(f);
	return n;
}

/*
 * The journal guard's checkpoint: a page written to a data=journal file
 * and then the fsync of its directory, which must commit jbd2's running
 * transaction (ext4_fsync_journal forces a full commit for anything but
 * a regular file), not the data file's fdatasync (which since Linux 6.5
 * also writes the pages home).  A commit is counted in /proc/fs/jbd2.
 */
static void feature_dir_commit(const char *dir)
{
	const char *name = "fsync of a directory commits ext4's journal";
	char why[PATH_MAX + 64];
	struct ut_fscaps caps;
	long before, after;
	void *buf;
	int fd, dfd;

	if (ut_fscaps_probe(dir, &caps) || caps.data_mode != UT_DATA_JOURNAL) {
		ktap_skip_case(name,
			       "the test directory is not on ext4 data=journal");
		return;
	}
	fd = open(probe_path, O_RDWR);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	buf = calloc(1, PAGE);
	if (fd < 0 || dfd < 0 || !buf) {
		ktap_ok(0, "%s: cannot open %s or its directory: %s", name,
			probe_path, strerror(errno));
		goto out;
	}
	/* the commit interval's own commit, if one is due, goes by first */
	if (fsync(dfd) || pwrite(fd, buf, PAGE, 0) != PAGE) {
		ktap_ok(0, "%s: fsync or a 16 KiB write failed: %s", name,
			strerror(errno));
		goto out;
	}
	before = jbd2_commits(&caps, why, sizeof(why));
	if (before < 0) {
		ktap_skip_case(name, "no jbd2 statistics: %s", why);
		goto out;
	}
	after = fsync(dfd) ? -1 : jbd2_commits(&caps, why, sizeof(why));
	ktap_ok(after > before,
		"%s: a 16 KiB write, then the directory's fsync: %ld commit(s) of jbd2 (%s)",
		name, after - before,
		after > before ?
			"its page is in the journal" :
			"none: the journal guard's checkpoint would not make pages durable here");
out:
	free(buf);
	if (dfd >= 0)
		close(dfd);
	if (fd >= 0)
		close(fd);
}

/*
 * tracefs mounted for the tracepoint cases: as root on a machine that has
 * not mounted it (a fresh CI machine), mount it, as bpftrace users must;
 * returns 1 when this mounted it, for tracefs_unmount
 */
static int tracefs_mount(void)
{
	if (!access("/sys/kernel/tracing/events", F_OK) ||
	    !access("/sys/kernel/debug/tracing/events", F_OK) || geteuid())
		return 0;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		ktap_diag("cannot mount tracefs on /sys/kernel/tracing: %s",
			  strerror(errno));
		return 0;
	}
	return 1;
}

static void tracefs_unmount(int mounted)
{
	if (mounted && umount("/sys/kernel/tracing"))
		ktap_diag("cannot unmount /sys/kernel/tracing: %s",
			  strerror(errno));
}

/* a tracepoint under tracefs, or the reason it cannot be looked at */
static void feature_tracepoint(const char *name, const char *alt,
			       const char *note)
{
	static const char *roots[] = { "/sys/kernel/tracing/events",
				       "/sys/kernel/debug/tracing/events" };
	char path[256], label[160];
	unsigned r;

	snprintf(label, sizeof(label), "tracepoint %s", name);
	for (r = 0; r < 2; r++) {
		snprintf(path, sizeof(path), "%s/block", roots[r]);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s", roots[r], name);
		if (!access(path, F_OK)) {
			ktap_ok(1, "%s", label);
			return;
		}
		if (!strncmp(name, "jbd2/", 5) &&
		    access("/sys/module/jbd2", F_OK)) {
			ktap_skip_case(label,
				       "jbd2 is not loaded: no ext3/ext4 mounted yet (modprobe jbd2, or mount one)");
			return;
		}
		snprintf(path, sizeof(path), "%s/%s", roots[r], alt);
		ktap_skip_case(label, "absent%s%s (%s)",
			       access(path, F_OK) ? "" : "; has ",
			       access(path, F_OK) ? "" : alt, note);
		return;
	}
	ktap_skip_case(label,
		       "tracefs not mounted or not readable (root: mount -t tracefs nodev /sys/kernel/tracing)");
}

int main(void)
{
	const char *dir = test_scratch_dir("features");
	int fd, traced;

	ktap_plan(16);
	snprintf(probe_path, sizeof(probe_path), "%s/probe", dir);
	fd = open(probe_path, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, PROBE_BYTES)) {
		ktap_diag("cannot make %s: %s", probe_path, strerror(errno));
		return KTAP_EXIT_FAIL;
	}
	if (feature_uring()) {
		for (int i = 0; i < 5; i++)
			ktap_skip_case("io_uring feature", "no io_uring here");
	} else {
		feature_opcodes(fd);
		feature_setup_flags(IORING_SETUP_SINGLE_ISSUER |
					    IORING_SETUP_DEFER_TASKRUN,
				    "IORING_SETUP_SINGLE_ISSUER|DEFER_TASKRUN",
				    "Linux >= 6.1");
		feature_setup_flags(IORING_SETUP_COOP_TASKRUN,
				    "IORING_SETUP_COOP_TASKRUN",
				    "Linux >= 5.19");
		feature_register_files(fd);
		feature_buffered_async(fd);
	}
	feature_statx(dir);
	feature_rwf_atomic();
	feature_dj_odirect(dir);
	feature_dir_commit(dir);
	feature_bdev_atomic();
	traced = tracefs_mount();
	feature_tracepoint("block/block_io_start", "block/block_getrq",
			   "Linux >= 6.5; ebpf/old/io-latency.bt uses block_getrq");
	feature_tracepoint("io_uring/io_uring_submit_req",
			   "io_uring/io_uring_submit_sqe",
			   "Linux >= 6.4; ebpf/old/uring.bt uses submit_sqe");
	feature_tracepoint("jbd2/jbd2_run_stats", "jbd2/jbd2_start_commit",
			   "jbd2-commit.bt; CONFIG_JBD2");
	feature_tracepoint("io_uring/io_uring_queue_async_work",
			   "io_uring/io_uring_create",
			   "uring.bt's io-wq punts");
	tracefs_unmount(traced);
	close(fd);
	return ktap_finish();
}
