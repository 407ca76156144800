#!/bin/bash
# SPDX-License-Identifier: MIT
#
# crashsim_test.sh - a short run of the power-cut simulation
# (scripts/crash-sim): a few cuts per safe guard and filesystem must lose
# nothing (also for a store whose redo log is on a filesystem of its own,
# both devices cut at once), and the naive one-LSN-per-page design must tear pages that
# `untorn check` reports (the guards and filesystems from `untorn guards`,
# so a guard added to the build is simulated with no edit here); the sector guard's blocks cut at any 512-byte
# sector are rebuilt, and 4 KiB blocks on 512-byte sectors are not.
# Bad values and combinations are refused before anything is made.  `make crash-test` runs 200 per configuration.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-crashsim-test-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
TRIALS=${UNTORN_CRASHSIM_TRIALS:-3}
ktap_plan 8

# bad values and combinations: one line, exit 2, before a loop device, a
# filesystem or a file is made (its work directory would be in $made)
made=$scratch/made
mkdir -p "$made"
bad=""
while read -r pat args; do
	[ -n "$pat" ] || continue
	# shellcheck disable=SC2086
	UNTORN_TEST_DIR=$made "$top/scripts/crash-sim" $args >"$scratch/out" 2>"$scratch/err" </dev/null
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$scratch/err")" -ne 1 ] || ! grep -q -- "${pat//_/ }" "$scratch/err" ||
	   [ -s "$scratch/out" ] || [ -n "$(ls -A "$made")" ] || losetup -a 2>/dev/null | grep -q "$made/"; then
		bad="$bad [$args: exit $rc: $(head -c 200 "$scratch/err" "$scratch/out")]"
	fi
done <<EOF
/nonexistent-$$_does_not_exist;_create_it --json /nonexistent-$$/sim.json
is_a_directory;_give_a_file --json $scratch
--trials_must_be_at_least_1 --trials 0
add_--moment_mid-page,_or_drop_--cut --cut half
add_--moment_mid-page,_or_drop_--cut --cut random --moment random
--guard_journal_is_not_safe_on_xfs.*;_give_--fs_ext4-journal --guard journal --fs xfs
--guard_atomic_is_not_safe_on_ext4-journal.*;_give_--fs_xfs --guard atomic --fs ext4-journal
--guard_needs_a_value;_see_--help --guard
--commit_is_sync_or_lazy --commit soon
--expect_is_safe_or_detect --expect maybe
EOF
[ -z "$bad" ] || echo "# failed:$bad"
[ -z "$bad" ]
ok $? "bad values and combinations (--json into a missing directory, --trials 0, --cut without --moment mid-page, a guard its verdict refuses on --fs, ...): one line, exit 2, nothing made"

sim() {	# sim DESCRIPTION crash-sim-args...
	local desc=$1 rc
	shift
	"$top/scripts/crash-sim" --trials "$TRIALS" --json "$scratch/out.json" "$@" >"$scratch/log" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -q "cannot run here" "$scratch/log"; then
		ktap_n=$((ktap_n + 1))
		echo "ok $ktap_n $desc # SKIP $(grep -m1 'cannot run here' "$scratch/log" | sed 's/.*cannot run here: //')"
		return
	fi
	tail -1 "$scratch/log" | sed 's/^/# /'
	ok $rc "$desc"
}

# every guard the registry says the crash matrix tests, on each
# filesystem it is crash-tested on, pages cut mid-write (or at random
# moments where its writes are whole): what its
# registry entry expects (safe: nothing lost; detect: every torn page
# reported) -- a guard added to the build is tested here with no edit
mid_page_all() {
	local g fs expect moment rc=0 n=0 log="" out
	for g in $("$top/build/untorn" guards --list); do
		[ "$("$top/build/untorn" guards --get crash_tested "$g")" = yes ] || continue
		expect=$("$top/build/untorn" guards --get expect "$g")
		# a guard whose page writes cannot be cut mid-page (RWF_ATOMIC)
		# is cut at random moments instead
		moment=mid-page
		[ -z "$("$top/build/untorn" guards --get whole_writes "$g")" ] || moment=random
		for fs in $("$top/build/untorn" guards --get crash_fs "$g"); do
			n=$((n + 1))
			"$top/scripts/crash-sim" --trials "$TRIALS" --json "$scratch/out.json" \
				--guard "$g" --fs "$fs" --moment "$moment" >"$scratch/log" 2>&1
			out=$?
			[ $out -eq 2 ] && grep -q "cannot run here" "$scratch/log" && { echo "# $g on $fs: cannot run here"; return 4; }
			echo "# $g on $fs ($expect, $moment): $(tail -1 "$scratch/log")"
			[ $out -eq 0 ] || { rc=1; log="$log $g/$fs"; }
		done
	done
	[ $n -ge 5 ] || { echo "# only $n guard/filesystem pairs from the registry"; return 1; }
	[ -z "$log" ] || echo "# not as expected:$log"
	return $rc
}
mid_page_all
rc=$?
if [ $rc -eq 4 ]; then
	ok_skip "every crash-tested guard on each of its filesystems, pages cut mid-write: as its registry entry expects" "the simulation cannot run here"
else
	ok $rc "every crash-tested guard on each of its filesystems (from untorn guards), pages cut mid-write (RWF_ATOMIC ones at random moments): as its registry entry expects"
fi
sim "journal on ext4 data=journal, random cuts: nothing lost" --guard journal --fs ext4-journal --moment random
sim "journal on data=journal, its redo log on an ext4 data=ordered device of its own, both cut at one instant mid-write: nothing lost" --guard journal --fs ext4-journal --redo-fs ext4-ordered --moment mid-page
sim "single-LSN pages on data=journal cut mid-write: torn, and check reports every one" --guard journal --fs ext4-journal --moment mid-page --single-lsn
if [ -s "$scratch/out.json" ]; then
	python3 -c '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if "summary" in l][0]
sys.exit(0 if s["torn_before"] > 0 and s["undetected"] == 0 else 1)' "$scratch/out.json"
	ok $? "the naive design really tore pages in the simulation (it can show what it exists to catch)"
else
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n the naive design tore pages # SKIP the simulation could not run here"
fi
# the sector guard: on this machine's loop devices (512-byte sectors) init
# picks 512-byte blocks, and a page cut at any sector is rebuilt; with
# 4 KiB blocks (what the verdict refuses here, forced with --unsafe) a cut
# inside a block leaves pages no redo can rebuild
sim "sector on ext4 data=ordered, pages cut at random 512-byte sectors: nothing lost" --guard sector --fs ext4-ordered --moment mid-page --cut random
# A cut page is unrecoverable only where the torn block's two halves
# differ (about a third of the torn pages here): cut every page at 2048
# bytes, inside its first block, in batches of 8 until one is, at most 4
# batches (each batch must still report every damaged page and lose
# nothing)
sector_neg() {
	local json=$scratch/neg.json batch
	for batch in 1 2 3 4; do
		rm -f "$json"
		"$top/scripts/crash-sim" --trials 8 --json "$json" --guard sector --fs ext4-ordered --moment mid-page \
			--cut 2048 --block-size 4096 --unsafe --expect detect >"$scratch/log" 2>&1 || return 1
		tail -1 "$scratch/log" | sed "s/^/# batch $batch: /"
		python3 -c '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if "summary" in l][0]
sys.exit(2 if s["undetected"] or s["lost"] else 0 if s["unrecoverable_after"] > 0 else 1)' "$json"
		case $? in 0) return 0 ;; 2) return 1 ;; esac
	done
	return 1
}
if grep -q "cannot run here" "$scratch/log" 2>/dev/null; then
	ok_skip "sector with 4 KiB blocks on 512-byte sectors: unrecoverable pages" "the simulation cannot run here"
else
	sector_neg
	ok $? "sector with 4 KiB blocks on 512-byte sectors (--unsafe), cut inside a block: unrecoverable pages appear, each reported (why the verdict refuses it)"
fi
ktap_finish
