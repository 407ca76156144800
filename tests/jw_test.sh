#!/bin/bash
# SPDX-License-Identifier: MIT
#
# jw_test.sh - the untorn_jw module (fs-integration/kmod) on this kernel:
# writes through /dev/untorn_jw land whole and in one jbd2 transaction on
# ext4 data=journal, refusals (data=ordered, tmpfs, past the end of the
# file, a journal too small) are one line with the fix and change nothing,
# torn-split.bt counts 0 split pages through the module and some with
# pwrite(2) on the same workload, and a stress run (concurrent writers,
# fdatasync, truncate, writeback, a small journal) leaves no warning, hung
# task or journal abort in dmesg and a clean fsck.  Loads the module from
# build/kmod/$(uname -r)/ (make kmod) if it is not loaded, and unloads it.
# Root; skips where the kernel has no loadable modules (the host here:
# run it in a kernel-matrix guest).
#   UNTORN_JW_STRESS_SECONDS  length of the stress run (default 120)
#   UNTORN_JW_QUICK=1         the 64 KiB torn-split case is skipped (the
#                             kernel matrix's quick form: each bpftrace
#                             start costs a minute of software emulation;
#                             the 16 KiB case shows the same mechanism)
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
UNTORN=${UNTORN:-$top/build/untorn}
JW=$(dirname "$UNTORN")/untorn-jw-write
KO=$top/build/kmod/$(uname -r)/untorn_jw.ko
stress_s=${UNTORN_JW_STRESS_SECONDS:-120}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-jw-$$-XXXXXX")
mounts=() loops=() pids=() loaded="" bt_pid="" hung_saved="" trace_inst=""
cleanup() {
	local p m l
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$bt_pid" ] && kill -TERM "$bt_pid" 2>/dev/null
	for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	[ -n "$loaded" ] && rmmod untorn_jw 2>/dev/null
	[ -n "$hung_saved" ] && sysctl -q kernel.hung_task_timeout_secs="$hung_saved"
	[ -n "$trace_inst" ] && { echo 0 >"$trace_inst/events/jbd2/jbd2_checkpoint/enable"; rmdir "$trace_inst"; } 2>/dev/null
	bt_umount_fs
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
. "$top/scripts/lib/bt.sh"
ktap_plan 12

[ "$(id -u)" -eq 0 ] || ktap_skip_rest jw "needs root to load the module and mount filesystems"
[ -x "$JW" ] || ktap_skip_rest jw "$JW not built; run make"
[ -e /proc/modules ] || ktap_skip_rest jw "this kernel ($(uname -r)) cannot load modules (CONFIG_MODULES=n); run it in a guest: make kernel-matrix"
if [ ! -c /dev/untorn_jw ]; then
	[ -f "$KO" ] || ktap_skip_rest jw "no module built for $(uname -r); make kmod KDIR=/lib/modules/$(uname -r)/build"
	modprobe jbd2 2>/dev/null
	insmod "$KO" 2>"$scratch/insmod.err" ||
		ktap_skip_rest jw "insmod $KO failed: $(head -1 "$scratch/insmod.err")"
	loaded=1
fi
modprobe loop 2>/dev/null
for t in losetup mkfs.ext4 e2fsck; do
	command -v $t >/dev/null || ktap_skip_rest jw "$t not installed (apt-get install e2fsprogs)"
done

# mkfs_mount NAME SIZE MKFS-ARGS MOUNT-OPTS: a loop ext4 at $scratch/NAME
mkfs_mount() {
	local img=$scratch/$1.img dir=$scratch/$1 dev
	truncate -s "$2" "$img"
	mkfs.ext4 -q -F -b 4096 $3 "$img" >/dev/null 2>&1 || return 1
	dev=$(losetup -f --show "$img") || return 1
	loops+=("$dev")
	mkdir -p "$dir"
	mount ${4:+-o "$4"} "$dev" "$dir" || return 1
	mounts+=("$dir")
}

# written_ok FILE OFF LEN BYTE: the range holds BYTE only
written_ok() {
	cmp -s <(tail -c +$(($2 + 1)) "$1" | head -c "$3") \
		<(head -c "$3" /dev/zero | tr '\0' "\\$(printf %o "$4")")
}

mkfs_mount jd 512M "-J size=64" data=journal || ktap_skip_rest jw "cannot mount an ext4 data=journal loop device"
mkfs_mount ordered 64M "" "" || ktap_skip_rest jw "cannot mount an ext4 loop device"
mkfs_mount small 64M "-J size=4" data=journal || ktap_skip_rest jw "cannot mount ext4 with a 4 MiB journal"
mkdir -p "$scratch/tmpfs" && mount -t tmpfs -o size=16M untorn-jw "$scratch/tmpfs" && mounts+=("$scratch/tmpfs") ||
	ktap_skip_rest jw "cannot mount a tmpfs"
jd=$scratch/jd
truncate -s 32M "$jd/f"

# -- writes ----------------------------------------------------------------
"$JW" --info >"$scratch/info" 2>&1
grep -q '^untorn_jw version 1: writes up to 65536 bytes, 59 jbd2 credits' "$scratch/info"
ok $? "the device answers: $(cat "$scratch/info")"

"$JW" --fill 65 --json "$jd/f" 0 16k >"$scratch/w16" 2>&1 &&
	grep -q '"bytes": 16384.*"credits": 236' "$scratch/w16" && written_ok "$jd/f" 0 16384 65
ok $? "16 KiB at 0: the bytes are in the file, 4 pages x 59 credits reserved ($(cat "$scratch/w16"))"

"$JW" --fill 66 --json "$jd/f" 64k 64k >"$scratch/w64" 2>&1 &&
	grep -q '"bytes": 65536.*"credits": 944' "$scratch/w64" && written_ok "$jd/f" 65536 65536 66 &&
	written_ok "$jd/f" 0 16384 65
ok $? "64 KiB at 64 KiB: the bytes are in the file, 16 x 59 credits, the first write intact"

head -c 6000 /dev/urandom >"$scratch/rand"
"$JW" "$jd/f" 1000 6000 <"$scratch/rand" >/dev/null 2>&1 &&
	cmp -s -n 6000 "$scratch/rand" <(tail -c +1001 "$jd/f")
ok $? "6000 bytes at 1000 (two pages, neither aligned), from standard input"

t1=$("$JW" --dsync --fill 1 --json "$jd/f" 0 16k | sed 's/.*"tid": \([0-9]*\),.*/\1/')
t2=$("$JW" --dsync --fill 2 --json "$jd/f" 0 16k | sed 's/.*"tid": \([0-9]*\),.*/\1/')
[ -n "$t1" ] && [ -n "$t2" ] && [ "$t2" -gt "$t1" ] && written_ok "$jd/f" 0 16384 2
ok $? "--dsync: each write commits, the next one joins a later transaction ($t1, then $t2)"

# -- refusals: exit 1, one line naming the cause and the fix, nothing written --
# refused NAME PATTERN FILE OFF LEN: the write is refused and FILE unchanged
refused() {
	local before after rc
	before=$(sha256sum <"$3"; stat -c %s "$3")
	"$JW" --fill 90 "$3" "$4" "$5" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	after=$(sha256sum <"$3"; stat -c %s "$3")
	echo "# $1: $(cat "$scratch/err")"
	[ $rc -eq 1 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && [ ! -s "$scratch/out" ] &&
		grep -q "$2" "$scratch/err" && [ "$before" = "$after" ]
}
truncate -s 1M "$scratch/ordered/f" "$scratch/tmpfs/f" "$scratch/small/f"
refused "data=ordered" "not on ext4 with data=journal.*mount with -o data=journal" "$scratch/ordered/f" 0 16k &&
	refused tmpfs "not on ext4 with data=journal" "$scratch/tmpfs/f" 0 16k
ok $? "refused on ext4 data=ordered and on tmpfs, file unchanged"

refused "past the end" "past the end of the file.*extend it first" "$jd/f" $((32 * 1048576 - 4096)) 16k
ok $? "a write past the end of the file is refused, size and bytes unchanged"

refused "small journal" "half of a jbd2 transaction.*-J size=64" "$scratch/small/f" 0 16k &&
	"$JW" --fill 7 "$scratch/small/f" 0 4k >/dev/null && written_ok "$scratch/small/f" 0 4096 7
ok $? "a 4 MiB journal (128 credits per write): 16 KiB refused, 4 KiB written"

# -- torn-split.bt: the same workloads, pwrite(2) and the module -------------
# split_case PAGE: torn-split.bt during the same workload of PAGE-sized
# writes, pwrite(2) to one file and the module to another, a syncer
# committing all along, in rounds of 32 MiB until pwrite(2) has split a
# page (at most 8): the module must split none
split_case() {
	local ps=$1 kib=$(($1 / 1024)) n=$((33554432 / $1)) line pages round split_plain split_jw
	local name="torn-split.bt, $kib KiB pages"
	command -v bpftrace >/dev/null || { ok_skip "$name" "bpftrace not installed (apt-get install bpftrace)"; return; }
	bt_mount_fs || { ok_skip "$name" "tracefs cannot be mounted here"; return; }
	bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1 ||
		{ ok_skip "$name" "bpftrace cannot load programs on this kernel (no BPF?)"; return; }
	bt_launch "$scratch/ts$kib.out" "$scratch/ts$kib.err" "$top/ebpf/torn-split.bt" 0 0 0 "$ps"
	bt_pid=$bt_launched
	if ! bt_wait_attached "$bt_pid" "$scratch/ts$kib.out"; then
		bt_pid=""
		# curtask->journal_info needs the kernel's BTF
		grep -q 'install BTF' "$scratch/ts$kib.err" &&
			{ ok_skip "$name" "bpftrace needs the kernel's BTF here (CONFIG_DEBUG_INFO_BTF)"; return; }
		sed 's/^/# /' "$scratch/ts$kib.err"
		ok 1 "$name: the script did not attach"
		return
	fi
	truncate -s 32M "$jd/plain$kib" "$jd/jw$kib"
	ino_plain=$(stat -c %i "$jd/plain$kib") ino_jw=$(stat -c %i "$jd/jw$kib")
	for round in 1 2 3 4 5 6 7 8; do
		"$JW" --plain --syncer --fill 3 --count $n "$jd/plain$kib" 0 "$ps" >/dev/null &&
			"$JW" --syncer --fill 4 --count $n "$jd/jw$kib" 0 "$ps" >/dev/null || break
		split_plain=$(awk -v i="$ino_plain" '$2 == "untorn-jw-write" && $5 == i' "$scratch/ts$kib.out" | wc -l)
		[ "$split_plain" -gt 0 ] && break
	done
	bt_stop_pid "$bt_pid" INT
	bt_pid=""
	line=$(grep 'pages written whole by one thread' "$scratch/ts$kib.out")
	split_plain=$(awk -v i="$ino_plain" '$2 == "untorn-jw-write" && $5 == i' "$scratch/ts$kib.out" | wc -l)
	split_jw=$(awk -v i="$ino_jw" '$2 == "untorn-jw-write" && $5 == i' "$scratch/ts$kib.out" | wc -l)
	echo "# after $round rounds: $line"
	pages=$(echo "$line" | sed 's/.*one thread: \([0-9]*\);.*/\1/')
	[ "${pages:-0}" -eq $((round * n * 2)) ] && [ "$split_plain" -gt 0 ] && [ "$split_jw" -eq 0 ]
	ok $? "$name, $((round * n)) each way under a syncer: pwrite(2) split $split_plain, the module $split_jw"
}
split_case 16384
if [ "${UNTORN_JW_QUICK:-0}" = 1 ]; then
	ok_skip "torn-split.bt, 64 KiB pages" "quick form: the 16 KiB case shows the module's pages written whole (the full suite runs it)"
else
	split_case 65536
fi

# -- stress: module writers against fdatasync, truncate, writeback, stock
# writers and a small journal; the kernel must say nothing ------------------
# worker NAME CMD...: runs CMD until the deadline, counting rounds, exit 1
# on the first failure
worker() {
	local name=$1 n=0
	shift
	while [ $SECONDS -lt $deadline ]; do
		"$@" >/dev/null 2>"$scratch/$name.err" || { echo "$name round $n: $(head -1 "$scratch/$name.err")" >"$scratch/$name.fail"; exit 1; }
		n=$((n + 1))
	done
	echo $n >"$scratch/$name.rounds"
}
truncate_round() { truncate -s 48M "$1" && truncate -s 64M "$1"; }

# checkpoints_start: a tracefs instance counting jbd2:jbd2_checkpoint, which
# fires when a writer has to wait for journal space (the journal is full)
checkpoints_start() {
	bt_mount_fs || return 1
	trace_inst=/sys/kernel/tracing/instances/untorn-jw-$$
	mkdir "$trace_inst" 2>/dev/null && echo 4096 >"$trace_inst/buffer_size_kb" &&
		echo 1 >"$trace_inst/events/jbd2/jbd2_checkpoint/enable" 2>/dev/null ||
		{ rmdir "$trace_inst" 2>/dev/null; trace_inst=""; return 1; }
}
writeback_round() { sync && echo 1 >/proc/sys/vm/drop_caches; }

stress_case() {
	local st=$scratch/st p failed=0 n summary="" bad
	mkfs_mount st 1G "-J size=16" data=journal || { ok 1 "stress: cannot make the filesystem"; return; }
	truncate -s 64M "$st/a" "$st/b"
	hung_saved=$(sysctl -n kernel.hung_task_timeout_secs 2>/dev/null)
	[ -n "$hung_saved" ] && sysctl -q kernel.hung_task_timeout_secs=20
	echo "untorn-jw stress $$ start" >/dev/kmsg
	checkpoints_start || echo "# no tracefs jbd2:jbd2_checkpoint here: journal-full waits not counted"
	deadline=$((SECONDS + stress_s))
	worker jw32 "$JW" --syncer --fill 1 --count 256 "$st/a" 0 32k & pids+=($!)
	worker jw16 "$JW" --dsync --fill 2 --count 32 "$st/a" 16M 16k & pids+=($!)
	worker jwb "$JW" --fill 3 --count 1024 "$st/b" 0 16k & pids+=($!)
	worker plain dd if=/dev/zero of="$st/a" bs=16k seek=2048 count=256 conv=notrunc status=none & pids+=($!)
	worker trunc truncate_round "$st/a" & pids+=($!)
	worker wb writeback_round & pids+=($!)
	for p in "${pids[@]}"; do wait "$p" || failed=1; done
	pids=()
	for n in jw32 jw16 jwb plain trunc wb; do
		summary+=" $n $(cat "$scratch/$n.rounds" 2>/dev/null || cat "$scratch/$n.fail")"
	done
	echo "# rounds in $stress_s s:$summary"
	ckpt=-
	if [ -n "$trace_inst" ]; then
		ckpt=$(grep -c 'jbd2_checkpoint:' "$trace_inst/trace")
		echo "# jbd2_checkpoint (a writer waited for journal space): $ckpt times"
	fi
	echo "untorn-jw stress $$ end" >/dev/kmsg
	dmesg | sed -n "/untorn-jw stress $$ start/,/untorn-jw stress $$ end/p" >"$scratch/dmesg"
	bad=$(grep -ciE 'warning|bug|blocked for more than|hung_task|aborting|error|wants too many|call trace|soft lockup' "$scratch/dmesg")
	grep -iE 'warning|bug|blocked for more than|hung_task|aborting|error|wants too many|call trace|soft lockup' "$scratch/dmesg" | head -5 | sed 's/^/# dmesg: /'
	[ -n "$hung_saved" ] && sysctl -q kernel.hung_task_timeout_secs="$hung_saved" && hung_saved=""
	"$JW" --fill 9 "$st/a" 0 16k >/dev/null && written_ok "$st/a" 0 16384 9 &&
		umount "$st" && e2fsck -fn "$(losetup -j "$scratch/st.img" | cut -d: -f1)" >"$scratch/fsck" 2>&1
	p=$?
	[ $p -ne 0 ] && sed 's/^/# fsck: /' "$scratch/fsck" | tail -5
	[ $failed -eq 0 ] && [ "$bad" -eq 0 ] && [ $p -eq 0 ] && [ "$ckpt" != 0 ]
	ok $? "stress, $stress_s s: module writers, fdatasync, truncate, writeback, dd, a 16 MiB journal full $ckpt times; no errors, nothing in dmesg, fsck clean"
}
stress_case

if [ -n "$loaded" ]; then
	rmmod untorn_jw && [ ! -e /dev/untorn_jw ] && loaded=""
	ok $? "rmmod untorn_jw: the device is gone"
else
	ok_skip "rmmod untorn_jw" "the module was loaded before the test"
fi
ktap_finish
