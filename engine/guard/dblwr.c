// SPDX-License-Identifier: MIT
/*
 * dblwr.c - the doublewrite buffer file: segments, slot waits, batch
 * writes, and restoring torn pages at recovery.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/err.h"
#include "base/crc32c.h"
#include "io/ring.h"
#include "io/sysio.h"
#include "base/bytes.h"
#include "guard/dblwr.h"
#include "io/file.h"
#include "base/mem.h"
#include "base/probes.h"

#define FILE_MAGIC "UNTORNDF"
#define SEG_MAGIC "UNTORNDW"
#define SEG_N 12
#define SEG_SEQ 16
#define SEG_PS 24
#define SEG_UUID 28
#define SEG_PAGES 48

static uint64_t seg_bytes(const struct ut_dblwr *d)
{
	return UT_DBLWR_HDR + (uint64_t)d->batch * d->page_size;
}

static uint64_t seg_off(const struct ut_dblwr *d, unsigned seg)
{
	return UT_DBLWR_HDR + seg * seg_bytes(d);
}

static void hdr_seal(unsigned char *hdr)
{
	put_le32(hdr + 8, ut_crc32c(0, hdr + 12, UT_DBLWR_HDR - 12));
}

static int hdr_sound(const unsigned char *hdr, const char *magic)
{
	return !memcmp(hdr, magic, 8) &&
	       get_le32(hdr + 8) == ut_crc32c(0, hdr + 12, UT_DBLWR_HDR - 12);
}

int ut_dblwr_create(const char *path, unsigned n_segments, unsigned batch,
		    uint32_t page_size, struct ut_err *err)
{
	struct ut_dblwr d = { .page_size = page_size, .batch = batch };
	unsigned char *hdr;
	int ret;

	hdr = ut_io_alloc(UT_DBLWR_HDR);
	if (!hdr)
		return ut_err_set(err, -ENOMEM, "out of memory");
	memcpy(hdr, FILE_MAGIC, 8);
	put_le32(hdr + 12, n_segments);
	put_le32(hdr + 16, batch);
	put_le32(hdr + 20, page_size);
	hdr_seal(hdr);
	ret = ut_file_create(path, UT_DBLWR_HDR + n_segments * seg_bytes(&d),
			     hdr, UT_DBLWR_HDR, "free space on the filesystem",
			     err);
	free(hdr);
	return ret;
}

int ut_dblwr_open(struct ut_dblwr *d, const char *path, uint32_t page_size,
		  const uint8_t uuid[16], struct ut_err *err)
{
	unsigned char *hdr;
	struct stat sb;
	ssize_t n;
	int ret;

	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	memcpy(d->uuid, uuid, 16);
	d->fd = ut_sys.open(path, O_RDWR, 0);
	if (d->fd < 0)
		return ut_err_set(err, d->fd,
				  "%s: cannot open the doublewrite file: %s; a doublewrite store needs its %s",
				  path, strerror(-d->fd), UT_DBLWR_FILE);
	hdr = ut_io_alloc(UT_DBLWR_HDR);
	if (!hdr) {
		ut_sys.close(d->fd);
		return -ENOMEM;
	}
	n = ut_sys.pread(d->fd, hdr, UT_DBLWR_HDR, 0);
	d->n_segments = get_le32(hdr + 12);
	d->batch = get_le32(hdr + 16);
	d->page_size = get_le32(hdr + 20);
	ret = 0;
	if (n != UT_DBLWR_HDR || !hdr_sound(hdr, FILE_MAGIC) ||
	    d->page_size != page_size || !d->n_segments || d->n_segments > 64 ||
	    !d->batch || d->batch > UT_DBLWR_MAX_BATCH)
		ret = -EINVAL;
	free(hdr);
	if (!ret && (ut_sys.fstat(d->fd, &sb) ||
		     (uint64_t)sb.st_size <
			     UT_DBLWR_HDR + d->n_segments * seg_bytes(d)))
		ret = -EINVAL;
	if (ret) {
		ut_sys.close(d->fd);
		return ut_err_set(err, ret,
				  "%s: damaged or from another store (header: %u segments of %u pages of %u bytes); restore it from the same backup as the data file",
				  path, d->n_segments, d->batch, d->page_size);
	}
	ut_mutex_init(&d->mutex, UT_LATCH_COPY_SLOT);
	ut_cond_init(&d->free_cond);
	return 0;
}

void ut_dblwr_close(struct ut_dblwr *d)
{
	ut_mutex_destroy(&d->mutex);
	pthread_cond_destroy(&d->free_cond);
	ut_sys.close(d->fd);
}

unsigned ut_dblwr_acquire(struct ut_dblwr *d)
{
	uint64_t all = d->n_segments == 64 ? ~0ull :
					     (1ull << d->n_segments) - 1;
	uint64_t t0 = 0;
	unsigned seg;

	ut_mutex_lock(&d->mutex);
	while ((d->busy & all) == all) {
		if (!t0) {
			t0 = ut_now_ns();
			UT_PROBE(dblwr__slot__wait__start, d->n_segments);
		}
		ut_cond_wait(&d->free_cond, &d->mutex, UT_LATCH_COPY_SLOT, 0);
	}
	if (t0) {
		d->waits++;
		d->wait_ns += ut_now_ns() - t0;
	}
	seg = __builtin_ctzll(~d->busy);
	d->busy |= 1ull << seg;
	ut_mutex_unlock(&d->mutex);
	if (UT_PROBE_ENABLED(dblwr__slot__release))
		d->acquired_ns[seg] = ut_now_ns();
	UT_PROBE(dblwr__slot__acquire, seg, t0 ? ut_now_ns() - t0 : 0);
	return seg;
}

void ut_dblwr_release(struct ut_dblwr *d, unsigned seg)
{
	if (d->acquired_ns[seg]) {
		UT_PROBE(dblwr__slot__release, seg,
			 ut_now_ns() - d->acquired_ns[seg]);
		d->acquired_ns[seg] = 0;
	}
	ut_mutex_lock(&d->mutex);
	d->busy &= ~(1ull << seg);
	pthread_cond_signal(&d->free_cond);
	ut_mutex_unlock(&d->mutex);
}

int ut_dblwr_write(struct ut_dblwr *d, unsigned seg, unsigned char *buf,
		   const uint32_t *page_nos, unsigned n)
{
	struct ut_ring *ring = ut_ring_thread();
	struct ut_io ios[2];
	unsigned i;

	if (!ring)
		return -ENOMEM;
	if (n > d->batch)
		return -E2BIG;
	memset(buf, 0, UT_DBLWR_HDR);
	memcpy(buf, SEG_MAGIC, 8);
	put_le32(buf + SEG_N, n);
	ut_mutex_lock(&d->mutex);
	put_le64(buf + SEG_SEQ, ++d->seq);
	ut_mutex_unlock(&d->mutex);
	put_le32(buf + SEG_PS, d->page_size);
	memcpy(buf + SEG_UUID, d->uuid, 16);
	for (i = 0; i < n; i++)
		put_le32(buf + SEG_PAGES + 4 * i, page_nos[i]);
	hdr_seal(buf);
	ut_io_write(&ios[0], d->fd, buf, UT_DBLWR_HDR + n * d->page_size,
		    seg_off(d, seg));
	ios[0].flags = UT_IO_LINK;
	ut_io_fdatasync(&ios[1], d->fd);
	return ut_ring_run(ring, ios, 2);
}

/* ---- recovery ------------------------------------------------------- */

struct restore_ctx {
	struct ut_dblwr *d;
	const struct ut_geom *g;
	int data_fd;
	uint64_t file_pages;
	struct ut_ring *ring;
	unsigned char *seg; /* header + copies */
	unsigned char *inplace; /* in-place images of the same pages */
	struct ut_io *ios;
	uint32_t *done_pages; /* restored in this run */
	uint64_t *done_lsn;
	unsigned n_done;
	struct ut_dblwr_restore *rep;
};

static int restored_before(struct restore_ctx *c, uint32_t page_no,
			   uint64_t lsn, int *newer)
{
	unsigned i;

	for (i = 0; i < c->n_done; i++)
		if (c->done_pages[i] == page_no) {
			*newer = lsn > c->done_lsn[i];
			if (*newer)
				c->done_lsn[i] = lsn;
			return 1;
		}
	return 0;
}

static uint64_t copy_lsn(const unsigned char *page)
{
	return get_le64(page + 16);
}

/* Restores what one valid segment can; n pages, headers checked. */
static int restore_segment(struct restore_ctx *c, unsigned n)
{
	uint32_t ps = c->g->page_size, page_no;
	unsigned i, n_io = 0;
	unsigned char *copy;
	int newer, ret;

	for (i = 0; i < n; i++) {
		page_no = get_le32(c->seg + SEG_PAGES + 4 * i);
		ut_io_read(&c->ios[i], c->data_fd, c->inplace + (size_t)i * ps,
			   ps, (uint64_t)page_no * ps);
		if (page_no == 0 || page_no >= c->file_pages)
			c->ios[i].len = 0;
	}
	for (i = 0; i < n; i++)
		if (c->ios[i].len)
			c->ios[n_io++] = c->ios[i];
	ret = ut_ring_run(c->ring, c->ios, n_io);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		page_no = get_le32(c->seg + SEG_PAGES + 4 * i);
		copy = c->seg + UT_DBLWR_HDR + (size_t)i * ps;
		if (page_no == 0 || page_no >= c->file_pages ||
		    ut_page_verify(c->g, copy, page_no, NULL) != 0)
			continue;
		c->rep->pages_checked++;
		newer = 0;
		if (!restored_before(c, page_no, copy_lsn(copy), &newer)) {
			if (ut_page_verify(c->g, c->inplace + (size_t)i * ps,
					   page_no, NULL) == 0)
				continue;
			c->done_pages[c->n_done] = page_no;
			c->done_lsn[c->n_done++] = copy_lsn(copy);
			if (c->rep->pages_restored < 64)
				c->rep->restored[c->rep->pages_restored] =
					page_no;
			c->rep->pages_restored++;
		} else if (!newer) {
			continue;
		}
		ret = ut_sys.pwrite(c->data_fd, copy, ps,
				    (uint64_t)page_no * ps);
		if (ret != (int)ps)
			return ret < 0 ? ret : -EIO;
	}
	return 0;
}

static int seg_order(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

int ut_dblwr_restore(struct ut_dblwr *d, const struct ut_geom *g, int data_fd,
		     uint64_t file_pages, struct ut_dblwr_restore *rep,
		     struct ut_err *err)
{
	struct restore_ctx c = { .d = d,
				 .g = g,
				 .data_fd = data_fd,
				 .file_pages = file_pages,
				 .rep = rep };
	uint64_t order[64][2];
	unsigned s, n, n_valid = 0;
	struct ut_io io;
	int ret = -ENOMEM;

	memset(rep, 0, sizeof(*rep));
	c.ring = ut_ring_thread();
	c.seg = ut_io_alloc(seg_bytes(d));
	c.inplace = ut_io_alloc((size_t)d->batch * g->page_size);
	c.ios = calloc(d->batch, sizeof(*c.ios));
	c.done_pages =
		calloc((size_t)d->batch * d->n_segments, sizeof(uint32_t));
	c.done_lsn = calloc((size_t)d->batch * d->n_segments, sizeof(uint64_t));
	if (!c.ring || !c.seg || !c.inplace || !c.ios || !c.done_pages ||
	    !c.done_lsn)
		goto out_free;
	/* read every segment header, then restore oldest batch first */
	for (s = 0; s < d->n_segments; s++) {
		ut_io_read(&io, d->fd, c.seg, UT_DBLWR_HDR, seg_off(d, s));
		ret = ut_ring_run(c.ring, &io, 1);
		if (ret)
			goto out_read;
		n = get_le32(c.seg + SEG_N);
		if (!hdr_sound(c.seg, SEG_MAGIC) || n == 0 || n > d->batch ||
		    get_le32(c.seg + SEG_PS) != g->page_size ||
		    memcmp(c.seg + SEG_UUID, d->uuid, 16))
			continue;
		order[n_valid][0] = get_le64(c.seg + SEG_SEQ);
		order[n_valid++][1] = s;
		if (order[n_valid - 1][0] > d->seq)
			d->seq = order[n_valid - 1][0];
	}
	qsort(order, n_valid, sizeof(order[0]), seg_order);
	for (s = 0; s < n_valid; s++) {
		ut_io_read(&io, d->fd, c.seg, seg_bytes(d),
			   seg_off(d, order[s][1]));
		ret = ut_ring_run(c.ring, &io, 1);
		if (ret)
			goto out_read;
		n = get_le32(c.seg + SEG_N);
		ret = restore_segment(&c, n);
		if (ret) {
			ut_err_set(err, ret,
				   "%s: cannot restore pages from the doublewrite buffer: %s; check the device",
				   d->path, strerror(-ret));
			goto out_free;
		}
	}
	ret = rep->pages_restored ? ut_sys.fdatasync(data_fd) : 0;
	if (ret)
		ut_err_set(err, ret,
			   "data file fdatasync after doublewrite restore failed: %s",
			   strerror(-ret));
	goto out_free;
out_read:
	ut_err_set(err, ret, "%s: cannot read the doublewrite buffer: %s",
		   d->path, strerror(-ret));
out_free:
	free(c.seg);
	free(c.inplace);
	free(c.ios);
	free(c.done_pages);
	free(c.done_lsn);
	return ret;
}
