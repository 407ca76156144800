#!/bin/bash
# SPDX-License-Identifier: MIT
#
# cli_test.sh - `untorn init/info/check` as a user runs them: a clean
# store checks clean, a damaged block is reported by page and block with
# exit 1, and every bad input (missing or foreign DIR, bad superblock
# checksum, truncated data file, bad page size, data file and superblock
# from different stores) exits 2 with a one-line message naming the cause
# and the fix, and writes nothing.  info reads the tree's shape from a
# closed store, and says why not (changing nothing) for a crashed one.
set -u

UNTORN=${UNTORN:-${UNTORN_TOP:-$(dirname "$0")/..}/build/untorn}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-cli-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 26

S=$scratch/store
"$UNTORN" init "$S" --page-size 16k >/dev/null
"$UNTORN" check "$S" >"$scratch/out"
ok $? "init then check: clean store exits 0"

"$UNTORN" info --json "$S" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["page_size"] == 16384 and d["guard"] == "doublewrite"
assert d["format_version"] == 1 and d["pages_in_use"] == 2
assert d["slots"] == ["ok", "ok"] and d["checkpoint"]["slot"] == 1
assert d["blocks_per_page"] * d["block_size"] == d["page_size"]
assert d["redo_log_format"] == 3, d["redo_log_format"]' &&
	"$UNTORN" info "$S" | grep -q "^redo log  *$S/untorn.redo (format 3: slot moves as MOVE records)$"
ok $? "info: valid JSON with the superblock's facts, and the redo log's format (3 for a new store)"

# damage block 2 of page 1, then check
cp -a "$S" "$scratch/bad"
printf '\x99' | dd of="$scratch/bad/untorn.dat" bs=1 seek=$((16384 + 2 * 4096 + 100)) conv=notrunc status=none
"$UNTORN" check "$scratch/bad" >"$scratch/out"
rc=$?
[ $rc -eq 1 ] && grep -q '^page 1 block 2: checksum' "$scratch/out"
ok $? "a flipped byte in page 1 block 2: check exits 1 and names page 1 block 2"

"$UNTORN" check --json "$scratch/bad" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["bad_pages"] == 1 and d["bad"][0]["page"] == 1 and d["bad"][0]["block"] == 2
assert d["bad"][0]["kind"] == "checksum" and d["submits"] >= 1'
ok $? "check --json lists the bad block"

# page 1's blocks 0-1 from a later write, blocks 2-3 from the one before
"$UNTORN" init "$scratch/other" --page-size 16k >/dev/null
cp -a "$S" "$scratch/torn"
python3 - "$scratch/torn/untorn.dat" <<'PY'
import struct, sys, zlib
# rewrite page 1 blocks 0-1 as a newer image: bump page_lsn, recompute CRC32C
path = sys.argv[1]
def crc32c(data, crc=0):
    crc ^= 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1))
    return crc ^ 0xffffffff
with open(path, "r+b") as f:
    for blk in (0, 1):
        off = 16384 + blk * 4096
        f.seek(off)
        b = bytearray(f.read(4096))
        struct.pack_into("<Q", b, 16, 99999)       # page_lsn
        c = crc32c(b[4:], crc32c(struct.pack("<I", blk)))
        struct.pack_into("<I", b, 0, c)
        f.seek(off)
        f.write(b)
PY
"$UNTORN" check "$scratch/torn" >"$scratch/out"
rc=$?
[ $rc -eq 1 ] && grep -q '^page 1 block 2: torn' "$scratch/out"
ok $? "page 1 torn between blocks 1 and 2: check exits 1 and names block 2"

expect_fail "init: page size not a power of two" "power of two" "$scratch/p1" -- init "$scratch/p1" --page-size 3000
expect_fail "init: page size out of range (128k)" "between 4 KiB and 64 KiB" "$scratch/p2" -- init "$scratch/p2" --page-size 128k
expect_fail "init: page size that is not a size" "not a size" "$scratch/p3" -- init "$scratch/p3" --page-size lots
mkdir "$scratch/foreign" && echo hello >"$scratch/foreign/notes.txt"
expect_fail "init: non-empty foreign DIR" "not empty and holds no untorn store" "$scratch/foreign" -- init "$scratch/foreign"
expect_fail "init: DIR already holds a store" "already holds an untorn store" "$S" -- init "$S"
expect_fail "init: parent of DIR missing" "parent directory does not exist" "$scratch/nope" -- init "$scratch/nope/deeper"
expect_fail "init: guard none without --unsafe" "add --unsafe" "$scratch/p4" -- init "$scratch/p4" --guard none
expect_fail "info: missing DIR" "no such directory" "$scratch/missing" -- info "$scratch/missing"
expect_fail "check: foreign DIR" "holds no untorn store" "$scratch/foreign" -- check "$scratch/foreign"

cp -a "$S" "$scratch/sbcrc"
printf '\x01' | dd of="$scratch/sbcrc/untorn.dat" bs=1 seek=60 conv=notrunc status=none
expect_fail "check: superblock with a bad checksum" "superblock checksum mismatch" "$scratch/sbcrc" -- check "$scratch/sbcrc"

cp -a "$S" "$scratch/trunc1"
truncate -s $((16384 + 100)) "$scratch/trunc1/untorn.dat"
expect_fail "info: data file cut mid-page" "not a multiple of the 16384-byte page size" "$scratch/trunc1" -- info "$scratch/trunc1"

cp -a "$S" "$scratch/trunc2"
truncate -s 16384 "$scratch/trunc2/untorn.dat"
expect_fail "check: data file shorter than the pages in use" "truncated" "$scratch/trunc2" -- check "$scratch/trunc2"

cp -a "$S" "$scratch/trunc3"
truncate -s 100 "$scratch/trunc3/untorn.dat"
expect_fail "check: data file shorter than a superblock" "too short to hold a superblock" "$scratch/trunc3" -- check "$scratch/trunc3"

"$UNTORN" init "$scratch/s8" --page-size 8k >/dev/null
dd if="$S/untorn.dat" of="$scratch/s8/untorn.dat" bs=512 count=3 conv=notrunc status=none
expect_fail "check: data file's pages are 8k, superblock says 16k" "pages are 8192 bytes but the superblock says 16384" "$scratch/s8" -- check "$scratch/s8"

# getopt's refusals: one line of ours (never getopt's own on top), naming
# the option, exit 2, for every command and the other programs
bad=""
one_line() {	# WHAT EXPECTED CMD...: exit 2 and exactly one stderr line with EXPECTED
	local what=$1 want=$2 rc
	shift 2
	"$@" >/dev/null 2>"$scratch/opt.err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/opt.err")" -eq 1 ] && grep -qF -- "$want" "$scratch/opt.err" ||
		{ bad="$bad [$what: exit $rc: $(tr '\n' '|' <"$scratch/opt.err")]"; }
}
for cmd in init info check put get delete load dump "bench write" "bench scan" recover verify; do
	# shellcheck disable=SC2086
	one_line "$cmd --no-such" "unknown option '--no-such'" "$UNTORN" $cmd "$S" --no-such
done
one_line "bench --threads" "--threads needs a value" "$UNTORN" bench write "$S" --threads
one_line "check --json=1" "--json takes no value" "$UNTORN" check --json=1 "$S"
one_line "init -q" "unknown option '-q'" "$UNTORN" init -q "$scratch/q"
FSCHECK=$(dirname "$UNTORN")/untorn-fscheck
one_line "untorn-fscheck --no-such" "unknown option '--no-such'" "$FSCHECK" --no-such /
one_line "untorn-fscheck --page-size" "--page-size needs a value" "$FSCHECK" / --page-size
one_line "untorn-jw-write --no-such" "unknown option '--no-such'" "$(dirname "$UNTORN")/untorn-jw-write" --no-such
[ -z "$bad" ] || echo "# $bad"
[ -z "$bad" ]
ok $? "a bad option is one line naming it, exit 2: every command, untorn-fscheck, untorn-jw-write"

# the tree's shape: rows, levels, leaves and fragmentation, from the
# data file of a closed store
T=$scratch/tree
"$UNTORN" init "$T" >/dev/null && "$UNTORN" load "$T" --rows 20000 >/dev/null
"$UNTORN" info --json "$T" | python3 -c '
import json, sys
t = json.load(sys.stdin)["tree"]
assert t["read"] and t["rows"] == 20000 and t["height"] >= 2, t
assert t["leaves"] > 100 and 0 <= t["fragmentation"] <= 1, t' &&
	"$UNTORN" info "$T" | grep -q "^tree  *[0-9]* levels, 20000 rows in [0-9]* leaves; "
ok $? "info: the tree's levels, rows, leaves and fragmentation, read from the data file"

# a crashed store (the first page write dies, the rows only in the redo
# log): not read, the reason and the fix given, nothing written
C=$scratch/crashed
"$UNTORN" init "$C" >/dev/null
UNTORN_INJECT=torn-page-write:1 "$UNTORN" load "$C" --rows 20000 --pool 2M >/dev/null 2>&1
before=$(digest "$C")
"$UNTORN" info --json "$C" | python3 -c '
import json, sys
t = json.load(sys.stdin)["tree"]
assert not t["read"] and "untorn recover" in t["why"], t' &&
	[ "$before" = "$(digest "$C")" ] && "$UNTORN" recover "$C" >/dev/null &&
	"$UNTORN" info --json "$C" | python3 -c 'import json, sys; assert json.load(sys.stdin)["tree"]["read"]'
ok $? "info on a crashed store: the tree not read, why and the fix (recover) said, the store unchanged; read after recover"

# untorn-fscheck's PATH is a directory: a file is refused in one line
# naming the directory it is in, exit 2, nothing printed on stdout
printf 'x\n' >"$scratch/a-file"
"$FSCHECK" "$scratch/a-file" >"$scratch/out" 2>"$scratch/err"
rc=$?
sed 's/^/# /' "$scratch/err"
[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && [ ! -s "$scratch/out" ] &&
	grep -qF "$scratch/a-file: a file, not a directory; give the directory it is in ($scratch)" "$scratch/err"
ok $? "untorn-fscheck FILE: refused in one line naming the directory to give, exit 2"

# untorn-fscheck --help names every guard whose verdict it prints
"$FSCHECK" / >"$scratch/out" 2>&1
guards=$(sed -n 's/^untorn --guard \([a-z]*\) .*/\1/p' "$scratch/out")
"$FSCHECK" --help >"$scratch/help"
missing=""
for g in $guards; do grep -q "^  for untorn's guards .*\b$g\b" "$scratch/help" || missing="$missing $g"; done
if [ -z "$guards" ]; then
	ok_skip "untorn-fscheck --help names every guard it judges" "no verdict for / here: $(head -1 "$scratch/out")"
else
	echo "# verdicts for:" $guards"; not in --help:${missing:- none}"
	[ -z "$missing" ]
	ok $? "untorn-fscheck --help names every guard it judges"
fi

expect_fail "unknown command" "unknown command" "$S" -- frobnicate "$S"
expect_fail "check without DIR" "give exactly one DIR" "$S" -- check

ktap_finish
