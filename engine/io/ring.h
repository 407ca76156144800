/* SPDX-License-Identifier: MIT */
/*
 * ring.h - batched file I/O over io_uring, with a pread/pwrite fallback.
 *
 * A batch is an array of struct ut_io.  ut_ring_start() queues the whole
 * batch and submits it with one io_uring_submit(); ut_ring_wait() reaps
 * until every I/O of the batch is complete.  Several batches may be in
 * flight at once.  An I/O flagged UT_IO_LINK is linked to the next one
 * (the next starts only after it completed in full), which is how a write
 * and its fdatasync are ordered in one submission.
 *
 * The ring finishes what the kernel leaves half done: a short read or
 * write is resubmitted for the rest, -EAGAIN and -EINTR are retried, and
 * the -ECANCELED members of a link broken by a short I/O are resubmitted
 * after it.  Files and buffers registered with the ring are used as fixed
 * files and fixed buffers automatically.
 *
 * If io_uring cannot be set up (kernel.io_uring_disabled, seccomp, ENOMEM
 * from the memlock limit, an old kernel) the ring runs every batch with
 * pread/pwrite/fdatasync instead, after printing one notice on stderr.
 */
#ifndef UNTORN_RING_H
#define UNTORN_RING_H

#include <stdint.h>
#include <sys/uio.h>

#define UT_IO_LINK (1u << 0)

enum ut_op {
	UT_OP_READ = 1,
	UT_OP_WRITE = 2,
	UT_OP_FDATASYNC = 3,
};

struct ut_batch;

struct ut_io {
	/* set by the caller */
	uint8_t op; /* enum ut_op */
	uint8_t flags; /* UT_IO_LINK */
	int fd;
	void *buf;
	uint32_t len;
	uint64_t off;
	uint32_t rw_flags; /* RWF_* for preadv2/pwritev2 (e.g. RWF_ATOMIC) */
	void *user;
	/* result: bytes transferred (len, or less at end of file), or -errno */
	int res;
	/* private to the ring */
	uint32_t done;
	uint16_t retries;
	uint8_t state;
	uint8_t chain_len; /* head of a chain: members, itself included */
	uint16_t chain_inflight;
	struct ut_io *chain_head;
	struct ut_io *next_pending;
	struct ut_batch *batch;
	uint64_t issued_ns; /* while the ring__complete probe is on */
};

struct ut_batch {
	struct ut_io *ios;
	unsigned n;
	unsigned unfinished;
	int err; /* first error of the batch */
};

struct ut_ring_stats {
	uint64_t submits; /* io_uring_submit calls that submitted */
	uint64_t sqes; /* SQEs submitted */
	uint64_t resubmits; /* I/Os resubmitted after a short/EAGAIN/EINTR */
	uint64_t fixed_bufs; /* SQEs that used a registered buffer */
	uint64_t fixed_files; /* SQEs that used a registered file */
};

#define UT_RING_FALLBACK (1u << 0) /* don't try io_uring */
#define UT_RING_SINGLE_ISSUER (1u << 1) /* only the creating thread uses it */

struct ut_ring;

int ut_ring_init(struct ut_ring **ringp, unsigned depth, unsigned flags);
void ut_ring_exit(struct ut_ring *ring);

/* The calling thread's own ring (rings are not shared between threads),
 * made on first use and torn down when the thread exits; NULL on ENOMEM. */
struct ut_ring *ut_ring_thread(void);

/* 1 when I/O goes through io_uring, 0 on the pread/pwrite fallback. */
int ut_ring_uses_uring(const struct ut_ring *ring);
/* Why the fallback is in use ("" when it is not). */
const char *ut_ring_fallback_reason(const struct ut_ring *ring);
const struct ut_ring_stats *ut_ring_stats(const struct ut_ring *ring);

/* Registration is an optimisation: a failure leaves the ring working with
 * plain files/buffers and is returned only so the caller can report it. */
int ut_ring_register_files(struct ut_ring *ring, const int *fds, unsigned n);
int ut_ring_register_buffers(struct ut_ring *ring, const struct iovec *iov,
			     unsigned n);
/* Must be called before registered buffers are freed. */
void ut_ring_unregister_buffers(struct ut_ring *ring);

/* Queues and submits a batch (one io_uring_submit when it fits the ring). */
int ut_ring_start(struct ut_ring *ring, struct ut_batch *b, struct ut_io *ios,
		  unsigned n);
/* Waits for every I/O of b.  Returns 0 when all completed in full,
 * -ENODATA when a read stopped at end of file, else the first -errno. */
int ut_ring_wait(struct ut_ring *ring, struct ut_batch *b);
/* ut_ring_start + ut_ring_wait. */
int ut_ring_run(struct ut_ring *ring, struct ut_io *ios, unsigned n);

/* Helpers to fill a struct ut_io. */
void ut_io_read(struct ut_io *io, int fd, void *buf, uint32_t len,
		uint64_t off);
void ut_io_write(struct ut_io *io, int fd, const void *buf, uint32_t len,
		 uint64_t off);
void ut_io_fdatasync(struct ut_io *io, int fd);

#endif
