// SPDX-License-Identifier: MIT
/*
 * guard.c - the table of guards (guard_list.h) and what is asked of it
 * (by id, by name, by init option; the verdict), opening and closing the
 * guard a store uses, and the write path guards share: pages in place with one
 * io_uring submission, and the data file's fdatasync after the batch
 * (ut_guard_write_durable) or before the next checkpoint (ut_guard_sync).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "base/err.h"
#include "guard/guard.h"

#define UT_GUARD(name) extern const struct ut_guard_ops ut_guard_##name;
#include "guard/guard_list.h"
#undef UT_GUARD

#define UT_GUARD(name) &ut_guard_##name,
static const struct ut_guard_ops *const ut_guard_table[] = {
#include "guard/guard_list.h"
	NULL,
};
#undef UT_GUARD

const struct ut_guard_ops *ut_guard_at(unsigned i)
{
	if (i >= sizeof(ut_guard_table) / sizeof(ut_guard_table[0]))
		return NULL;
	return ut_guard_table[i];
}

const struct ut_guard_ops *ut_guard_ops(uint32_t id)
{
	const struct ut_guard_ops *ops;
	unsigned i;

	for (i = 0; (ops = ut_guard_at(i)); i++)
		if (ops->id == id)
			return ops;
	return NULL;
}

const struct ut_guard_ops *ut_guard_find(const char *name)
{
	const struct ut_guard_ops *ops;
	unsigned i;

	for (i = 0; (ops = ut_guard_at(i)); i++)
		if (!strcmp(ops->name, name))
			return ops;
	return NULL;
}

const char *ut_guard_name(uint32_t guard)
{
	const struct ut_guard_ops *ops = ut_guard_ops(guard);

	return ops ? ops->name : NULL;
}

const char *ut_guard_help(uint32_t guard)
{
	const struct ut_guard_ops *ops = ut_guard_ops(guard);

	return ops ? ops->help : NULL;
}

int ut_guard_parse(const char *name)
{
	const struct ut_guard_ops *ops = ut_guard_find(name);

	return ops ? (int)ops->id : -EINVAL;
}

const char *ut_guard_names(void)
{
	static char names[256];
	const struct ut_guard_ops *ops;
	size_t n = 0;
	unsigned i;

	if (names[0])
		return names;
	for (i = 0; (ops = ut_guard_at(i)) && n < sizeof(names); i++)
		n += snprintf(names + n, sizeof(names) - n, "%s%s",
			      i ? ", " : "", ops->name);
	return names;
}

const struct ut_guard_ops *ut_guard_opt_owner(const char *name)
{
	const struct ut_guard_ops *ops;
	const struct ut_guard_opt *o;
	unsigned i;

	for (i = 0; (ops = ut_guard_at(i)); i++)
		for (o = ops->opts; o && o->name; o++)
			if (!strcmp(o->name, name))
				return ops;
	return NULL;
}

const char *ut_guard_arg(const struct ut_guard_args *a, const char *name)
{
	unsigned i;

	for (i = 0; i < a->n && i < UT_GUARD_ARGS_MAX; i++)
		if (!strcmp(a->v[i].name, name))
			return a->v[i].value;
	return NULL;
}

void ut_guard_verdict(const struct ut_guard_ops *ops, const struct ut_fscaps *c,
		      uint32_t page_size, uint32_t block_size,
		      struct ut_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (ut_fscaps_unusable(c, v))
		return;
	if (ops->verdict) {
		ops->verdict(c, page_size, block_size, v);
		return;
	}
	snprintf(v->reason, sizeof(v->reason),
		 "guard '%s' has no verdict: nothing says a page stays whole here",
		 ops->name);
	snprintf(v->fix, sizeof(v->fix), "use --guard doublewrite");
}

int ut_guard_open(struct ut_open_guard *g, uint32_t id,
		  const struct ut_geom *geom, int data_fd, const char *dir,
		  const uint8_t uuid[16], struct ut_err *err)
{
	memset(g, 0, sizeof(*g));
	g->geom = geom;
	g->data_fd = data_fd;
	g->ops = ut_guard_ops(id);
	if (!g->ops)
		return ut_err_set(err, -EINVAL,
				  "unknown guard %u; the superblock is damaged: restore the store from a backup",
				  id);
	return g->ops->open ? g->ops->open(g, dir, uuid, err) : 0;
}

void ut_guard_close(struct ut_open_guard *g)
{
	if (g->ops && g->ops->close)
		g->ops->close(g);
	g->ops = NULL;
}

int ut_guard_write_in_place(struct ut_open_guard *g, struct ut_guard_batch *b,
			    int rw_flags)
{
	uint32_t ps = g->geom->page_size;
	unsigned i;
	int ret;

	for (i = 0; i < b->n; i++) {
		ut_io_write(&b->ios[i], g->data_fd, b->pages + (size_t)i * ps,
			    ps, (uint64_t)b->page_nos[i] * ps);
		b->ios[i].rw_flags = rw_flags;
	}
	ret = ut_ring_run(b->ring, b->ios, b->n);
	/* even a failed batch may have written some pages */
	ut_guard_mark_unsynced(g);
	return ret;
}

int ut_guard_write_durable(struct ut_open_guard *g, struct ut_guard_batch *b,
			   int rw_flags)
{
	int ret;

	ret = ut_guard_write_in_place(g, b, rw_flags);
	return ret ? ret : ut_guard_sync_data(g, b);
}

void ut_guard_mark_unsynced(struct ut_open_guard *g)
{
	atomic_store(&g->unsynced, 1);
}

/*
 * The data file's fdatasync through io.  The unsynced mark is cleared
 * before the sync is issued, so a page written meanwhile sets it again
 * and the next ut_guard_sync does not skip it; a failed sync sets it
 * back.  A guard that syncs per batch thus leaves the checkpoint nothing
 * to sync again.
 */
static int sync_data_file(struct ut_open_guard *g, struct ut_ring *ring,
			  struct ut_io *io)
{
	int ret;

	atomic_store(&g->unsynced, 0);
	ut_io_fdatasync(io, g->data_fd);
	ret = ut_ring_run(ring, io, 1);
	atomic_fetch_add(&g->data_fsyncs, 1);
	if (ret)
		ut_guard_mark_unsynced(g);
	return ret;
}

int ut_guard_sync_data(struct ut_open_guard *g, struct ut_guard_batch *b)
{
	return sync_data_file(g, b->ring, &b->ios[0]);
}

int ut_guard_fdatasync(struct ut_open_guard *g)
{
	struct ut_ring *ring = ut_ring_thread();
	struct ut_io io;

	return ring ? sync_data_file(g, ring, &io) : -ENOMEM;
}

int ut_guard_sync_writes(void *arg)
{
	struct ut_open_guard *g = arg;

	return g->ops->sync(g);
}

int ut_guard_sync(struct ut_open_guard *g)
{
	int ret;

	if (!atomic_load(&g->unsynced))
		return 0;
	if (g->ops->sync) {
		/* cleared first, as sync_data_file does */
		atomic_store(&g->unsynced, 0);
		ret = g->ops->sync(g);
		if (ret)
			ut_guard_mark_unsynced(g);
		return ret;
	}
	return ut_guard_fdatasync(g);
}
