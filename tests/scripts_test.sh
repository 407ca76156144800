#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts_test.sh - the user's face of every script in scripts/ (what
# users run, installed) and dev/ (run from a clone: CI, tests, the kernel
# matrix): --help
# prints a USAGE and exits 0; an unknown option, no root, or a missing
# tool is one line on stderr naming the cause (the Debian package for a
# tool) and exit 2, with nothing changed: no file touched, no loop device
# or mount left.  A file or directory on a read-only mount is refused
# naming the mount, not this user's permissions (root is refused too).
# Stopped midway (SIGTERM to its PID, or a terminal's
# Ctrl-C to its process group), scan-matrix stops every process it
# started and removes what it made, exit 143 or 130, no traceback.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/var/tmp}/untorn-scripts-test-$$-XXXXXX")
ro_cleanup() {
	mountpoint -q "$scratch/ro" && umount "$scratch/ro"
	[ -z "${ro_dev:-}" ] || losetup -d "$ro_dev" 2>/dev/null
}
trap 'ro_cleanup; rm -rf "$scratch"' EXIT
# emulate-hdd keeps its disks' state in a directory of this test's own:
# what its runs leave is theirs alone, and its `stop --all` cannot reach
# a disk another user started on this machine
export UNTORN_HDD_STATE=$scratch/hdd-state
. "$(dirname "$0")/ktap.sh"
ktap_plan 13

# paths under the top folder
SCRIPTS="scripts/bench-matrix scripts/bt-plot scripts/crash-sim scripts/demo scripts/emulate-hdd scripts/fio-compare
	 scripts/mkfs-atomic scripts/mkfs-journal scripts/peer-mariadb scripts/profile scripts/profile-overhead scripts/scan-matrix
	 dev/atomic-cost dev/crash-kill9 dev/crash-matrix dev/flushing-compare dev/kernel-matrix dev/kernel-suite dev/logwrites-replay
	 dev/install-deps"
# bad values, each refused before anything is made
BAD_CMDS=("bench-matrix --log-room 64M --log-size 64M --out $scratch/o" "bench-matrix --journal-split 0.5 --out $scratch/o"
	  "bench-matrix --log-room 64M --journal-split 1.5 --out $scratch/o" "bench-matrix --log-room 8M --out $scratch/o"
	  "bench-matrix --log-room 64M,8M --out $scratch/o" "bench-matrix --log-room 16M --journal-split 0.9 --out $scratch/o"
	  "bench-matrix --regime flush --memory 1200M --out $scratch/o" "bench-matrix --memory lots --out $scratch/o"
	  "demo --rows 0 --dir $scratch/d" "demo --seconds x --dir $scratch/d" "fio-compare --dir $scratch --size xyz --out $scratch/o"
	  "fio-compare --dir $scratch --runtime 1.5 --out $scratch/o" "profile --scripts nosuch --out $scratch/o -- true"
	  "profile --page-size abc --out $scratch/o -- true" "profile --scripts"
	  "emulate-hdd start --seek-min x" "emulate-hdd start --rpm 0" "emulate-hdd start --seek-min 9 --seek-max 2"
	  "emulate-hdd start --name a/b" "emulate-hdd start --size foo" "emulate-hdd start --image $scratch/none"
	  "emulate-hdd start --rpm" "emulate-hdd calibrate /dev/null --seconds abc"
	  "emulate-hdd start --profile ssd" "emulate-hdd start --profile"
	  "peer-mariadb --configs dw,foo --out $scratch/o" "peer-mariadb --tables 0 --out $scratch/o"
	  "peer-mariadb --buffer-pool 1X --out $scratch/o" "peer-mariadb --untorn $scratch/none --out $scratch/o"
	  "bench-matrix --devices floppy --out $scratch/o" "bench-matrix --guards foo --out $scratch/o"
	  "bench-matrix --threads 1,x --out $scratch/o" "bench-matrix --seconds"
	  "scan-matrix --devices floppy --out $scratch/o" "scan-matrix --pool xyz --out $scratch/o"
	  "scan-matrix --batches q --out $scratch/o" "scan-matrix --rows"
	  "mkfs-journal $scratch/new.img --size 1G --page-size 3x --mount $scratch/m"
	  "mkfs-journal $scratch/new.img --size abc --mount $scratch/m"
	  "mkfs-journal $scratch/new.img --size 64M --mount $scratch/m"
	  "mkfs-atomic $scratch/new.img --size 64M --mount $scratch/m"
	  "mkfs-journal $scratch/new.img --size 1G --mount relmnt"
	  "mkfs-journal $scratch/new.img --size 1G --mount $scratch/no/such/m"
	  "profile-overhead --rounds" "profile-overhead --rounds x --dir $scratch"
	  "profile-overhead --scripts nope --dir $scratch" "profile-overhead --dir $scratch/no"
	  "../dev/crash-kill9 --trials" "../dev/crash-kill9 --trials x" "../dev/crash-matrix --trials"
	  "../dev/crash-matrix --txn-writes 0" "../dev/crash-matrix --txn-writes 100001"
	  "../dev/flushing-compare --guard floppy" "../dev/crash-kill9 --guard"
	  "../dev/atomic-cost --qd 8,x --out $scratch/o" "../dev/atomic-cost --qd 300 --out $scratch/o"
	  "../dev/atomic-cost --device floppy --out $scratch/o" "../dev/atomic-cost --dir $scratch/no --out $scratch/o"
	  "../dev/atomic-cost --dir $scratch --device hdd --out $scratch/o" "../dev/atomic-cost --size 0 --out $scratch/o"
	  # issue 29: sizes too small to be what was meant, counts beyond
	  # the shell's arithmetic, paths that are not what they must be
	  "emulate-hdd start --size 3k" "fio-compare --dir $scratch --size 3k --out $scratch/o"
	  "peer-mariadb --buffer-pool 3k --out $scratch/o" "peer-mariadb --log-file-size 1M --out $scratch/o"
	  "bench-matrix --report-only --out $scratch/empty" "bench-matrix --report-only --out $scratch/no/x"
	  "bench-matrix --out $scratch/no/x" "bench-matrix --rows 999999999999999999999999 --out $scratch/o"
	  "bench-matrix --rows 1000,x --out $scratch/o" "bench-matrix --rows 1000,0 --out $scratch/o"
	  "bench-matrix --warmup x --out $scratch/o" "bench-matrix --warmup"
	  "bench-matrix --fs btrfs --out $scratch/o" "bench-matrix --repeat 0 --out $scratch/o"
	  "bench-matrix --repeat 3 --pacing forecast,off --out $scratch/o"
	  "bench-matrix --load-once --target $scratch --out $scratch/o"
	  "bench-matrix --repeat 2 --load-once --out $scratch/o"
	  "bench-matrix --repeat 2 --load-once --target $scratch --out $scratch/o"
	  "bench-matrix --log-size 4M --out $scratch/o" "bench-matrix --log-size 64Q --out $scratch/o"
	  "bench-matrix --log-size 2G --out $scratch/o" "bench-matrix --log-size"
	  "profile --out $scratch/o -- $scratch/no/cmd" "profile-overhead --json $scratch/no/x.json --dir $scratch"
	  "profile-overhead --json $scratch --dir $scratch" "fix-journal $scratch --fstab $scratch"
	  "mkfs-journal /dev/untorn-no-such-dev --size 4G --mount $scratch/m --dry-run"
	  "mkfs-journal $scratch/no/new.img --size 1G --mount $scratch/m --dry-run")

# the root-only ones, each with arguments that would make it act
ROOT_CMDS=("scripts/mkfs-journal $scratch/img --mount $scratch/m" "scripts/mkfs-atomic $scratch/img --mount $scratch/m"
	   "scripts/emulate-hdd start --size 64M" "scripts/profile -- true" "scripts/scan-matrix --out $scratch/o"
	   "scripts/bench-matrix --out $scratch/o" "scripts/crash-sim --trials 1" "scripts/profile-overhead --dir $scratch"
	   "dev/logwrites-replay --disk $scratch/img" "dev/kernel-suite --out $scratch/o"
	   "dev/kernel-matrix --out $scratch/o --kernels 6.1" "dev/flushing-compare --out $scratch/o"
	   "scripts/peer-mariadb --out $scratch/o" "dev/atomic-cost --out $scratch/o")

# one_line_exit2 NAME CMD...: exit 2, exactly one line on stderr
one_line_exit2() {
	local name=$1 rc
	shift
	"$@" >"$scratch/out" 2>"$scratch/err" </dev/null
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$scratch/err")" -ne 1 ]; then
		echo "# $name: exit $rc, stderr: $(head -3 "$scratch/err" | tr '\n' '|')"
		return 1
	fi
}

bad=""
for s in $SCRIPTS; do
	"$top/$s" --help 2>&1 | grep -q 'USAGE' || bad="$bad $s"
done
[ -z "$bad" ] || echo "# no USAGE from --help:$bad"
[ -z "$bad" ]
ok $? "every script prints its USAGE with --help ($(echo $SCRIPTS | wc -w) scripts)"

bad=""
for s in $SCRIPTS; do
	[ $s = scripts/bt-plot ] && continue	# positional arguments only
	one_line_exit2 "$s" "$top/$s" --no-such-option || bad="$bad $s"
	grep -q 'no-such-option' "$scratch/err" || bad="$bad $s(not named)"
done
[ -z "$bad" ] || echo "# failed:$bad"
[ -z "$bad" ]
ok $? "an unknown option: one line naming it, exit 2"

# not root: as nobody when we are root, else as ourselves
as_user=()
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
		chmod 777 "$scratch"
		as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	fi
fi
if [ "$(id -u)" -eq 0 ] && [ ${#as_user[@]} -eq 0 ]; then
	ok_skip "no root: one line saying root is needed, exit 2, nothing changed" "no setpriv or no user nobody"
else
	truncate -s 64M "$scratch/img"
	before=$(sha256sum <"$scratch/img") bad=""
	for c in "${ROOT_CMDS[@]}"; do
		# shellcheck disable=SC2086
		one_line_exit2 "$c" "${as_user[@]}" "$top/"$c || bad="$bad [$c]"
		grep -q 'root' "$scratch/err" || bad="$bad [$c: root not named]"
	done
	[ "$(sha256sum <"$scratch/img")" = "$before" ] || bad="$bad [image changed]"
	[ -z "$(losetup -j "$scratch/img" 2>/dev/null)" ] || bad="$bad [the image attached]"
	[ ! -e "$scratch/o" ] && [ ! -e "$scratch/m" ] || bad="$bad [output made]"
	[ -z "$bad" ] || echo "# failed:$bad"
	[ -z "$bad" ]
	ok $? "no root: one line saying root is needed, exit 2, nothing changed (${#ROOT_CMDS[@]} scripts)"
fi

bad=""
mkdir "$scratch/empty"
for c in "${BAD_CMDS[@]}"; do
	# shellcheck disable=SC2086
	one_line_exit2 "$c" "$top/scripts/"$c || bad="$bad [$c]"
done
left=$(cd "$scratch" && ls -d d o m new.img no relmnt "$top/relmnt" 2>/dev/null)
[ -z "$left" ] || bad="$bad [left behind: $left]"
[ -z "$(ls -A "$scratch/empty")" ] || bad="$bad [written into an empty --out]"
[ -z "$(ls -A "$UNTORN_HDD_STATE" 2>/dev/null)" ] || bad="$bad [emulate-hdd state left]"
[ -z "$bad" ] || echo "# failed:$bad"
[ -z "$bad" ]
ok $? "bad values (${#BAD_CMDS[@]} cases: numbers, sizes, names, lists, paths): one line, exit 2, nothing made"

# a PATH without TOOL: links to everything on PATH but it
path_without() {
	local d=$scratch/path-$1 p f
	mkdir -p "$d"
	for p in ${PATH//:/ }; do
		for f in "$p"/*; do
			[ -x "$f" ] && [ ! -e "$d/${f##*/}" ] && [ "${f##*/}" != "$1" ] && ln -s "$f" "$d/${f##*/}"
		done
	done
	echo "$d"
}
bad=""
one_line_exit2 fio-compare env PATH="$(path_without fio)" "$top/scripts/fio-compare" --dir "$scratch" \
	--jobs redo --out "$scratch/o" || bad="$bad fio-compare"
grep -q 'apt-get install fio' "$scratch/err" || bad="$bad [fio-compare: no package named]"
if [ "$(id -u)" -eq 0 ]; then
	one_line_exit2 mkfs-atomic env PATH="$(path_without mkfs.xfs)" "$top/scripts/mkfs-atomic" \
		"$scratch/img" --mount "$scratch/m" || bad="$bad mkfs-atomic"
	grep -q 'apt-get install xfsprogs' "$scratch/err" || bad="$bad [mkfs-atomic: no package named]"
	one_line_exit2 profile env PATH="$(path_without bpftrace)" "$top/scripts/profile" -- true ||
		bad="$bad profile"
	grep -q 'apt-get install bpftrace' "$scratch/err" || bad="$bad [profile: no package named]"
fi
[ -z "$bad" ] || echo "# failed:$bad"
[ -z "$bad" ]
ok $? "a missing tool (fio, mkfs.xfs, bpftrace): one line naming the Debian package, exit 2"

bad=""
one_line_exit2 emulate-hdd "$top/scripts/emulate-hdd" stop no-such-disk || bad="$bad stop"
one_line_exit2 emulate-hdd "$top/scripts/emulate-hdd" calibrate /dev/null || bad="$bad calibrate"
one_line_exit2 emulate-hdd "$top/scripts/emulate-hdd" frobnicate || bad="$bad command"
# a block device it did not start (with a filesystem on it) is not
# calibrated: fio would write over it
if [ "$(id -u)" -eq 0 ] && truncate -s 64M "$scratch/other.img" && mkfs.ext4 -q "$scratch/other.img" &&
   other=$(losetup -f --show "$scratch/other.img" 2>/dev/null); then
	one_line_exit2 emulate-hdd "$top/scripts/emulate-hdd" calibrate "$other" --seconds 1 || bad="$bad foreign-device"
	[ "$(blkid -p -o value -s TYPE "$other")" = ext4 ] || bad="$bad [foreign device overwritten]"
	losetup -d "$other"
fi
[ -z "$bad" ] || echo "# failed:$bad"
[ -z "$bad" ]
ok $? "emulate-hdd: a disk it did not start, a non-device, an unknown command, calibrating a device it did not start (left intact): one line, exit 2"

# the progress line of long jobs (common.sh): the step, the time so far
# and the time left at the mean step so far, on stderr; nothing when
# stderr is not a terminal (CI logs), unless UNTORN_PROGRESS=1
out=$(bash -c 'prog=t; top=$1; . "$top/scripts/lib/common.sh"
	UNTORN_PROGRESS=1 progress 0 4 first
	progress_t0=$(( $(date +%s) - 120 ))
	UNTORN_PROGRESS=1 progress 3 4 last
	progress 3 4 quiet' _ "$top" 2>&1 >/dev/null)
echo "$out" | sed 's/^/# /'
[ "$(echo "$out" | sed -n 1p)" = "t: [1/4] first, 0 s so far" ] &&
	[ "$(echo "$out" | sed -n 2p)" = "t: [4/4] last, 2:00 so far, about 40 s left" ] &&
	[ "$(echo "$out" | wc -l)" = 2 ]
ok $? "progress lines: step, time so far, time left from the mean step; silent off a terminal"

# the two profiles, calibrated: the cloud SSD serves random writes an
# order of magnitude faster than the disk, and both are torn down
rand_write_iops() {	# PROFILE: fio's random 16 KiB write IOPS, or nothing
	local name=scriptstest$$$1 dev
	dev=$("$top/scripts/emulate-hdd" start --name "$name" --size 256M --profile "$1") || return 1
	"$top/scripts/emulate-hdd" calibrate "$dev" --seconds 1 --json |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["randwrite_16k_iops"])'
	"$top/scripts/emulate-hdd" stop "$name" >/dev/null
}
if [ "$(id -u)" -ne 0 ]; then
	ok_skip "emulate-hdd --profile cloud-ssd: random writes >= 8x the hdd profile's" "not root (loop devices, FUSE)"
elif [ ! -x "$top/build/untorn-hdd" ] || ! command -v fio >/dev/null; then
	ok 1 "emulate-hdd --profile cloud-ssd: build/untorn-hdd or fio missing; run make deps && make"
else
	hdd_iops=$(rand_write_iops hdd) cloud_iops=$(rand_write_iops cloud-ssd)
	echo "# random 16 KiB writes, QD1: hdd ${hdd_iops:-?} IOPS, cloud-ssd ${cloud_iops:-?} IOPS"
	[ -n "$hdd_iops" ] && [ -n "$cloud_iops" ] && [ "$cloud_iops" -ge $((hdd_iops * 8)) ]
	ok $? "emulate-hdd --profile cloud-ssd: random writes >= 8x the hdd profile's"
fi

# two disks at once, as two users' scripts would have them: calibrated
# side by side, neither's cleanup (stop DEV, stop --all) pulls the
# other's away while its starter runs, and a disk whose loop device is
# gone stops its calibration at once instead of reporting zeros
two_disks() {
	local a b bad="" n=scriptstest2$$ hdd=$top/scripts/emulate-hdd
	a=$("$hdd" start --name ${n}a --size 64M) || return 1
	b=$("$hdd" start --name ${n}b --size 64M --profile cloud-ssd) || { "$hdd" stop ${n}a; return 1; }
	"$hdd" calibrate "$a" --seconds 1 --json >"$scratch/cal-a" 2>&1 & local pa=$!
	"$hdd" calibrate "$b" --seconds 1 --json >"$scratch/cal-b" 2>&1
	wait $pa || bad="$bad [calibrate a]"
	for f in cal-a cal-b; do
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
sys.exit(not all(v > 0 for k, v in d.items() if k != "device"))' "$scratch/$f" 2>/dev/null ||
			bad="$bad [$f: $(head -c 200 "$scratch/$f")]"
	done
	# another process's cleanup: this test started both, and still runs
	bash -c '"$0" stop --all' "$hdd" 2>/dev/null
	one_line_exit2 stop-dev bash -c '"$0" stop "$1"' "$hdd" "$a" || bad="$bad [stop DEV refused]"
	[ "$(losetup -nO BACK-FILE "$a")" = "$UNTORN_HDD_STATE/${n}a/mnt/disk.img" ] &&
		[ "$(losetup -nO BACK-FILE "$b")" = "$UNTORN_HDD_STATE/${n}b/mnt/disk.img" ] ||
		bad="$bad [a disk was pulled away]"
	# its device detached under it: one line at once, not zeros
	losetup -d "$a"
	one_line_exit2 calibrate-gone "$hdd" calibrate "$a" --seconds 1 --json || bad="$bad [zeros calibrated]"
	grep -q "no size" "$scratch/err" || bad="$bad [$(cat "$scratch/err")]"
	"$hdd" stop ${n}a && "$hdd" stop ${n}b || bad="$bad [stop NAME]"
	[ ! -e "$UNTORN_HDD_STATE/${n}a" ] && [ ! -e "$UNTORN_HDD_STATE/${n}b" ] || bad="$bad [state left]"
	[ -z "$bad" ] || echo "# failed:$bad"
	[ -z "$bad" ]
}
if [ "$(id -u)" -ne 0 ]; then
	ok_skip "emulate-hdd: two disks at once" "not root (loop devices, FUSE)"
elif [ ! -x "$top/build/untorn-hdd" ] || ! command -v fio >/dev/null; then
	ok 1 "emulate-hdd: two disks at once: build/untorn-hdd or fio missing; run make deps && make"
else
	two_disks
	ok $? "emulate-hdd: two disks calibrated at once; stop DEV and stop --all leave a disk whose starter runs; a detached disk's calibration stops at once"
fi

# scan-matrix stopped midway: SIGTERM to its PID alone while it loads
# (untorn load), a Ctrl-C to its whole group while fio reads (fio, with
# Python in the pipelines beside it).  Every process of it ends, its
# work directory, loop devices and mounts are gone, the exit status is
# 128 + the signal's, and stderr has no traceback.  A small run: one
# layout, the ssd device (a loop device), no runs under load, no crash
sm_stopped() {	# [-]SIGNAL PATTERN
	local sig=$1 pid want=$((128 + $(kill -l "${1#-}"))) bad=""
	stop_midway "$sig" "$2" "$top/scripts/scan-matrix" --devices ssd --layouts sequential --rows 150000 \
		--writers 0 --crash-commits 0 --fio-seconds 30 --out "$scratch/sm-${sig#-}" >"$scratch/sm.out" 2>"$scratch/sm.err"
	pid=$(echo "$stop_ps" | awk '/scripts\/scan-matrix/ { print $1; exit }')
	echo "$stop_ps" | sed 's/^/# before: /'
	sed 's/^/# stderr: /' "$scratch/sm.err" | tail -3
	[ $stop_seen -eq 1 ] || bad="$bad [$2 never ran]"
	[ "$stop_rc" -eq "$want" ] || bad="$bad [exit $stop_rc]"
	[ -z "$stop_left" ] || bad="$bad [left:$stop_left]"
	! grep -q Traceback "$scratch/sm.err" || bad="$bad [traceback]"
	! ls -d /var/tmp/untorn-scan-matrix-"$pid"-* >/dev/null 2>&1 || bad="$bad [work dir left]"
	! losetup -a | grep -q "untorn-scan-matrix-$pid-" || bad="$bad [loop device left]"
	! grep -q "untorn-scan-matrix-$pid-" /proc/mounts || bad="$bad [mount left]"
	[ -z "$bad" ] || echo "# failed:$bad"
	[ -z "$bad" ]
}
if [ "$(id -u)" -ne 0 ]; then
	ok_skip "scan-matrix: SIGTERM to its PID while it loads" "not root (loop devices, mounts)"
	ok_skip "scan-matrix: Ctrl-C to its group while fio reads" "not root (loop devices, mounts)"
elif ! command -v fio >/dev/null || [ ! -x "${UNTORN:-$top/build/untorn}" ]; then
	ok 1 "scan-matrix: SIGTERM to its PID while it loads: fio or untorn missing; run make deps && make"
	ok 1 "scan-matrix: Ctrl-C to its group while fio reads: fio or untorn missing; run make deps && make"
else
	sm_stopped TERM "untorn load .*--layout sequential"
	ok $? "scan-matrix: SIGTERM to its PID while it loads: untorn load stopped, exit 143, no work directory, loop device or mount left"
	sm_stopped -INT "fio --name=randread"
	ok $? "scan-matrix: Ctrl-C to its group while fio reads: exit 130, no traceback, nothing left"
fi

# an option that only means something with another, given without it:
# refused naming both, not ignored
bad=""
while read -r pat c; do
	[ -n "$pat" ] || continue
	# shellcheck disable=SC2086
	one_line_exit2 "$c" "$top/scripts/"$c || { bad="$bad [$c]"; continue; }
	grep -q -- "${pat//_/ }" "$scratch/err" || bad="$bad [$c: $(cat "$scratch/err")]"
done <<EOF
--cut_says_where_a_mid-page_cut crash-sim --cut half
--rate_sizes_the_journal_with_--journal-size_auto mkfs-journal $scratch/new.img --size 1G --journal-size 256M --rate 100 --mount $scratch/m
--calibrate_goes_with_--target bench-matrix --calibrate 1 --out $scratch/o
--destroy_with_--target_DIR bench-matrix --target $scratch/empty --destroy --out $scratch/o
--guards_doublewrite,none_leaves_it_out bench-matrix --guards doublewrite,none --sector-block 4096 --out $scratch/o
EOF
[ ! -e "$scratch/o" ] && [ ! -e "$scratch/m" ] && [ ! -e "$scratch/new.img" ] || bad="$bad [output made]"
[ -z "$bad" ] || echo "# failed:$bad"
[ -z "$bad" ]
ok $? "options that need another (crash-sim --cut, mkfs-journal --rate, bench-matrix --calibrate, --destroy with a directory, --sector-block): refused, one line, exit 2, nothing made"

# a read-only mount: test -w fails for root too; each line names the
# mount and remount rw, not permissions
ro_case() {
	local bad="" c r=$scratch/ro
	mkdir -p "$r" && truncate -s 64M "$scratch/ro.img" && mkfs.ext4 -q -b 4096 "$scratch/ro.img" &&
		ro_dev=$(losetup -f --show "$scratch/ro.img") && mount "$ro_dev" "$r" && touch "$r/fstab" &&
		mount -o remount,ro "$r" || return 1
	for c in "scripts/profile-overhead --json $r/p.json" "scripts/fio-compare --dir $r --jobs redo --out $scratch/o-ro" \
		 "scripts/emulate-hdd start --trace $r/t.log" "scripts/fix-journal $r --fstab $r/fstab --apply" \
		 "scripts/crash-sim --json $r/c.json --trials 1"; do
		# shellcheck disable=SC2086
		one_line_exit2 "${c%% *}" "$top"/$c || { bad="$bad ${c%% *}"; continue; }
		grep -q "$r is on a read-only mount ($r); remount it rw" "$scratch/err" || bad="$bad ${c%% *}[$(cat "$scratch/err")]"
	done
	[ ! -e "$scratch/o-ro" ] && [ -z "$(ls -A "$r" | grep -vx -e lost+found -e fstab)" ] || bad="$bad [something made]"
	[ -z "$bad" ] || echo "# failed:$bad"
	[ -z "$bad" ]
}
if [ "$(id -u)" -ne 0 ]; then
	ok_skip "a read-only mount, as root: named as the cause" "not root (loop devices, mounts)"
else
	ro_case
	ok $? "profile-overhead --json, fio-compare --dir, emulate-hdd --trace, fix-journal --fstab, crash-sim --json on a read-only mount, as root: one line naming the mount and remount rw, exit 2, nothing made"
	ro_cleanup
fi

ktap_finish
