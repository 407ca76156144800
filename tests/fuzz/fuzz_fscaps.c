// SPDX-License-Identifier: MIT
/*
 * fuzz_fscaps.c - libFuzzer harness for what untorn-fscheck reads from the
 * kernel as text: a /proc/self/mountinfo line, ext4 mount options and
 * /proc/fs/jbd2/<dev>/info.  The first byte picks the parser.
 *
 * Contract: a mountinfo line parses to 0 with every string field
 * NUL-terminated inside its buffer, or -EINVAL; mount options give a known
 * data mode; the jbd2 parser returns a block count or 0; nothing reads
 * past the text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fscaps.h"

static int terminated(const char *field, size_t len)
{
	return strnlen(field, len) < len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum ut_data_mode mode = UT_DATA_NA;
	struct ut_mount m;
	int commit_s = -1, barrier = -1, ret;
	char *text;

	if (!size)
		return 0;
	text = malloc(size);
	if (!text)
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0:
		ret = ut_mountinfo_parse(text, &m);
		if (ret != 0 && ret != -EINVAL)
			abort();
		if (ret == 0 &&
		    (!terminated(m.root, sizeof(m.root)) ||
		     !terminated(m.mount_point, sizeof(m.mount_point)) ||
		     !terminated(m.mount_opts, sizeof(m.mount_opts)) ||
		     !terminated(m.fstype, sizeof(m.fstype)) ||
		     !terminated(m.source, sizeof(m.source)) ||
		     !terminated(m.super_opts, sizeof(m.super_opts))))
			abort();
		break;
	case 1:
		ut_mount_opts_parse(text, &mode, &commit_s, &barrier);
		if (mode > UT_DATA_WRITEBACK)
			abort();
		break;
	default:
		ut_jbd2_info_parse(text);
		break;
	}
	free(text);
	return 0;
}
