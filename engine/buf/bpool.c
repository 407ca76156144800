// SPDX-License-Identifier: MIT
/*
 * bpool.c - buffer pool: lookup, read, eviction, dirty tracking.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "io/ring.h"
#include "buf/bpool.h"
#include "base/mem.h"

int ut_bpool_init(struct ut_bpool *bp, const struct ut_geom *g, uint64_t bytes,
		  int data_fd, const char *data_path, struct ut_err *err)
{
	unsigned i, hash_size = 1;

	memset(bp, 0, sizeof(*bp));
	bp->geom = *g;
	bp->data_fd = data_fd;
	bp->data_path = data_path;
	bp->n_frames = bytes / g->page_size;
	if (bp->n_frames < UT_BPOOL_MIN_FRAMES)
		return ut_err_set(err, -EINVAL,
				  "buffer pool of %llu bytes holds %u pages of %u bytes, fewer than %u; use a larger --pool",
				  (unsigned long long)bytes, bp->n_frames,
				  g->page_size, UT_BPOOL_MIN_FRAMES);
	while (hash_size < bp->n_frames * 2)
		hash_size <<= 1;
	bp->hash_mask = hash_size - 1;
	bp->mem = ut_io_alloc((size_t)bp->n_frames * g->page_size);
	bp->frames = calloc(bp->n_frames, sizeof(*bp->frames));
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	bp->hash = calloc(hash_size, sizeof(*bp->hash));
	if (!bp->mem || !bp->frames || !bp->hash) {
		ut_bpool_destroy(bp);
		return ut_err_set(err, -ENOMEM,
				  "cannot allocate a %llu-byte buffer pool; use a smaller --pool",
				  (unsigned long long)bytes);
	}
	/* the free list in memory order: an empty pool's read-ahead gets
	 * frames next to each other, read into with one request a run */
	for (i = bp->n_frames; i-- > 0;) {
		struct ut_frame *f = &bp->frames[i];

		ut_rwlock_init(&f->latch, UT_LATCH_PAGE);
		f->area = bp->mem + (size_t)i * g->page_size;
		f->free_next = bp->free_list;
		bp->free_list = f;
	}
	ut_mutex_init(&bp->mutex, UT_LATCH_POOL);
	ut_mutex_init(&bp->fl_mutex, UT_LATCH_FLUSH_LIST);
	ut_cond_init(&bp->free_cond);
	return 0;
}

void ut_bpool_destroy(struct ut_bpool *bp)
{
	unsigned i;

	if (bp->frames)
		for (i = 0; i < bp->n_frames; i++)
			ut_rwlock_destroy(&bp->frames[i].latch);
	free(bp->frames);
	free(bp->hash);
	free(bp->mem);
	bp->frames = NULL;
	bp->hash = NULL;
	bp->mem = NULL;
}

/* ---- lists (pool mutex held) --------------------------------------- */

static unsigned hash_of(const struct ut_bpool *bp, uint32_t page_no)
{
	return (page_no * 2654435761u) & bp->hash_mask;
}

static struct ut_frame *hash_find(struct ut_bpool *bp, uint32_t page_no)
{
	struct ut_frame *f = bp->hash[hash_of(bp, page_no)];

	while (f && f->page_no != page_no)
		f = f->hash_next;
	return f;
}

static void hash_insert(struct ut_bpool *bp, struct ut_frame *f)
{
	unsigned h = hash_of(bp, f->page_no);

	f->hash_next = bp->hash[h];
	bp->hash[h] = f;
}

static void hash_remove(struct ut_bpool *bp, struct ut_frame *f)
{
	struct ut_frame **pp = &bp->hash[hash_of(bp, f->page_no)];

	while (*pp && *pp != f)
		pp = &(*pp)->hash_next;
	if (*pp)
		*pp = f->hash_next;
	f->hash_next = NULL;
}

/* The LRU and the read-ahead list share the frames' lru_prev/lru_next:
 * a frame is on one of them (ra_unused says which) or on neither. */
static void list_remove(struct ut_frame **head, struct ut_frame **tail,
			struct ut_frame *f)
{
	if (f->lru_prev)
		f->lru_prev->lru_next = f->lru_next;
	else
		*head = f->lru_next;
	if (f->lru_next)
		f->lru_next->lru_prev = f->lru_prev;
	else
		*tail = f->lru_prev;
	f->lru_prev = f->lru_next = NULL;
}

static void list_push_tail(struct ut_frame **head, struct ut_frame **tail,
			   struct ut_frame *f)
{
	f->lru_next = NULL;
	f->lru_prev = *tail;
	if (*tail)
		(*tail)->lru_next = f;
	else
		*head = f;
	*tail = f;
}

static void lru_remove(struct ut_bpool *bp, struct ut_frame *f)
{
	list_remove(&bp->lru_head, &bp->lru_tail, f);
}

static void lru_push_head(struct ut_bpool *bp, struct ut_frame *f)
{
	f->lru_prev = NULL;
	f->lru_next = bp->lru_head;
	if (bp->lru_head)
		bp->lru_head->lru_prev = f;
	else
		bp->lru_tail = f;
	bp->lru_head = f;
}

static void lru_push_tail(struct ut_bpool *bp, struct ut_frame *f)
{
	list_push_tail(&bp->lru_head, &bp->lru_tail, f);
}

/* Off whichever list the frame is on. */
static void frame_unlist(struct ut_bpool *bp, struct ut_frame *f)
{
	if (f->ra_unused)
		list_remove(&bp->ra_head, &bp->ra_tail, f);
	else
		lru_remove(bp, f);
	f->ra_unused = 0;
}

/* A page read ahead is used: onto the LRU, at its old end for a scan's
 * own access (midpoint insertion), at its head otherwise. */
static void ra_used(struct ut_bpool *bp, struct ut_frame *f, int scan)
{
	frame_unlist(bp, f);
	if (scan)
		lru_push_tail(bp, f);
	else
		lru_push_head(bp, f);
}

/* bp->mutex and fl_mutex held: nobody can fix the frame anew (a
 * cleaner fixes under fl_mutex, everyone else under bp->mutex), nor dirty
 * or clean it (fl_mutex), so an unfixed clean frame stays so.  A frame
 * being flushed stays fixed by its cleaner until after io_fix is clear. */
static int evictable(struct ut_frame *f)
{
	return atomic_load(&f->fix) == 0 &&
	       (f->state == UT_FRAME_ERROR ||
		(f->state == UT_FRAME_READY && f->oldest_lsn == 0));
}

/* A frame to reuse, or NULL when every frame is fixed or dirty.  Pages
 * read ahead and not yet used go last: they were read to be used soon.
 * Pool mutex held; takes the flush list mutex (a leaf lock) for the scan:
 * without it a cleaner could fix, flush and clean a frame between the
 * looks at its fix count and its oldest LSN (ThreadSanitizer saw the
 * unordered reads). */
static struct ut_frame *frame_take_locked(struct ut_bpool *bp)
{
	struct ut_frame *f = bp->free_list;
	int pass;

	if (f) {
		bp->free_list = f->free_next;
		return f;
	}
	ut_mutex_lock(&bp->fl_mutex);
	/* the LRU from its old end; then pages read ahead, the newest (to
	 * be used last) first */
	for (pass = 0; pass < 2; pass++) {
		for (f = pass ? bp->ra_tail : bp->lru_tail; f;
		     f = f->lru_prev) {
			if (!evictable(f))
				continue;
			hash_remove(bp, f);
			frame_unlist(bp, f);
			bp->stats.evictions++;
			ut_mutex_unlock(&bp->fl_mutex);
			return f;
		}
	}
	ut_mutex_unlock(&bp->fl_mutex);
	return NULL;
}

/* ---- get / create / release ----------------------------------------- */

static void latch(struct ut_frame *f, enum ut_latch_mode mode)
{
	if (mode == UT_X)
		ut_rwlock_wrlock(&f->latch);
	else
		ut_rwlock_rdlock(&f->latch);
}

void ut_bpool_release(struct ut_bpool *bp, struct ut_frame *f,
		      enum ut_latch_mode mode)
{
	(void)bp;
	(void)mode;
	ut_rwlock_unlock(&f->latch);
	atomic_fetch_sub(&f->fix, 1);
}

/* Unpacks a page just read; torn pages are accepted only for recovery. */
static int frame_unpack(struct ut_bpool *bp, struct ut_frame *f, unsigned flags)
{
	struct ut_page_report *rep = NULL;
	int ret;

	if (flags & UT_UNPACK_TOLERATE_TORN) {
		rep = malloc(sizeof(*rep));
		if (!rep)
			return -ENOMEM;
	}
	ret = ut_page_unpack_inplace(&bp->geom, f->area, f->page_no, &f->meta,
				     rep, flags);
	free(rep);
	f->torn = ret == UT_PAGE_TORN;
	if (ret == UT_PAGE_TORN)
		return 0;
	if (ret == UT_PAGE_EMPTY)
		return (flags & UT_UNPACK_TOLERATE_TORN) ? 0 : -EBADMSG;
	return ret;
}

static int frame_read(struct ut_bpool *bp, struct ut_frame *f, unsigned flags)
{
	struct ut_ring *ring = ut_ring_thread();
	const struct ut_geom *g = &bp->geom;
	struct ut_io io;
	int ret;

	if (!ring)
		return -ENOMEM;
	ut_io_read(&io, bp->data_fd, f->area, g->page_size,
		   (uint64_t)f->page_no * g->page_size);
	ret = ut_ring_run(ring, &io, 1);
	if (ret)
		return ret == -ENODATA ? -EIO : ret;
	return frame_unpack(bp, f, flags);
}

/* Takes a frame for page_no, X-latched, in the hash; pool mutex held on
 * entry, and on return when a frame was found (*waited = 0). */
static struct ut_frame *frame_claim(struct ut_bpool *bp, uint32_t page_no,
				    int *waited, int old)
{
	struct ut_frame *f;

	*waited = 0;
	f = frame_take_locked(bp);
	if (!f) {
		bp->stats.free_waits++;
		if (bp->need_free)
			bp->need_free(bp->need_free_arg);
		ut_cond_wait(&bp->free_cond, &bp->mutex, UT_LATCH_POOL,
			     100000000ull);
		*waited = 1;
		return NULL;
	}
	f->page_no = page_no;
	f->state = UT_FRAME_READING;
	f->oldest_lsn = 0;
	f->newest_lsn = 0;
	f->io_fix = 0;
	f->redirty_lsn = 0;
	f->torn = 0;
	atomic_store(&f->fix, 1);
	hash_insert(bp, f);
	if (old)
		lru_push_tail(bp, f);
	else
		lru_push_head(bp, f);
	ut_rwlock_wrlock(&f->latch);
	return f;
}

static void frame_fail(struct ut_bpool *bp, struct ut_frame *f, int err)
{
	ut_mutex_lock(&bp->mutex);
	f->state = UT_FRAME_ERROR;
	f->error = err;
	hash_remove(bp, f);
	ut_mutex_unlock(&bp->mutex);
}

int ut_bpool_get(struct ut_bpool *bp, uint32_t page_no, enum ut_latch_mode mode,
		 unsigned flags, struct ut_frame **framep)
{
	struct ut_frame *f;
	int waited, ret;

	ut_mutex_lock(&bp->mutex);
	for (;;) {
		f = hash_find(bp, page_no);
		if (f) {
			atomic_fetch_add(&f->fix, 1);
			if (f->ra_unused) {
				ra_used(bp, f, !!(flags & UT_GET_SCAN));
			} else if (bp->lru_head != f &&
				   !(flags & UT_GET_SCAN)) {
				lru_remove(bp, f);
				lru_push_head(bp, f);
			}
			bp->stats.hits++;
			ut_mutex_unlock(&bp->mutex);
			latch(f, mode);
			if (f->state == UT_FRAME_ERROR) {
				ret = f->error;
				ut_bpool_release(bp, f, mode);
				return ret;
			}
			*framep = f;
			return 0;
		}
		f = frame_claim(bp, page_no, &waited, !!(flags & UT_GET_SCAN));
		if (f)
			break;
	}
	bp->stats.misses++;
	bp->stats.reads++;
	ut_mutex_unlock(&bp->mutex);
	ret = frame_read(bp, f, flags & UT_UNPACK_TOLERATE_TORN);
	if (ret) {
		frame_fail(bp, f, ret);
		ut_bpool_release(bp, f, UT_X);
		return ret;
	}
	f->state = UT_FRAME_READY;
	if (mode == UT_S) {
		ut_rwlock_unlock(&f->latch);
		ut_rwlock_rdlock(&f->latch);
	}
	*framep = f;
	return 0;
}

int ut_bpool_create(struct ut_bpool *bp, uint32_t page_no,
		    struct ut_frame **framep)
{
	struct ut_frame *f;
	int waited;

	ut_mutex_lock(&bp->mutex);
	f = hash_find(bp, page_no);
	if (f) {
		ut_mutex_unlock(&bp->mutex);
		return -EEXIST;
	}
	while (!(f = frame_claim(bp, page_no, &waited, 0)))
		if (hash_find(bp, page_no)) {
			ut_mutex_unlock(&bp->mutex);
			return -EEXIST;
		}
	ut_mutex_unlock(&bp->mutex);
	memset(f->area, 0, bp->geom.page_size);
	memset(&f->meta, 0, sizeof(f->meta));
	f->meta.page_no = page_no;
	f->state = UT_FRAME_READY;
	*framep = f;
	return 0;
}

/* ---- dirty tracking (flush list mutex held) -------------------------- */

void ut_bpool_dirty_locked(struct ut_bpool *bp, struct ut_frame *f,
			   uint64_t start_lsn, uint64_t end_lsn)
{
	f->newest_lsn = end_lsn;
	if (f->io_fix && !f->redirty_lsn)
		f->redirty_lsn = start_lsn;
	if (f->oldest_lsn)
		return;
	f->oldest_lsn = start_lsn;
	f->fl_prev = NULL;
	f->fl_next = bp->fl_head;
	if (bp->fl_head)
		bp->fl_head->fl_prev = f;
	else
		bp->fl_tail = f;
	bp->fl_head = f;
	bp->n_dirty++;
}

void ut_bpool_clean_locked(struct ut_bpool *bp, struct ut_frame *f)
{
	if (!f->oldest_lsn)
		return;
	if (f->fl_prev)
		f->fl_prev->fl_next = f->fl_next;
	else
		bp->fl_head = f->fl_next;
	if (f->fl_next)
		f->fl_next->fl_prev = f->fl_prev;
	else
		bp->fl_tail = f->fl_prev;
	f->fl_prev = f->fl_next = NULL;
	f->oldest_lsn = 0;
	bp->n_dirty--;
}

/*
 * Back into the flush list at the place of its new oldest LSN: after the
 * frames first changed since then, which are few (they were changed
 * while the batch was written), so the walk from the newest end is short.
 * The list stays sorted, and its tail stays the checkpoint's bound.
 */
static void flush_list_reinsert(struct ut_bpool *bp, struct ut_frame *f,
				uint64_t oldest_lsn)
{
	struct ut_frame *next;

	ut_bpool_clean_locked(bp, f);
	for (next = bp->fl_head; next && next->oldest_lsn > oldest_lsn;)
		next = next->fl_next;
	f->oldest_lsn = oldest_lsn;
	f->fl_next = next;
	f->fl_prev = next ? next->fl_prev : bp->fl_tail;
	if (f->fl_prev)
		f->fl_prev->fl_next = f;
	else
		bp->fl_head = f;
	if (next)
		next->fl_prev = f;
	else
		bp->fl_tail = f;
	bp->n_dirty++;
}

void ut_bpool_flushed_locked(struct ut_bpool *bp, struct ut_frame *f)
{
	if (f->redirty_lsn)
		flush_list_reinsert(bp, f, f->redirty_lsn);
	else
		ut_bpool_clean_locked(bp, f);
	f->redirty_lsn = 0;
}

void ut_bpool_unfix(struct ut_bpool *bp, struct ut_frame *f)
{
	(void)bp;
	atomic_fetch_sub(&f->fix, 1);
}

void ut_bpool_set_need_free(struct ut_bpool *bp, void (*need_free)(void *arg),
			    void *arg)
{
	bp->need_free = need_free;
	bp->need_free_arg = arg;
}

void ut_bpool_flush_list_lock(struct ut_bpool *bp)
{
	ut_mutex_lock(&bp->fl_mutex);
}

void ut_bpool_flush_list_unlock(struct ut_bpool *bp)
{
	ut_mutex_unlock(&bp->fl_mutex);
}

void ut_bpool_get_stats(struct ut_bpool *bp, struct ut_bpool_stats *st)
{
	ut_mutex_lock(&bp->mutex);
	*st = bp->stats;
	ut_mutex_unlock(&bp->mutex);
}

uint64_t ut_bpool_oldest_lsn(struct ut_bpool *bp)
{
	uint64_t lsn;

	ut_mutex_lock(&bp->fl_mutex);
	lsn = bp->fl_tail ? bp->fl_tail->oldest_lsn : 0;
	ut_mutex_unlock(&bp->fl_mutex);
	return lsn;
}

unsigned ut_bpool_dirty_count(struct ut_bpool *bp)
{
	unsigned n;

	ut_mutex_lock(&bp->fl_mutex);
	n = bp->n_dirty;
	ut_mutex_unlock(&bp->fl_mutex);
	return n;
}

void ut_bpool_flush_list_ends(struct ut_bpool *bp, unsigned *n_dirty,
			      uint64_t *oldest, uint64_t *newest)
{
	ut_mutex_lock(&bp->fl_mutex);
	*n_dirty = bp->n_dirty;
	*oldest = bp->fl_tail ? bp->fl_tail->oldest_lsn : 0;
	*newest = bp->fl_head ? bp->fl_head->oldest_lsn : 0;
	ut_mutex_unlock(&bp->fl_mutex);
}

void ut_bpool_wake_free(struct ut_bpool *bp)
{
	ut_mutex_lock(&bp->mutex);
	pthread_cond_broadcast(&bp->free_cond);
	ut_mutex_unlock(&bp->mutex);
}

/* ---- reads for read-ahead (readahead.c) ------------------------------ */

struct ut_frame *ut_bpool_claim_read(struct ut_bpool *bp, uint32_t page_no)
{
	struct ut_frame *f = NULL;

	ut_mutex_lock(&bp->mutex);
	if (!hash_find(bp, page_no)) {
		f = frame_take_locked(bp);
		if (f) {
			f->page_no = page_no;
			f->state = UT_FRAME_READING;
			f->oldest_lsn = f->newest_lsn = 0;
			f->io_fix = f->torn = 0;
			f->redirty_lsn = 0;
			f->ra_unused = 1;
			atomic_store(&f->fix, 1);
			hash_insert(bp, f);
			list_push_tail(&bp->ra_head, &bp->ra_tail, f);
			ut_rwlock_wrlock(&f->latch);
			bp->stats.misses++;
			bp->stats.reads++;
		}
	}
	ut_mutex_unlock(&bp->mutex);
	return f;
}

int ut_bpool_read_done(struct ut_bpool *bp, struct ut_frame *f, int ret,
		       unsigned flags)
{
	if (!ret)
		ret = frame_unpack(bp, f, flags);
	if (ret)
		frame_fail(bp, f, ret);
	else
		f->state = UT_FRAME_READY;
	ut_bpool_release(bp, f, UT_X);
	return ret;
}

void ut_bpool_evict_clean(struct ut_bpool *bp)
{
	struct ut_frame *f, *prev;
	unsigned i;
	int pass;

	ut_mutex_lock(&bp->mutex);
	ut_mutex_lock(&bp->fl_mutex); /* as evictable() needs */
	for (pass = 0; pass < 2; pass++) {
		for (f = pass ? bp->ra_tail : bp->lru_tail; f; f = prev) {
			prev = f->lru_prev;
			if (!evictable(f))
				continue;
			hash_remove(bp, f);
			frame_unlist(bp, f);
			f->state = UT_FRAME_FREE;
		}
	}
	/* every free frame, in memory order (as ut_bpool_init has them) */
	bp->free_list = NULL;
	for (i = bp->n_frames; i-- > 0;) {
		f = &bp->frames[i];
		if (f->state != UT_FRAME_FREE)
			continue;
		f->free_next = bp->free_list;
		bp->free_list = f;
	}
	ut_mutex_unlock(&bp->fl_mutex);
	ut_mutex_unlock(&bp->mutex);
}
