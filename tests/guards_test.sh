#!/bin/bash
# SPDX-License-Identifier: MIT
#
# guards_test.sh - the guards on real filesystems (loop devices, root):
# untorn-fscheck's verdicts and exit codes on ext4 data=ordered and
# data=journal, XFS with reflink, tmpfs and a missing path; `init` refuses
# a guard the filesystem cannot honour and names the fix; the journal
# guard by per-file data journaling (chattr +j, nodelalloc), refused
# without CAP_SYS_RESOURCE; a journal store
# on a filesystem remounted data=ordered is refused on open, and works
# again once data=journal is back; journal and atomic stores load,
# benchmark and check clean; the journal guard's checkpoints commit ext4's
# journal on data=journal and sync the data file where it is not
# journalled (a store made --unsafe on data=ordered).
set -u

UNTORN=${UNTORN:-${UNTORN_TOP:-$(dirname "$0")/..}/build/untorn}
FSCHECK=${FSCHECK:-$(dirname "$UNTORN")/untorn-fscheck}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-guards-$$-XXXXXX")
cleanup() {
	loopfs_cleanup
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/loopfs.sh"
ktap_plan 17

[ "$(id -u)" -eq 0 ] || ktap_skip_rest guards "needs root for loop devices and mounts"
for t in losetup mkfs.ext4 mkfs.xfs mount; do
	command -v $t >/dev/null || ktap_skip_rest guards "$t not installed (apt-get install e2fsprogs xfsprogs)"
done

loopfs ordered 400M "mkfs.ext4 -q -F -b 4096" "" || ktap_skip_rest guards "cannot make an ext4 loop filesystem"
loopfs journal 400M "mkfs.ext4 -q -F -b 4096" "data=journal" || ktap_skip_rest guards "cannot mount ext4 data=journal"
loopfs xfs 400M "mkfs.xfs -q -f -m reflink=1" "" || ktap_skip_rest guards "cannot make an XFS reflink filesystem"

"$FSCHECK" "$scratch/journal" >"$scratch/out"; r16=$?
"$FSCHECK" "$scratch/journal" --page-size 4k >/dev/null; r4=$?
"$FSCHECK" "$scratch/journal" --engine untorn >/dev/null; ru=$?
[ $r16 -eq 1 ] && [ $r4 -eq 0 ] && [ $ru -eq 0 ] && grep -q "straddle two transactions" "$scratch/out"
ok $? "fscheck on ext4 data=journal: InnoDB 16k unsafe (exit 1), 4k safe (0), untorn safe (0)"

"$FSCHECK" "$scratch/ordered" --json >"$scratch/out"; r=$?
[ $r -eq 1 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["data_mode"] == "ordered" and not d["untorn_journal"]["safe"]
assert d["untorn_doublewrite"]["safe"] and "data=journal" in d["untorn_journal"]["fix"]' "$scratch/out"
ok $? "fscheck --json on ext4 data=ordered: unsafe, fix says data=journal"

"$FSCHECK" /dev/shm >/dev/null 2>"$scratch/err"; r1=$?
"$FSCHECK" "$scratch/nope" >/dev/null 2>>"$scratch/err"; r2=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && grep -q tmpfs "$scratch/err"
ok $? "fscheck on tmpfs and on a missing path: exit 2 with the reason"

"$FSCHECK" "$scratch/xfs" --engine untorn --json >"$scratch/out"
atomic_ok=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["untorn_atomic"]["safe"]))' "$scratch/out")

expect_fail "init --guard journal on data=ordered: refused with the fix" "data=ordered.*mount with -o data=journal" \
	"$scratch/ordered/s" -- init "$scratch/ordered/s" --guard journal
expect_fail "init --guard atomic on ext4 data=ordered: refused" "atomic write" \
	"$scratch/ordered/a" -- init "$scratch/ordered/a" --guard atomic
expect_fail "init --single-lsn --guard journal on data=journal: refused (InnoDB's design tears)" "straddle" \
	"$scratch/journal/n" -- init "$scratch/journal/n" --guard journal --single-lsn

# safe_on (crash-sim's check before it makes anything) is init's verdict
# on the filesystems the scripts make: never refuses what init takes
bad=""
for g in $("$UNTORN" guards --list); do
	[ -z "$("$UNTORN" guards --get init_flags "$g")" ] || continue
	safe_on=$("$UNTORN" guards --get safe_on "$g")
	for k in ordered:ext4-ordered journal:ext4-journal xfs:xfs; do
		"$UNTORN" init "$scratch/${k%%:*}/safe-on-$g" --guard "$g" --log-size 16M >/dev/null 2>&1 &&
			case " $safe_on " in *" ${k#*:} "*) ;; *) bad="$bad $g on ${k#*:}" ;; esac
		rm -rf "$scratch/${k%%:*}/safe-on-$g"
	done
done
[ -z "$bad" ] && [ "$("$UNTORN" guards --get safe_on journal)" = ext4-journal ] &&
	[ -z "$("$UNTORN" guards --get safe_on none)" ]
ok $? "guards --get safe_on: every filesystem init takes a guard on is among its safe_on${bad:+ (not:$bad)}; journal only ext4-journal"

# per-file data journaling: ext4 data=ordered mounted nodelalloc, the
# store's directory chattr +j (which needs CAP_SYS_RESOURCE): refused
# without the capability (dropped from the bounding set where we have
# it), made and usable with it
loopfs nodelalloc 200M "mkfs.ext4 -q -F -b 4096" "nodelalloc" ||
	ktap_skip_rest guards "cannot mount ext4 with nodelalloc"
printf '#!/bin/sh\nexec setpriv --bounding-set -sys_resource --inh-caps -sys_resource -- "%s" "$@"\n' "$UNTORN" >"$scratch/nocap"
chmod +x "$scratch/nocap"
UNTORN=$scratch/nocap expect_fail "init --guard journal on nodelalloc without CAP_SYS_RESOURCE: refused naming it, nothing made" \
	"chattr +j.*CAP_SYS_RESOURCE" "$scratch/nodelalloc" -- init "$scratch/nodelalloc/s" --guard journal
if [ $(( (0x$(awk '/^CapEff/ {print $2}' /proc/self/status) >> 24) & 1 )) -eq 0 ]; then
	ok_skip "journal guard by chattr +j on nodelalloc: init, the files inherit +j, load, bench, check clean" \
		"no CAP_SYS_RESOURCE here (chattr +j needs it)"
else
	P=$scratch/nodelalloc/s
	"$UNTORN" init "$P" --guard journal >/dev/null && "$UNTORN" load "$P" --rows 20000 >/dev/null &&
		"$UNTORN" bench write "$P" --threads 2 --seconds 1 >/dev/null && "$UNTORN" check "$P" >/dev/null &&
		lsattr "$P/untorn.dat" | cut -d' ' -f1 | grep -q j &&
		"$FSCHECK" "$P" --engine untorn | grep -q "chattr +j *set"
	ok $? "journal guard by chattr +j on nodelalloc: init, the files inherit +j, load, bench, check clean"
fi

# bench's JSON: checkpoints written, the journal commits made for them,
# and those made for the redo log's group commits
commits() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["checkpoints"], d["page_journal_commits"], d["redo_journal_commits"])' "$1"
}

J=$scratch/journal/s
"$UNTORN" init "$J" --guard journal >/dev/null && "$UNTORN" load "$J" --rows 20000 >/dev/null &&
	"$UNTORN" bench write "$J" --threads 2 --seconds 3 --json >"$scratch/bench-j.json" &&
	"$UNTORN" check "$J" >/dev/null && read -r ckpts jcommits rcommits < <(commits "$scratch/bench-j.json") &&
	[ "$ckpts" -gt 0 ] && [ "$jcommits" -ge "$ckpts" ] && [ "$rcommits" -gt 0 ]
ok $? "journal guard on data=journal: init, load, bench, check clean; its ${ckpts:-?} checkpoints committed the journal (${jcommits:-?} commits), no data file sync; the redo log's group commits too (${rcommits:-?})"

U=$scratch/ordered/u
"$UNTORN" init "$U" --guard journal --unsafe >/dev/null && "$UNTORN" load "$U" --rows 20000 >/dev/null &&
	"$UNTORN" bench write "$U" --threads 2 --seconds 3 --json >"$scratch/bench.json" &&
	read -r ckpts jcommits rcommits < <(commits "$scratch/bench.json") && [ "$ckpts" -gt 0 ] &&
	[ "$jcommits" -eq 0 ] && [ "$rcommits" -eq 0 ]
ok $? "journal guard made --unsafe on data=ordered: its ${ckpts:-?} checkpoints sync the data file, its redo log fdatasyncs (${jcommits:-?} and ${rcommits:-?} journal commits: none journals their data)"

# what each run held: on data=journal the jbd2 journal (its size as
# dumpe2fs reads it) is log room beside the redo log, and the store's
# pages sit in the page cache; on data=ordered the redo log alone
jsize=$(dumpe2fs -h "$dev_journal" 2>/dev/null | sed -n 's/^\(Total \)\{0,1\}[Jj]ournal size: *//p' | head -1)
python3 - "$scratch/bench-j.json" "$scratch/bench.json" "$jsize" <<'PY'
import json, sys
j, u = (json.load(open(f)) for f in sys.argv[1:3])
size = sys.argv[3].strip()
unit = {"k": 1 << 10, "M": 1 << 20, "G": 1 << 30}[size[-1]]
jbytes = int(size[:-1]) * unit
for r in (j, u):
	assert r["memory_peak_bytes"] == r["pool_bytes"] + r["page_cache_peak_bytes"], r
	assert r["redo_log_bytes"] == r["log_capacity"], r
assert j["pages_journalled"] and j["jbd2_journal_bytes"] == jbytes, (j["jbd2_journal_bytes"], jbytes)
assert j["log_room_bytes"] == j["redo_log_bytes"] + jbytes, j
assert j["page_cache_peak_bytes"] > 1 << 20, j["page_cache_peak_bytes"]
assert not u["pages_journalled"] and u["jbd2_journal_bytes"] == 0, u
assert u["log_room_bytes"] == u["redo_log_bytes"], u
PY
ok $? "bench write says what it held: on data=journal log room = redo + the jbd2 journal (${jsize:-?}, as dumpe2fs reads it) and the pages in the page cache; on data=ordered the redo log alone; memory = pool + page cache peak"

umount "$scratch/journal" && mount "$dev_journal" "$scratch/journal"
expect_fail "journal store on a filesystem remounted data=ordered: refused on open" "no longer safe" \
	"$J" -- put "$J" 1 x
umount "$scratch/journal" && mount -o data=journal "$dev_journal" "$scratch/journal"
"$UNTORN" put "$J" 1 x && [ "$("$UNTORN" get "$J" 1)" = x ]
ok $? "back on data=journal the store opens and writes"

"$UNTORN" init "$scratch/journal/u" --guard journal --single-lsn --unsafe >/dev/null &&
	"$UNTORN" info "$scratch/journal/u" | grep -q "single-lsn" &&
	"$UNTORN" put "$scratch/journal/u" 5 y >/dev/null
ok $? "--single-lsn with --unsafe: made, labelled, usable (for crash simulations)"

if [ "$atomic_ok" = 1 ]; then
	A=$scratch/xfs/s
	"$UNTORN" init "$A" --guard atomic >/dev/null && "$UNTORN" load "$A" --rows 20000 >/dev/null &&
		"$UNTORN" bench write "$A" --threads 2 --seconds 1 >/dev/null && "$UNTORN" check "$A" >/dev/null
	ok $? "atomic guard on XFS reflink: init, load, bench (RWF_ATOMIC), check clean"
	"$FSCHECK" "$scratch/xfs" --engine untorn >/dev/null
	ok $? "fscheck --engine untorn on XFS reflink: safe (exit 0)"
else
	echo "ok $((ktap_n + 1)) atomic guard on XFS # SKIP statx reports no atomic writes on XFS here (kernel < 6.16?)"
	echo "ok $((ktap_n + 2)) fscheck on XFS # SKIP statx reports no atomic writes on XFS here"
	ktap_n=$((ktap_n + 2))
fi
ktap_finish
