// SPDX-License-Identifier: MIT
/*
 * fault_test.c - faults injected through the syscall table (ut_sys), on
 * the io_uring path and on the pread/pwrite path: short writes are
 * finished, a torn page write (first k blocks, then EIO) is reported and
 * `check` finds the page torn at block k, EIO on read and fdatasync and
 * ENOSPC on fallocate fail with a message and leave nothing behind,
 * EINTR is retried.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include "store/check.h"
#include "store/store.h"
#include "io/sysio.h"
#include "ktap.h"
#include "testlib.h"

#define PS 16384
#define BS 4096

static char dir[300];
static int store_no;
static int torn_blocks, torn_calls;
static int torn_seen_block;

static const char *next_dir(void)
{
	snprintf(dir, sizeof(dir), "%s/s%d", test_scratch, store_no++);
	return dir;
}

static int init_store(struct ut_err *err)
{
	struct ut_init_opts o = { .page_size = PS,
				  .block_size = BS,
				  .guard = UT_GUARD_DOUBLEWRITE };

	return ut_store_init(next_dir(), &o, err);
}

static void count_bad(const struct ut_check_bad *bad, void *user)
{
	(void)user;
	if (bad->page_no == 1 && !strcmp(bad->kind, "torn") &&
	    torn_seen_block < 0)
		torn_seen_block = bad->block;
}

static int check_store(struct ut_check_stats *s)
{
	struct ut_store *st;
	struct ut_err err;
	int ret;

	torn_seen_block = -1;
	ret = ut_store_open(dir, UT_OPEN_RDONLY, &st, &err);
	if (ret)
		return ret;
	ret = ut_check_run(st, count_bad, NULL, s, &err);
	ut_store_close(st);
	return ret;
}

static ssize_t half_writes(enum ut_op op, int fd, size_t len, off_t off)
{
	(void)fd;
	(void)off;
	if (op == UT_OP_WRITE && len > 1)
		return len / 2;
	return len;
}

static int short_writes_finished(void)
{
	struct ut_check_stats s;
	struct ut_err err;
	int ret;

	ut_sys.io_admit = half_writes;
	ret = init_store(&err);
	ut_sys_reset();
	if (ret)
		return 0;
	return !check_store(&s) && s.bad_pages == 0 && s.sound == 2;
}

/* Lets the first k blocks of the page 1 write through, then fails. */
static ssize_t tear_page1(enum ut_op op, int fd, size_t len, off_t off)
{
	(void)fd;
	if (op != UT_OP_WRITE || off < PS || off >= 2 * PS)
		return len;
	if (torn_calls++ == 0)
		return (size_t)torn_blocks * BS;
	return -EIO;
}

static int torn_write_reported(int k)
{
	struct ut_page_meta meta;
	struct ut_check_stats s;
	struct ut_store *st;
	struct ut_geom g;
	struct ut_err err;
	struct ut_io io;
	unsigned char *area, *disk;
	int ret, ok;

	if (init_store(&err) || ut_store_open(dir, 0, &st, &err))
		return 0;
	g = st->geom;
	area = calloc(1, g.area_size);
	disk = aligned_alloc(4096, PS);
	memset(area, 0x42, g.area_size);
	ut_page_meta_init(&g, &meta, 1, UT_PAGE_BTREE, 0, UT_LSN_START);
	ut_page_touch(&g, &meta, 0, g.area_size, UT_LSN_START + 1000);
	ut_page_pack(&g, &meta, area, disk);
	ut_io_write(&io, st->data_fd, disk, PS, PS);
	torn_blocks = k;
	torn_calls = 0;
	ut_sys.io_admit = tear_page1;
	ret = ut_ring_run(st->ring, &io, 1);
	ut_sys_reset();
	ut_store_close(st);
	free(area);
	free(disk);
	ok = ret == -EIO && io.res == -EIO && io.done == (uint32_t)k * BS;
	ok = ok && !check_store(&s) && s.bad_pages == 1 && torn_seen_block == k;
	if (!ok)
		ktap_diag("k=%d: ret %d done %u bad %llu torn at %d", k, ret,
			  io.done, (unsigned long long)s.bad_pages,
			  torn_seen_block);
	return ok;
}

static ssize_t eio_reads(enum ut_op op, int fd, size_t len, off_t off)
{
	(void)fd;
	if (op == UT_OP_READ && off >= 3 * PS)
		return -EIO;
	return len;
}

static int read_eio_reported(void)
{
	struct ut_check_stats s;
	struct ut_store *st;
	struct ut_err err;
	int ret;

	if (init_store(&err) || ut_store_open(dir, UT_OPEN_RDONLY, &st, &err))
		return 0;
	ut_sys.io_admit = eio_reads;
	ret = ut_check_run(st, count_bad, NULL, &s, &err);
	ut_sys_reset();
	ut_store_close(st);
	return ret == -EIO && strstr(err.msg, "cannot read pages");
}

static int enospc_fallocate(int f, int mode, off_t off, off_t len)
{
	(void)f;
	(void)mode;
	(void)off;
	(void)len;
	return -ENOSPC;
}

static ssize_t eio_sync(enum ut_op op, int fd, size_t len, off_t off)
{
	(void)fd;
	(void)off;
	return op == UT_OP_FDATASYNC ? -EIO : (ssize_t)len;
}

static int init_fails_clean(int inject_enospc)
{
	struct stat sb;
	struct ut_err err;
	int ret;

	if (inject_enospc)
		ut_sys.fallocate = enospc_fallocate;
	else
		ut_sys.io_admit = eio_sync;
	ret = init_store(&err);
	ut_sys_reset();
	if (!ret)
		return 0;
	ktap_diag("%s", err.msg);
	return stat(dir, &sb) < 0 && errno == ENOENT &&
	       strstr(err.msg, inject_enospc ? "no space left" :
					       "cannot write the superblock");
}

static int eintr_left;

static ssize_t eintr_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (eintr_left-- > 0)
		return -EINTR;
	return pwrite(fd, buf, len, off);
}

static ssize_t eintr_admit(enum ut_op op, int fd, size_t len, off_t off)
{
	(void)op;
	(void)fd;
	(void)off;
	return eintr_left-- > 0 ? -EINTR : (ssize_t)len;
}

static int eintr_retried(int fallback)
{
	struct ut_check_stats s;
	struct ut_err err;
	int ret;

	eintr_left = 3;
	if (fallback)
		ut_sys.pwrite = eintr_pwrite;
	else
		ut_sys.io_admit = eintr_admit;
	ret = init_store(&err);
	ut_sys_reset();
	return !ret && eintr_left < 0 && !check_store(&s) && s.bad_pages == 0;
}

static void run_mode(int fallback)
{
	const char *mode = fallback ? "pread/pwrite" : "io_uring";
	int k, ok = 1;

	if (fallback)
		setenv("UNTORN_NO_URING", "1", 1);
	else
		unsetenv("UNTORN_NO_URING");
	ktap_ok(short_writes_finished(),
		"%s: every write cut in half is finished; store checks clean",
		mode);
	for (k = 1; k < PS / BS; k++)
		ok &= torn_write_reported(k);
	ktap_ok(ok,
		"%s: page write torn after k blocks (k=1..3) fails with EIO; check reports torn at block k",
		mode);
	ktap_ok(read_eio_reported(),
		"%s: EIO on read makes check fail with the pages named", mode);
	ktap_ok(init_fails_clean(1),
		"%s: ENOSPC on fallocate: init fails, says so, leaves nothing",
		mode);
	ktap_ok(init_fails_clean(0),
		"%s: EIO on fdatasync: init fails, says so, leaves nothing",
		mode);
	ktap_ok(eintr_retried(fallback), "%s: EINTR is retried", mode);
}

int main(void)
{
	test_scratch_dir("fault");
	ktap_plan(12);
	run_mode(0);
	run_mode(1);
	return ktap_finish();
}
