#!/bin/bash
# SPDX-License-Identifier: MIT
#
# matrix_test.sh - dev/kernel-matrix draws its matrix right: one row
# per part and feature, one column per kernel, cells ok / skip (reason) / FAIL,
# a column without results says why, exit 1 only for a FAIL, and under the
# table each FAIL cell's own words (the end of a CI log is what is read);
# bad input is one line and exit 2, --kernel PATH included (a missing
# path, no kernel image, an unbuilt tree), and a real image is accepted;
# dev/kmod-in-root's bad input is refused the same way.
# (Booting the guests is `dev/kernel-matrix` itself; this checks the part
# every run ends in, without qemu.)
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-matrix-test-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 8

mkdir -p "$scratch/a" "$scratch/b"
printf 'KTAP version 1\n1..3\nok 1 io_uring_setup\nok 2 RWF_ATOMIC write # SKIP EOPNOTSUPP on /tmp/x-1\nnot ok 3 statx DIOALIGN: 512\n' >"$scratch/a/6.1.features-ext4.ktap"
printf 'KTAP version 1\n1..3\nok 1 io_uring_setup\nok 2 RWF_ATOMIC write\nok 3 statx DIOALIGN: 4096\n' >"$scratch/a/6.12.features-ext4.ktap"
printf 'TAP version 13\n1..3\n# selftests: untorn: ring_test\n# not ok 3 inner case\nok 1 selftests: untorn: ring_test\nok 2 selftests: untorn: ebpf_test.sh # SKIP\n# selftests: untorn: jw_test.sh\n# ok 1 jw # SKIP no module built for 6.12\n# ok 2 jw # SKIP no module built for 6.12\nok 3 selftests: untorn: jw_test.sh # SKIP\n' >"$scratch/a/6.12.suite.ktap"
printf 'KTAP version 1\n1..1\nok 1 io_uring_setup\n' >"$scratch/a/host-6.18.features-ext4.ktap"
: >"$scratch/a/6.6.none.ktap"
echo "cannot install the 6.6 kernel" >"$scratch/a/6.6.why"
"$top/dev/kernel-matrix" --from "$scratch/a" >"$scratch/out" 2>&1
rc=$?
sed 's/^/# /' "$scratch/out"
grep -q '^| feature / test | host-6.18 | 6.1 | 6.6 | 6.12 |$' "$scratch/a/matrix.md" &&
	grep -q '^| features-ext4: io_uring_setup | ok | ok | - | ok |$' "$scratch/a/matrix.md" &&
	grep -q '^| features-ext4: RWF_ATOMIC write | - | skip (EOPNOTSUPP) | - | ok |$' "$scratch/a/matrix.md" &&
	grep -q '^| features-ext4: statx DIOALIGN | - | FAIL | - | ok |$' "$scratch/a/matrix.md"
ok $? "rows per part and feature, columns per kernel (host first, in version order), cells ok, skip (reason), FAIL"

grep -q '^| suite: ring_test | - | - | - | ok |$' "$scratch/a/matrix.md" &&
	grep -q '^| suite: ebpf_test.sh | - | - | - | skip |$' "$scratch/a/matrix.md" &&
	grep -q '^| suite: jw_test.sh | - | - | - | skip (no module built for 6.12) |$' "$scratch/a/matrix.md" &&
	! grep -q 'inner case' "$scratch/a/matrix.md"
ok $? "the suite's programs are rows, a program whose every case skipped with its first case's reason; their nested KTAP is not"

grep -q '^| (no result) | - | - | skip (cannot install the 6.6 kernel) | - |$' "$scratch/a/matrix.md" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["cells"]["features-ext4: statx DIOALIGN"]["6.1"] == "FAIL"' \
		"$scratch/a/matrix.json"
ok $? "a column without results says why; matrix.json holds the same cells"

mkdir -p "$scratch/c"
printf 'KTAP version 1\n1..2\n    KTAP version 1\n    1..2\n    ok 1 fine\n    # slot count 11, batches 12\n    not ok 2 dblwr-wait.bt: one slot per batch\nnot ok 1 selftests: untorn: ebpf_test.sh # exit=1\n# point 1/2: ok\n# logwrites-replay: entry 9: kernel: JBD2: journal transaction 5 is corrupt.\n# logwrites-replay: 2 points, 1 unmountable\nnot ok 2 replay journal: 2 points, 1 unmountable\n' >"$scratch/c/6.1.suite.ktap"
"$top/dev/kernel-matrix" --from "$scratch/c" >"$scratch/out-c" 2>&1
sed -n '/^FAIL/,$p' "$scratch/out-c" | sed 's/^/# /'
tail -n +"$(grep -n '^FAIL' "$scratch/out-c" | head -1 | cut -d: -f1)" "$scratch/out-c" >"$scratch/fails"
grep -q '^FAIL 6.1 suite: selftests: untorn: ebpf_test.sh' "$scratch/fails" &&
	grep -q '^    # slot count 11, batches 12$' "$scratch/fails" &&
	grep -q '^    not ok 2 dblwr-wait.bt: one slot per batch$' "$scratch/fails" &&
	! grep -q 'ok 1 fine' "$scratch/fails" &&
	grep -q '^FAIL 6.1 suite: replay journal: 2 points, 1 unmountable$' "$scratch/fails" &&
	grep -q 'kernel: JBD2: journal transaction 5 is corrupt' "$scratch/fails" &&
	! grep -q 'point 1/2' "$scratch/fails" && ! grep -q '^|' "$scratch/fails"
ok $? "under the table, each FAIL cell's failed cases with the comments before them, or its comments that quote the kernel"

cp "$scratch/a/6.12.features-ext4.ktap" "$scratch/b/"
"$top/dev/kernel-matrix" --from "$scratch/b" >/dev/null 2>&1
[ $rc -eq 1 ] && [ $? -eq 0 ]
ok $? "exit 1 only when a cell is FAIL (got $rc with a FAIL, 0 without)"

bad=0
for args in "--kernels 5.4 --from $scratch/b" "--from $scratch/none" "--timeout x" "--suite huge" "--bogus"; do
	# shellcheck disable=SC2086
	"$top/dev/kernel-matrix" $args >/dev/null 2>"$scratch/err"
	r=$?
	{ [ $r -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ]; } || { echo "# $args: exit $r"; bad=1; }
done
[ $bad -eq 0 ]
ok $? "bad input (unknown kernel, missing dir, bad timeout, unknown option): one line, exit 2"

# --kernel PATH: checked before anything is made, each refusal one line
# naming the cause; a real image's release is read and accepted
echo "not a kernel" >"$scratch/notkernel"
mkdir -p "$scratch/tree"
bad=0
for args in "--kernel $scratch/nope" "--kernel $scratch/notkernel" "--kernel $scratch/tree" "--kernels ''"; do
	eval "\"\$top/dev/kernel-matrix\" $args" >/dev/null 2>"$scratch/err"
	r=$?
	echo "# $args: $(cat "$scratch/err")"
	{ [ $r -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ]; } || bad=1
done
grep -q "no kernel to boot" "$scratch/err" || bad=1
grep -q "not a Linux kernel image" <("$top/dev/kernel-matrix" --kernel "$scratch/notkernel" 2>&1) &&
	grep -q "not a built kernel tree" <("$top/dev/kernel-matrix" --kernel "$scratch/tree" 2>&1) || bad=1
img=$(ls /boot/vmlinuz-* 2>/dev/null | head -1)
if [ -n "$img" ]; then
	"$top/dev/kernel-matrix" --kernels "" --kernel "$img" --from "$scratch/b" >/dev/null 2>"$scratch/err" ||
		{ echo "# $img refused: $(cat "$scratch/err")"; bad=1; }
fi
[ $bad -eq 0 ]
ok $? "--kernel: a missing path, a file that is no kernel, an unbuilt tree, no kernel at all: one line, exit 2; ${img:-no /boot image to accept here}"

# dev/kmod-in-root, which builds the newest kernel's module: bad input
# is one line and exit 2, before anything is installed or made
bad=0
for args in "" "x;y" "7.3.4+deb13-amd64 --suite Trixie" "7.3.4+deb13-amd64 --bogus" "7.3.4+deb13-amd64 6.1.0-57-amd64"; do
	# shellcheck disable=SC2086
	"$top/dev/kmod-in-root" $args >"$scratch/out" 2>"$scratch/err"
	r=$?
	echo "# kmod-in-root $args: $(cat "$scratch/err")"
	{ [ $r -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && [ ! -s "$scratch/out" ]; } || bad=1
done
[ $bad -eq 0 ]
ok $? "kmod-in-root: no release, one that is not a release, a bad suite, an unknown option, two releases: one line, exit 2"

ktap_finish
