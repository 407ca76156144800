// SPDX-License-Identifier: MIT
/*
 * check.c - `untorn check`: every page read in batches through the ring,
 * every block verified, each bad block reported.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/err.h"
#include "store/check.h"
#include "base/mem.h"

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void check_slots(struct ut_store *st, ut_check_fn fn, void *user,
			struct ut_check_stats *stats)
{
	struct ut_check_bad bad;
	unsigned i, bad_slots = 0;

	for (i = 0; i < 2; i++) {
		if (!st->slot_err[i])
			continue;
		memset(&bad, 0, sizeof(bad));
		bad.page_no = 0;
		bad.block = 1 + i;
		bad.kind = "slot";
		snprintf(bad.detail, sizeof(bad.detail),
			 "checkpoint slot %u is damaged (%s); the other slot is in use",
			 i,
			 st->slot_err[i] == UT_SB_ECRC ? "checksum mismatch" :
							 "bad magic or field");
		fn(&bad, user);
		bad_slots++;
	}
	stats->pages++;
	stats->bad_blocks += bad_slots;
	if (bad_slots)
		stats->bad_pages++;
	else
		stats->sound++;
}

static void check_page(struct ut_store *st, const void *disk, uint32_t page_no,
		       ut_check_fn fn, void *user, struct ut_check_stats *stats,
		       struct ut_page_report *rep)
{
	struct ut_check_bad bad;
	unsigned i;
	int ret;

	stats->pages++;
	ret = ut_page_verify(&st->geom, disk, page_no, rep);
	if (ret == UT_PAGE_EMPTY) {
		stats->empty++;
		return;
	}
	if (ret == 0) {
		stats->sound++;
		return;
	}
	stats->bad_pages++;
	for (i = 0; i < rep->n_faults; i++) {
		memset(&bad, 0, sizeof(bad));
		bad.page_no = page_no;
		bad.block = rep->fault[i].block;
		bad.kind = ut_fault_name(rep->fault[i].kind);
		ut_fault_describe(&rep->fault[i], bad.detail,
				  sizeof(bad.detail));
		fn(&bad, user);
		stats->bad_blocks++;
	}
}

static int check_batch(struct ut_store *st, unsigned char *buf,
		       struct ut_io *ios, uint64_t first, uint32_t n)
{
	uint32_t ps = st->geom.page_size;
	uint32_t i;

	for (i = 0; i < n; i++)
		ut_io_read(&ios[i], st->data_fd, buf + (size_t)i * ps, ps,
			   (uint64_t)(first + i) * ps);
	return ut_ring_run(st->ring, ios, n);
}

int ut_check_run(struct ut_store *st, ut_check_fn fn, void *user,
		 struct ut_check_stats *stats, struct ut_err *err)
{
	uint32_t ps = st->geom.page_size, n, i;
	uint64_t page;
	const struct ut_ring_stats *rs = ut_ring_stats(st->ring);
	uint64_t submits0 = rs->submits;
	struct ut_page_report *rep;
	struct ut_io ios[UT_CHECK_BATCH];
	unsigned char *buf;
	struct iovec iov;
	int registered = 0;
	double t0 = now_seconds();
	int ret = -ENOMEM;

	memset(stats, 0, sizeof(*stats));
	buf = ut_io_alloc((size_t)UT_CHECK_BATCH * ps);
	rep = malloc(sizeof(*rep));
	if (!buf || !rep) {
		ut_err_set(err, ret, "out of memory for %u pages of %u bytes",
			   UT_CHECK_BATCH, ps);
		goto out_free;
	}
	iov.iov_base = buf;
	iov.iov_len = (size_t)UT_CHECK_BATCH * ps;
	registered = ut_ring_register_buffers(st->ring, &iov, 1) == 0;
	check_slots(st, fn, user, stats);
	for (page = 1; page < st->file_pages; page += n) {
		n = st->file_pages - page;
		if (n > UT_CHECK_BATCH)
			n = UT_CHECK_BATCH;
		ret = check_batch(st, buf, ios, page, n);
		if (ret) {
			ut_err_set(err, ret,
				   "%s: cannot read pages %llu..%llu: %s",
				   st->data_path, (unsigned long long)page,
				   (unsigned long long)(page + n - 1),
				   ret == -ENODATA ? "file ends early" :
						     strerror(-ret));
			goto out_free;
		}
		stats->ios += n;
		stats->bytes += (uint64_t)n * ps;
		for (i = 0; i < n; i++)
			check_page(st, buf + (size_t)i * ps, page + i, fn, user,
				   stats, rep);
	}
	ret = 0;
	stats->submits = rs->submits - submits0;
	stats->seconds = now_seconds() - t0;
out_free:
	if (registered)
		ut_ring_unregister_buffers(st->ring);
	free(rep);
	free(buf);
	return ret;
}
