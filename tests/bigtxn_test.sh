#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bigtxn_test.sh - transactions larger than one redo group: bounded by
# memory, not the log.  A transaction of 1 000 000 writes of 100-byte
# values commits on a store made with init's defaults, every row reads
# back and `check` is clean; kill -9 at random moments of 300 000-write
# transactions (while their commit file is written, and while it is
# applied) leaves every write or none, every one acknowledged, and no
# commit file behind once the store is opened again; a commit file that
# does not check is removed at open with nothing applied; and (root) a
# commit file that does not fit the filesystem is refused in one line,
# nothing applied, nothing left.  UNTORN_BIGTXN_TRIALS sets the kills
# (default 6; issue 59's 20 in docs/testing.md).
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
untorn=${UNTORN:-$top/build/untorn}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/var/tmp}/untorn-bigtxn-test-$$-XXXXXX")
cleanup() {
	[ -n "${txn_pid:-}" ] && kill -9 "$txn_pid" 2>/dev/null
	loopfs_cleanup
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/loopfs.sh"
TRIALS=${UNTORN_BIGTXN_TRIALS:-6}
ktap_plan 4

# put lines for keys FROM..FROM+N-1, each VALUE (100 bytes with its pad)
put_lines() {	# put_lines N VALUE
	awk -v n="$1" -v v="$2" 'BEGIN { for (k = 0; k < n; k++) printf "put %d %s\n", k, v }'
}
pad100() {	# the tag, padded with '.' to 100 bytes
	printf '%-100s' "$1" | tr ' ' .
}
hex() {
	printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'
}
# rows of store DIR whose value is VALUE (the open applies what it finds)
count_value() {	# count_value DIR VALUE
	"$untorn" dump "$1" 2>/dev/null | awk -F'\t' -v h="$(hex "$2")" '$2 == h { n++ } END { print n + 0 }'
}
txn_files() {
	find "$1" -maxdepth 1 -name 'untorn.txn.*' | wc -l
}

# 1. a million writes in one transaction on init's defaults
s=$scratch/million
"$untorn" init "$s" >/dev/null
v=$(pad100 million)
put_lines 1000000 "$v" >"$scratch/million.in"
out=$("$untorn" txn "$s" <"$scratch/million.in" 2>&1)
rc=$?
echo "# $out"
n=$(count_value "$s" "$v")
"$untorn" check "$s" >"$scratch/check.out" 2>&1
crc=$?
echo "# dump: $n rows of the transaction's value; $(tail -1 "$scratch/check.out")"
[ $rc -eq 0 ] && [ "$out" = "committed: 1000000 writes" ] && [ "$n" -eq 1000000 ] && [ $crc -eq 0 ] &&
	[ "$(txn_files "$s")" -eq 0 ]
ok $? "a transaction of 1 000 000 writes of 100-byte values commits on init's defaults (64 MiB log, 16 KiB pages): every row reads back, check clean, no commit file left"
rm -rf "$s" "$scratch/million.in"

# 2. kill -9 at random moments of 300 000-write transactions
s=$scratch/kill
N=300000
"$untorn" init "$s" >/dev/null
"$untorn" load "$s" --rows $N >/dev/null
bad=""
mid=0
committed=0
for t in $(seq 1 "$TRIALS"); do
	v=$(pad100 "trial-$t")
	put_lines $N "$v" >"$scratch/kill.in"
	"$untorn" txn "$s" <"$scratch/kill.in" >"$scratch/kill.out" 2>&1 &
	txn_pid=$!
	# the moment of the kill (not a wait for anything): odd trials 0-1 s
	# from the start (reading the input, writing the file, applying);
	# even ones 0-0.3 s after the commit file exists, into its apply
	at="0.$((RANDOM % 10))$((RANDOM % 10))"
	if [ $((t % 2)) -eq 0 ]; then
		while kill -0 "$txn_pid" 2>/dev/null && [ "$(txn_files "$s")" -eq 0 ]; do :; done
		at="0.$((RANDOM % 3))$((RANDOM % 10))"
	fi
	sleep "$at"
	kill -9 "$txn_pid" 2>/dev/null
	wait "$txn_pid" 2>/dev/null
	txn_pid=
	files=$(txn_files "$s")
	[ "$files" -gt 0 ] && mid=$((mid + 1))
	ack=0
	grep -q '^committed' "$scratch/kill.out" && ack=1 && committed=$((committed + 1))
	n=$(count_value "$s" "$v")
	echo "# trial $t: commit file at the kill: $files, acknowledged: $ack, rows with its value after the open: $n"
	if { [ "$n" -ne 0 ] && [ "$n" -ne $N ]; } || { [ $ack -eq 1 ] && [ "$n" -ne $N ]; } ||
	   [ "$(txn_files "$s")" -ne 0 ]; then
		bad="$bad $t"
	fi
done
"$untorn" check "$s" >/dev/null 2>&1 || bad="$bad check"
echo "# $TRIALS kills: $mid with a commit file (committed, applied at the open), $committed acknowledged"
[ -z "$bad" ] || echo "# not all or nothing, or a file left: trials$bad"
[ -z "$bad" ]
ok $? "kill -9 at random moments of $TRIALS transactions of 300 000 writes: every write or none after the open, every acknowledged one, no commit file left, check clean"

# 3. a commit file that does not check was never committed; another
# store's is not this one's to apply or remove
o=$scratch/other
"$untorn" init "$o" >/dev/null
put_lines $N "$(pad100 other)" >"$scratch/kill.in"
"$untorn" txn "$o" <"$scratch/kill.in" >/dev/null 2>&1 &
txn_pid=$!
# kill it once its commit file is whole: the header is written last
foreign=""
while kill -0 "$txn_pid" 2>/dev/null; do
	foreign=$(find "$o" -maxdepth 1 -name 'untorn.txn.*' | head -1)
	[ -n "$foreign" ] && [ "$(head -c 8 "$foreign" 2>/dev/null | tr -d '\0')" = UNTORNTX ] && break
done
kill -9 "$txn_pid" 2>/dev/null
wait "$txn_pid" 2>/dev/null
txn_pid=
foreign=$(find "$o" -maxdepth 1 -name 'untorn.txn.*' | head -1)
[ -n "$foreign" ] && [ "$(head -c 8 "$foreign" | tr -d '\0')" = UNTORNTX ] && cp "$foreign" "$s/untorn.txn.998.0" || foreign=""
before=$("$untorn" dump "$s" 2>/dev/null | md5sum)
head -c 8192 /dev/urandom >"$s/untorn.txn.999.0"
{ printf 'UNTORNTX'; head -c 8184 /dev/zero; } >"$s/untorn.txn.999.1"
after=$("$untorn" dump "$s" 2>/dev/null | md5sum)
echo "# another store's commit file copied in: ${foreign:-none (the transaction ended first)}"
[ "$before" = "$after" ] && [ "$(txn_files "$s")" -eq $([ -n "$foreign" ] && echo 1 || echo 0) ] &&
	{ [ -z "$foreign" ] || [ -e "$s/untorn.txn.998.0" ]; }
ok $? "commit files that do not check (random bytes; a header without its CRC) are removed at open, nothing applied; another store's is left alone"
rm -f "$s/untorn.txn.998.0"
rm -rf "$s" "$scratch/kill.in"

# 4. a commit file that does not fit the filesystem
if [ "$(id -u)" -ne 0 ]; then
	ok_skip "a commit file that does not fit: one line, nothing applied, nothing left" "needs root for a loop filesystem"
else
	loopfs full 96M "mkfs.ext4 -q -F" "" || { echo "# no loop filesystem"; exit 1; }
	s=$scratch/full/s
	"$untorn" init "$s" --log-size 16M >/dev/null
	"$untorn" load "$s" --rows 20000 >/dev/null
	before=$("$untorn" dump "$s" 2>/dev/null | md5sum)
	put_lines 700000 "$(pad100 full)" >"$scratch/full.in"
	"$untorn" txn "$s" <"$scratch/full.in" >"$scratch/full.out" 2>"$scratch/full.err"
	rc=$?
	sed 's/^/# /' "$scratch/full.err"
	after=$("$untorn" dump "$s" 2>/dev/null | md5sum)
	[ $rc -ne 0 ] && [ "$(wc -l <"$scratch/full.err")" -eq 1 ] && grep -q "no space for the commit file" "$scratch/full.err" &&
		[ "$before" = "$after" ] && [ "$(txn_files "$s")" -eq 0 ]
	ok $? "a commit file that does not fit the filesystem (700 000 writes on 96 MiB): one line naming it, non-zero exit, nothing applied, nothing left"
fi
ktap_finish
