#!/bin/bash
# SPDX-License-Identifier: MIT
#
# target_test.sh - bench-matrix --target on loop devices standing in for
# the user's disks (root): a blank device is measured, its facts and
# fio's calibration in every run's JSON; a device with a filesystem or a
# partition table is refused untouched and accepted with --destroy; a
# mounted one, one with a mounted partition, one another loop device
# sits on and one too small are refused even then.  --target DIR on ext4
# data=ordered, ext4 data=journal and XFS runs the guards that
# filesystem honours, says in one line why each other one did not run,
# and leaves the directory as it found it after success, after Ctrl-C
# mid-run and after a full disk; too little space is refused, and a
# directory on a read-only mount is refused saying so (as root too).
# scan-matrix --target scans stores copied into a directory or written
# over a blank device.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "/var/tmp/untorn-target-$$-XXXXXX")
. "$(dirname "$0")/loopfs.sh"
extra_loops=()
cleanup() {
	local l
	umount "$scratch/m" 2>/dev/null
	umount "$scratch/ro" 2>/dev/null
	for l in "${extra_loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	loopfs_cleanup
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 23
[ "$(id -u)" -eq 0 ] || ktap_skip_rest target "needs root for loop devices, mkfs and mounts"
losetup -f >/dev/null 2>&1 || ktap_skip_rest target "no free loop device"

bm=$top/scripts/bench-matrix
untorn=${UNTORN:-$top/build/untorn}
fscheck=${UNTORN_FSCHECK:-$top/build/untorn-fscheck}
# the shortest runs that still measure: 2000 rows, 1 s, one thread
quick=(--regime commit --threads 1 --seconds 1 --rows 2000)

# a loop device on a fresh sparse file of SIZE, in $dev (detached at exit)
blank_dev() {
	local img
	img=$(mktemp "$scratch/dev-XXXXXX.img")
	truncate -s "$1" "$img"
	dev=$(losetup -f --show --direct-io=on ${2:+"$2"} "$img") || return 1
	extra_loops+=("$dev")
}

# the first 8 MiB of a device (superblocks, partition tables)
head_sum() {
	head -c 8M "$1" | sha256sum
}

# refused NAME PATTERN DEV ARGS...: exit 2, one line matching PATTERN on
# stderr, the device's first 8 MiB unchanged
refused() {
	local desc=$1 pat=$2 d=$3 before rc
	shift 3
	before=$(head_sum "$d")
	"$bm" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	echo "# $(head -c 300 "$scratch/err")"
	[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q -- "$pat" "$scratch/err" &&
		[ "$before" = "$(head_sum "$d")" ]
	ok $? "$desc"
}

# 1: a blank device, measured
blank_dev 3G
"$bm" --target "$dev" --guards doublewrite,none "${quick[@]}" --calibrate 1 --out "$scratch/o1" \
	>"$scratch/out" 2>&1
rc=$?
sed 's/^/# /' "$scratch/out" | tail -6
[ $rc -eq 0 ] && python3 - "$scratch/o1" "$dev" <<'PY'
import json, os, sys
out, dev = sys.argv[1:3]
for g in ("doublewrite", "none"):
    r = json.load(open(os.path.join(out, "target-%s-t1.json" % g)))
    assert r["tps"] > 0, r["tps"]
    assert r["target"]["device"] == dev, r["target"]
    assert r["target"]["logical_block_size"] in (512, 4096), r["target"]
    assert "write_cache" in r["target"] and "rotational" in r["target"]
    assert r["calibration"]["randread_16k_iops"] > 0 and r["calibration"]["fdatasync_ms"] > 0
PY
ok $? "a blank device: doublewrite and none measured on it, its facts and fio's calibration in each run's JSON"

# the same device swept over the log room: every guard the same room,
# the journal guard's split between its redo log and the jbd2 journal
# made for it; each room's matrix, the sweep table, the room chart
"$bm" --target "$dev" --destroy --guards doublewrite,journal "${quick[@]}" --calibrate 0 \
	--log-room 32M,64M --journal-split 0.25 --out "$scratch/o1r" >"$scratch/out" 2>&1
rc=$?
sed 's/^/# /' "$scratch/out" | grep -E "room|journal " | tail -8
[ $rc -eq 0 ] && [ -s "$scratch/o1r/sweep-room.png" ] && python3 - "$scratch/o1r" <<'PY'
import json, os, sys
out = sys.argv[1]
for mib in (32, 64):
    room = mib << 20
    m = {r["guard"]: r for r in json.load(open(os.path.join(out, "room-%dM" % mib, "matrix.json")))}
    dw, j = m["doublewrite"], m["journal"]
    assert dw["log_room_asked"] == room == j["log_room_asked"], (dw["log_room_asked"], j["log_room_asked"])
    # doublewrite: the redo log is the room (less its header)
    assert not dw["pages_journalled"] and room - (1 << 20) < dw["log_room_bytes"] <= room, dw["log_room_bytes"]
    # journal: a quarter in the redo log (8 MiB at least), the rest jbd2's
    redo = max(8 << 20, room // 4)
    assert j["pages_journalled"] and j["jbd2_journal_bytes"] == room - redo, (j["jbd2_journal_bytes"], room - redo)
    assert redo - (1 << 20) < j["redo_log_bytes"] <= redo, j["redo_log_bytes"]
    assert room - (1 << 20) < j["log_room_bytes"] <= room, j["log_room_bytes"]
pts = {(r["guard"], r["log_room_asked"]) for r in json.load(open(os.path.join(out, "sweep.json")))}
assert pts == {(g, m << 20) for g in ("doublewrite", "journal") for m in (32, 64)}, pts
PY
ok $? "--log-room 32M,64M: every guard the same room, the journal guard's split between redo and jbd2 (--journal-split 0.25), each room's matrix, the sweep and its room chart"

# --memory: each run in a memory cgroup of that size under this test's
# own, charged the pool and the page cache alike, removed after it
memcg_parent=$(awk -F: '$2 == "memory" { print "/sys/fs/cgroup/memory" $3 } $1 == "0" && $2 == "" { print "/sys/fs/cgroup" $3 }' /proc/self/cgroup | head -1)
if ! (. "$top/scripts/lib/memcg.sh" && memcg_root >/dev/null); then
	ok_skip "--memory 400M: every run in a memory cgroup" "no memory cgroup controller on this kernel (v1 or v2)"
else
	# its cgroups are named for its pid: only those are looked for
	"$bm" --target "$dev" --destroy --guards doublewrite,journal "${quick[@]}" --calibrate 0 --memory 400M \
		--out "$scratch/o1m" >"$scratch/out" 2>&1 &
	bm_pid=$!
	wait $bm_pid
	rc=$?
	sed 's/^/# /' "$scratch/out" | tail -4
	[ $rc -eq 0 ] && python3 - "$scratch/o1m" <<'PY' && [ ! -e "$memcg_parent/untorn-memcg-$bm_pid" ]
import json, os, sys
for r in json.load(open(os.path.join(sys.argv[1], "matrix.json"))):
    assert r["memory_limit_bytes"] == 400 << 20, r.get("memory_limit_bytes")
    # the pool (128M, touched as it fills) and the page cache, within it
    assert 0 < r["memcg_peak_bytes"] <= 400 << 20, r.get("memcg_peak_bytes")
PY
	ok $? "--memory 400M: every run in a memory cgroup of 400M, its peak charge in the JSON within it, the cgroup removed"
fi

# 2-4: a filesystem, then a partition table: refused, then --destroy
blank_dev 3G
mkfs.ext4 -q "$dev"
refused "a device holding ext4: refused untouched, naming --destroy" "ext4.*--destroy" "$dev" \
	--target "$dev" "${quick[@]}"
wipefs -qa "$dev"
echo 'label: gpt' | sfdisk -q "$dev" >/dev/null 2>&1
before=$(head_sum "$dev")
refused "a device with a partition table: refused untouched" "partition table (gpt)" "$dev" \
	--target "$dev" "${quick[@]}"
"$bm" --target "$dev" "${quick[@]}" --destroy --dry-run --log-size 32M >"$scratch/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "nothing is changed" "$scratch/out" && grep -q "mkfs destroys" "$scratch/out" &&
	grep -q -- "init STORE .*--log-size 33554432" "$scratch/out" && [ "$before" = "$(head_sum "$dev")" ]
ok $? "with --destroy (and --dry-run, --log-size): accepted, every step printed (init with the log's size), nothing changed"

# the flush preset on equal footing unless told otherwise: every guard
# 1G of log room (the journal guard's split between its redo log and
# the jbd2 journal), every run in the same memory cgroup
"$bm" --target "$dev" --regime flush --guards doublewrite,journal --destroy --dry-run >"$scratch/out" 2>&1
rc=$?
ncg=$( (. "$top/scripts/lib/memcg.sh" && memcg_root >/dev/null) && echo 2 || echo 0)
[ $rc -eq 0 ] && grep -q -- "init STORE --guard doublewrite .*--log-size 1073741824" "$scratch/out" &&
	grep -q -- "init STORE --guard journal .*--log-size 536870912" "$scratch/out" &&
	grep -q "a 512 MiB jbd2 journal" "$scratch/out" &&
	[ "$(grep -c "in a memory cgroup of 1.5 GiB" "$scratch/out")" -eq "$ncg" ] && [ "$before" = "$(head_sum "$dev")" ]
ok $? "--regime flush: every guard 1G of log room (journal: 512M redo + 512M jbd2) and, with a memory controller, a 1.5G cgroup ($ncg of 2)"
"$bm" --target "$dev" --regime flush --guards doublewrite,journal --destroy --dry-run --log-size 64M --memory none >"$scratch/out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c -- "init STORE .*--log-size 67108864" "$scratch/out")" -eq 2 ] &&
	! grep -q "memory cgroup" "$scratch/out"
ok $? "--regime flush --log-size 64M --memory none: the preset's equal footing turned off as asked"

# 5: mounted; 6: a partition of it mounted; 7: a loop device on it; 8: too small
blank_dev 3G
mkfs.ext4 -q "$dev"
mkdir -p "$scratch/m"
mount "$dev" "$scratch/m"
refused "a mounted device: refused even with --destroy, naming the mount" "mounted on $scratch/m" "$dev" \
	--target "$dev" "${quick[@]}" --destroy
umount "$scratch/m"
blank_dev 3G --partscan
printf 'label: gpt\n,512M\n' | sfdisk -q "$dev" >/dev/null 2>&1
# the kernel's own scan may not run here: add the partitions it holds
[ -b "${dev}p1" ] || partx -a "$dev" 2>/dev/null
if [ -b "${dev}p1" ] && mkfs.ext4 -q "${dev}p1" && mount "${dev}p1" "$scratch/m"; then
	refused "a device whose partition is mounted: refused even with --destroy" "${dev}p1 is mounted" "$dev" \
		--target "$dev" "${quick[@]}" --destroy
	umount "$scratch/m"
else
	ok 1 "a device whose partition is mounted: cannot make the partition (${dev}p1)"
fi
blank_dev 3G
under=$dev
l2=$(losetup -f --show "$under") && extra_loops+=("$l2")
refused "a device another loop device sits on: refused even with --destroy" "backing of loop device $l2" "$under" \
	--target "$under" "${quick[@]}" --destroy
blank_dev 256M
refused "a device too small for the rows: refused, naming what it needs" "too small.*needs" "$dev" \
	--target "$dev" "${quick[@]}"

# --target DIR: the directory as it was (its files, their bytes)
dir_state() {
	(cd "$1" && find . -printf '%p %s %m\n' | sort && digest .)
}
# honoured DIR: the guards bench-matrix --target DIR runs, sorted, each
# followed by a space: those whose verdict passes there (untorn-fscheck,
# the device's facts and the block size init picks included) and those
# init takes only with --unsafe; from the guard table, no list here
honoured() {
	local g json
	json=$("$fscheck" "$1" --json 2>/dev/null)
	for g in $("$untorn" guards --list); do
		[ -n "$("$untorn" guards --get init_flags "$g")" ] ||
			[ "$(echo "$json" | python3 -c 'import json, sys
print(int(json.load(sys.stdin).get("untorn_" + sys.argv[1], {}).get("safe", 0)))' "$g" 2>/dev/null)" = 1 ] &&
			echo "$g"
	done | sort | tr '\n' ' '
}
nguards=$("$untorn" guards --list | wc -l)

# 9-11: the guards each filesystem honours, and why not the others
loopfs ord 2G "mkfs.ext4 -q" ""
loopfs jnl 2G "mkfs.ext4 -q" "data=journal"
loopfs xfs 2G "mkfs.xfs -q -m reflink=1" ""
for fs in ord jnl xfs; do
	d=$scratch/$fs
	mkdir -p "$d/mine" && echo "the user's" >"$d/mine/file"
	state=$(dir_state "$d")
	cal=0
	[ $fs = ord ] && cal=1
	"$bm" --target "$d" "${quick[@]}" --calibrate $cal --out "$scratch/o-$fs" >"$scratch/out-$fs" 2>&1
	rc=$?
	grep -E "not run|target" "$scratch/out-$fs" | head -8 | sed 's/^/# /'
	ran=$(cd "$scratch/o-$fs" 2>/dev/null && ls target-*-t1.json 2>/dev/null | sed 's/target-\(.*\)-t1.json/\1/' | sort | tr '\n' ' ')
	notrun=$(grep -c "not run on target: .*not safe here" "$scratch/out-$fs")
	want=$(honoured "$d")
	nwant=$((nguards - $(echo $want | wc -w)))
	[ $rc -eq 0 ] && [ "$ran" = "$want" ] && [ "$notrun" -eq $nwant ] && [ "$state" = "$(dir_state "$d")" ]
	ok $? "--target DIR on $(findmnt -no FSTYPE -T "$d") $(findmnt -no OPTIONS -T "$d" | cut -c1-40): ran ${want% }; $nwant not run, each with its reason; the directory as it was"
done

# 12: Ctrl-C mid-run on each filesystem: SIGINT to the run's process
# group, as a terminal sends it (job control gives the job a group of its
# own, and SIGINT is not ignored in it as in a plain background job)
bad=""
for fs in ord jnl xfs; do
	d=$scratch/$fs
	state=$(dir_state "$d")
	set -m
	"$bm" --target "$d" --guards none --regime commit --threads 1 --seconds 120 --rows 2000 --calibrate 0 \
		--out "$scratch/o-int" >"$scratch/out-int" 2>&1 &
	pid=$!
	set +m
	running=1
	for _ in $(seq 300); do
		pgrep -f "bench write $d/untorn-bench-matrix" >/dev/null && break
		kill -0 $pid 2>/dev/null || { running=0; break; }
		sleep 0.1	# polling for the benchmark to start: no event to wait on
	done
	kill -INT -- -$pid 2>/dev/null
	wait $pid
	rc=$?
	left=$(pgrep -f "untorn.*$d/untorn-bench-matrix" | wc -l)
	[ $running -eq 1 ] && [ $rc -ne 0 ] && [ "$left" -eq 0 ] && [ "$state" = "$(dir_state "$d")" ] ||
		bad="$bad $fs (running $running, exit $rc, $left left)"
done
[ -z "$bad" ] || echo "# $bad"
[ -z "$bad" ]
ok $? "Ctrl-C while bench write runs, on ext4 ordered, ext4 data=journal and XFS: exit non-zero, no process left, the directory as it was"

# 13: a full disk on each filesystem (the space check told there is
# room: the tests' override)
loopfs tiny 200M "mkfs.ext4 -q" ""
loopfs tinyj 200M "mkfs.ext4 -q" "data=journal"
loopfs tinyx 320M "mkfs.xfs -q -m reflink=1" ""
bad=""
for fs in tiny tinyj tinyx; do
	d=$scratch/$fs
	state=$(dir_state "$d")
	UNTORN_TARGET_NEED=1 "$bm" --target "$d" --guards none --regime commit --threads 1 --seconds 1 \
		--rows 2000000 --calibrate 0 \
		--out "$scratch/o-full" >"$scratch/out-full" 2>&1
	rc=$?
	tail -1 "$scratch/out-full" | sed "s/^/# $fs: /"
	[ $rc -ne 0 ] && grep -qi "no space\|ENOSPC\|full" "$scratch/out-full" &&
		grep -q "none on target failed" "$scratch/out-full" && [ "$state" = "$(dir_state "$d")" ] ||
		bad="$bad $fs (exit $rc)"
done
[ -z "$bad" ] || echo "# $bad"
[ -z "$bad" ]
ok $? "the disk fills during the load, on ext4 ordered, ext4 data=journal and XFS: a non-zero exit naming it, the directory as it was"
d=$scratch/tiny
state=$(dir_state "$d")

# 14: too little space, refused before anything
"$bm" --target "$d" "${quick[@]}" >"$scratch/out" 2>"$scratch/err"
rc=$?
echo "# $(cat "$scratch/err")"
[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "free, the benchmark needs" "$scratch/err" &&
	[ "$state" = "$(dir_state "$d")" ]
ok $? "a directory with too little free space: refused, naming what it needs"

# 15, 16: scan-matrix on the same targets: the stores copied into a
# directory, or their filesystem written over a blank device
sm=(--layouts random --rows 2000 --writers 0 --crash-commits 0 --fio-seconds 1)
d=$scratch/ord
state=$(dir_state "$d")
"$top/scripts/scan-matrix" --target "$d" "${sm[@]}" --out "$scratch/s-dir" >"$scratch/out-s" 2>&1
rc=$?
tail -3 "$scratch/out-s" | sed 's/^/# /'
[ $rc -eq 0 ] && python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["target"]["target"] == sys.argv[2] and d["target"]["fstype"] == "ext4", d.get("target")
assert [r["layout"] for r in d["runs"]] == ["random"] and d["runs"][0]["mb_per_s"]["logical"] > 0' \
	"$scratch/s-dir/scan-matrix.json" "$d" && [ "$state" = "$(dir_state "$d")" ]
ok $? "scan-matrix --target DIR: cold scans of the stores copied there, its facts in scan-matrix.json, the directory as it was"
blank_dev 5G
"$top/scripts/scan-matrix" --target "$dev" "${sm[@]}" --out "$scratch/s-dev" >"$scratch/out-s" 2>&1
rc=$?
tail -3 "$scratch/out-s" | sed 's/^/# /'
[ $rc -eq 0 ] && python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["target"]["device"] == sys.argv[2] and d["runs"][0]["mb_per_s"]["logical"] > 0' \
	"$scratch/s-dev/scan-matrix.json" "$dev" && ! findmnt -S "$dev" >/dev/null
ok $? "scan-matrix --target DEV: the stores' filesystem written over a blank device, scanned, unmounted"

# 17: what does not go together
"$bm" --target "$d" --devices ssd >/dev/null 2>"$scratch/e1"
r1=$?
"$bm" --destroy --devices ssd >/dev/null 2>"$scratch/e2"
r2=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && grep -q "give one" "$scratch/e1" && grep -q "go with --target" "$scratch/e2"
ok $? "--target with --devices, --destroy without --target: exit 2, one line"

# 18: a list of pacing modes runs each and leaves no work directory
# (its report was exec'd, which skipped the exit trap's cleanup)
"$bm" --target "$d" --guards none "${quick[@]}" --calibrate 0 --pacing forecast,off \
	--out "$scratch/o-pl" >"$scratch/out" 2>&1 &
pid=$!
wait $pid
rc=$?
left=$(find /var/tmp -maxdepth 1 -name "untorn-bench-matrix-$pid-*" | wc -l)
# what the paced run keeps of the unpaced one: its median second over
# the unpaced mean TPS, on the unpaced row only
keeps_right() {
	python3 - "$scratch/o-pl" <<'PY'
import json, sys
d = sys.argv[1]
rows = {r["pacing"]: r for r in json.load(open(d + "/sweep.json"))}
paced = json.load(open(d + "/pacing-forecast/matrix.json"))[0]
off = json.load(open(d + "/pacing-off/matrix.json"))[0]
want = paced["tps_median_second"] / off["tps"]
assert rows["forecast"]["first_median_over_mean"] is None, rows["forecast"]
assert abs(rows["off"]["first_median_over_mean"] - want) < 1e-9, (rows["off"], want)
PY
}
[ $rc -eq 0 ] && [ "$left" -eq 0 ] && [ -s "$scratch/o-pl/pacing-off/matrix.json" ] &&
	[ -s "$scratch/o-pl/sweep.json" ] && keeps_right
ok $? "--pacing forecast,off: both modes run and reported with what the paced run keeps of the unpaced, no work directory left (exit $rc, $left left)"

# 19: a read-only mount is "not writable" to test -w even as root: the
# line names the mount, not this user's permissions
mkdir -p "$scratch/ro"
truncate -s 64M "$scratch/ro.img" && mkfs.ext4 -q "$scratch/ro.img" &&
	ro=$(losetup -f --show "$scratch/ro.img") && extra_loops+=("$ro") &&
	mount -o ro "$ro" "$scratch/ro"
bad=""
for cmd in "$bm --target $scratch/ro ${quick[*]}" "$top/scripts/doublewrite-cost $scratch/ro"; do
	$cmd >"$scratch/out" 2>"$scratch/err"
	rc=$?
	echo "# $(head -c 300 "$scratch/err")"
	[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && [ ! -s "$scratch/out" ] &&
		grep -q "$scratch/ro: is on a read-only mount ($scratch/ro); remount it rw" "$scratch/err" &&
		! grep -q "run as root" "$scratch/err" || bad="$bad ${cmd%% *}"
done
[ -z "$bad" ] && [ -z "$(ls -A "$scratch/ro" | grep -v lost+found)" ]
ok $? "--target DIR on a read-only mount (bench-matrix, doublewrite-cost), as root: one line naming the read-only mount and remount rw, exit 2${bad:+ (failed:$bad)}"

ktap_finish
