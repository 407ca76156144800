#!/bin/bash
# SPDX-License-Identifier: MIT
#
# verify_test.sh - `untorn verify` says only what is true: a value that
# `put` wrote is not in load/bench's self-checking format and is counted
# as not checkable, never as damaged (also after concurrent put loops);
# a value in that format with a wrong hash is damaged (exit 1); an ack
# file that cannot be read or has a malformed line is an error naming the
# line (exit 2, one line), while a last line cut short by a crash is
# skipped with a note; bench's own acknowledgements verify clean; the rows
# of bench's transactions of four writes link whole, and a transaction
# with one of its rows gone is found half applied (exit 1).
set -u

UNTORN=${UNTORN:-${UNTORN_TOP:-$(dirname "$0")/..}/build/untorn}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-verify-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 7

S=$scratch/s
# vfy ARGS...: verify's stdout in $scratch/out, stderr in $scratch/err
vfy() {
	"$UNTORN" verify "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
}

"$UNTORN" init "$S" >/dev/null && "$UNTORN" put "$S" 42 hello
vfy "$S"
[ $rc -eq 0 ] && grep -q "1 rows, 0 out of order; 0 values .* checked: 0 damaged; 1 other values not checkable" "$scratch/out"
ok $? "one put value: not checkable, not damaged, exit 0 (exit $rc: $(cat "$scratch/out"))"

# two put loops at once (each put waits for the store), then load's rows
for l in 1 2; do
	(for i in $(seq 1 30); do "$UNTORN" put "$S" $((l * 1000 + i)) "value $l $i" --wait 30 || exit 1; done) &
done
wait %1 && wait %2 && "$UNTORN" load "$S" --rows 500 >/dev/null
vfy "$S" --json
[ $rc -eq 0 ] && python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["values_checked"] == 500 and j["damaged_values"] == 0, j
assert j["values_not_checkable"] == 60 and j["rows"] == 560 and j["ok"], j
' "$scratch/out"
ok $? "after two concurrent put loops and a load: 500 checked, 60 not checkable, 0 damaged, exit 0"

# key 0x4141414141414141 is "AAAAAAAA" little-endian: a value that starts
# with it and is 24+ bytes long claims the format, and its hash is wrong
"$UNTORN" put "$S" 4702111234474983745 AAAAAAAAthis-is-not-a-whole-row
vfy "$S"
[ $rc -eq 1 ] && grep -q "501 values .* checked: 1 damaged" "$scratch/out"
ok $? "a value in the self-checking format with a wrong hash: damaged, exit 1"
"$UNTORN" delete "$S" 4702111234474983745

# acks: bench's own, then each bad file
"$UNTORN" bench write "$S" --seconds 1 --threads 2 --ack-fd 3 3>"$scratch/acks" >/dev/null 2>&1
vfy "$S" --acks "$scratch/acks" --json
[ $rc -eq 0 ] && [ -s "$scratch/acks" ] && python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["acknowledged"] > 0 and j["lost"] == 0 and j["stale"] == 0 and j["ok"], j
' "$scratch/out"
ok $? "bench write --ack-fd, then verify --acks: every acknowledged key there, exit 0"

fails=0
bad_acks() {	# WHAT PATTERN FILE: exit 2, one line on stderr matching PATTERN
	vfy "$S" --acks "$3"
	if [ $rc -ne 2 ] || [ "$(wc -l <"$scratch/err")" -ne 1 ] || ! grep -q -e "$2" "$scratch/err" ||
		[ -s "$scratch/out" ]; then
		echo "# $1: exit $rc: $(head -c 300 "$scratch/err")"
		fails=$((fails + 1))
	fi
}
mkdir "$scratch/adir"
bad_acks "a directory" "adir: Is a directory" "$scratch/adir"
bad_acks "a missing file" "nothere: No such file" "$scratch/nothere"
echo "garbage" >"$scratch/g1"
bad_acks "garbage" "g1: line 1 is not \"KEY VERSION\"" "$scratch/g1"
{ head -2 "$scratch/acks"; echo "7 -1"; } >"$scratch/g3"
bad_acks "a negative version on line 3" "g3: line 3 is not" "$scratch/g3"
{ head -1 "$scratch/acks"; echo "8 0"; } >"$scratch/g2"
bad_acks "version 0 on line 2" "g2: line 2 is not" "$scratch/g2"
printf '9 1 extra\n' >"$scratch/g4"
bad_acks "a third field" "g4: line 1 is not" "$scratch/g4"
ok $fails "ack files that are a directory, missing, garbage, or have a malformed line: one line naming it, exit 2"

# a last line cut while being written: skipped, said, not an error
{ cat "$scratch/acks"; printf '12345'; } >"$scratch/cut"
vfy "$S" --acks "$scratch/cut"
[ $rc -eq 0 ] && grep -q "last line has no newline (cut while being written): skipped" "$scratch/err"
ok $? "an ack file whose last line was cut short: skipped with a note, exit 0"

# transactions of four writes: every row links to its transaction's
# next; a row of one deleted leaves the others pointing at nothing
T=$scratch/t
"$UNTORN" init "$T" >/dev/null && "$UNTORN" load "$T" --rows 2000 >/dev/null &&
	"$UNTORN" bench write "$T" --txn-writes 4 --update-pct 100 --rows 2000 --threads 2 --seconds 1 >/dev/null
vfy "$T" --json
links=$(sed -n 's/.*"transaction_links": *\([0-9]*\).*/\1/p' "$scratch/out")
[ $rc -eq 0 ] && [ "${links:-0}" -gt 0 ] && grep -q '"half_transactions": *0' "$scratch/out"
clean=$?
# a linked row's key, and the key it names: delete the one named
key=$("$UNTORN" dump "$T" | python3 -c '
import sys, struct
for line in sys.stdin:
    k, v = line.split("\t")
    b = bytes.fromhex(v.strip())
    if len(b) >= 40 and struct.unpack("<I", b[16:20])[0] & 0x80000000:
        print(struct.unpack("<Q", b[20:28])[0]); break')
"$UNTORN" delete "$T" "$key"
vfy "$T"
[ $clean -eq 0 ] && [ $rc -eq 1 ] && grep -q "half a transaction: key [0-9]* is there, but not key $key at version" "$scratch/err" &&
	grep -Eq "links between a transaction's rows: [1-9][0-9]* half transactions" "$scratch/out"
ok $? "bench --txn-writes 4: ${links:-no} links whole; with the row of key ${key:-?} deleted, a half transaction (exit $rc)"

ktap_finish
