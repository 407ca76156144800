#!/bin/bash
# SPDX-License-Identifier: MIT
#
# yield_test.sh - a scan that yields to other work (--lra-spare): `untorn
# dump` on a loop device's ext4 with nothing else on the disk pauses only
# to look (at most two pauses), its output to a file on that disk too,
# and with another process writing there pauses before every window and
# sees that work, its rows the same bytes; beside writers on the HDD
# model, its output on the same disk or another, the writers keep half
# their speed alone and the yield line says it saw them; `--lra-spare 0` and `--lra-sleep` turn it off and say so; a
# store on tmpfs has no disk to watch and says why, dumping at full
# speed; `bench scan --writers T --baseline S` gives the writers' speed
# alone and beside the scan, counted in their commits; bad combinations
# are refused in one line, exit 2.  Root (loop devices) for the dump on a
# disk; the rest runs anywhere.
set -u

UNTORN=$(readlink -f "${UNTORN:-${UNTORN_TOP:-$(dirname "$0")/..}/build/untorn}")
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-yield-$$-XXXXXX")
other_pid="" tmpfs="" hdd="" hdd_name=yieldtest$$
top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/loopfs.sh"
cleanup() {
	[ -n "$other_pid" ] && kill "$other_pid" 2>/dev/null && wait "$other_pid" 2>/dev/null
	[ -n "$tmpfs" ] && umount "$tmpfs" 2>/dev/null
	[ -n "$hdd" ] && umount "$scratch/h" 2>/dev/null
	[ -n "$hdd" ] && "$top/scripts/emulate-hdd" stop "$hdd_name" >/dev/null 2>&1
	loopfs_cleanup
	rm -rf "$scratch"
}
trap cleanup EXIT
ktap_plan 8
cd "$scratch" || exit 1

# the figure after WORD in the yield line of FILE
yield_figure() {
	grep -o "yield: .*" "$2" | grep -o "[0-9.]* $1" | head -1 | cut -d' ' -f1
}

# refusals first: one line, exit 2, before any store is needed
fails=0
refused() {	# PATTERN ARGS...
	local pat=$1
	shift
	"$UNTORN" "$@" >out 2>err
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <err)" -ne 1 ] || ! grep -q -e "$pat" err; then
		echo "# $*: exit $rc: $(cat err)"
		fails=$((fails + 1))
	fi
}
"$UNTORN" init s >/dev/null && "$UNTORN" load s --rows 100000 >/dev/null || exit 1
refused "give --lra-sleep (a fixed pause) or --lra-spare" dump s --lra-sleep 5 --lra-spare 50
refused "--lra-spare" dump s --lra-spare 96
refused "--lra-spare" dump s --lra-spare half
refused "--lra-size, --lra-sleep and --lra-spare are logical read-ahead's" bench scan s --readahead linear --lra-spare 50
refused "--baseline S runs the writers alone first: give --writers T too" bench scan s --baseline 2
ok $fails "--lra-sleep with --lra-spare, --lra-spare 96 or not a number, on linear read-ahead, --baseline without writers: refused"

# Whether the writers are there is decided in the scan's first window
# and the look after it, an eighth of the reads until then (a fast scan
# is not stopped for a slow look): over 20 000 rows in the page cache
# that was 0.1 ms after a 1 ms window, and CI saw no commit land in it
# three times running.  Here the first window is 8 MiB read after --cold
# drops the file from the page cache (tens of ms; on a machine kept
# busy by two spinning shells and a dd, every run of five saw the
# writers).  On a busy machine the writers' fsyncs can still stall
# through all of it: every run must give figures that agree (none and no
# p99 when no commit ended in it); the writers must have committed beside
# the scan in one of three.
beside=0
for run in 1 2 3; do
	"$UNTORN" bench scan s --writers 2 --baseline 1 --cold --lra-size 8M --json >scan.json 2>scan.err &&
		python3 - scan.json <<'PY' || { beside=-1; break; }
import json, sys
r = json.load(open(sys.argv[1]))
w, y = r["writers"], r["yield"]
assert w["baseline_seconds"] == 1 and w["alone_tps"] > 0 and w["alone_p99_us"] > 0, w
assert abs(w["tps_over_alone"] - w["tps"] / w["alone_tps"]) < 1e-6, w
assert (w["tps"] > 0 and w["p99_us"] > 0) if w["transactions"] else (w["tps"] == 0 and w["p99_us"] == -1), w
assert y["on"] and y["counted"] == "the writers' commits" and y["spare_pct"] == 75, y
assert r["rows"] >= 100000, r["rows"]
PY
	grep -q '"transactions": [1-9]' scan.json && { beside=1; break; }
	echo "# run $run: no commit ended in the scan's window: $(grep -o '"writers": {[^}]*' scan.json)"
done
[ $beside -eq 1 ]
ok $? "bench scan --writers 2 --baseline 1: the writers alone and beside the scan (TPS, p99, the ratio), the yield counted in their commits"

if [ "$(id -u)" -ne 0 ]; then
	ktap_skip_rest "dump on a disk" "needs root (loop devices, tmpfs)"
	ktap_finish
	exit
fi

loopfs d 1G "mkfs.ext4 -q -F" "" || { echo "# cannot make ext4 on a loop device"; exit 1; }
"$UNTORN" init d/s >/dev/null && "$UNTORN" load d/s --rows 200000 >/dev/null || exit 1
maj_min=$(printf '%d:%d' "$(stat -c '0x%t' "$dev")" "$(stat -c '0x%T' "$dev")")

"$UNTORN" dump d/s >quiet.tsv 2>quiet.err
rc=$?
pauses=$(yield_figure pauses quiet.err)
[ $rc -eq 0 ] && grep -q "counted in sectors other processes read and wrote on device $maj_min" quiet.err &&
	[ -n "$pauses" ] && [ "$pauses" -le 2 ] && grep -q ": no other work seen$" quiet.err
ok $? "dump with nothing else on its disk ($maj_min): it watches the disk and pauses only to look (${pauses:-?} pauses)"

# its output a file on the same disk: the dump's own writes, put on the
# disk before each count, are not taken for another's work
"$UNTORN" dump d/s >d/quiet.tsv 2>quiet-same.err
rc=$?
pauses=$(yield_figure pauses quiet-same.err)
[ $rc -eq 0 ] && grep -q "less this process's reads and its output, a file on that disk" quiet-same.err &&
	[ -n "$pauses" ] && [ "$pauses" -le 2 ] && grep -q ": no other work seen$" quiet-same.err &&
	cmp -s d/quiet.tsv quiet.tsv
ok $? "dump > a file on its own disk, nothing else there: its output is its own, not other work (${pauses:-?} pauses)"
rm -f d/quiet.tsv

# another process writing on the same disk the whole time
( while :; do dd if=/dev/zero of=d/other bs=256k count=64 oflag=direct conv=notrunc status=none || exit; done ) &
other_pid=$!
"$UNTORN" dump d/s >busy.tsv 2>busy.err
rc=$?
kill "$other_pid" 2>/dev/null && wait "$other_pid" 2>/dev/null
other_pid=""
pauses=$(yield_figure pauses busy.err)
seen=$(grep -o "yield: .*" busy.err | sed -n 's/.* \([0-9]*\) while it paused.*/\1/p')
[ $rc -eq 0 ] && [ -n "$pauses" ] && [ "$pauses" -ge 5 ] && [ "${seen:-0}" -gt 0 ] && cmp -s quiet.tsv busy.tsv
ok $? "dump beside another process writing on its disk: ${pauses:-?} pauses, others' ${seen:-?} sectors a second seen in them, the same rows"

"$UNTORN" dump d/s --lra-spare 0 2>off.err | cmp -s - quiet.tsv &&
	grep -q "yield: none (--lra-spare 0)" off.err &&
	"$UNTORN" dump d/s --lra-sleep 1 2>sleep.err | cmp -s - quiet.tsv &&
	grep -q "yield: none (--lra-sleep 1 pauses by hand)" sleep.err
ok $? "--lra-spare 0 and --lra-sleep: no yield, said so; the same rows"

tmpfs=$scratch/t
mkdir -p "$tmpfs" && mount -t tmpfs -o size=256M "untorn-yield-$$" "$tmpfs" &&
	"$UNTORN" init "$tmpfs/s" --unsafe >/dev/null && "$UNTORN" load "$tmpfs/s" --rows 20000 >/dev/null &&
	"$UNTORN" dump "$tmpfs/s" >t.tsv 2>t.err && [ "$(wc -l <t.tsv)" -eq 20000 ] &&
	grep -q "yield: none (the store's filesystem has no block device of its own (device 0:[0-9]*: btrfs, FUSE, tmpfs or a network filesystem))" t.err
ok $? "a store on tmpfs: no disk to watch, said on stderr, every row dumped"

# The case a user meets: writers committing on the HDD model, and a dump
# of another store on the same disk written to a file there, or on
# another disk.  The writers keep at least half their speed alone (the
# yield aims at 75 %), and the yield line says it saw them in the reads
# and in the pauses.  (A dump to a file once subtracted its own output
# from the store's disk, wherever the file was: the line said 0 while
# it read, and to another disk 0 in the pauses too, the writers unseen.)
hdd_dump_beside() {	# OUT NAME: the writers' median second beside the dump of B > OUT
	local out=$1 t0 t2 rc
	t0=$(date +%s.%N)
	"$UNTORN" bench write h/A --threads 4 --seconds 30 --json >"w-$2.json" 2>/dev/null &
	local wp=$!
	"$UNTORN" dump h/B >"$out" 2>"dump-$2.err"
	rc=$?
	t2=$(date +%s.%N)
	wait $wp || return 1
	[ $rc -eq 0 ] && cmp -s "$out" hb.tsv || { echo "# dump > $out: exit $rc: $(cat "dump-$2.err")"; return 1; }
	rm -f "$out"
	python3 - "w-$2.json" "$t0" "$t2" <<'PY'
import json, statistics, sys
s = json.load(open(sys.argv[1]))["tps_series"]
end = min(int(float(sys.argv[3]) - float(sys.argv[2])), len(s))
print(statistics.median(s[1:end]) if end > 2 else 0)
PY
}
if [ -n "${SAN_FLAGS:-}" ]; then
	# what it holds is the writers' speed beside the dump: the plain
	# run measures it, a sanitizer's slowdown would only blur it
	ok_skip "dump beside writers on the HDD model" "sanitizer build ($SAN_FLAGS): the plain run measures the writers' speed"
elif [ ! -x "$top/build/untorn-hdd" ]; then
	ok 1 "dump beside writers on the HDD model: build/untorn-hdd missing; run make deps && make"
elif ! hdd=$("$top/scripts/emulate-hdd" start --name "$hdd_name" --size 2G) ||
	! mkfs.ext4 -q -F "$hdd" || ! mkdir -p h || ! mount "$hdd" h; then
	ok 1 "dump beside writers on the HDD model: cannot start the model or make ext4 on it"
else
	bad=""
	"$UNTORN" init h/A >/dev/null && "$UNTORN" load h/A --rows 50000 >/dev/null &&
		"$UNTORN" init h/B >/dev/null && "$UNTORN" load h/B --rows 200000 --layout split >/dev/null &&
		"$UNTORN" dump h/B --lra-spare 0 >hb.tsv 2>/dev/null || bad="$bad [stores]"
	alone=$("$UNTORN" bench write h/A --threads 4 --seconds 8 --json 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["tps_median_second"])')
	echo "# writers alone: ${alone:-?} TPS (median second)"
	for o in same:h/out.tsv other:"$scratch/out.tsv"; do
		sync
		echo 3 >/proc/sys/vm/drop_caches
		beside=$(hdd_dump_beside "${o#*:}" "${o%%:*}") || { bad="$bad [${o%%:*}]"; continue; }
		line=$(grep -o "yield: .*" "dump-${o%%:*}.err")
		echo "# output on the ${o%%:*} disk: writers $beside TPS beside the dump; $line"
		read_rate=$(echo "$line" | sed -n 's/.* \([0-9]*\) while the scan read.*/\1/p')
		python3 -c 'import sys; sys.exit(not float(sys.argv[1]) >= 0.5 * float(sys.argv[2]))' "$beside" "${alone:-0}" ||
			bad="$bad [${o%%:*}: kept under half]"
		[ "${read_rate:-0}" -gt 64 ] && echo "$line" | grep -q "other work kept [0-9]* % of its speed" ||
			bad="$bad [${o%%:*}: the writers unseen]"
	done
	[ -z "$bad" ] || echo "# failed:$bad"
	[ -z "$bad" ]
	ok $? "dump > FILE beside writers on the HDD model, FILE on the same disk and on another: the writers keep half their speed or more, and the yield line saw them"
fi
ktap_finish
