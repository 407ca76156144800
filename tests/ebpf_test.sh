#!/bin/bash
# SPDX-License-Identifier: MIT
#
# ebpf_test.sh - the USDT probes and every bpftrace script in ebpf/ against
# real workloads on this host (root): each script attaches, and its output
# holds the numbers the workload must produce — the engine's latch, slot
# and io_uring figures during `bench write`, pthread mutex waits of a
# program built to contend, block I/O on a loop device, jbd2 commits and
# split page writes on ext4 data=journal there, fdatasync calls of fio.  Skips
# (with the reason) without root, bpftrace or tracefs.
# UNTORN_EBPF_QUICK=1 (kernel-suite's quick form, where each bpftrace
# start costs a minute of software emulation) skips the cases whose
# kernel mechanism another case already covers: dblwr-wait,
# writer-pacing and the recovery probe (USDT, as untorn-latch), torn-split (jw_test's cases
# attach it in the matrix's kmod part), pthread-mutex and fsync-latency
# (uprobes, as USDT, and syscall tracepoints), the filter cases, scripts/profile
# (scripts already attached one by one) and scripts/profile-overhead.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
UNTORN=${UNTORN:-$top/build/untorn}
CONTEND=${TEST_OUTPUT:-$top/build/tests}/mutex_contend
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-ebpf-$$-XXXXXX")
loop="" mnt="" bt_pid="" contend_pid=""
cleanup() {
	[ -n "$bt_pid" ] && kill -TERM "$bt_pid" 2>/dev/null && wait "$bt_pid" 2>/dev/null
	[ -n "$contend_pid" ] && kill -KILL "$contend_pid" 2>/dev/null
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	bt_umount_fs
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
. "$top/scripts/lib/bt.sh"
ktap_plan 14
[ "$(id -u)" -eq 0 ] || ktap_skip_rest ebpf "needs root for bpftrace"
command -v bpftrace >/dev/null || ktap_skip_rest ebpf "bpftrace not installed (apt-get install bpftrace)"
command -v fio >/dev/null || ktap_skip_rest ebpf "fio not installed (apt-get install fio)"
bt_mount_fs || ktap_skip_rest ebpf "tracefs cannot be mounted here"
bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1 || ktap_skip_rest ebpf "bpftrace cannot load programs here (no BPF?)"

# bt_start NAME ARGS...: starts ebpf/NAME (the variant for this kernel)
# and returns once all its probes are attached; a tracer still running
# (its workload failed before bt_stop) is stopped first, not orphaned
# (once more if bpftrace died before attaching without a word on stderr:
# CI saw one start leave both files empty, not seen again in 20 tries)
bt_start() {
	local name=$1 file try status
	shift
	[ -z "$bt_pid" ] || bt_stop
	file=$("$top/ebpf/pick" "$name") || return 1
	for try in 1 2; do
		bt_launch "$scratch/$name.out" "$scratch/$name.err" "$file" "$@"
		bt_pid=$bt_launched
		bt_wait_attached "$bt_pid" "$scratch/$name.out" && return 0
		wait "$bt_pid"
		status=$?
		bt_pid=""
		echo "# $name.bt exited (status $status) before attaching, try $try"
		sed 's/^/# /' "$scratch/$name.err"
		[ -s "$scratch/$name.err" ] && return 1
	done
	return 1
}

# bt_stop: the script prints its maps and exits
bt_stop() {
	bt_stop_pid "$bt_pid" INT
	bt_pid=""
}

# value FILE MAP: the number after "MAP: " in a bpftrace output
value() {
	grep -F -- "$2: " "$1" | head -1 | sed 's/.*: //'
}

# -- the USDT probes ---------------------------------------------------
probes=$(bpftrace -l "usdt:$UNTORN:*" 2>/dev/null | sed 's/.*://' | sort -u)
documented=$(grep -o '^| `[a-z_]*__[a-z_]*`' "$top/ebpf/PROBES.md" | tr -d '|` ' | sort -u)
[ -n "$probes" ] && [ "$probes" = "$documented" ]
ok $? "the binary's USDT probes are exactly the ones ebpf/PROBES.md lists ($(echo $probes | wc -w))"
[ "$probes" = "$documented" ] || diff <(echo "$probes") <(echo "$documented") | sed 's/^/# /'

"$UNTORN" init "$scratch/store" >/dev/null && "$UNTORN" load "$scratch/store" --rows 20000 >/dev/null ||
	ktap_skip_rest ebpf "cannot make a store in $scratch"

# -- engine scripts during one bench write -----------------------------
bench() {
	"$UNTORN" bench write "$scratch/store" --seconds 3 --threads 8 --rows 20000 --cleaners 4 >"$scratch/bench.out"
}
bt_start untorn-latch "$UNTORN" && bench && bt_stop
waits=$(value "$scratch/untorn-latch.out" "@waits[log_flush]")
grep -q '^@wait_us\[log_flush\]:' "$scratch/untorn-latch.out" && [ "${waits:-0}" -gt 0 ]
ok $? "untorn-latch.bt: log_flush (group commit) waits counted during bench write (${waits:-none})"

# quick CASE COVERED-BY: true (and the case skipped, saying why) in the
# quick form
quick() {
	quick_because "$1" "its kernel mechanism is covered by $2"
}

# quick_because CASE REASON: the same, with the reason whole
quick_because() {
	[ "${UNTORN_EBPF_QUICK:-0}" = 1 ] || return 1
	ok_skip "$1" "quick form: $2 (the full suite runs it)"
}

if ! quick dblwr-wait.bt "untorn-latch.bt (USDT)"; then
	bt_start dblwr-wait "$UNTORN" && bench && bt_stop
	acq=$(value "$scratch/dblwr-wait.out" "@slots[acquired]")
	batches=$(value "$scratch/dblwr-wait.out" "@batches[doublewrite]")
	[ "${acq:-0}" -gt 0 ] && [ "$acq" = "$batches" ] && grep -q '^@hold_us\[' "$scratch/dblwr-wait.out"
	ok $? "dblwr-wait.bt: one slot per doublewrite batch ($acq slots, $batches batches), hold times"
fi

# a store whose smallest redo log holds 8 writers back: paced seconds
if ! quick writer-pacing.bt "untorn-latch.bt (USDT)"; then
	"$UNTORN" init "$scratch/paced" --log-size 8M >/dev/null &&
		"$UNTORN" load "$scratch/paced" --rows 40000 >/dev/null &&
		bt_start writer-pacing "$UNTORN" &&
		"$UNTORN" bench write "$scratch/paced" --regime flush --rows 40000 --pool 16M \
			--warmup 0 --seconds 4 >"$scratch/paced.out" && bt_stop
	paced=$(grep -cE '^[0-9:]{8} +[0-9]+ +[0-9]+ ' "$scratch/writer-pacing.out")
	batches=$(value "$scratch/writer-pacing.out" "@batches[doublewrite]")
	ckpts=$(value "$scratch/writer-pacing.out" "@checkpoints")
	[ "$paced" -gt 0 ] && [ "${batches:-0}" -gt 0 ] && [ "${ckpts:-0}" -gt 0 ] &&
		grep -q '^@rate_kb:' "$scratch/writer-pacing.out"
	ok $? "writer-pacing.bt: $paced paced seconds with the rate and what it rests on, ${batches:-no} batches, ${ckpts:-no} checkpoints"
fi

bt_start uring && bench && bt_stop
writes=$(value "$scratch/uring.out" "@requests[WRITE]")
fsyncs=$(value "$scratch/uring.out" "@requests[FSYNC]")
[ "${writes:-0}" -gt 0 ] && [ "${fsyncs:-0}" -gt 0 ] && grep -q '^@latency_us\[FSYNC\]:' "$scratch/uring.out"
ok $? "uring.bt: the engine's io_uring writes ($writes) and fsyncs ($fsyncs) with latency"

# a recovery after kill -9: the recovery phase probes fire (bpftrace -c)
if ! quick recovery__phase__done "untorn-latch.bt (USDT)"; then
	"$UNTORN" bench write "$scratch/store" --seconds 30 --threads 2 --rows 20000 >/dev/null 2>&1 &
	victim=$!
	until [ -s "$scratch/store/untorn.redo" ] && [ "$(find "$scratch/store/untorn.redo" -newer "$scratch/bench.out" 2>/dev/null)" ]; do sleep 0.1; done
	kill -KILL $victim; wait $victim 2>/dev/null
	bpftrace -e "usdt:$UNTORN:untorn:recovery__phase__done { printf(\"phase %s %d\\n\", str(arg0), arg2); }" \
		-c "$UNTORN recover $scratch/store" >"$scratch/recover.out" 2>/dev/null
	grep -q '^phase redo-scan [0-9]' "$scratch/recover.out" && grep -q '^phase dblwr-restore' "$scratch/recover.out"
	ok $? "recovery__phase__done fires for dblwr-restore and redo-scan ($(grep -c '^phase' "$scratch/recover.out") phases)"
fi

# -- pthread mutexes of any process ------------------------------------
if ! quick_because pthread-mutex.bt "its uprobe is the mechanism of the USDT probes untorn-latch.bt attaches, its syscall tracepoints a stable ABI"; then
	bt_start pthread-mutex
	"$CONTEND" 4 >"$scratch/contend.out" &
	contend_pid=$!
	until grep -q ready "$scratch/contend.out"; do sleep 0.1; done
	# let it contend for two intervals while alive, so callers resolve
	until [ "$(grep -c 'top callers' "$scratch/pthread-mutex.out")" -ge 2 ]; do sleep 0.2; done
	bt_stop
	kill -KILL $contend_pid; wait $contend_pid 2>/dev/null; contend_pid=""
	w=$(value "$scratch/pthread-mutex.out" "@waits[mutex_contend]")
	[ "${w:-0}" -gt 0 ] && grep -q '^@wait_us\[mutex_contend\]:' "$scratch/pthread-mutex.out" &&
		grep -q '^@wait_us_by_caller\[mutex_contend, ' "$scratch/pthread-mutex.out"
	ok $? "pthread-mutex.bt: contended locks of mutex_contend ($w), wait histogram and per-caller totals"
fi

# -- block I/O on the bare loop device, then jbd2 and split pages on --
# -- ext4 data=journal made on it --------------------------------------
truncate -s 300M "$scratch/fs.img"
loop=$(losetup -f --show "$scratch/fs.img") || ktap_skip_rest ebpf "cannot attach a loop device"
minor=$((0x$(stat -c %T "$loop")))
major=$((0x$(stat -c %t "$loop")))

# the block device itself, not a file: an O_DIRECT write is one request
# there, while ext4 data=journal turns O_DIRECT into buffered writes that
# the journal and writeback merge into however many requests they like.
# The loop's completion runs in the backing disk's completion interrupt;
# when that interrupts another BPF program on the same CPU the kernel
# skips the nested one (its recursion guard), so a busy machine can lose
# a request now and then (CI saw 2047): 99 in 100 must be seen
bt_start io-latency && fio --name=io --filename="$loop" --rw=randwrite --bs=16k --size=32m \
	--ioengine=psync --direct=1 >/dev/null 2>&1 && bt_stop
n=$(value "$scratch/io-latency.out" "@ios[$major, $minor, write]")
grep -q "^@issue_to_complete_us\[$major, $minor, write\]:" "$scratch/io-latency.out" &&
	grep -q "^@queue_to_complete_us\[$major, $minor, write\]:" "$scratch/io-latency.out" && [ "${n:-0}" -ge 2028 ]
ok $? "io-latency.bt: writes on loop $major:$minor, queue and issue to complete ($n requests for 2048 O_DIRECT writes, >= 2028)"

mkfs.ext4 -q -F "$loop" && mkdir -p "$scratch/mnt" && mount -o data=journal "$loop" "$scratch/mnt" &&
	mnt=$scratch/mnt || ktap_skip_rest ebpf "cannot mount ext4 data=journal on a loop device"

fio_write() {	# fio_write NAME EXTRA...: 32 MiB in 16 KiB pwrites
	fio --name="$1" --filename="$mnt/$1" --rw=randwrite --bs=16k --size=32m \
		--ioengine=psync "${@:2}" >/dev/null 2>&1
}
hz=$("$top/ebpf/pick" --hz)
# the device filter as a user gives it: ebpf/pick --dev on the mount
# shellcheck disable=SC2046
bt_start jbd2-commit $("$top/ebpf/pick" --dev "$mnt") "$hz" && fio_write jb --fdatasync=32 && bt_stop
c=$(value "$scratch/jbd2-commit.out" "@commits[$major, $minor]")
l=$(value "$scratch/jbd2-commit.out" "@blocks_logged[$major, $minor]")
[ "${c:-0}" -ge 32 ] && [ "${l:-0}" -ge 8192 ] && grep -q '^@logging_us:' "$scratch/jbd2-commit.out" &&
	[ "$(grep -c '^@commits\[' "$scratch/jbd2-commit.out")" = 1 ]
ok $? "jbd2-commit.bt $major $minor: $c commits for 64 fdatasyncs, $l blocks logged (>= 8192: 32 MiB of data journalled), no other journal"

if ! quick torn-split.bt "jw_test.sh's torn-split.bt cases (the kernel matrix's kmod part)"; then
	bt_start torn-split 0 "$major" "$minor" 16384 && fio_write ts && bt_stop
	line=$(grep 'pages written whole by one thread' "$scratch/torn-split.out")
	pages=$(echo "$line" | sed 's/.*one thread: \([0-9]*\);.*/\1/')
	[ "$pages" = 2048 ]
	ok $? "torn-split.bt: every one of 2048 16 KiB pwrites seen whole: $line"
fi

# filters that exclude the workload: another process, another device
if ! quick "torn-split.bt and jbd2-commit.bt filters" "the same scripts with the loop's device filter above"; then
	bt_start torn-split $$ 0 0 16384 && fio_write tp && bt_stop
	tp=$(grep 'pages written whole by one thread' "$scratch/torn-split.out")
	bt_start jbd2-commit 1 3 "$hz" && fio_write jn --fdatasync=32 && bt_stop
	grep -q "PID $$" "$scratch/torn-split.out" && echo "$tp" | grep -q 'one thread: 0;' &&
		grep -q 'device 1:3' "$scratch/jbd2-commit.out" &&
		! grep -q "^@commits\[$major, $minor\]" "$scratch/jbd2-commit.out"
	rc=$?
	ok $rc "filters: torn-split.bt for PID $$ counts none of fio's pages, jbd2-commit.bt for device 1:3 none of the loop's commits"
	# what the scripts printed, where that is not so
	[ $rc -eq 0 ] || tail -n 6 "$scratch/torn-split.out" "$scratch/jbd2-commit.out" | sed 's/^/# /'
fi

if ! quick_because fsync-latency.bt "syscall tracepoints are a stable ABI"; then
	bt_start fsync-latency && fio_write fs --fdatasync=1 --size=4m && bt_stop
	calls=$(grep -F '@calls[fio, ' "$scratch/fsync-latency.out" | grep fdatasync | sed 's/.*: //' | sort -n | tail -1)
	[ "${calls:-0}" -ge 255 ]
	ok $? "fsync-latency.bt: fio's fdatasyncs for 256 writes seen (${calls:-0} calls, >= 255)"
fi

# -- scripts/profile ---------------------------------------------------
if ! quick scripts/profile "the scripts attached one by one above"; then
	"$top/scripts/profile" --scripts untorn-latch,io-latency --out "$scratch/profile" -- \
		"$UNTORN" bench write "$scratch/store" --seconds 2 --threads 4 --rows 20000 >"$scratch/profile.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && grep -q '^@wait_us\[' "$scratch/profile/untorn-latch.txt" &&
		grep -q '^@issue_to_complete_us' "$scratch/profile/io-latency.txt" &&
		grep -q "untorn-latch .*untorn-latch.txt" "$scratch/profile.out" &&
		[ -n "$(tail -n 1 "$scratch/profile/untorn-latch.txt")" ] &&
		[ -n "$(tail -n 1 "$scratch/profile/io-latency.txt")" ] &&
		! grep -q RLIMIT_MEMLOCK "$scratch/profile/untorn-latch.txt" "$scratch/profile/io-latency.txt"
	rc_all=$?
	[ $rc_all -ne 0 ] && { sed 's/^/# profile: /' "$scratch/profile.out" | tail -8
		for f in "$scratch"/profile/*.txt; do echo "# $(basename "$f"): $(grep -c . "$f") lines"; done; }
	ok $rc_all "scripts/profile: both scripts saved their histograms (exit $rc), no trailing blank lines"
fi

# -- scripts/profile-overhead --------------------------------------------
# the BPF programs' run time per transaction, from the kernel's counters
# (the sysctl kernel.bpf_stats_enabled on for the run, then as it was)
if ! quick scripts/profile-overhead "the scripts attached one by one above"; then
	stats_was=$(sysctl -n kernel.bpf_stats_enabled)
	"$top/scripts/profile-overhead" --rounds 1 --seconds 1 --scripts io-latency,uring --target "$scratch" \
		--json "$scratch/overhead.json" >"$scratch/overhead.out" 2>&1
	rc=$?
	python3 - "$scratch/overhead.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# every commit writes redo through io_uring to a block device: both
# scripts' programs run at least once per transaction
assert d["bpf_runs_per_transaction"] >= 1 and d["bpf_us_per_transaction"] > 0, d
assert 0 < d["bpf_cpu_share"] < 1 and d["ratio"] > 0 and d["transactions"][0] > 0, d
# --target: where it ran, in the JSON
assert d["target"]["kind"] == "directory" and d["target"]["fstype"], d.get("target")
PY
	py=$?
	[ $rc -eq 0 ] && [ $py -eq 0 ] && grep -q '^BPF programs: .* us a transaction' "$scratch/overhead.out" &&
		[ "$(sysctl -n kernel.bpf_stats_enabled)" = "$stats_was" ]
	rc_all=$?
	[ $rc_all -ne 0 ] && sed 's/^/# profile-overhead: /' "$scratch/overhead.out" | tail -6
	ok $rc_all "profile-overhead: TPS ratio and the BPF programs' run time per transaction (exit $rc, stats sysctl back to $stats_was)"
fi

ktap_finish
