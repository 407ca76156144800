// SPDX-License-Identifier: MIT
/*
 * guard_atomic.c - the atomic guard: each page is one O_DIRECT write
 * with RWF_ATOMIC, which the filesystem or device lands all or nothing
 * (XFS with reflink on Linux 6.16+, or hardware atomic units).  A page
 * is whole once written, so nothing waits for the data file's sync but
 * the next checkpoint.
 */
#include "fscaps.h"
#include "guard/guard.h"

/*
 * Safe where statx allows O_DIRECT RWF_ATOMIC writes of the page's size:
 * the device's own atomic unit, or XFS's software path (out of place).
 */
static void atomic_verdict(const struct ut_fscaps *c, uint32_t page_size,
			   uint32_t block_size, struct ut_verdict *v)
{
	(void)block_size;
	if (ut_fscaps_data_journalled(c)) {
		ut_verdict_say(c, v, 0,
			       "use an XFS filesystem made with reflink ({mkfs-atomic}), or the journal guard here",
			       "ext4 %s turns O_DIRECT into buffered writes, and RWF_ATOMIC needs O_DIRECT",
			       ut_fscaps_journalled_how(c));
		return;
	}
	if (!c->atomic_max) {
		ut_verdict_say(c, v, 0,
			       "make XFS with mkfs.xfs -m reflink=1 (Linux >= 6.16; {mkfs-atomic}) or use a device with atomic writes",
			       "statx reports no atomic write support on this filesystem and device");
		return;
	}
	if (page_size > c->atomic_max || page_size < c->atomic_min) {
		ut_verdict_say(c, v, 0,
			       "use a page size from the atomic range, or mount XFS with a larger max_atomic_write=",
			       "statx allows atomic writes of %u..%u bytes, not %u-byte pages",
			       c->atomic_min, c->atomic_max, page_size);
		return;
	}
	if (ut_fscaps_atomic_in_hardware(c, page_size))
		ut_verdict_say(c, v, 1, NULL,
			       "statx allows atomic writes of %u..%u bytes, hardware atomic writes: the device writes each %u-byte page whole in place (O_DIRECT, RWF_ATOMIC)",
			       c->atomic_min, c->atomic_max, page_size);
	else
		ut_verdict_say(c, v, 1, NULL,
			       "statx allows atomic writes of %u..%u bytes, XFS's software atomic writes: each %u-byte page is written out of place and remapped whole (O_DIRECT, RWF_ATOMIC; the device has no atomic unit for it, and each write costs a logged remap)",
			       c->atomic_min, c->atomic_max, page_size);
}

static int atomic_write(struct ut_open_guard *g, struct ut_guard_batch *b)
{
	return ut_guard_write_in_place(g, b, RWF_ATOMIC);
}

const struct ut_guard_ops ut_guard_atomic = {
	.id = UT_GUARD_ATOMIC,
	.name = "atomic",
	.help = "each page is one O_DIRECT RWF_ATOMIC write, landed all or nothing",
	.bench_fs = "xfs",
	.fio_job = "atomic",
	.whole_writes = "an RWF_ATOMIC page write cannot be split",
	.direct = UT_DIRECT_MUST,
	.direct_why = "RWF_ATOMIC needs it",
	.verdict = atomic_verdict,
	.write = atomic_write,
};
