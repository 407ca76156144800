// SPDX-License-Identifier: MIT
/*
 * ring_test.c - the io_uring ring layer: a batch of 64 page reads goes
 * out in one io_uring_submit (counted through the syscall table), batches
 * larger than the ring, registered buffers and files, a write linked to
 * its fdatasync, a link broken by a real short write (RLIMIT_FSIZE) is
 * finished, a short read at end of file cancels its link, -EAGAIN is
 * retried, DEFER_TASKRUN is retried without on EINVAL, and a refused
 * io_uring_setup falls back to pread/pwrite with one notice.
 */
#include <errno.h>
#include <liburing.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include "io/ring.h"
#include "io/sysio.h"
#include "ktap.h"
#include "testlib.h"

#define PS 16384
#define NPAGES 64

static char path[300];
static int fd;
static unsigned char *pages, *buf;
static int submit_calls;

static int count_submit(struct io_uring *ring)
{
	submit_calls++;
	return io_uring_submit(ring);
}

static void make_file(void)
{
	uint32_t i;

	for (i = 0; i < NPAGES * PS / 4; i++)
		((uint32_t *)pages)[i] = i * 2654435761u;
	file_pwrite(path, pages, NPAGES * PS, 0);
}

static void reads(struct ut_io *ios, unsigned n)
{
	unsigned i;

	memset(buf, 0, n * PS);
	for (i = 0; i < n; i++)
		ut_io_read(&ios[i], fd, buf + i * PS, PS, (uint64_t)i * PS);
}

static int batch_one_submit(struct ut_ring *ring)
{
	struct ut_io ios[NPAGES];
	uint64_t before = ut_ring_stats(ring)->submits;
	int ret;

	reads(ios, NPAGES);
	submit_calls = 0;
	ut_sys.uring_submit = count_submit;
	ret = ut_ring_run(ring, ios, NPAGES);
	ut_sys_reset();
	ktap_diag("64 reads: %d io_uring_submit calls, ring counted %llu",
		  submit_calls,
		  (unsigned long long)(ut_ring_stats(ring)->submits - before));
	return ret == 0 && submit_calls == 1 &&
	       ut_ring_stats(ring)->submits - before == 1 &&
	       !memcmp(buf, pages, NPAGES * PS);
}

static int batch_bigger_than_ring(void)
{
	struct ut_ring *small;
	struct ut_io ios[NPAGES];
	int ret;

	if (ut_ring_init(&small, 8, 0))
		return 0;
	reads(ios, NPAGES);
	ret = ut_ring_run(small, ios, NPAGES);
	ret = !ret && !memcmp(buf, pages, NPAGES * PS) &&
	      ut_ring_stats(small)->submits >= NPAGES / 8;
	ut_ring_exit(small);
	return ret;
}

static int registered(struct ut_ring *ring)
{
	struct iovec iov = { .iov_base = buf, .iov_len = NPAGES * PS };
	struct ut_io ios[NPAGES];
	const struct ut_ring_stats *s = ut_ring_stats(ring);
	uint64_t bufs0 = s->fixed_bufs, files0 = s->fixed_files;
	int ret;

	if (ut_ring_register_buffers(ring, &iov, 1) ||
	    ut_ring_register_files(ring, &fd, 1))
		return 0;
	reads(ios, NPAGES);
	ret = ut_ring_run(ring, ios, NPAGES);
	ut_ring_unregister_buffers(ring);
	return !ret && !memcmp(buf, pages, NPAGES * PS) &&
	       s->fixed_bufs - bufs0 == NPAGES &&
	       s->fixed_files - files0 == NPAGES;
}

static int write_then_sync(struct ut_ring *ring)
{
	struct ut_io ios[2];
	uint64_t sqes0 = ut_ring_stats(ring)->sqes;
	int ret;

	memset(buf, 0xc3, PS);
	ut_io_write(&ios[0], fd, buf, PS, 5 * PS);
	ios[0].flags = UT_IO_LINK;
	ut_io_fdatasync(&ios[1], fd);
	ret = ut_ring_run(ring, ios, 2);
	file_pread(path, pages + 5 * PS, PS, 5 * PS);
	return !ret && ios[0].res == PS && ios[1].res == 0 &&
	       ut_ring_stats(ring)->sqes - sqes0 == 2 &&
	       !memcmp(pages + 5 * PS, buf, PS);
}

/* The kernel stops a write at RLIMIT_FSIZE: a real short write that breaks
 * the link to the fdatasync.  The limit is lifted when the ring asks to
 * issue the rest, which must then complete, followed by the sync. */
static struct rlimit fsize_saved;
static int fsize_admits;

static ssize_t lift_fsize_on_retry(enum ut_op op, int f, size_t len, off_t off)
{
	(void)f;
	(void)off;
	if (op == UT_OP_WRITE && fsize_admits++ == 1)
		setrlimit(RLIMIT_FSIZE, &fsize_saved);
	return len;
}

static int broken_link_finished(struct ut_ring *ring)
{
	struct rlimit lim;
	struct ut_io ios[2];
	uint64_t resub0 = ut_ring_stats(ring)->resubmits;
	int ret;

	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &fsize_saved);
	lim = fsize_saved;
	lim.rlim_cur = (uint64_t)NPAGES * PS + PS / 2;
	setrlimit(RLIMIT_FSIZE, &lim);
	fsize_admits = 0;
	ut_sys.io_admit = lift_fsize_on_retry;
	memset(buf, 0x77, PS);
	ut_io_write(&ios[0], fd, buf, PS, (uint64_t)NPAGES * PS);
	ios[0].flags = UT_IO_LINK;
	ut_io_fdatasync(&ios[1], fd);
	ret = ut_ring_run(ring, ios, 2);
	ut_sys_reset();
	setrlimit(RLIMIT_FSIZE, &fsize_saved);
	ktap_diag("short write: %d admissions, %llu resubmits, results %d/%d",
		  fsize_admits,
		  (unsigned long long)(ut_ring_stats(ring)->resubmits - resub0),
		  ios[0].res, ios[1].res);
	file_pread(path, buf + PS, PS, (uint64_t)NPAGES * PS);
	return !ret && ios[0].res == PS && ios[1].res == 0 &&
	       fsize_admits == 2 && !memcmp(buf + PS, buf, PS);
}

static int eof_cancels_link(struct ut_ring *ring)
{
	struct ut_io ios[2];
	int ret;

	/* the file ends 16k into this 64k read */
	ut_io_read(&ios[0], fd, buf, 4 * PS, (uint64_t)NPAGES * PS);
	ios[0].flags = UT_IO_LINK;
	ut_io_read(&ios[1], fd, buf + 4 * PS, PS, 0);
	ret = ut_ring_run(ring, ios, 2);
	return ret == -ENODATA && ios[0].res == PS && ios[1].res == -ECANCELED;
}

static int eagain_left;

static ssize_t eagain_twice(enum ut_op op, int f, size_t len, off_t off)
{
	(void)op;
	(void)f;
	(void)off;
	return eagain_left-- > 0 ? -EAGAIN : (ssize_t)len;
}

static int eagain_retried(struct ut_ring *ring)
{
	struct ut_io ios[4];
	int ret;

	reads(ios, 4);
	eagain_left = 2;
	ut_sys.io_admit = eagain_twice;
	ret = ut_ring_run(ring, ios, 4);
	ut_sys_reset();
	return !ret && !memcmp(buf, pages, 4 * PS) && eagain_left < 0;
}

static int two_batches(struct ut_ring *ring)
{
	struct ut_io a[NPAGES / 2], b[NPAGES / 2];
	struct ut_batch ba, bb;
	unsigned i;

	memset(buf, 0, NPAGES * PS);
	for (i = 0; i < NPAGES / 2; i++) {
		ut_io_read(&a[i], fd, buf + i * PS, PS, (uint64_t)i * PS);
		ut_io_read(&b[i], fd, buf + (i + NPAGES / 2) * PS, PS,
			   (uint64_t)(i + NPAGES / 2) * PS);
	}
	if (ut_ring_start(ring, &ba, a, NPAGES / 2) ||
	    ut_ring_start(ring, &bb, b, NPAGES / 2))
		return 0;
	if (ut_ring_wait(ring, &bb) || ut_ring_wait(ring, &ba))
		return 0;
	return !memcmp(buf, pages, NPAGES * PS);
}

static int submit_fail_left, submit_fail_err;

static int failing_submit(struct io_uring *r)
{
	if (submit_fail_left-- > 0)
		return submit_fail_err;
	return io_uring_submit(r);
}

/* io_uring_enter short of resources with nothing in flight: retried. */
static int submit_eagain_retried(struct ut_ring *ring)
{
	struct ut_io ios[8];
	int ret;

	reads(ios, 8);
	submit_fail_left = 2;
	submit_fail_err = -EAGAIN;
	ut_sys.uring_submit = failing_submit;
	ret = ut_ring_run(ring, ios, 8);
	ut_sys_reset();
	return !ret && !memcmp(buf, pages, 8 * PS);
}

/* A hard submit error: the batch fails, no SQE is left pointing at the
 * caller's memory, and the ring carries on with pread/pwrite. */
static int submit_error_aborts(void)
{
	struct ut_ring *r;
	struct ut_io ios[8];
	int ret, ok;

	if (ut_ring_init(&r, 16, 0) || !ut_ring_uses_uring(r))
		return 0;
	reads(ios, 8);
	submit_fail_left = 1;
	submit_fail_err = -ENOMEM;
	ut_sys.uring_submit = failing_submit;
	ret = ut_ring_run(r, ios, 8);
	ut_sys_reset();
	ok = ret == -ENOMEM && !ut_ring_uses_uring(r) &&
	     strstr(ut_ring_fallback_reason(r), "io_uring failed");
	reads(ios, 8);
	ok = ok && !ut_ring_run(r, ios, 8) && !memcmp(buf, pages, 8 * PS);
	ut_ring_exit(r);
	return ok;
}

static int setup_einval_calls;

static int refuse_defer_taskrun(unsigned entries, struct io_uring *r,
				struct io_uring_params *p)
{
	setup_einval_calls++;
	if (p->flags & IORING_SETUP_DEFER_TASKRUN)
		return -EINVAL;
	return io_uring_queue_init_params(entries, r, p);
}

static int single_issuer_retry(void)
{
	struct ut_ring *r;
	struct ut_io ios[4];
	int ok;

	ut_sys.uring_setup = refuse_defer_taskrun;
	ok = !ut_ring_init(&r, 16, UT_RING_SINGLE_ISSUER);
	ut_sys_reset();
	if (!ok)
		return 0;
	reads(ios, 4);
	ok = setup_einval_calls == 2 && ut_ring_uses_uring(r) &&
	     !ut_ring_run(r, ios, 4) && !memcmp(buf, pages, 4 * PS);
	ut_ring_exit(r);
	return ok;
}

static int refuse_setup(unsigned entries, struct io_uring *r,
			struct io_uring_params *p)
{
	(void)entries;
	(void)r;
	(void)p;
	return -EPERM;
}

static int fallback_works(void)
{
	struct ut_ring *r;
	struct ut_io ios[NPAGES + 1];
	char notice[512] = "";
	int saved_err, pipefd[2], ok;
	ssize_t n;

	if (pipe(pipefd))
		return 0;
	fflush(stderr);
	saved_err = dup(2);
	dup2(pipefd[1], 2);
	ut_sys.uring_setup = refuse_setup;
	ok = !ut_ring_init(&r, 64, 0);
	ut_sys_reset();
	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	close(pipefd[1]);
	n = read(pipefd[0], notice, sizeof(notice) - 1);
	close(pipefd[0]);
	if (!ok)
		return 0;
	notice[n > 0 ? n : 0] = 0;
	ktap_diag("notice: %.*s", (int)strcspn(notice, "\n"), notice);
	make_file();
	reads(ios, NPAGES);
	ut_io_fdatasync(&ios[NPAGES], fd);
	ok = !ut_ring_uses_uring(r) && strstr(notice, "using pread/pwrite") &&
	     strstr(ut_ring_fallback_reason(r), "io_uring") &&
	     !ut_ring_run(r, ios, NPAGES + 1) &&
	     !memcmp(buf, pages, NPAGES * PS) && ut_ring_stats(r)->submits == 0;
	ut_ring_exit(r);
	return ok;
}

int main(void)
{
	struct ut_ring *ring;

	test_scratch_dir("ring");
	test_path(path, sizeof(path), "data");
	pages = aligned_alloc(4096, (NPAGES + 4) * PS);
	buf = aligned_alloc(4096, (NPAGES + 4) * PS);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	make_file();
	ktap_plan(12);
	ktap_ok(fallback_works(),
		"io_uring_setup refused (EPERM): one notice, pread/pwrite path reads 64 pages + fdatasync");
	if (ut_ring_init(&ring, 128, 0) || !ut_ring_uses_uring(ring)) {
		const char *why = "io_uring unavailable here";
		int i;

		for (i = 0; i < 11; i++)
			ktap_skip_case("io_uring case", "%s", why);
		return ktap_finish();
	}
	ktap_ok(batch_one_submit(ring),
		"a batch of 64 page reads is one io_uring_submit");
	ktap_ok(batch_bigger_than_ring(),
		"a batch of 64 on an 8-entry ring completes, refilled as it drains");
	ktap_ok(registered(ring),
		"registered buffer and file are used as fixed buffer and fixed file");
	ktap_ok(write_then_sync(ring),
		"write linked to fdatasync: one submission, both complete");
	ktap_ok(broken_link_finished(ring),
		"real short write (RLIMIT_FSIZE) breaks the link: rest and fdatasync resubmitted");
	ktap_ok(eof_cancels_link(ring),
		"short read at end of file: -ENODATA, linked I/O cancelled");
	ktap_ok(eagain_retried(ring),
		"-EAGAIN is retried until the I/O goes through");
	ktap_ok(single_issuer_retry(),
		"DEFER_TASKRUN refused with EINVAL: ring set up again without it");
	ktap_ok(two_batches(ring),
		"two batches in flight at once, waited for in reverse order");
	ktap_ok(submit_eagain_retried(ring),
		"io_uring_submit -EAGAIN with nothing in flight is retried, not waited on");
	ktap_ok(submit_error_aborts(),
		"a hard submit error fails the batch and moves the ring to pread/pwrite");
	ut_ring_exit(ring);
	close(fd);
	return ktap_finish();
}
