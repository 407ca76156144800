// SPDX-License-Identifier: MIT
/*
 * ring.c - batched file I/O over io_uring (liburing), finishing short and
 * interrupted I/O, with a pread/pwrite fallback when io_uring is unusable.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/latch.h"
#include "io/ring.h"
#include "io/sysio.h"
#include "base/probes.h"

#define UT_RING_THREAD_DEPTH 256

/* How often one I/O may come back with no progress before it fails. */
#define IO_RETRY_MAX 1000

enum io_state {
	IO_QUEUED, /* to be issued (first time or the rest of it) */
	IO_INFLIGHT,
	IO_CANCELED, /* kernel cancelled it: a link before it broke */
	IO_DONE, /* res is final */
};

struct ut_ring {
	struct io_uring uring;
	int have_uring;
	unsigned depth;
	unsigned inflight;
	struct ut_io *pending_head;
	struct ut_io *pending_tail;
	int *files;
	unsigned n_files;
	struct iovec *bufs;
	unsigned n_bufs;
	struct ut_ring_stats stats;
	char fallback_reason[256];
	pid_t owner; /* the process that set the ring up */
};

static atomic_int fallback_notice_printed;

/* ---- setup ---------------------------------------------------------- */

static void fallback_hint(int err, char *buf, size_t len)
{
	char level = 0;
	FILE *f;

	if (err == -EPERM) {
		f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
		if (f) {
			if (fscanf(f, " %c", &level) != 1)
				level = 0;
			fclose(f);
		}
		if (level == '2')
			snprintf(buf, len,
				 "kernel.io_uring_disabled=2; to enable it: sysctl -w kernel.io_uring_disabled=0");
		else if (level == '1')
			snprintf(buf, len,
				 "kernel.io_uring_disabled=1 limits it to root and kernel.io_uring_group; run as root or join that group");
		else
			snprintf(buf, len,
				 "a seccomp filter or security module denies io_uring_setup; allow it in the sandbox policy");
	} else if (err == -ENOMEM) {
		snprintf(buf, len,
			 "not enough locked memory for the ring; raise the memlock limit (ulimit -l)");
	} else if (err == -ENOSYS) {
		snprintf(buf, len,
			 "the kernel has no io_uring (CONFIG_IO_URING=n) or a seccomp filter hides it");
	} else {
		snprintf(buf, len, "io_uring_setup failed: %s", strerror(-err));
	}
}

static void ring_use_fallback(struct ut_ring *ring, const char *reason)
{
	ring->have_uring = 0;
	snprintf(ring->fallback_reason, sizeof(ring->fallback_reason), "%s",
		 reason);
	if (atomic_exchange(&fallback_notice_printed, 1))
		return;
	fprintf(stderr,
		"untorn: notice: io_uring unavailable (%s); using pread/pwrite\n",
		reason);
}

static int ring_setup(struct ut_ring *ring, unsigned flags)
{
	struct io_uring_params p;
	int ret = -EINVAL;

	if (flags & UT_RING_SINGLE_ISSUER) {
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_SINGLE_ISSUER |
			  IORING_SETUP_DEFER_TASKRUN;
		ret = ut_sys.uring_setup(ring->depth, &ring->uring, &p);
	}
	if (ret == -EINVAL) {
		memset(&p, 0, sizeof(p));
		ret = ut_sys.uring_setup(ring->depth, &ring->uring, &p);
	}
	return ret;
}

int ut_ring_init(struct ut_ring **ringp, unsigned depth, unsigned flags)
{
	struct ut_ring *ring;
	char reason[224];
	int ret;

	if (depth == 0 || depth > 4096)
		return -EINVAL;
	ring = calloc(1, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	ring->depth = depth;
	ring->owner = getpid();
	if (flags & UT_RING_FALLBACK) {
		ring_use_fallback(ring, "asked for the pread/pwrite path");
	} else if (getenv("UNTORN_NO_URING")) {
		ring_use_fallback(ring, "UNTORN_NO_URING is set");
	} else {
		ret = ring_setup(ring, flags);
		if (ret == 0) {
			ring->have_uring = 1;
		} else {
			fallback_hint(ret, reason, sizeof(reason));
			ring_use_fallback(ring, reason);
		}
	}
	*ringp = ring;
	return 0;
}

void ut_ring_exit(struct ut_ring *ring)
{
	if (!ring)
		return;
	if (ring->have_uring) {
		/* unregistering is synchronous, the ring's teardown is not:
		 * without this the files stay referenced (and their
		 * filesystem busy) for a moment after the process exits */
		if (ring->n_files)
			io_uring_unregister_files(&ring->uring);
		if (ring->n_bufs)
			io_uring_unregister_buffers(&ring->uring);
		io_uring_queue_exit(&ring->uring);
	}
	free(ring->files);
	free(ring->bufs);
	free(ring);
}

static pthread_key_t thread_ring_key;
static pthread_once_t thread_ring_once = PTHREAD_ONCE_INIT;

static void thread_ring_destroy(void *ring)
{
	ut_ring_exit(ring);
}

static void thread_ring_key_init(void)
{
	pthread_key_create(&thread_ring_key, thread_ring_destroy);
}

/*
 * A ring inherited across fork() shares its SQ and CQ memory with the
 * parent's ring: submitting on it would corrupt the parent's.  The child
 * drops its own mapping and descriptor (which leaves the parent's ring
 * alone; unregistering files would not) and sets up a new ring.
 */
static void ring_forget_inherited(struct ut_ring *ring)
{
	if (ring->have_uring)
		io_uring_queue_exit(&ring->uring);
	free(ring->files);
	free(ring->bufs);
	free(ring);
}

struct ut_ring *ut_ring_thread(void)
{
	struct ut_ring *ring;

	pthread_once(&thread_ring_once, thread_ring_key_init);
	ring = pthread_getspecific(thread_ring_key);
	if (ring && ring->owner == getpid())
		return ring;
	if (ring) {
		ring_forget_inherited(ring);
		pthread_setspecific(thread_ring_key, NULL);
	}
	if (ut_ring_init(&ring, UT_RING_THREAD_DEPTH, 0))
		return NULL;
	pthread_setspecific(thread_ring_key, ring);
	return ring;
}

int ut_ring_uses_uring(const struct ut_ring *ring)
{
	return ring->have_uring;
}

const char *ut_ring_fallback_reason(const struct ut_ring *ring)
{
	return ring->have_uring ? "" : ring->fallback_reason;
}

const struct ut_ring_stats *ut_ring_stats(const struct ut_ring *ring)
{
	return &ring->stats;
}

int ut_ring_register_files(struct ut_ring *ring, const int *fds, unsigned n)
{
	int *copy;
	int ret;

	if (!ring->have_uring || ring->n_files)
		return -EBUSY;
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, fds, n * sizeof(*copy));
	ret = io_uring_register_files(&ring->uring, fds, n);
	if (ret < 0) {
		free(copy);
		return ret;
	}
	ring->files = copy;
	ring->n_files = n;
	return 0;
}

int ut_ring_register_buffers(struct ut_ring *ring, const struct iovec *iov,
			     unsigned n)
{
	struct iovec *copy;
	int ret;

	if (!ring->have_uring || ring->n_bufs)
		return -EBUSY;
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, iov, n * sizeof(*copy));
	ret = io_uring_register_buffers(&ring->uring, iov, n);
	if (ret < 0) {
		free(copy);
		return ret;
	}
	ring->bufs = copy;
	ring->n_bufs = n;
	return 0;
}

void ut_ring_unregister_buffers(struct ut_ring *ring)
{
	if (!ring->n_bufs)
		return;
	io_uring_unregister_buffers(&ring->uring);
	free(ring->bufs);
	ring->bufs = NULL;
	ring->n_bufs = 0;
}

static int ring_file_index(const struct ut_ring *ring, int fd)
{
	unsigned i;

	for (i = 0; i < ring->n_files; i++)
		if (ring->files[i] == fd)
			return i;
	return -1;
}

static int ring_buf_index(const struct ut_ring *ring, const void *buf,
			  size_t len)
{
	const char *p = buf;
	const char *base;
	unsigned i;

	for (i = 0; i < ring->n_bufs; i++) {
		base = ring->bufs[i].iov_base;
		if (p >= base && p + len <= base + ring->bufs[i].iov_len)
			return i;
	}
	return -1;
}

/* ---- filling I/Os --------------------------------------------------- */

void ut_io_read(struct ut_io *io, int fd, void *buf, uint32_t len, uint64_t off)
{
	memset(io, 0, sizeof(*io));
	io->op = UT_OP_READ;
	io->fd = fd;
	io->buf = buf;
	io->len = len;
	io->off = off;
}

void ut_io_write(struct ut_io *io, int fd, const void *buf, uint32_t len,
		 uint64_t off)
{
	ut_io_read(io, fd, (void *)buf, len, off);
	io->op = UT_OP_WRITE;
}

void ut_io_fdatasync(struct ut_io *io, int fd)
{
	memset(io, 0, sizeof(*io));
	io->op = UT_OP_FDATASYNC;
	io->fd = fd;
}

/* ---- completion bookkeeping, shared by both paths -------------------- */

static int io_full(const struct ut_io *io)
{
	return io->state == IO_DONE && io->res >= 0 &&
	       (io->op == UT_OP_FDATASYNC || (uint32_t)io->res == io->len);
}

static void io_finish(struct ut_io *io, int res)
{
	io->state = IO_DONE;
	io->res = res;
}

/* Applies one result (bytes or -errno) of an issued I/O. */
static void io_account(struct ut_io *io, int res)
{
	if (res == -EAGAIN || res == -EINTR) {
		io->state = IO_QUEUED;
	} else if (res == -ECANCELED) {
		io->state = IO_CANCELED;
	} else if (res < 0) {
		io_finish(io, res);
		return;
	} else if (io->op == UT_OP_FDATASYNC) {
		io_finish(io, 0);
		return;
	} else if (res == 0 && io->op == UT_OP_READ) {
		io_finish(io, io->done); /* end of file */
		return;
	} else {
		io->done += res;
		if (io->done >= io->len) {
			io_finish(io, io->len);
			return;
		}
		io->state = IO_QUEUED;
		if (res > 0)
			io->retries = 0;
	}
	if (++io->retries > IO_RETRY_MAX)
		io_finish(io, res < 0 && res != -ECANCELED ? res : -EIO);
}

static void batch_chain_done(struct ut_batch *b, struct ut_io *head)
{
	unsigned i;

	for (i = 0; i < head->chain_len; i++) {
		if (!b->err && !io_full(&head[i]))
			b->err = head[i].res < 0 ? head[i].res : -ENODATA;
	}
	b->unfinished -= head->chain_len;
}

/*
 * A chain has nothing in flight: find the first member not complete in
 * full.  Returns its index when it must be issued again, or -1 when the
 * chain is finished (all complete, or one failed and the rest cancelled).
 */
static int chain_settle(struct ut_io *head)
{
	unsigned i, j;

	for (i = 0; i < head->chain_len; i++) {
		if (io_full(&head[i]))
			continue;
		if (head[i].state == IO_DONE) {
			for (j = i + 1; j < head->chain_len; j++)
				io_finish(&head[j], -ECANCELED);
			return -1;
		}
		for (j = i; j < head->chain_len; j++)
			if (head[j].state != IO_DONE)
				head[j].state = IO_QUEUED;
		return i;
	}
	return -1;
}

/* How many bytes the syscall table lets this I/O issue, or -errno. */
static ssize_t io_admit(struct ut_io *io)
{
	ssize_t admit;

	if (io->op == UT_OP_FDATASYNC)
		return ut_sys.io_admit(io->op, io->fd, 0, 0);
	admit = ut_sys.io_admit(io->op, io->fd, io->len - io->done,
				io->off + io->done);
	if (admit == 0)
		return -EIO;
	if (admit > io->len - io->done)
		return io->len - io->done;
	return admit;
}

/* The syscall table refused an I/O: -EAGAIN/-EINTR retry it, as when the
 * kernel returns them; anything else fails it. */
static void io_refused(struct ut_io *io, int err)
{
	if (err == -EAGAIN || err == -EINTR)
		io_account(io, err);
	else
		io_finish(io, err);
}

/* The ring__complete probe: op, result, ns since issue, fd. */
static void io_probe_complete(struct ut_io *io, int res)
{
	if (!io->issued_ns)
		return;
	UT_PROBE(ring__complete, io->op, res, ut_now_ns() - io->issued_ns,
		 io->fd);
	io->issued_ns = 0;
}

/* ---- the pread/pwrite path ------------------------------------------ */

static void io_run_sync(struct ut_ring *ring, struct ut_io *io)
{
	ssize_t admit, ret;
	char *p = io->buf;
	int issued = 0;

	while (io->state != IO_DONE) {
		if (issued++)
			ring->stats.resubmits++;
		admit = io_admit(io);
		if (admit < 0) {
			io_refused(io, admit);
			continue;
		}
		io->issued_ns = UT_PROBE_ENABLED(ring__complete) ? ut_now_ns() :
								   0;
		if (io->op == UT_OP_FDATASYNC)
			ret = ut_sys.fdatasync(io->fd);
		else if (io->op == UT_OP_READ)
			ret = ut_sys.pread(io->fd, p + io->done, admit,
					   io->off + io->done);
		else if (io->rw_flags)
			ret = ut_sys.pwrite_flags(io->fd, p + io->done, admit,
						  io->off + io->done,
						  io->rw_flags);
		else
			ret = ut_sys.pwrite(io->fd, p + io->done, admit,
					    io->off + io->done);
		io_probe_complete(io, ret);
		io_account(io, ret);
	}
}

static void chain_run_sync(struct ut_ring *ring, struct ut_io *head)
{
	unsigned i;

	for (i = 0; i < head->chain_len; i++) {
		io_run_sync(ring, &head[i]);
		if (!io_full(&head[i]))
			break;
	}
	chain_settle(head);
}

/* ---- the io_uring path ---------------------------------------------- */

static void pending_push(struct ut_ring *ring, struct ut_io *head)
{
	head->next_pending = NULL;
	if (ring->pending_tail)
		ring->pending_tail->next_pending = head;
	else
		ring->pending_head = head;
	ring->pending_tail = head;
}

static struct ut_io *pending_pop(struct ut_ring *ring)
{
	struct ut_io *head = ring->pending_head;

	ring->pending_head = head->next_pending;
	if (!ring->pending_head)
		ring->pending_tail = NULL;
	return head;
}

static void sqe_prep(struct ut_ring *ring, struct io_uring_sqe *sqe,
		     struct ut_io *io, uint32_t len)
{
	char *p = (char *)io->buf + io->done;
	int file = ring_file_index(ring, io->fd);
	int fd = file >= 0 ? file : io->fd;
	int buf = ring_buf_index(ring, p, len);

	if (io->op == UT_OP_FDATASYNC)
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
	else if (io->op == UT_OP_READ && buf >= 0)
		io_uring_prep_read_fixed(sqe, fd, p, len, io->off + io->done,
					 buf);
	else if (io->op == UT_OP_READ)
		io_uring_prep_read(sqe, fd, p, len, io->off + io->done);
	else if (buf >= 0)
		io_uring_prep_write_fixed(sqe, fd, p, len, io->off + io->done,
					  buf);
	else
		io_uring_prep_write(sqe, fd, p, len, io->off + io->done);
	if (io->op != UT_OP_FDATASYNC)
		sqe->rw_flags = io->rw_flags;
	if (file >= 0) {
		sqe->flags |= IOSQE_FIXED_FILE;
		ring->stats.fixed_files++;
	}
	if (buf >= 0 && io->op != UT_OP_FDATASYNC)
		ring->stats.fixed_bufs++;
	io_uring_sqe_set_data(sqe, io);
}

/*
 * Preps the queued members of a chain from index first, linked, up to a
 * member that may issue only part of its bytes or none.  Returns how
 * many SQEs were prepped.
 */
static unsigned chain_issue(struct ut_ring *ring, struct ut_io *head,
			    unsigned first)
{
	struct io_uring_sqe *sqe, *prev = NULL;
	struct ut_io *io;
	unsigned i, prepped = 0;
	ssize_t admit;

	for (i = first; i < head->chain_len; i++) {
		io = &head[i];
		if (io->state != IO_QUEUED)
			break;
		admit = io_admit(io);
		if (admit < 0) {
			io_refused(io, admit);
			break;
		}
		sqe = io_uring_get_sqe(&ring->uring);
		if (prev)
			prev->flags |= IOSQE_IO_LINK;
		sqe_prep(ring, sqe, io, admit);
		/* A retry after -EAGAIN goes through io-wq, which issues it
		 * blocking: resubmitting the non-blocking attempt gets -EAGAIN
		 * again where the device cannot do REQ_NOWAIT (6.1: O_DIRECT
		 * through dm-log-writes) */
		if (io->retries)
			sqe->flags |= IOSQE_ASYNC;
		io->state = IO_INFLIGHT;
		io->issued_ns = UT_PROBE_ENABLED(ring__complete) ? ut_now_ns() :
								   0;
		if (io->done || io->retries)
			ring->stats.resubmits++;
		prev = sqe;
		prepped++;
		if (io->op != UT_OP_FDATASYNC && admit < io->len - io->done)
			break;
	}
	head->chain_inflight = prepped;
	ring->inflight += prepped;
	return prepped;
}

static unsigned chain_remaining(const struct ut_io *head)
{
	unsigned i;

	for (i = 0; i < head->chain_len; i++)
		if (head[i].state != IO_DONE || !io_full(&head[i]))
			break;
	return head->chain_len - i;
}

static void chain_settle_and_requeue(struct ut_ring *ring, struct ut_io *head)
{
	int next = chain_settle(head);

	if (next < 0)
		batch_chain_done(head->batch, head);
	else
		pending_push(ring, head);
}

/* Moves pending chains into the SQ while the ring has room. */
static void pending_flush(struct ut_ring *ring)
{
	struct ut_io *head;
	unsigned need;
	int first;

	while (ring->pending_head) {
		head = ring->pending_head;
		need = chain_remaining(head);
		if (need > io_uring_sq_space_left(&ring->uring) ||
		    ring->inflight + need > ring->depth)
			break;
		pending_pop(ring);
		first = chain_settle(head);
		if (first < 0) {
			batch_chain_done(head->batch, head);
			continue;
		}
		if (!chain_issue(ring, head, first))
			chain_settle_and_requeue(ring, head);
	}
}

/* Returns 0, -EAGAIN/-EBUSY (kernel short of resources: reap, retry),
 * or another -errno (the ring is unusable). */
static int ring_submit(struct ut_ring *ring)
{
	int ret;

	if (!io_uring_sq_ready(&ring->uring))
		return 0;
	do {
		ret = ut_sys.uring_submit(&ring->uring);
	} while (ret == -EINTR);
	if (ret > 0) {
		ring->stats.submits++;
		ring->stats.sqes += ret;
		UT_PROBE(ring__submit, ret, ring->inflight);
	}
	return ret < 0 ? ret : 0;
}

/* SQEs the kernel has, as opposed to ones still in our SQ. */
static unsigned ring_in_kernel(struct ut_ring *ring)
{
	return ring->inflight - io_uring_sq_ready(&ring->uring);
}

static void cqe_complete(struct ut_ring *ring, struct io_uring_cqe *cqe)
{
	struct ut_io *io = io_uring_cqe_get_data(cqe);
	struct ut_io *head;

	if (!io)
		return; /* a NOP left by ring_abort */
	head = io->chain_head;
	ring->inflight--;
	io_probe_complete(io, cqe->res);
	io_account(io, cqe->res);
	if (--head->chain_inflight == 0)
		chain_settle_and_requeue(ring, head);
}

static int ring_reap(struct ut_ring *ring)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	int ret;

	ret = io_uring_wait_cqe(&ring->uring, &cqe);
	if (ret == -EINTR || ret == -EAGAIN)
		return 0;
	if (ret < 0)
		return ret;
	io_uring_for_each_cqe(&ring->uring, head, cqe)
	{
		cqe_complete(ring, cqe);
		seen++;
	}
	io_uring_cq_advance(&ring->uring, seen);
	return 0;
}

/* ---- batches -------------------------------------------------------- */

static int ring_abort(struct ut_ring *ring, int err);

static int batch_prepare(struct ut_ring *ring, struct ut_batch *b,
			 struct ut_io *ios, unsigned n)
{
	struct ut_io *head = NULL;
	unsigned i;

	b->ios = ios;
	b->n = n;
	b->unfinished = n;
	b->err = 0;
	for (i = 0; i < n; i++) {
		if (ios[i].op < UT_OP_READ || ios[i].op > UT_OP_FDATASYNC ||
		    ios[i].len > INT32_MAX)
			return -EINVAL;
		if (!head) {
			head = &ios[i];
			head->chain_len = 0;
		}
		ios[i].chain_head = head;
		ios[i].batch = b;
		ios[i].state = IO_QUEUED;
		ios[i].done = 0;
		ios[i].retries = 0;
		ios[i].res = 0;
		if (++head->chain_len > ring->depth || head->chain_len == 255)
			return -E2BIG;
		if (!(ios[i].flags & UT_IO_LINK) || i == n - 1)
			head = NULL;
	}
	return 0;
}

int ut_ring_start(struct ut_ring *ring, struct ut_batch *b, struct ut_io *ios,
		  unsigned n)
{
	unsigned i;
	int ret;

	ret = batch_prepare(ring, b, ios, n);
	if (ret)
		return ret;
	for (i = 0; i < n; i += ios[i].chain_len) {
		if (ring->have_uring) {
			pending_push(ring, &ios[i]);
			continue;
		}
		chain_run_sync(ring, &ios[i]);
		batch_chain_done(b, &ios[i]);
	}
	if (!ring->have_uring)
		return 0;
	pending_flush(ring);
	ret = ring_submit(ring);
	if (ret && ret != -EAGAIN && ret != -EBUSY)
		return ring_abort(ring, ret);
	return 0;
}

/*
 * The ring failed for good: turn SQEs not yet submitted into NOPs that
 * point at nothing, wait for what the kernel has (it will complete), fail
 * every pending I/O, and send later batches down the pread/pwrite path.
 * No SQE may outlive the caller's buffers.
 */
static int ring_abort(struct ut_ring *ring, int err)
{
	struct io_uring_sq *sq = &ring->uring.sq;
	struct io_uring_cqe *cqe;
	struct ut_io *head, *io;
	unsigned i, in_kernel = ring_in_kernel(ring);
	char reason[128];
	int ret;

	for (i = sq->sqe_head; i != sq->sqe_tail; i++) {
		io_uring_prep_nop(&sq->sqes[i & sq->ring_mask]);
		io_uring_sqe_set_data(&sq->sqes[i & sq->ring_mask], NULL);
	}
	while (in_kernel) {
		ret = io_uring_wait_cqe(&ring->uring, &cqe);
		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret)
			break;
		io = io_uring_cqe_get_data(cqe);
		io_uring_cqe_seen(&ring->uring, cqe);
		if (!io)
			continue;
		in_kernel--;
		io_finish(io, err);
		if (--io->chain_head->chain_inflight == 0)
			pending_push(ring, io->chain_head);
	}
	while (ring->pending_head) {
		head = pending_pop(ring);
		for (i = 0; i < head->chain_len; i++)
			if (head[i].state != IO_DONE)
				io_finish(&head[i], err);
		batch_chain_done(head->batch, head);
	}
	ring->inflight = 0;
	io_uring_queue_exit(&ring->uring);
	snprintf(reason, sizeof(reason), "io_uring failed: %s", strerror(-err));
	ring_use_fallback(ring, reason);
	return err;
}

int ut_ring_wait(struct ut_ring *ring, struct ut_batch *b)
{
	unsigned busy = 0;
	int ret;

	while (b->unfinished) {
		pending_flush(ring);
		ret = ring_submit(ring);
		if ((ret == -EAGAIN || ret == -EBUSY) &&
		    !ring_in_kernel(ring)) {
			if (++busy > IO_RETRY_MAX)
				return ring_abort(ring, ret);
			sched_yield();
			continue;
		}
		if (ret && ret != -EAGAIN && ret != -EBUSY)
			return ring_abort(ring, ret);
		busy = 0;
		if (!ring->inflight)
			return ring_abort(ring, -EIO); /* never hang */
		ret = ring_reap(ring);
		if (ret < 0)
			return ring_abort(ring, ret);
	}
	return b->err;
}

int ut_ring_run(struct ut_ring *ring, struct ut_io *ios, unsigned n)
{
	struct ut_batch b;
	int ret;

	ret = ut_ring_start(ring, &b, ios, n);
	if (ret)
		return ret;
	return ut_ring_wait(ring, &b);
}
