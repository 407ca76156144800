// SPDX-License-Identifier: MIT
/*
 * engine.c - opening and closing the engine, page allocation, checkpoints,
 * log-space and free-frame requests, the lazy-commit log writer, and the
 * row API (put/get/delete/scan).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <untorn/engine.h>
#include "btree.h"
#include "engine_int.h"
#include "probes.h"

#define LAZY_FLUSH_NS	100000000ull

void ut_engine_opts_default(struct ut_engine_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pool_bytes = 128ull << 20;
	o->commit = UT_COMMIT_SYNC;
	o->cleaners = 2;
	o->batch = 64;
}

/* ---- allocation ------------------------------------------------------ */

int ut_engine_reserve_pages(struct ut_engine *eng, unsigned n)
{
	int ret;

	ut_mutex_lock(&eng->alloc_mutex);
	ret = ut_store_grow(eng->store, (uint64_t)eng->n_pages + n, NULL);
	ut_mutex_unlock(&eng->alloc_mutex);
	return ret;
}

int ut_engine_alloc_page(struct ut_engine *eng, uint32_t *page_no)
{
	int ret = 0;

	ut_mutex_lock(&eng->alloc_mutex);
	if (eng->n_pages >= eng->store->file_pages)
		ret = ut_store_grow(eng->store, (uint64_t)eng->n_pages + 1, NULL);
	if (!ret)
		*page_no = eng->n_pages++;
	ut_mutex_unlock(&eng->alloc_mutex);
	return ret;
}

/* ---- checkpoints and requests --------------------------------------- */

int ut_engine_checkpoint(struct ut_engine *eng)
{
	uint64_t lsn, oldest;
	uint64_t t0 = UT_PROBE_ENABLED(checkpoint__done) ? ut_now_ns() : 0;
	struct ut_ckpt ck;
	int ret = 0;

	ut_mutex_lock(&eng->ckpt_mutex);
	ut_mutex_lock(&eng->log.mutex);
	ut_mutex_lock(&eng->pool.fl_mutex);
	oldest = eng->pool.fl_tail ? eng->pool.fl_tail->oldest_lsn : 0;
	lsn = oldest ? oldest : eng->log.cur_lsn;
	ut_mutex_unlock(&eng->pool.fl_mutex);
	ut_mutex_unlock(&eng->log.mutex);
	if (lsn <= eng->store->ckpt.checkpoint_lsn)
		goto out_unlock;
	ret = ut_redo_flush_to(&eng->log, lsn);
	if (ret)
		goto out_unlock;
	ck = eng->store->ckpt;
	ck.checkpoint_lsn = lsn;
	ut_mutex_lock(&eng->alloc_mutex);
	ck.n_pages = eng->n_pages;
	ut_mutex_unlock(&eng->alloc_mutex);
	ck.root_page = eng->root;
	ret = ut_store_write_checkpoint(eng->store, &ck, NULL);
	if (ret)
		goto out_unlock;
	atomic_fetch_add(&eng->checkpoints, 1);
	ut_redo_set_checkpoint(&eng->log, lsn);
	if (t0)
		UT_PROBE(checkpoint__done, lsn, ut_now_ns() - t0);
out_unlock:
	ut_mutex_unlock(&eng->ckpt_mutex);
	return ret;
}

static void request_log_space(void *arg)
{
	struct ut_engine *eng = arg;
	uint64_t target = ut_redo_current(&eng->log) - eng->log.capacity / 2;

	ut_mutex_lock(&eng->cleaner_mutex);
	if (target > eng->flush_target_lsn)
		eng->flush_target_lsn = target;
	pthread_cond_broadcast(&eng->cleaner_cond);
	ut_mutex_unlock(&eng->cleaner_mutex);
}

static void request_free_frames(void *arg)
{
	struct ut_engine *eng = arg;

	ut_mutex_lock(&eng->cleaner_mutex);
	eng->free_wanted = 1;
	pthread_cond_broadcast(&eng->cleaner_cond);
	ut_mutex_unlock(&eng->cleaner_mutex);
}

/*
 * Called before an operation latches anything: when the log is 5/8 full,
 * ask the cleaners for a checkpoint and wait until there is room again,
 * instead of failing later with the log full.
 */
void ut_engine_log_free_check(struct ut_engine *eng)
{
	uint64_t limit = eng->log.capacity / 8 * 5;

	while (ut_redo_age(&eng->log) > limit && !eng->fatal &&
	       eng->n_cleaners) {
		request_log_space(eng);
		ut_mutex_lock(&eng->cleaner_mutex);
		ut_cond_wait(&eng->progress_cond, &eng->cleaner_mutex,
			     UT_LATCH_CLEANER, 100000000ull);
		ut_mutex_unlock(&eng->cleaner_mutex);
	}
}

/* ---- lazy commit ----------------------------------------------------- */

static void *log_writer_main(void *arg)
{
	struct ut_engine *eng = arg;

	ut_mutex_lock(&eng->cleaner_mutex);
	while (!eng->stopping) {
		ut_cond_wait(&eng->progress_cond, &eng->cleaner_mutex,
			     UT_LATCH_IDLE, LAZY_FLUSH_NS);
		ut_mutex_unlock(&eng->cleaner_mutex);
		ut_redo_flush_to(&eng->log, ut_redo_current(&eng->log));
		ut_mutex_lock(&eng->cleaner_mutex);
	}
	ut_mutex_unlock(&eng->cleaner_mutex);
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
	if (ret)
		return ret;
	eng->log.need_space = request_log_space;
	eng->log.need_space_arg = eng;
	ret = ut_guard_open(&eng->guard, eng->store->sb.guard, &eng->geom,
			    eng->store->page_fd, dir, eng->store->sb.uuid, err);
	if (ret)
		ut_redo_close(&eng->log);
	return ret;
}

static void engine_sync_init(struct ut_engine *eng)
{
	ut_rwlock_init(&eng->tree_latch, UT_LATCH_TREE);
	ut_mutex_init(&eng->alloc_mutex, UT_LATCH_ALLOC);
	ut_mutex_init(&eng->cleaner_mutex, UT_LATCH_CLEANER);
	ut_mutex_init(&eng->ckpt_mutex, UT_LATCH_CLEANER);
	ut_cond_init(&eng->cleaner_cond);
	ut_cond_init(&eng->progress_cond);
}

static void engine_files_close(struct ut_engine *eng)
{
	ut_guard_close(&eng->guard);
	ut_redo_close(&eng->log);
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
	if (!eng->opts.batch || eng->opts.batch > UT_DBLWR_MAX_BATCH)
		eng->opts.batch = 64;
	ret = ut_store_open_wait(dir, 0, o->lock_wait_ms, &eng->store, err);
	if (ret)
		goto out_free;
	eng->geom = eng->store->geom;
	eng->root = eng->store->ckpt.root_page;
	eng->n_pages = eng->store->ckpt.n_pages;
	ret = ut_bpool_init(&eng->pool, &eng->geom, o->pool_bytes,
			    eng->store->page_fd, eng->store->data_path, err);
	if (ret)
		goto out_store;
	eng->pool.need_free = request_free_frames;
	eng->pool.need_free_arg = eng;
	ret = engine_files(eng, dir, err);
	if (ret)
		goto out_pool;
	if (eng->guard.ops->max_batch) {
		unsigned max = eng->guard.ops->max_batch(&eng->guard);

		if (eng->opts.batch > max)
			eng->opts.batch = max;
	}
	engine_sync_init(eng);
	ret = ut_recover(eng, rep ? rep : &local, err);
	if (ret)
		goto out_files;
	ret = ut_cleaners_start(eng);
	if (ret) {
		ut_err_set(err, ret, "cannot start the page cleaners: %s",
			   strerror(-ret));
		goto out_files;
	}
	if (o->commit == UT_COMMIT_LAZY &&
	    !pthread_create(&eng->log_writer, NULL, log_writer_main, eng))
		eng->log_writer_running = 1;
	*engp = eng;
	return 0;

out_files:
	engine_files_close(eng);
out_pool:
	ut_bpool_destroy(&eng->pool);
out_store:
	ut_store_close(eng->store);
out_free:
	free(eng);
	return ret;
}

int ut_engine_close(struct ut_engine *eng, struct ut_err *err)
{
	int ret;

	ut_cleaners_stop(eng);
	if (eng->log_writer_running)
		pthread_join(eng->log_writer, NULL);
	ret = eng->fatal;
	if (!ret)
		ret = ut_flush_all(eng);
	if (!ret)
		ret = ut_engine_checkpoint(eng);
	if (ret)
		ut_err_set(err, ret, "%s: shutdown could not write every page (%s); the next open recovers from the redo log",
			   eng->store->data_path, strerror(-ret));
	engine_files_close(eng);
	ut_bpool_destroy(&eng->pool);
	ut_store_close(eng->store);
	free(eng);
	return ret;
}

/* ---- rows ----------------------------------------------------------- */

uint32_t ut_engine_value_max(const struct ut_engine *eng)
{
	return eng->geom.area_size / UT_VALUE_MAX_FRACTION;
}

static int commit_wait(struct ut_engine *eng, uint64_t lsn)
{
	atomic_fetch_add(&eng->commits, 1);
	if (eng->opts.commit == UT_COMMIT_SYNC && lsn)
		return ut_redo_flush_to(&eng->log, lsn);
	return 0;
}

static int row_error(struct ut_engine *eng, int ret, struct ut_err *err)
{
	if (ret == -ENOSPC || ret == -EDQUOT)
		return ut_err_set(err, ret, "%s: no space left to grow the data file; free space on the filesystem, then retry (committed rows are safe)",
				  eng->store->data_path);
	return ut_err_set(err, ret, "%s: write failed: %s", eng->store->data_path,
			  strerror(-ret));
}

int ut_put(struct ut_engine *eng, uint64_t key, const void *val,
	   uint32_t len, struct ut_err *err)
{
	uint64_t lsn = 0;
	int ret;

	if (eng->fatal)
		return row_error(eng, eng->fatal, err);
	if (len > ut_engine_value_max(eng))
		return ut_err_set(err, -E2BIG, "value of %u bytes is larger than %u, 1/8 of a page's record area",
				  len, ut_engine_value_max(eng));
	ret = ut_btree_put(eng, key, val, len, &lsn);
	if (!ret)
		ret = commit_wait(eng, lsn);
	return ret ? row_error(eng, ret, err) : 0;
}

int ut_delete(struct ut_engine *eng, uint64_t key, struct ut_err *err)
{
	uint64_t lsn = 0;
	int ret;

	if (eng->fatal)
		return row_error(eng, eng->fatal, err);
	ret = ut_btree_delete(eng, key, &lsn);
	if (ret == -ENOENT)
		return ut_err_set(err, ret, "key %llu not found",
				  (unsigned long long)key);
	if (!ret)
		ret = commit_wait(eng, lsn);
	return ret ? row_error(eng, ret, err) : 0;
}

int ut_get(struct ut_engine *eng, uint64_t key, void *buf, uint32_t cap,
	   uint32_t *len)
{
	return ut_btree_get(eng, key, buf, cap, len);
}

int ut_scan(struct ut_engine *eng, uint64_t from, ut_scan_fn fn, void *user)
{
	return ut_btree_scan(eng, from, fn, user);
}

void ut_engine_stats(struct ut_engine *eng, struct ut_engine_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->commits = atomic_load(&eng->commits);
	s->pages_written = atomic_load(&eng->pages_written);
	s->page_bytes_written = s->pages_written * eng->geom.page_size;
	s->redo_bytes_written = __atomic_load_n(&eng->log.bytes_written, __ATOMIC_RELAXED);
	s->fsyncs = __atomic_load_n(&eng->log.fsyncs, __ATOMIC_RELAXED) +
		    atomic_load(&eng->guard.data_fsyncs);
	s->checkpoints = atomic_load(&eng->checkpoints);
	if (eng->guard.ops->stats)
		eng->guard.ops->stats(&eng->guard, s);
	ut_mutex_lock(&eng->pool.mutex);	/* counted under the pool mutex */
	s->pool_reads = eng->pool.stats.reads;
	s->pool_hits = eng->pool.stats.hits;
	s->pool_misses = eng->pool.stats.misses;
	s->pool_free_waits = eng->pool.stats.free_waits;
	ut_mutex_unlock(&eng->pool.mutex);
}

const char *ut_engine_guard(const struct ut_engine *eng)
{
	return ut_guard_name(eng->store->sb.guard);
}

int ut_engine_uses_jw(const struct ut_engine *eng)
{
	return eng->guard.jw_fd >= 0;
}

uint32_t ut_engine_page_size(const struct ut_engine *eng)
{
	return eng->geom.page_size;
}

const char *ut_engine_data_path(const struct ut_engine *eng)
{
	return eng->store->data_path;
}
