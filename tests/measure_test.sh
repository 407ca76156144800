#!/bin/bash
# SPDX-License-Identifier: MIT
#
# measure_test.sh - untorn-fscheck --measure, the sysadmin's one command
# (root, loop devices): on ext4 data=ordered it measures doublewrite, none
# and the sector guard its verdict finds safe there with a 100 MiB redo
# log, and doublewrite with a 400 MiB one (the redo lever), in three
# alternating rounds (each store loaded once, in the first), in --json one object
# with the verdict, the target's facts, fio's figures, every round's runs,
# each ratio taken within a round as an object (median, low, high, the
# rounds' values; the old scalar beside it) and the sentence, whose
# form follows the interval (a gain or a cost only when it leaves 1.0
# out, else "cannot tell them apart here (within ±N %)"), and the exit
# status the verdict's; the table and the sentence print again from the
# kept results; the directory is left as it was; a
# directory with too little space is refused naming what it needs; bad
# values and combinations are one line and exit 2; SIGTERM to the
# program's PID mid-run stops the measurement's every process and
# removes what it made, exit 143; a directory on a read-only mount is
# refused before the report, naming the mount.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fscheck=${UNTORN_FSCHECK:-$top/build/untorn-fscheck}
scratch=$(mktemp -d "/var/tmp/untorn-measure-$$-XXXXXX")
. "$(dirname "$0")/loopfs.sh"
trap 'umount "$scratch/ro" 2>/dev/null; loopfs_cleanup; rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 7
[ "$(id -u)" -eq 0 ] || ktap_skip_rest measure "needs root for loop devices and mounts"
losetup -f >/dev/null 2>&1 || ktap_skip_rest measure "no free loop device"

dir_state() {
	(cd "$1" && find . -printf '%p %s %m\n' | sort && digest .)
}

loopfs ord 3G "mkfs.ext4 -q" ""
d=$scratch/ord
mkdir -p "$d/db" && echo "the user's" >"$d/db/file"
state=$(dir_state "$d")

# 1: the shortest measurement (the shortest --measure that leaves three
# rounds of four runs 5 s of warm-up and 10 measured), as JSON; the
# status answers untorn's question
secs=$("$fscheck" --help | sed -n 's/.*(default [0-9]*, at least \([0-9]*\).*/\1/p')
TMPDIR=$scratch "$fscheck" "$d" --measure=$secs --engine untorn --json >"$scratch/m.json" 2>"$scratch/m.err"
rc=$?
sed 's/^/# stderr: /' "$scratch/m.err" | tail -5
python3 - "$scratch/m.json" "$d" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print("# %s" % m["sentence"])
assert m["path"] == sys.argv[2]
assert m["verdict"]["fstype"] == "ext4" and m["verdict"]["untorn_sector"]["safe"] is True
runs = ["doublewrite", "none", "sector", "doublewrite@4x"]
assert [r["guard"] for r in m["runs"]] == runs, m["runs"]
# the server's redo capacity (the default's 100 MiB) for every guard, 4x for the lever
assert m["redo_capacity_bytes"] == 100 << 20, m["redo_capacity_bytes"]
redo = [r["redo_log_bytes"] for r in m["runs"]]
assert all(99 << 20 < b <= 100 << 20 for b in redo[:3]) and 399 << 20 < redo[3] <= 400 << 20, redo
assert all(r["tps"] > 0 for r in m["runs"])
assert m["guard"] == "sector" and m["safe"] is True
assert m["target"]["fstype"] == "ext4" and m["calibration"]["randwrite_16k_iops"] > 0
assert m["seconds"] >= 10 and m["warmup_s"] >= 5 and m["rows"] > 0
# three rounds, every run once a round in turn, the second round
# backwards (the runs listed in the order they ran); each store loaded
# in the first round, the later ones run on it
assert [r["round"] for r in m["rounds"]] == [1, 2, 3], m["rounds"]
for rd in m["rounds"]:
    ran = runs if rd["round"] % 2 else runs[::-1]
    assert [r["guard"] for r in rd["runs"]] == ran, rd
    assert all(r["tps"] > 0 and r["fresh_load"] is (rd["round"] == 1) for r in rd["runs"]), rd
# each ratio an object, taken within a round; the old scalar its median
for name, num, den in (("none_over_doublewrite", "none", "doublewrite"), ("guard_over_none", "sector", "none"),
                       ("redo4x_over_doublewrite", "doublewrite@4x", "doublewrite"),
                       ("redo4x_over_none", "doublewrite@4x", "none")):
    o = m["ratios"][name]
    print("# %s: %s" % (name, json.dumps(o)))
    tps = [{r["guard"]: r["tps"] for r in rd["runs"]} for rd in m["rounds"]]
    assert all(abs(v - t[num] / t[den]) < 0.001 for v, t in zip(o["rounds"], tps)) and len(o["rounds"]) == 3, o
    assert o["low"] == min(o["rounds"]) <= o["median"] <= o["high"] == max(o["rounds"]), o
    assert name.startswith("redo") or m[name] == o["median"], (m[name], o)
# the sentence's form follows the interval
nd, s = m["ratios"]["none_over_doublewrite"], m["sentence"]
if nd["low"] > 1:
    assert s.startswith("turning the doublewrite off here would buy "), s
elif nd["high"] < 1:
    assert s.startswith("turning the doublewrite off here would cost ") and "slower than doublewrite in every" in s, s
else:
    # to a tenth as the report rounds it: 1.58 - 1 is 0.5800000000000001
    n = round(max(nd["high"] - 1, 1 - nd["low"]) * 100, 1)
    assert "cannot tell them apart here (within \u00b1%d %%;" % nd["within_pct"] in s, s
    assert n <= nd["within_pct"] < n + 1.1, (n, nd)
assert "nothing" not in s
assert "for InnoDB/MariaDB it is UNSAFE because" in s
assert "untorn's sector guard is SAFE here" in s
assert "a 4x redo log (400 MiB against 100 MiB)" in s, s
PY
[ $? -eq 0 ] && [ $rc -eq 0 ]
ok $? "--measure=$secs --json on ext4 data=ordered: doublewrite, none, sector (100 MiB redo) and doublewrite with 400 MiB in 3 alternating rounds (the second backwards), each ratio's object and the sentence's form, the verdict and facts in one object, exit $rc (sector safe)"
[ "$state" = "$(dir_state "$d")" ] && ! ls "$scratch"/untorn-doublewrite-cost-* >/dev/null 2>&1
ok $? "the directory as it was, and no temporary directory left"

# 2: the sysadmin's view: the table and the sentence (printed again from
# the JSON: the same run, not a second one)
"$top/scripts/doublewrite-cost" --report-only "$scratch/m.json" >"$scratch/report" 2>&1
rc=$?
sed 's/^/# /' "$scratch/report"
[ $rc -eq 0 ] && grep -q '^guard  *tps  */doublewrite  */none  *worst second$' "$scratch/report" &&
	grep -q '^  3 rounds of doublewrite, none, sector, doublewrite@4x, ' "$scratch/report" &&
	grep -Eq '^sector +[0-9]+ \[[0-9]+-[0-9]+\] +[0-9.]+x \[[0-9.]+-[0-9.]+\] +[0-9.]+x \[' "$scratch/report" &&
	grep -q '^turning the doublewrite off here' "$scratch/report" && grep -q 'target: /dev/loop' "$scratch/report"
ok $? "the table (median [min-max] over the rounds) and the sentence, printed again from the JSON with --report-only"

# 3: too little space
loopfs tiny 300M "mkfs.ext4 -q" ""
state=$(dir_state "$scratch/tiny")
"$fscheck" "$scratch/tiny" --measure >"$scratch/out" 2>"$scratch/err"
rc=$?
echo "# $(cat "$scratch/err")"
[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "free, the measurement needs" "$scratch/err" &&
	grep -q "^untorn --guard sector" "$scratch/out" && [ "$state" = "$(dir_state "$scratch/tiny")" ]
ok $? "too little free space: the verdict, then one line naming what the measurement needs, exit 2, nothing left"

# 4: bad values and combinations
bad=0
for args in "--measure=5" "--measure=x" "--measure --probe" "--measure=$((secs - 1))"; do
	# shellcheck disable=SC2086
	"$fscheck" "$d" $args >"$scratch/out" 2>"$scratch/err"
	rc=$?
	echo "# $args: $(cat "$scratch/err")"
	[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && [ ! -s "$scratch/out" ] || bad=1
done
grep -q "from $secs to 86400" "$scratch/err" || bad=1
"$top/scripts/doublewrite-cost" "$d" --seconds 50 >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && grep -q "at least $secs" "$scratch/err" || bad=1
[ $bad -eq 0 ]
ok $? "--measure below $secs s (three rounds of four runs), or not a number, or with --probe: one line, exit 2, nothing measured"

# 5: SIGTERM to untorn-fscheck's PID alone (as kill or a service manager
# sends it) once the benchmark runs: its children, doublewrite-cost,
# bench-matrix and untorn bench, end with it; nothing of theirs is left
mkdir -p "$scratch/tmp5"
state=$(dir_state "$d")
stop_midway TERM "bench write $d/untorn-" \
	env TMPDIR="$scratch/tmp5" "$fscheck" "$d" --measure=$secs --engine untorn >/dev/null 2>"$scratch/m5.err"
bm_pid=$(echo "$stop_ps" | awk '/scripts\/bench-matrix/ { print $1; exit }')
echo "$stop_ps" | sed 's/^/# before: /'
sed 's/^/# stderr: /' "$scratch/m5.err" | tail -3
[ $stop_seen -eq 1 ] && [ $stop_rc -eq 143 ] && [ -z "$stop_left" ] && [ -n "$bm_pid" ] &&
	echo "$stop_ps" | grep -q doublewrite-cost && [ -z "$(ls -A "$scratch/tmp5")" ] &&
	! ls -d /var/tmp/untorn-bench-matrix-"$bm_pid"-* >/dev/null 2>&1 && [ "$state" = "$(dir_state "$d")" ]
ok $? "SIGTERM to untorn-fscheck --measure mid-run: exit $stop_rc, its scripts and untorn bench stopped, no temporary directory left, the directory as it was"

# a read-only mount (data=journal, so --probe writes too): the cause,
# not "this user", in one line before any report
truncate -s 64M "$scratch/ro.img" && mkfs.ext4 -q "$scratch/ro.img" &&
	ro=$(losetup -f --show "$scratch/ro.img") && loopfs_loops+=("$ro") &&
	mkdir -p "$scratch/ro" && mount -o ro,data=journal "$ro" "$scratch/ro"
bad=""
for opt in --measure=$secs --probe=1; do
	"$fscheck" "$scratch/ro" "$opt" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	echo "# $(head -c 300 "$scratch/err")"
	[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && [ ! -s "$scratch/out" ] &&
		grep -q -- "${opt%=*}: $scratch/ro is on a read-only mount ($scratch/ro); remount it rw" "$scratch/err" || bad="$bad $opt"
done
[ -z "$bad" ]
ok $? "--measure and --probe on a read-only mount: one line naming the mount and remount rw, nothing printed, exit 2${bad:+ (failed:$bad)}"

ktap_finish
