#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fscheck_probe_test.sh - untorn-fscheck --probe: on a loop ext4
# data=journal it writes pages for the seconds asked, a log fdatasynced
# beside them, while torn-split.bt counts them, and prints the measured
# split rate beside the verdict (16 KiB pages do split, 4 KiB pages never,
# nothing is left in the directory); where nothing can be measured it says why and still
# gives the verdict: data=ordered (nothing journalled), no root (as
# nobody); a bad --probe value is refused in one line.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
UNTORN=${UNTORN:-$top/build/untorn}
FSCHECK=${FSCHECK:-$(dirname "$UNTORN")/untorn-fscheck}
scratch=$(mktemp -d "/var/tmp/untorn-fscheck-probe-$$-XXXXXX")
cleanup() {
	loopfs_cleanup
	bt_umount_fs
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/loopfs.sh"
. "$top/scripts/lib/bt.sh"
ktap_plan 5

[ "$(id -u)" -eq 0 ] || ktap_skip_rest fscheck-probe "needs root for loop devices, mounts and bpftrace"
# nothing of the probe's own runs under a sanitizer but the C around it,
# which the plain build covers; bpftrace under ASan's load is minutes
[ -z "${SAN_FLAGS:-}" ] || ktap_skip_rest fscheck-probe "sanitizer build ($SAN_FLAGS): the probe is bpftrace's work; the plain run covers it"
for t in bpftrace:bpftrace mkfs.ext4:e2fsprogs setpriv:util-linux; do
	command -v "${t%%:*}" >/dev/null ||
		{ ok 1 "${t%%:*} is installed (make check installs ${t#*:})"; ktap_skip_rest fscheck-probe "${t%%:*} missing"; }
done
bt_mount_fs || ktap_skip_rest fscheck-probe "tracefs cannot be mounted here"

loopfs jnl 512M "mkfs.ext4 -q -F -b 4096" "data=journal" &&
	loopfs ord 256M "mkfs.ext4 -q -F -b 4096" "" ||
	ktap_skip_rest fscheck-probe "cannot make ext4 loop filesystems"

"$FSCHECK" "$scratch/jnl" --probe=3 >"$scratch/out" 2>"$scratch/err"
rc=$?
line=$(grep "^measured here" "$scratch/out")
echo "# $line"
split=$(sed -n 's/^measured here *\([0-9]*\) of .*/\1/p' "$scratch/out")
pages=$(sed -n 's/^measured here *[0-9]* of \([0-9]*\) 16384-byte page writes split across two jbd2 transactions (.*) in 3 s, an fdatasync every 64, a log fdatasynced beside them$/\1/p' "$scratch/out")
[ $rc -eq 1 ] && [ -n "$pages" ] && [ "$pages" -gt 100 ] && [ "${split:-0}" -gt 0 ] &&
	grep -q "^InnoDB (one LSN per page) *UNSAFE.*(measured here: $split of $pages page writes split" "$scratch/out" &&
	! grep -q "0.06-0.08" "$scratch/out" && [ -z "$(ls -A "$scratch/jnl" | grep -v lost+found)" ]
ok $? "data=journal, 3 s: 16 KiB pages split by the log's commits ($split of $pages), the verdict quotes that figure, nothing left behind"

"$FSCHECK" "$scratch/jnl" --probe=2 --page-size 4k --json >"$scratch/json" 2>"$scratch/err"
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["probe"]
assert p["measured"] is True and p["pages"] > 100 and p["split"] == 0, p
assert p["seconds"] == 2 and p["sync_every"] == 64
' "$scratch/json" || { echo "# $(tr -d "\n" <"$scratch/json" | grep -o "\"probe\"[^}]*}")"; false; }
ok $? "--json --page-size 4k: measured, and a page of one block never splits (split 0)"

"$FSCHECK" "$scratch/ord" --probe=1 >"$scratch/out" 2>&1
grep -q "^measured here *not measured: nothing to measure: file data is not journalled here" "$scratch/out" &&
	grep -q "^InnoDB (one LSN per page) *UNSAFE" "$scratch/out"
ok $? "data=ordered: not measured, says why (nothing journalled), the verdict still given"

chmod 755 "$scratch" && chmod 1777 "$scratch/jnl"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$FSCHECK" "$scratch/jnl" --probe=1 >"$scratch/out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "^measured here *not measured: needs root (bpftrace)" "$scratch/out"
ok $? "not root: not measured, says it needs root, the verdict still given (exit $rc)"

fails=0
for bad in 0 abc 3601 -1; do
	"$FSCHECK" "$scratch/jnl" --probe="$bad" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	{ [ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "whole seconds from 1 to 3600" "$scratch/err" &&
		[ ! -s "$scratch/out" ]; } || { echo "# --probe=$bad: exit $rc: $(cat "$scratch/err")"; fails=$((fails + 1)); }
done
ok $fails "--probe=0, abc, 3601, -1: refused in one line, exit 2"
ktap_finish
