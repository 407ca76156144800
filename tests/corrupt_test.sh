#!/bin/bash
# SPDX-License-Identifier: MIT
#
# corrupt_test.sh - recovery and the checker on damaged stores: a store
# crashed mid-benchmark (kill -9, acknowledged commits recorded) is copied
# UNTORN_CORRUPT_STORES times (default 500) and each copy damaged one way
# (random bytes, a zeroed block, a flipped bit, a truncated file, two
# pages swapped, another store's redo log or doublewrite file); recover,
# check and verify must either bring back every acknowledged commit or
# stop with an exit status and a message naming the damage -- never
# crash, hang, or come back clean with rows lost (tests/corrupt_stores.py).
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
UNTORN=${UNTORN:-$top/build/untorn}
N=${UNTORN_CORRUPT_STORES:-500}
SEED=${UNTORN_CORRUPT_SEED:-$RANDOM}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/var/tmp}/untorn-corrupt-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 7

# the base: a store killed mid-benchmark after 2000 acknowledged commits
"$UNTORN" init "$scratch/base" >/dev/null && "$UNTORN" load "$scratch/base" --rows 5000 >/dev/null &&
	"$UNTORN" init "$scratch/other" >/dev/null && "$UNTORN" load "$scratch/other" --rows 100 >/dev/null
rc=$?
: >"$scratch/acks"
"$UNTORN" bench write "$scratch/base" --threads 2 --seconds 300 --rows 5000 --ack-fd 3 \
	3>>"$scratch/acks" >/dev/null 2>&1 &
bench=$!
while [ "$(wc -l <"$scratch/acks")" -lt 2000 ] && kill -0 $bench 2>/dev/null; do
	sleep 0.05	# polling the benchmark's own acknowledgements: it is the clock
done
kill -9 $bench 2>/dev/null
wait $bench 2>/dev/null
acked=$(wc -l <"$scratch/acks")
cp -a "$scratch/base" "$scratch/intact"
"$UNTORN" verify "$scratch/intact" --acks "$scratch/acks" >/dev/null 2>&1
intact=$?
[ $rc -eq 0 ] && [ "$acked" -ge 2000 ] && [ $intact -eq 0 ]
ok $? "an undamaged copy of the crashed store recovers with all $acked acknowledged commits"

echo "# $N damaged stores, seed $SEED (UNTORN_CORRUPT_SEED=$SEED repeats them)"
python3 "$top/tests/corrupt_stores.py" "$UNTORN" "$scratch/base" "$scratch/other" "$scratch/acks" \
	"$scratch" "$N" "$SEED" >"$scratch/out" 2>&1
rc=$?
sed 's/^/# /' "$scratch/out" | grep -v '^# {'
[ $rc -eq 0 ]
ok $? "$N damaged stores: each recovered whole or refused naming the damage; none crashed, hung or lost rows silently"

python3 - "$scratch/out" "$N" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
t = s["total"]
assert t["recovered"] + t["refused"] + t["reported"] + t["other"] == int(sys.argv[2])
assert all(sum(v.values()) > 0 for v in s["by_kind"].values())
assert t["refused"] > 0
PY
ok $? "every kind of damage was tried and some refused (the damage was real)"

# damage in the middle of the redo log: recovery refuses and changes
# nothing; --accept-log-loss recovers up to the damage and says so
cp -a "$scratch/base" "$scratch/probe"
"$UNTORN" recover "$scratch/probe" --json >"$scratch/probe.json" 2>/dev/null

# damage_log REDO middle|checkpoint garbage|zeros: damages the log block
# half way from the checkpoint to the end the undamaged copy recovered
# to, or the checkpoint's own block: 16 bytes of 0xff inside it, or all
# of it zeroed
damage_log() {
	python3 - "$1" "$scratch/probe.json" "$2" "$3" <<'PY'
import json, os, sys
path, probe, where, how = sys.argv[1:5]
r = json.load(open(probe))
cap = (os.path.getsize(path) - 4096) // 512 * 512
lsn = r["checkpoint_lsn"] if where == "checkpoint" else (r["checkpoint_lsn"] + r["end_lsn"]) // 2
with open(path, "r+b") as f:
    if how == "zeros":
        f.seek(4096 + lsn % cap // 512 * 512)
        f.write(bytes(512))
    else:
        f.seek(4096 + lsn % cap // 512 * 512 + 100)
        f.write(b"\xff" * 16)
PY
}

cp -a "$scratch/base" "$scratch/mid"
damage_log "$scratch/mid/untorn.redo" middle garbage
before=$(digest "$scratch/mid")
"$UNTORN" recover "$scratch/mid" >"$scratch/out" 2>"$scratch/err"
rc=$?
sed 's/^/# /' "$scratch/err"
[ $rc -eq 2 ] && grep -q 'redo log is damaged at LSN .* sound log follows up to LSN .*--accept-log-loss' "$scratch/err" &&
	[ "$(digest "$scratch/mid")" = "$before" ]
ok $? "redo damaged mid-log: recover refuses (exit 2) naming the LSNs and the way out, store unchanged"

"$UNTORN" recover "$scratch/mid" --accept-log-loss >"$scratch/out" 2>"$scratch/err"
rc=$?
grep 'NOT applied' "$scratch/out" | sed 's/^/# /'
[ $rc -eq 0 ] && grep -q 'sound log up to LSN [0-9]* was NOT applied' "$scratch/out" &&
	"$UNTORN" check "$scratch/mid" >/dev/null && "$UNTORN" verify "$scratch/mid" >/dev/null
ok $? "--accept-log-loss: recovers up to the damage, says what it did not apply; the tree checks and verifies"

# zeros where the scan starts (the checkpoint's block): refused; accepted,
# the damaged block goes with the old log, so the store opens again
cp -a "$scratch/base" "$scratch/ck"
damage_log "$scratch/ck/untorn.redo" checkpoint zeros
"$UNTORN" recover "$scratch/ck" >/dev/null 2>"$scratch/err"
r1=$?
"$UNTORN" recover "$scratch/ck" --accept-log-loss >/dev/null 2>&1
r2=$?
"$UNTORN" recover "$scratch/ck" >"$scratch/out" 2>&1
r3=$?
[ $r1 -eq 2 ] && grep -q 'all-zero block' "$scratch/err" && [ $r2 -eq 0 ] && [ $r3 -eq 0 ] &&
	! grep -q damaged "$scratch/out" && "$UNTORN" check "$scratch/ck" >/dev/null &&
	"$UNTORN" verify "$scratch/ck" >/dev/null
ok $? "zeros at the checkpoint's log block: refused (exit $r1); accepted, the store recovers clean again (exit $r3), checks and verifies"

# a store made before logs were filled (format 1: the circular area left
# zero, zeros taken as unused) still opens and recovers every commit
cp -a "$scratch/base" "$scratch/v1"
python3 - "$scratch/v1/untorn.redo" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    data = bytearray(f.read())
    assert int.from_bytes(data[8:12], "little") == 2, "not a format 2 log"
    data[8:12] = (1).to_bytes(4, "little")	# outside the header's checksum
    for i in range(4096, len(data), 512):
        if data[i:i + 8] == b"\xff" * 8:
            data[i:i + 512] = bytes(512)
    f.seek(0)
    f.write(data)
PY
"$UNTORN" recover "$scratch/v1" >"$scratch/out" 2>"$scratch/err" &&
	"$UNTORN" check "$scratch/v1" >/dev/null 2>&1 &&
	"$UNTORN" verify "$scratch/v1" --acks "$scratch/acks" >/dev/null 2>&1
ok $? "a format 1 redo log (zeros where unused) recovers with every acknowledged commit"

ktap_finish
