// SPDX-License-Identifier: MIT
/*
 * readahead.c - read-ahead: batches of pages claimed in the pool, runs of
 * neighbours merged into one read each (holes of a few pages read
 * through), all submitted with one io_uring_submit, then unpacked into
 * their frames.  The pool lends the frames (ut_bpool_claim_read) and
 * takes them back (ut_bpool_read_done); this file owns the batching.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "io/ring.h"
#include "base/mem.h"
#include "buf/readahead.h"

int ut_prefetch_init(struct ut_prefetch *pf, unsigned cap, unsigned hole_cap,
		     uint32_t page_size)
{
	memset(pf, 0, sizeof(*pf));
	pf->cap = cap;
	pf->staging_cap = cap + hole_cap; /* room for holes read through */
	pf->ios = calloc(cap, sizeof(*pf->ios));
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	pf->frames = calloc(cap, sizeof(*pf->frames));
	pf->run_first = calloc(cap + 1, sizeof(*pf->run_first));
	pf->slot = calloc(cap, sizeof(*pf->slot));
	/* not zeroed: every byte is read into before it is looked at, and
	 * what runs read straight into their frames is never touched */
	if (posix_memalign((void **)&pf->staging, UT_IO_ALIGN,
			   (size_t)pf->staging_cap * page_size))
		pf->staging = NULL;
	if (!pf->ios || !pf->frames || !pf->run_first || !pf->slot ||
	    !pf->staging) {
		ut_prefetch_free(pf);
		return -ENOMEM;
	}
	return 0;
}

void ut_prefetch_free(struct ut_prefetch *pf)
{
	free(pf->ios);
	free(pf->frames);
	free(pf->run_first);
	free(pf->slot);
	free(pf->staging);
	memset(pf, 0, sizeof(*pf));
}

/* Pages between the last frame of the batch and page_no (UINT32_MAX when
 * page_no does not follow it). */
static uint32_t prefetch_hole(const struct ut_prefetch *pf, uint32_t page_no)
{
	uint32_t last = pf->frames[pf->n_frames - 1]->page_no;

	return page_no > last ? page_no - last - 1 : UINT32_MAX;
}

/*
 * A run of pages without holes whose frames lie next to each other in
 * memory (an empty pool hands them out so) is read straight into them,
 * not into staging and copied: no copy, and no staging memory touched.
 */
static void prefetch_aim(struct ut_prefetch *pf, unsigned i, uint32_t ps)
{
	unsigned first = pf->run_first[i], end = pf->run_first[i + 1], k;
	unsigned char *area = pf->frames[first]->area;

	if (pf->ios[i].len != (end - first) * ps)
		return; /* holes read through */
	for (k = first + 1; k < end; k++)
		if (pf->frames[k]->area != area + (size_t)(k - first) * ps)
			return;
	pf->ios[i].buf = area;
}

/* Whether the I/O read straight into its frames (prefetch_aim). */
static int prefetch_direct(const struct ut_prefetch *pf, unsigned i)
{
	return pf->ios[i].buf == pf->frames[pf->run_first[i]]->area;
}

int ut_prefetch_start(struct ut_bpool *bp, struct ut_prefetch *pf,
		      const uint32_t *page_nos, unsigned n, unsigned merge,
		      unsigned gap, unsigned unpack_flags)
{
	struct ut_ring *ring = ut_ring_thread();
	uint32_t ps = bp->geom.page_size, hole;
	unsigned i, len = 0, slot = 0;
	struct ut_frame *f;
	uint64_t s0;
	int ret;

	if (!ring)
		return -ENOMEM;
	pf->n_frames = pf->n_ios = 0;
	pf->error = 0;
	pf->unpack_flags = unpack_flags;
	for (i = 0; i < n && pf->n_frames < pf->cap; i++) {
		f = ut_bpool_claim_read(bp, page_nos[i]);
		if (!f)
			continue;
		/* extend the current run (through a short hole), or start a
		 * new read */
		/* a hole may use staging only beyond one page for each frame
		 * the batch may still claim */
		hole = pf->n_ios ? prefetch_hole(pf, f->page_no) : UINT32_MAX;
		if (hole <= gap && len + hole + 1 <= merge &&
		    slot + hole + (pf->cap - pf->n_frames) <= pf->staging_cap) {
			pf->ios[pf->n_ios - 1].len += (hole + 1) * ps;
			len += hole + 1;
			slot += hole;
			pf->hole_pages_total += hole;
		} else {
			pf->run_first[pf->n_ios] = pf->n_frames;
			ut_io_read(&pf->ios[pf->n_ios++], bp->data_fd,
				   pf->staging + (size_t)slot * ps, ps,
				   (uint64_t)f->page_no * ps);
			len = 1;
		}
		pf->slot[pf->n_frames] = slot++;
		pf->frames[pf->n_frames++] = f;
	}
	pf->run_first[pf->n_ios] = pf->n_frames;
	if (!pf->n_ios)
		return 0;
	for (i = 0; i < pf->n_ios; i++)
		prefetch_aim(pf, i, ps);
	s0 = ut_ring_stats(ring)->submits;
	ret = ut_ring_start(ring, &pf->batch, pf->ios, pf->n_ios);
	pf->submits_total += ut_ring_stats(ring)->submits - s0;
	pf->active = 1;
	return ret;
}

int ut_prefetch_finish(struct ut_bpool *bp, struct ut_prefetch *pf)
{
	struct ut_ring *ring = ut_ring_thread();
	uint32_t ps = bp->geom.page_size;
	struct ut_frame *f;
	unsigned i, k;
	uint64_t s0;
	int ret, err = 0;

	if (!pf->active)
		return 0;
	s0 = ut_ring_stats(ring)->submits;
	/* the batch's first error; each page's own result is looked at below */
	err = ut_ring_wait(ring, &pf->batch);
	pf->submits_total += ut_ring_stats(ring)->submits - s0;
	pf->active = 0;
	for (i = 0; i < pf->n_ios; i++) {
		pf->ios_total++;
		pf->bytes_total += pf->ios[i].len;
		for (k = pf->run_first[i]; k < pf->run_first[i + 1]; k++) {
			f = pf->frames[k];
			ret = pf->ios[i].res == (int)pf->ios[i].len ?
				      0 :
				      (pf->ios[i].res < 0 ? pf->ios[i].res :
							    -EIO);
			if (!ret && !prefetch_direct(pf, i))
				memcpy(f->area,
				       pf->staging + (size_t)pf->slot[k] * ps,
				       ps);
			ret = ut_bpool_read_done(bp, f, ret, pf->unpack_flags);
			if (ret && !err)
				err = ret;
			else if (!ret)
				pf->pages_total++;
		}
	}
	pf->error = err;
	return err;
}
