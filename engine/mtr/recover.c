// SPDX-License-Identifier: MIT
/*
 * recover.c - crash recovery: restore torn pages from the doublewrite
 * buffer, then apply redo from the checkpoint block by block (a record is
 * applied only to a block whose LSN is older than the record's group),
 * reading the pages redo touches in batches through the ring; then flush,
 * and checkpoint at the end of the log.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "base/bytes.h"
#include "buf/readahead.h"
#include "mtr/mtr.h"
#include "mtr/recover.h"
#include "base/probes.h"

/* Pages read in one sorted batch, at most (and a quarter of the pool): on
 * a disk, the more a batch holds, the shorter the sweep over the file
 * for each page; a hole of up to RECOVER_GAP pages between two of them
 * is read through, cheaper on a disk than another positioning (and a
 * little bandwidth on an SSD).  Measured: docs/architecture.md,
 * Recovery. */
#define RECOVER_BATCH 512
#define RECOVER_MERGE 256 /* pages read with one request, at most */
#define RECOVER_GAP 16

struct rec_ref {
	uint32_t page_no;
	uint32_t group;
	size_t off; /* of the record in the scan stream */
};

static int ref_order(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->page_no != y->page_no)
		return x->page_no < y->page_no ? -1 : 1;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static size_t rec_len(const unsigned char *r)
{
	if (r[0] == UT_REC_WRITE)
		return UT_REC_WRITE_HDR + get_le16(r + 8);
	return r[0] == UT_REC_MOVE ? UT_REC_MOVE_SIZE : UT_REC_INIT_SIZE;
}

/* One reference per record, sorted by page then log order. */
static int collect_refs(const struct ut_redo_scan *scan, struct rec_ref **out,
			size_t *n_out, uint32_t *max_page)
{
	struct rec_ref *refs = malloc((scan->records + 1) * sizeof(*refs));
	size_t n = 0, pos, end;
	uint64_t g;

	if (!refs)
		return -ENOMEM;
	*max_page = 0;
	for (g = 0; g < scan->groups; g++) {
		pos = scan->group_off[g];
		end = pos + UT_LOG_GROUP_HDR + get_le32(scan->stream + pos);
		for (pos += UT_LOG_GROUP_HDR; pos < end;
		     pos += rec_len(scan->stream + pos)) {
			refs[n].page_no = get_le32(scan->stream + pos + 1);
			refs[n].group = g;
			refs[n++].off = pos;
			if (refs[n - 1].page_no > *max_page)
				*max_page = refs[n - 1].page_no;
		}
	}
	qsort(refs, n, sizeof(*refs), ref_order);
	*out = refs;
	*n_out = n;
	return 0;
}

/* Whether len bytes at off of block b lie in the block's logical area. */
static int rec_in_block(const struct ut_geom *g, uint32_t b, uint32_t off,
			uint32_t len)
{
	return ut_page_logical(g, b, off) != UINT32_MAX &&
	       off + len <= g->block_size;
}

/* Applies the records of one page (refs[0..n), one page, log order). */
static int apply_page(const struct ut_recovery_ctx *rc, struct ut_frame *f,
		      const struct ut_redo_scan *scan,
		      const struct rec_ref *refs, size_t n,
		      struct ut_recovery_report *rep)
{
	const struct ut_geom *g = &rc->pool->geom;
	uint64_t before[UT_MAX_BLOCKS], lsn, newest = 0;
	const unsigned char *r;
	uint32_t b, off, src, len;
	int zeroed = 0, inited = 0;
	size_t i;

	memcpy(before, f->meta.blk_lsn, sizeof(before));
	for (b = 0; b < g->n_blocks; b++)
		zeroed |= before[b] == 0; /* empty page or zeroed block */
	for (i = 0; i < n; i++) {
		r = scan->stream + refs[i].off;
		lsn = scan->group_end[refs[i].group];
		if (i && refs[i].group != refs[i - 1].group)
			memcpy(before, f->meta.blk_lsn, sizeof(before));
		if (r[0] == UT_REC_INIT) {
			for (b = 0; b < g->n_blocks; b++) {
				if (before[b] >= lsn)
					continue;
				ut_page_block_span(g, b, &off, &len);
				memset(f->area + off, 0, len);
				f->meta.blk_lsn[b] = lsn;
			}
			if (before[0] < lsn) {
				f->meta.type = get_le16(r + 5);
				f->meta.level = get_le16(r + 7);
			}
			inited = 1;
			rep->records_applied++;
			newest = lsn;
			continue;
		}
		b = r[5];
		off = get_le16(r + 6);
		len = get_le16(r + (r[0] == UT_REC_MOVE ? 10 : 8));
		src = r[0] == UT_REC_MOVE ? get_le16(r + 8) : off;
		if (b >= g->n_blocks || !rec_in_block(g, b, off, len) ||
		    (src != off && !rec_in_block(g, b, src, len)))
			return -EUCLEAN;
		if (before[b] >= lsn) {
			rep->records_skipped++;
			continue;
		}
		if (r[0] == UT_REC_MOVE)
			ut_rec_apply_move(g, f, b, off, src, len);
		else
			ut_rec_apply_write(g, f, b, off, r + UT_REC_WRITE_HDR,
					   len);
		f->meta.blk_lsn[b] = lsn;
		rep->records_applied++;
		newest = lsn;
	}
	/* a block with no content can only be trusted when redo rebuilt
	 * the page from its creation */
	if (zeroed && !inited)
		return -ENODATA;
	if (!newest && !f->torn)
		return 0;
	if (!newest)
		newest = f->meta.page_lsn;
	f->meta.page_no = f->page_no;
	if (newest > f->meta.page_lsn)
		f->meta.page_lsn = newest;
	ut_bpool_flush_list_lock(rc->pool);
	ut_bpool_dirty_locked(rc->pool, f, scan->start_lsn, newest);
	ut_bpool_flush_list_unlock(rc->pool);
	return 0;
}

/*
 * Reads pages[0..n) (ascending) as one merged read-ahead batch, then fixes
 * and X-latches each; frames[j] is NULL and errs[j] the reason for a page
 * that could not be read or rebuilt.
 */
static int read_batch(const struct ut_recovery_ctx *rc, struct ut_prefetch *pf,
		      const uint32_t *pages, unsigned n,
		      struct ut_frame **frames, int *errs)
{
	unsigned j;
	int ret;

	ret = ut_prefetch_start(rc->pool, pf, pages, n, RECOVER_MERGE,
				RECOVER_GAP, UT_UNPACK_TOLERATE_TORN);
	/* a page the batch could not read is dropped from the pool: the
	 * read below tries it again and reports why */
	ut_prefetch_finish(rc->pool, pf);
	if (ret == -ENOMEM)
		return ret;
	for (j = 0; j < n; j++) {
		errs[j] = ut_bpool_get(rc->pool, pages[j], UT_X,
				       UT_UNPACK_TOLERATE_TORN, &frames[j]);
		if (errs[j])
			frames[j] = NULL;
	}
	return 0;
}

static int apply_error(const struct ut_recovery_ctx *rc, uint32_t page_no,
		       int ret, struct ut_err *err)
{
	if (ret == -ENODATA)
		return ut_err_set(err, -EUCLEAN,
				  "%s: page %u has zeroed blocks and the redo log does not hold its creation, so it cannot be rebuilt; restore the store from a backup",
				  rc->store->data_path, page_no);
	if (ret)
		return ut_err_set(err, ret,
				  "%s: redo record for page %u does not fit the page format; the log is damaged: restore the store from a backup",
				  rc->store->data_path, page_no);
	return 0;
}

/* A batch holds its pages X-latched until they are applied: a quarter of
 * the pool at most. */
static unsigned recover_batch(const struct ut_recovery_ctx *rc)
{
	unsigned most = rc->pool->n_frames / 4;

	return most < 1 ? 1 : most < RECOVER_BATCH ? most : RECOVER_BATCH;
}

static int apply_all(const struct ut_recovery_ctx *rc,
		     const struct ut_redo_scan *scan,
		     const struct rec_ref *refs, size_t n_refs,
		     struct ut_recovery_report *rep, struct ut_err *err)
{
	unsigned batch = rc->sync_reads ? 1 : recover_batch(rc);
	const struct ut_ring_stats *rs = ut_ring_stats(ut_ring_thread());
	uint64_t submits0, sqes0;
	uint32_t pages[RECOVER_BATCH];
	struct ut_frame *frames[RECOVER_BATCH];
	int errs[RECOVER_BATCH], ret;
	size_t i = 0, first[RECOVER_BATCH + 1], k;
	struct ut_prefetch pf;
	unsigned n, j;

	/* staging for a batch and the holes between its pages, sized by
	 * the batch this pool allows */
	ret = ut_prefetch_init(&pf, batch, batch * 2, rc->pool->geom.page_size);
	if (ret)
		return ut_err_set(err, ret, "out of memory for recovery reads");
	while (i < n_refs && !ret) {
		for (n = 0; n < batch && i < n_refs; n++) {
			pages[n] = refs[i].page_no;
			first[n] = i;
			while (i < n_refs && refs[i].page_no == pages[n])
				i++;
		}
		first[n] = i;
		submits0 = rs->submits;
		sqes0 = rs->sqes;
		ret = read_batch(rc, &pf, pages, n, frames, errs);
		rep->read_submits += rs->submits - submits0;
		rep->read_ios += rs->sqes - sqes0;
		if (ret)
			break;
		rep->pages_read += n;
		for (j = 0; j < n; j++) {
			if (!frames[j]) {
				ret = ut_err_set(err, errs[j],
						 "%s: page %u is damaged (%s) and neither the doublewrite buffer nor redo can rebuild it; restore the store from a backup",
						 rc->store->data_path, pages[j],
						 errs[j] == -EBADMSG ?
							 "a block fails its checksum" :
							 strerror(-errs[j]));
				continue;
			}
			k = first[j];
			if (!ret)
				ret = apply_error(rc, pages[j],
						  apply_page(rc, frames[j],
							     scan, refs + k,
							     first[j + 1] - k,
							     rep),
						  err);
			ut_bpool_release(rc->pool, frames[j], UT_X);
		}
		if (!ret &&
		    ut_bpool_dirty_count(rc->pool) > rc->pool->n_frames / 2)
			ret = ut_flush_all(rc->flush);
	}
	ut_prefetch_free(&pf);
	return ret;
}

/* The log is damaged where it stops: says where, and what is at stake. */
static int log_damage_refused(const struct ut_recovery_ctx *rc,
			      const struct ut_redo_scan *scan,
			      struct ut_err *err)
{
	if (scan->sound_after_lsn)
		return ut_err_set(err, -EUCLEAN,
				  "%s: the redo log is damaged at LSN %llu (%s) and sound log follows up to LSN %llu: transactions committed after the damage would be lost; restore the store from a backup, or accept the loss with: untorn recover %s --accept-log-loss",
				  rc->log->path,
				  (unsigned long long)scan->damage_lsn,
				  scan->stop_reason,
				  (unsigned long long)scan->sound_after_lsn,
				  rc->store->dir);
	return ut_err_set(err, -EUCLEAN,
			  "%s: the redo log is damaged at LSN %llu (%s) where it ends: transactions committed last may have been in the damaged blocks and would be lost; restore the store from a backup, or accept the loss with: untorn recover %s --accept-log-loss",
			  rc->log->path, (unsigned long long)scan->damage_lsn,
			  scan->stop_reason, rc->store->dir);
}

/* recovery__phase__start/done (name; ns and items: pages restored,
 * records scanned, record references applied) */
static uint64_t phase_start(const char *name)
{
	UT_PROBE(recovery__phase__start, name);
	return UT_PROBE_ENABLED(recovery__phase__done) ? ut_now_ns() : 0;
}

static void phase_done(const char *name, uint64_t t0, uint64_t items)
{
	if (t0)
		UT_PROBE(recovery__phase__done, name, ut_now_ns() - t0, items);
}

int ut_recover(const struct ut_recovery_ctx *rc, struct ut_recovery_report *rep,
	       struct ut_err *err)
{
	struct ut_redo_scan scan;
	struct rec_ref *refs = NULL;
	uint64_t t0 = ut_now_ns(), start, phase;
	uint32_t max_page = 0;
	size_t n_refs = 0;
	int ret;

	memset(rep, 0, sizeof(*rep));
	rep->checkpoint_lsn = rc->store->ckpt.checkpoint_lsn;
	if (rc->guard->ops->restore) {
		const struct ut_guard_ops *ops = rc->guard->ops;
		const char *name = ops->restore_phase ? ops->restore_phase :
							"guard-restore";
		struct ut_guard_restore gr = { 0 };

		phase = phase_start(name);
		ret = ops->restore(rc->guard, rc->store->data_fd,
				   rc->store->file_pages, &gr, err);
		phase_done(name, phase, ret ? 0 : gr.pages_restored);
		if (ret)
			return ret;
		rep->guard = ops->name;
		rep->restored_from = ops->file ? ops->file->copy :
						 "the guard's copy";
		rep->guard_checked = gr.pages_checked;
		rep->guard_restored = gr.pages_restored;
		memcpy(rep->restored, gr.restored, sizeof(rep->restored));
	}
	phase = phase_start("redo-scan");
	ret = ut_redo_scan(rc->log, ut_ring_thread(), rep->checkpoint_lsn,
			   &scan, err);
	phase_done("redo-scan", phase, ret ? 0 : scan.records);
	if (ret)
		return ret;
	rep->end_lsn = scan.end_lsn;
	rep->groups = scan.groups;
	rep->records = scan.records;
	rep->redo_bytes = scan.bytes;
	rep->stop_reason = scan.stop_reason;
	rep->damage_lsn = scan.damage_lsn;
	rep->sound_after_lsn = scan.sound_after_lsn;
	rep->gap_lsn = scan.gap_lsn;
	rep->gap_sound_after_lsn = scan.gap_sound_after_lsn;
	rep->needed = scan.groups > 0;
	if (scan.damage_lsn && !rc->accept_log_loss) {
		ret = log_damage_refused(rc, &scan, err);
		ut_redo_scan_free(&scan);
		return ret;
	}
	/*
	 * The new log starts a lap ahead of the checkpoint, past anything
	 * the old log could have held: every block it left in the file --
	 * a cut write's whole blocks after the last complete group, sectors
	 * of an unsynced write that reached the disk out of order, damage
	 * accepted, pages' LSNs from beyond it -- holds an LSN below the new
	 * log's, so no later scan reads one of them as new log.  Only where
	 * the log ends at the checkpoint, on a block's first byte, with
	 * nothing after it (the last run wrote nothing: an open of a closed
	 * store), does it go on in place and the open write nothing.
	 */
	start = scan.end_lsn;
	if (ut_lsn_next_block(start) != start || !ut_redo_scan_empty(&scan))
		start = ut_lsn_next_block(rep->checkpoint_lsn +
					  rc->log->capacity);
	ut_redo_start(rc->log, start, rep->checkpoint_lsn);
	if (scan.groups) {
		ret = collect_refs(&scan, &refs, &n_refs, &max_page);
		if (!ret)
			ret = ut_space_recovered(rc->space, max_page, err);
		phase = phase_start("redo-apply");
		if (!ret)
			ret = apply_all(rc, &scan, refs, n_refs, rep, err);
		phase_done("redo-apply", phase, n_refs);
		phase = phase_start("flush");
		if (!ret)
			ret = ut_flush_all(rc->flush);
		phase_done("flush", phase, 0);
	}
	free(refs);
	ut_redo_scan_free(&scan);
	if (!ret)
		ret = ut_checkpoint(rc->ckpt);
	/* the log goes on past a gap: no slot may name a checkpoint before
	 * it, or a damaged newest slot would send the next recovery to the
	 * older one, and its scan would end at the gap with the new log's
	 * commits unapplied */
	if (!ret && start != rep->end_lsn)
		ret = ut_checkpoint_mirror(rc->ckpt);
	/* damage accepted: nothing in the old log is needed once the
	 * checkpoint is past it, and its damaged blocks must not stay in
	 * the circle to be met again (a crash before this meets them once
	 * more, and the same --accept-log-loss loses nothing more) */
	if (!ret && rep->damage_lsn)
		ret = ut_redo_clear(rc->log, err);
	if (ret && err && !err->msg[0])
		ut_err_set(err, ret, "%s: recovery failed: %s",
			   rc->store->data_path, strerror(-ret));
	rep->seconds = (ut_now_ns() - t0) / 1e9;
	return ret;
}
