#!/bin/bash
# SPDX-License-Identifier: MIT
#
# matrix_test.sh - scripts/kernel-matrix draws its matrix right: one row
# per feature, one column per KTAP file, cells ok / skip (reason) / FAIL,
# a column without results says why, exit 1 only for a FAIL; bad input is
# one line and exit 2.  (Booting the guests is `scripts/kernel-matrix`
# itself; this checks the part every run ends in, without qemu.)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-matrix-test-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 4

mkdir -p "$scratch/a" "$scratch/b"
printf 'KTAP version 1\n1..3\nok 1 io_uring_setup\nok 2 RWF_ATOMIC write # SKIP EOPNOTSUPP on /tmp/x-1\nnot ok 3 statx DIOALIGN: 512\n' >"$scratch/a/6.1-ext4.ktap"
printf 'KTAP version 1\n1..3\nok 1 io_uring_setup\nok 2 RWF_ATOMIC write\nok 3 statx DIOALIGN: 4096\n' >"$scratch/a/6.12-xfs.ktap"
: >"$scratch/a/6.6-ext4.ktap"
echo "cannot install the 6.6 kernel" >"$scratch/a/6.6-ext4.why"
"$top/scripts/kernel-matrix" --from "$scratch/a" >"$scratch/out" 2>&1
rc=$?
sed 's/^/# /' "$scratch/out"
grep -q '^| feature | 6.1-ext4 | 6.12-xfs | 6.6-ext4 |$' "$scratch/a/matrix.md" &&
	grep -q '^| io_uring_setup | ok | ok | - |$' "$scratch/a/matrix.md" &&
	grep -q '^| RWF_ATOMIC write | skip (EOPNOTSUPP) | ok | - |$' "$scratch/a/matrix.md" &&
	grep -q '^| statx DIOALIGN | FAIL | ok | - |$' "$scratch/a/matrix.md"
ok $? "rows per feature, columns per kernel/filesystem, cells ok, skip (reason), FAIL"

grep -q '^| (no result) | - | - | skip (cannot install the 6.6 kernel) |$' "$scratch/a/matrix.md" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["cells"]["statx DIOALIGN"]["6.1-ext4"] == "FAIL"' \
		"$scratch/a/matrix.json"
ok $? "a column without results says why; matrix.json holds the same cells"

cp "$scratch/a/6.12-xfs.ktap" "$scratch/b/"
"$top/scripts/kernel-matrix" --from "$scratch/b" >/dev/null 2>&1
[ $rc -eq 1 ] && [ $? -eq 0 ]
ok $? "exit 1 only when a cell is FAIL (got $rc with a FAIL, 0 without)"

bad=0
for args in "--kernels 5.4 --from $scratch/b" "--from $scratch/none" "--timeout x" "--bogus"; do
	# shellcheck disable=SC2086
	"$top/scripts/kernel-matrix" $args >/dev/null 2>"$scratch/err"
	r=$?
	{ [ $r -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ]; } || { echo "# $args: exit $r"; bad=1; }
done
[ $bad -eq 0 ]
ok $? "bad input (unknown kernel, missing dir, bad timeout, unknown option): one line, exit 2"

ktap_finish
