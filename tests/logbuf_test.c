// SPDX-License-Identifier: MIT
/*
 * logbuf_test.c - the redo log's buffer: how much writers may append
 * while no group commit completes, before one of them has to write the
 * log itself and wait.  Half the log up to 64 MiB, at least 8, in a
 * filled (format 2 or 3) log: on ext4 data=journal a commit can take a
 * second behind the kernel's writeback, and with 8 MiB (half a second of redo) the
 * writers waited for it; with 32 MiB, those of a 256 MiB log.  A format
 * 1 log keeps 8 MiB, as its recovery tells a torn write's zeros from
 * damage by how far one write reaches.
 * The longest group, half the buffer, follows.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "base/crc32c.h"
#include "base/bytes.h"
#include "log/redo.h"
#include "ktap.h"
#include "testlib.h"

#define MIB (1ull << 20)
#define GROUP 4000 /* bytes appended at a time */

static const uint8_t uuid[16] = { 1, 2, 3 };

/* A log of log_mib MiB; format 1: its header's version set back to 1. */
static int make_log(const char *path, unsigned log_mib, int format1)
{
	unsigned char hdr[UT_LOG_HDR_SIZE];
	struct ut_err err;

	unlink(path);
	if (ut_redo_create(path, (uint64_t)log_mib * MIB + UT_LOG_HDR_SIZE,
			   uuid, &err)) {
		ktap_diag("%s", err.msg);
		return -1;
	}
	if (!format1)
		return 0;
	if (file_pread(path, hdr, sizeof(hdr), 0))
		return -1;
	put_le32(hdr + 8, 1);
	put_le32(hdr + 12, ut_crc32c(0, hdr + 16, UT_LOG_HDR_SIZE - 16));
	return file_pwrite(path, hdr, sizeof(hdr), 0);
}

/*
 * Appends mib MiB of groups to a fresh log without committing; sets
 * *writes to the log writes that took, *group_max to the longest group.
 */
static int append(unsigned log_mib, int format1, unsigned mib, uint64_t *writes,
		  size_t *group_max)
{
	static unsigned char group[GROUP];
	struct ut_redo log;
	struct ut_err err;
	uint64_t start, end, done;
	char path[400];
	int ret = 0;

	test_path(path, sizeof(path), "untorn.redo");
	if (make_log(path, log_mib, format1))
		return -1;
	if (ut_redo_open(&log, path, uuid, &err)) {
		ktap_diag("%s", err.msg);
		return -1;
	}
	ut_redo_start(&log, UT_LOG_BLOCK_HDR, UT_LOG_BLOCK_HDR);
	put_le32(group, GROUP - UT_LOG_GROUP_HDR);
	for (done = 0; done < mib * MIB; done += GROUP) {
		ret = ut_redo_reserve(&log, GROUP);
		if (ret)
			break;
		ut_redo_append_locked(&log, group, GROUP, &start, &end);
		ut_redo_release(&log);
	}
	*writes = log.writes;
	*group_max = ut_redo_group_max(&log);
	ut_redo_close(&log);
	return ret;
}

/* One case: log_mib MiB, mib MiB appended, whether any write was due. */
static void check(unsigned log_mib, int format1, unsigned mib, int written,
		  size_t group_min, size_t group_limit, const char *why)
{
	uint64_t writes = 0;
	size_t group_max = 0;
	int ret = append(log_mib, format1, mib, &writes, &group_max);

	ktap_ok(!ret && (writes > 0) == written && group_max >= group_min &&
			group_max < group_limit,
		"a %u MiB log in format %d, %u MiB appended with no commit: %llu log writes, the longest group %.1f MiB (%s)",
		log_mib, format1 ? 1 : 2, mib, (unsigned long long)writes,
		(double)group_max / MIB, why);
}

int main(void)
{
	ktap_plan(6);
	test_scratch_dir("logbuf");
	check(64, 0, 24, 0, 15 * MIB, 16 * MIB,
	      "a 32 MiB buffer: over a second of redo at 20 MB/s");
	check(64, 0, 40, 1, 15 * MIB, 16 * MIB,
	      "past the buffer a writer writes");
	check(256, 0, 56, 0, 30 * MIB, 32 * MIB,
	      "a 64 MiB buffer: over a second of a large log's 45 MB/s");
	check(512, 0, 72, 1, 30 * MIB, 32 * MIB, "no more than 64 MiB");
	check(16, 0, 12, 1, 3 * MIB, 4 * MIB, "half a small log: 8 MiB");
	check(64, 1, 12, 1, 3 * MIB, 4 * MIB,
	      "format 1: 8 MiB, the reach its recovery assumes");
	return ktap_finish();
}
