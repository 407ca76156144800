// SPDX-License-Identifier: MIT
/*
 * engine.c - the engine's open (each layer's part made and wired: the
 * space, pool, log, guard, checkpoints, cleaners and tree, then
 * recovery) and close, the lazy-commit log writer, reads (get, scan)
 * and the statistics.  Row writes are txn.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <untorn/engine.h>
#include "base/err.h"
#include "engine_int.h"
#include "mtr/recover.h"
#include "store/placement.h"

#define LAZY_FLUSH_NS 100000000ull

void ut_engine_opts_default(struct ut_engine_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pool_bytes = UT_BPOOL_BYTES_DEFAULT;
	o->commit = UT_COMMIT_SYNC;
	o->cleaners = UT_FLUSH_CLEANERS_DEFAULT;
	o->batch = UT_FLUSH_BATCH_DEFAULT;
	o->flushing = UT_FLUSHING_EAGER;
}

/* ---- lazy commit ----------------------------------------------------- */

static void *log_writer_main(void *arg)
{
	struct ut_engine *eng = arg;
	int stopping;

	do {
		stopping = ut_flush_wait_progress(&eng->flush, LAZY_FLUSH_NS);
		ut_redo_flush_to(&eng->log, ut_redo_current(&eng->log));
	} while (!stopping);
	return NULL;
}

/* ---- open / close --------------------------------------------------- */

static int engine_files(struct ut_engine *eng, const char *dir,
			struct ut_err *err)
{
	char path[4200];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, UT_LOG_FILE);
	ret = ut_redo_open(&eng->log, path, eng->store->sb.uuid, err);
	if (ret == -ENOENT) /* in its own directory, not mounted? */
		ut_place_explain(dir, UT_LOG_FILE, "redo log", err);
	if (ret)
		return ret;
	ut_redo_set_need_space(&eng->log, ut_flush_want_log_space, &eng->flush);
	ret = ut_redo_commit_journal(&eng->log);
	if (ret < 0) {
		ut_err_set(err, ret,
			   "%s: cannot open the redo log's directory: %s", path,
			   strerror(-ret));
		ut_redo_close(&eng->log);
		return ret;
	}
	ret = ut_guard_open(&eng->guard, eng->store->sb.guard, &eng->geom,
			    eng->store->page_fd, dir, eng->store->sb.uuid, err);
	if (ret == -ENOENT && eng->guard.ops && eng->guard.ops->file)
		ut_place_explain(dir, eng->guard.ops->file->name,
				 eng->guard.ops->file->what, err);
	if (ret) {
		ut_redo_close(&eng->log);
		return ret;
	}
	/* the checkpoint slot is made durable the way the pages are */
	if (eng->guard.ops->sync)
		ut_store_set_slot_sync(eng->store, ut_guard_sync_writes,
				       &eng->guard);
	return 0;
}

/* The parts above the files: checkpoints, cleaners, the tree. */
static void engine_parts_init(struct ut_engine *eng)
{
	ut_checkpointer_init(&eng->ckpt, &eng->pool, &eng->log, eng->store,
			     &eng->space, &eng->guard);
	ut_flush_init(&eng->flush, &eng->pool, &eng->log, &eng->guard,
		      &eng->ckpt, eng->opts.batch);
	ut_flush_set_adaptive(&eng->flush,
			      eng->opts.flushing == UT_FLUSHING_ADAPTIVE);
	ut_flush_set_pacing(&eng->flush, !eng->opts.no_pacing);
	if (!eng->opts.pace_age && !eng->opts.no_pacing)
		ut_flush_set_forecast(&eng->flush, !eng->store->direct);
	ut_tree_init(&eng->tree, &eng->pool, &eng->log, &eng->space,
		     eng->store->ckpt.root_page);
}

static int engine_recover(struct ut_engine *eng, struct ut_recovery_report *rep,
			  struct ut_err *err)
{
	const struct ut_recovery_ctx rc = {
		.store = eng->store,
		.pool = &eng->pool,
		.log = &eng->log,
		.guard = &eng->guard,
		.space = &eng->space,
		.flush = &eng->flush,
		.ckpt = &eng->ckpt,
		.sync_reads = eng->opts.recovery_sync_reads,
		.accept_log_loss = eng->opts.accept_log_loss,
	};

	return ut_recover(&rc, rep, err);
}

static void engine_files_close(struct ut_engine *eng)
{
	ut_store_set_slot_sync(eng->store, NULL, NULL);
	ut_guard_close(&eng->guard);
	ut_redo_close(&eng->log);
}

/* Large transactions committed before a crash and not yet applied:
 * applied now, before the store is handed out.  On failure the engine is
 * closed (what was applied stays; the file is applied at the next open). */
static int engine_txn_files(struct ut_engine *eng, struct ut_err *err)
{
	unsigned applied, bad;
	struct ut_err close_err;
	int ret = ut_txn_files_recover(eng, &applied, &bad, err);

	if (ret)
		ut_engine_close(eng, &close_err);
	return ret;
}

int ut_engine_open(const char *dir, const struct ut_engine_opts *o,
		   struct ut_engine **engp, struct ut_recovery_report *rep,
		   struct ut_err *err)
{
	struct ut_recovery_report local;
	struct ut_engine *eng;
	int ret;

	eng = calloc(1, sizeof(*eng));
	if (!eng)
		return ut_err_set(err, -ENOMEM, "out of memory");
	eng->opts = *o;
	ut_txn_keys_init(&eng->txn_keys);
	if (!eng->opts.batch || eng->opts.batch > UT_FLUSH_BATCH_MAX)
		eng->opts.batch = UT_FLUSH_BATCH_DEFAULT;
	ret = ut_store_open_wait(dir, 0, o->lock_wait_ms, &eng->store, err);
	if (ret)
		goto out_free;
	eng->geom = eng->store->geom;
	ut_space_init(&eng->space, eng->store, eng->store->ckpt.n_pages);
	ret = ut_bpool_init(&eng->pool, &eng->geom, o->pool_bytes,
			    eng->store->page_fd, eng->store->data_path, err);
	if (ret)
		goto out_store;
	ut_bpool_set_need_free(&eng->pool, ut_flush_want_free, &eng->flush);
	ret = engine_files(eng, dir, err);
	if (ret)
		goto out_pool;
	if (eng->guard.ops->max_batch) {
		unsigned max = eng->guard.ops->max_batch(&eng->guard);

		if (eng->opts.batch > max)
			eng->opts.batch = max;
	}
	engine_parts_init(eng);
	ret = engine_recover(eng, rep ? rep : &local, err);
	if (ret)
		goto out_files;
	ret = ut_cleaners_start(&eng->flush, eng->opts.cleaners);
	if (ret) {
		ut_err_set(err, ret, "cannot start the page cleaners: %s",
			   strerror(-ret));
		goto out_files;
	}
	if (o->commit == UT_COMMIT_LAZY &&
	    !pthread_create(&eng->log_writer, NULL, log_writer_main, eng))
		eng->log_writer_running = 1;
	ret = engine_txn_files(eng, err);
	if (ret)
		return ret;
	*engp = eng;
	return 0;

out_files:
	engine_files_close(eng);
out_pool:
	ut_bpool_destroy(&eng->pool);
out_store:
	ut_store_close(eng->store);
out_free:
	ut_txn_keys_destroy(&eng->txn_keys);
	free(eng);
	return ret;
}

int ut_engine_close(struct ut_engine *eng, struct ut_err *err)
{
	return ut_engine_close_stats(eng, NULL, err);
}

int ut_engine_close_stats(struct ut_engine *eng, struct ut_engine_stats *s,
			  struct ut_err *err)
{
	int ret;

	ut_cleaners_stop(&eng->flush);
	if (eng->log_writer_running)
		pthread_join(eng->log_writer, NULL);
	ret = ut_flush_fatal(&eng->flush);
	if (!ret)
		ret = ut_flush_all(&eng->flush);
	if (!ret)
		ret = ut_checkpoint(&eng->ckpt);
	if (ret)
		ut_err_set(err, ret,
			   "%s: shutdown could not write every page (%s); the next open recovers from the redo log",
			   eng->store->data_path, strerror(-ret));
	/* after the last flush: what closing wrote counts too */
	if (s)
		ut_engine_stats(eng, s);
	engine_files_close(eng);
	ut_bpool_destroy(&eng->pool);
	ut_store_close(eng->store);
	ut_txn_keys_destroy(&eng->txn_keys);
	free(eng);
	return ret;
}

/* ---- rows ----------------------------------------------------------- */

uint32_t ut_engine_value_max(const struct ut_engine *eng)
{
	return eng->geom.area_size / UT_VALUE_MAX_FRACTION;
}

int ut_get(struct ut_engine *eng, uint64_t key, void *buf, uint32_t cap,
	   uint32_t *len)
{
	return ut_btree_get(&eng->tree, key, buf, cap, len);
}

int ut_scan(struct ut_engine *eng, uint64_t from, ut_scan_fn fn, void *user)
{
	return ut_btree_scan(&eng->tree, from, fn, user);
}

void ut_engine_stats(struct ut_engine *eng, struct ut_engine_stats *s)
{
	struct ut_guard_stats gs = { 0 };
	struct ut_bpool_stats ps;

	memset(s, 0, sizeof(*s));
	s->commits = atomic_load(&eng->commits);
	s->pages_written = ut_flush_pages_written(&eng->flush);
	s->page_bytes_written = s->pages_written * eng->geom.page_size;
	s->redo_bytes_written =
		__atomic_load_n(&eng->log.bytes_written, __ATOMIC_RELAXED);
	if (eng->guard.ops->stats)
		eng->guard.ops->stats(&eng->guard, &gs);
	s->guard_copy_bytes = gs.copy_bytes;
	s->guard_slot_waits = gs.slot_waits;
	s->guard_slot_wait_ns = gs.slot_wait_ns;
	s->guard_commits = gs.commits;
	s->redo_commits = __atomic_load_n(&eng->log.commits, __ATOMIC_RELAXED);
	s->fsyncs = __atomic_load_n(&eng->log.fsyncs, __ATOMIC_RELAXED) +
		    atomic_load(&eng->guard.data_fsyncs) + gs.fsyncs;
	s->checkpoints = ut_checkpoint_count(&eng->ckpt);
	ut_bpool_get_stats(&eng->pool, &ps);
	s->pool_reads = ps.reads;
	s->pool_hits = ps.hits;
	s->pool_misses = ps.misses;
	s->pool_free_waits = ps.free_waits;
	ut_flush_get_log_waits(&eng->flush, &s->log_space_waits,
			       &s->log_space_wait_ns);
	ut_flush_get_log_pacing(&eng->flush, &s->log_pace_waits,
				&s->log_pace_ns);
	s->checkpoint_age = ut_redo_age(&eng->log);
	s->log_capacity = eng->log.capacity;
}

const char *ut_engine_guard(const struct ut_engine *eng)
{
	return eng->guard.ops->name;
}

const char *ut_engine_page_writer(const struct ut_engine *eng)
{
	const struct ut_guard_ops *ops = eng->guard.ops;

	return ops->writer ? ops->writer(&eng->guard) : NULL;
}

uint32_t ut_engine_page_size(const struct ut_engine *eng)
{
	return eng->geom.page_size;
}

uint32_t ut_engine_block_size(const struct ut_engine *eng)
{
	return eng->geom.block_size;
}

const char *ut_engine_data_path(const struct ut_engine *eng)
{
	return eng->store->data_path;
}
