#!/bin/bash
# SPDX-License-Identifier: MIT
#
# logwrites_test.sh - the power-cut replay's parts that run on any host:
# lw_replay reads a dm-log-writes log (built here byte for byte in the
# kernel's format: super, entry headers, mark text, data) and lists and
# replays it right, incrementally, with a torn last write; it refuses a
# non-log, a truncated log and bad ranges in one line; logwrites-replay
# and kernel-suite refuse bad input, and a device with a filesystem on
# it, before touching anything.  (The replay itself against the kernel's
# dm-log-writes runs in the guests of dev/kernel-matrix.)
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
REPLAY=${TEST_OUTPUT:-$top/build/tests}/lw_replay
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-logwrites-$$-XXXXXX")
loop=""
cleanup() {
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 7

# the log: 0 write 0+8 'A', 1 flush, 2 mark m1, 3 write 8+4 'B',
# 4 discard 0+2, 5 write|fua 16+2 'C' (512-byte sectors)
python3 - "$scratch/log" <<'PY'
import struct, sys
S = 512
entries = [(0, 8, 0, b"A" * 8 * S), (0, 0, 1, b""), (0, 0, 8, b"m1"),
           (8, 4, 0, b"B" * 4 * S), (0, 2, 4, b""), (16, 2, 2, b"C" * 2 * S)]
out = bytearray(struct.pack("<QQQI", 0x6a736677736872, 1, len(entries), S).ljust(S, b"\0"))
for sector, nr, flags, data in entries:
    mark = data if flags & 8 else b""	# data_len: the mark's text only
    out += (struct.pack("<QQQQ", sector, nr, flags, len(mark)) + mark).ljust(S, b"\0")
    if not flags & (4 | 8):
        out += data
open(sys.argv[1], "wb").write(out)
PY
"$REPLAY" "$scratch/log" --list >"$scratch/list" 2>&1
printf '0 write 0 8\n1 flush 0 0\n2 mark 0 0 m1\n3 write 8 4\n4 discard 0 2\n5 write,fua 16 2\n' >"$scratch/want"
diff "$scratch/want" "$scratch/list" >"$scratch/diff"
ok $? "--list: index, flags, sector, sectors and mark text of every entry"
sed 's/^/# /' "$scratch/diff"

# dump FILE: the first 20 sectors as one letter each (. for zeros)
dump() { python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print("".join(chr(d[i*512]) if d[i*512] else "." for i in range(20)))' "$1"; }
truncate -s 16K "$scratch/dev"
"$REPLAY" "$scratch/log" --replay "$scratch/dev" --from 0 --to 1 && a=$(dump "$scratch/dev")
"$REPLAY" "$scratch/log" --replay "$scratch/dev" --from 1 --to 4 && b=$(dump "$scratch/dev")
"$REPLAY" "$scratch/log" --replay "$scratch/dev" --from 4 --to 6 --tear 1 && c=$(dump "$scratch/dev")
"$REPLAY" "$scratch/log" --replay "$scratch/dev" --from 5 --to 6 && d=$(dump "$scratch/dev")
echo "# $a / $b / $c / $d"
[ "$a" = "AAAAAAAA............" ] && [ "$b" = "AAAAAAAABBBB........" ] &&
	[ "$c" = "..AAAAAABBBB....C..." ] && [ "$d" = "..AAAAAABBBB....CC.." ]
ok $? "--replay applies writes and discards (as zeros) in order, continues from --from, --tear writes part of the last entry"

bad=0
expect_refusal() {	# WHAT ARGS...: one line on stderr, exit 2
	local what=$1 r
	shift
	"$@" >/dev/null 2>"$scratch/err"
	r=$?
	if [ $r -ne 2 ] || [ "$(wc -l <"$scratch/err")" -ne 1 ]; then
		echo "# $what: exit $r: $(head -3 "$scratch/err")"
		bad=1
	fi
}
head -c 4096 /dev/urandom >"$scratch/notlog"
head -c 2000 "$scratch/log" >"$scratch/short"
expect_refusal "not a log" "$REPLAY" "$scratch/notlog" --list
expect_refusal "truncated" "$REPLAY" "$scratch/short" --replay "$scratch/dev" --from 0 --to 6
expect_refusal "past the end" "$REPLAY" "$scratch/log" --replay "$scratch/dev" --from 0 --to 9
expect_refusal "tear a flush" "$REPLAY" "$scratch/log" --replay "$scratch/dev" --from 0 --to 2 --tear 1
expect_refusal "tear too far" "$REPLAY" "$scratch/log" --replay "$scratch/dev" --from 0 --to 1 --tear 8
expect_refusal "no range" "$REPLAY" "$scratch/log" --replay "$scratch/dev"
expect_refusal "bad number" "$REPLAY" "$scratch/log" --replay "$scratch/dev" --from x --to 2
expect_refusal "no device" "$REPLAY" "$scratch/log" --replay "$scratch/nope/dev" --from 0 --to 2
[ $bad -eq 0 ]
ok $? "lw_replay refuses a non-log, a truncated log, bad ranges and tears: one line, exit 2"

bad=0
LR=$top/dev/logwrites-replay
expect_refusal "no --disk" "$LR"
expect_refusal "bad guard" "$LR" --disk /dev/null --guard shield
expect_refusal "bad fs" "$LR" --disk /dev/null --fs ntfs
expect_refusal "bad points" "$LR" --disk /dev/null --points many
expect_refusal "bad expect" "$LR" --disk /dev/null --expect maybe
expect_refusal "unknown option" "$LR" --bogus
[ $bad -eq 0 ]
ok $? "logwrites-replay refuses bad options in one line, exit 2"

KS=$top/dev/kernel-suite
bad=0
expect_refusal "no --out" "$KS"
expect_refusal "bad suite" "$KS" --out "$scratch/ks" --suite huge
expect_refusal "bad label" "$KS" --out "$scratch/ks" --label "a b"
expect_refusal "unknown option" "$KS" --bogus
[ $bad -eq 0 ]
ok $? "kernel-suite refuses bad options in one line, exit 2"

if [ "$(id -u)" -ne 0 ]; then
	ok_skip "logwrites-replay refuses a device holding a filesystem" "needs root (loop device)"
	ok_skip "logwrites-replay without dm-log-writes says why" "needs root"
	ktap_finish
	exit
fi
truncate -s 1600M "$scratch/disk.img"
mkfs.ext4 -q -F "$scratch/disk.img"
loop=$(losetup -f --show "$scratch/disk.img")
sum0=$(head -c 8M "$loop" | md5sum)
expect_refusal "a filesystem" "$LR" --disk "$loop"
grep -q "holds a ext4 filesystem\|holds data" "$scratch/err" && [ "$(head -c 8M "$loop" | md5sum)" = "$sum0" ]
ok $? "logwrites-replay refuses a device holding a filesystem and leaves it as it was"

losetup -d "$loop"
loop=""
truncate -s 0 "$scratch/disk.img"
truncate -s 1600M "$scratch/disk.img"
loop=$(losetup -f --show "$scratch/disk.img")
"$LR" --disk "$loop" >/dev/null 2>"$scratch/err"
r=$?
if modprobe -n dm-log-writes 2>/dev/null && command -v dmsetup >/dev/null; then
	ok_skip "logwrites-replay without dm-log-writes says why" "this kernel has dm-log-writes (the guests run the replay)"
else
	echo "# exit $r: $(cat "$scratch/err")"
	[ $r -eq 2 ] && grep -q "cannot run here: no dm-log-writes target\|dmsetup not found" "$scratch/err"
	ok $? "logwrites-replay without dm-log-writes says why (exit 2, one line)"
fi
ktap_finish
