#!/bin/bash
# SPDX-License-Identifier: MIT
#
# pacing_test.sh - writer pacing on a disk, the short form of issue 36's
# sweep: a store whose page writes bind (the HDD model, a redo log small
# enough that the cleaners hold writers back), bench write's flush
# regime from a cold start with a short warm-up, for the default pacing
# (forecast) under every guard of the build, each on the filesystem it
# is measured on (`untorn guards`: ext4 data=ordered, data=journal, XFS
# with reflink): the writers were paced (the run is in the regime the
# claim is about), the worst second is at least half the median, none
# falls under a quarter, and writers waited for log space at most 1 % of
# their time (the median of three runs where one misses: judge() says
# why).  A guard whose filesystem refuses it here (atomic before Linux
# 6.16) is a skip with init's reason.  Root (loop devices, FUSE, mkfs);
# CI runs it.
#
# The log is 16 MiB: small enough that every guard is paced (15-60 % of
# thread time), a quarter of the 64 MiB guards.md tells sysadmins to
# keep.  At 8 MiB a machine short of CPU failed it: with two spinning
# shells on the two cores, 5 runs in 26 met the stop for over 1 % or
# fell under half the median (a page batch written 3.1 s late, holding
# the checkpoint while the others went on); at 16 MiB none in 10
# (docs/results/2026-12-03-late-batch.md).
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
UNTORN=${UNTORN:-$top/build/untorn}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/var/tmp}/untorn-pacing-test-$$-XXXXXX")
name=pacingtest$$
log_mib=16 # the redo log (see above)
mnt=$scratch/mnt
cleanup() {
	umount "$mnt" 2>/dev/null
	"$top/scripts/emulate-hdd" stop "$name" >/dev/null 2>&1
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
# the guards, their filesystems and how to make and mount them, as
# bench-matrix has them (scripts/lib: no list of this test's own)
prog=pacing_test
. "$top/scripts/lib/common.sh"
. "$top/scripts/lib/devices.sh"
guards=$(guard_names)
ktap_plan "$(echo $guards | wc -w)"

# one run: GUARD on its filesystem, made on a fresh model disk -> FILE
# (JSON); exit 3 when init refuses the guard there (its reason in
# FILE.why)
paced_run() {
	local guard=$1 out=$2 fs opts=() ret
	fs=$(guard_fs_kind "$guard") || return 1
	read -r -a opts <<<"$(guard_fact "$guard" init_flags)"
	dev=$("$top/scripts/emulate-hdd" start --name "$name" --size 1G) || return 1
	# the model is a FUSE file, whose atomicity no verdict vouches for:
	# a guard that judges the devices runs as on a disk writing the
	# model's logical block whole (as bench-matrix runs it)
	[ -z "$(guard_fact "$guard" judges_devices)" ] ||
		opts+=(--unsafe --block-size "$(blockdev --getss "$dev")")
	mkdir -p "$mnt"
	if fs_make "$fs" "$dev" >/dev/null && fs_mount "$fs" "$dev" "$mnt"; then
		if ! "$UNTORN" init "$mnt/s" --guard "$guard" --log-size "${log_mib}M" "${opts[@]}" \
			>/dev/null 2>"$out.why"; then
			ret=3
		else
			"$UNTORN" load "$mnt/s" --rows 40000 --pool 64M >/dev/null &&
				"$UNTORN" bench write "$mnt/s" --regime flush --pool 64M --warmup 5 \
					--seconds 15 --json > "$out"
			ret=$?
		fi
	else
		ret=1
	fi
	mnt_release "$mnt"
	"$top/scripts/emulate-hdd" stop "$name" >/dev/null 2>&1
	return $ret
}

# The runs' figures, judged by their median: each run's on a line, then
# the verdict (exit 0: met).  One run is judged alone; the machine is
# shared, and a second of another program's I/O or CPU on the host's
# disk shows as a stalled second in the model disk's, so a run that
# misses is run twice more and the median of the three is judged (a
# real regression misses in two of three).
judge() {
	python3 - "$@" <<'PY'
import json, statistics, sys
runs = [json.load(open(f)) for f in sys.argv[1:]]
rows = []
for d in runs:
    thread_ns = d["threads"] * d["seconds"] * 1e9  # the measured seconds (the figures leave the warm-up out)
    r = dict(guard=d["guard"], mode=d["pacing_mode"], tps=d["tps"], worst=d["worst_over_median"],
             quarter=d["seconds_below_quarter_median"], wait=100 * d["log_space_wait_ns"] / thread_ns,
             paced=100 * d["log_pace_ns"] / thread_ns, settle=d["settle_seconds"], series=d["tps_series"])
    rows.append(r)
    print("# %(guard)s: pacing %(mode)s, %(tps).0f TPS, worst second %(worst).2f of the median, "
          "%(quarter)d s under a quarter, log-space wait %(wait).2f %% and paced %(paced).1f %% "
          "of thread time, settled after %(settle)d s" % r)
med = lambda k: statistics.median(r[k] for r in rows)
if len(rows) > 1:
    print("# the median of %d runs: worst second %.2f, %g s under a quarter, log-space wait %.2f %%"
          % (len(rows), med("worst"), med("quarter"), med("wait")))
assert all(r["mode"] == "forecast" for r in rows), [r["mode"] for r in rows]
assert all(r["paced"] > 0 for r in rows), "the writers were never paced: not the regime this test is about"
assert med("worst") >= 0.5, [r["series"] for r in rows]
assert med("quarter") == 0, [r["series"] for r in rows]
assert med("wait") <= 1.0, [r["wait"] for r in rows]
PY
}

# GUARD: one run, or three when the first misses; exit 3: refused here
paced() {
	local guard=$1 i ret
	paced_run "$guard" "$scratch/$guard.1.json"
	ret=$?
	[ $ret -eq 0 ] || return $ret
	judge "$scratch/$guard.1.json" && return 0
	echo "# $guard: missed in one run; two more, the median of three judged"
	for i in 2 3; do
		paced_run "$guard" "$scratch/$guard.$i.json" || return 1
	done
	judge "$scratch/$guard".[123].json
}

what="writer pacing, HDD model, 40 000 rows, a $log_mib MiB log, 15 s after 5 s from a cold start"
if [ "$(id -u)" -ne 0 ]; then
	ktap_skip_rest "$what" "not root (loop devices, FUSE, mkfs)"
fi
if [ ! -x "$top/build/untorn-hdd" ] || ! command -v mkfs.ext4 >/dev/null || ! command -v mkfs.xfs >/dev/null; then
	ok 1 "$what: build/untorn-hdd, mkfs.ext4 or mkfs.xfs missing; run make deps && make"
	ktap_finish
	exit 1
fi

for guard in $guards; do
	fs=$(fs_describe "$(guard_fs_kind "$guard")")
	paced "$guard"
	ret=$?
	if [ $ret -eq 3 ]; then
		ok_skip "$what, $guard on $fs" "init refuses it here: $(head -1 "$scratch/$guard.1.json.why")"
	else
		ok $ret "$what, $guard on $fs: paced, worst second >= 0.5 of the median, none under a quarter, log-space wait <= 1 %"
	fi
done

ktap_finish
