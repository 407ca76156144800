#!/bin/bash
# SPDX-License-Identifier: MIT
#
# guards_plugin_test.sh - a guard is one file plus one table line, as
# fio's engines are: a build of its own (make TEST_GUARD=1, tree
# build-testguard) compiles tests/guard_test.c, a sixth guard, "test",
# named in guard_list.h, and nothing else changes.  With it: `untorn
# guards` lists it; dev/crash-matrix --list, scripts/bench-matrix
# --target DIR --dry-run and dev/kernel-suite --list (quick and full),
# run unchanged but for the test build's untorn, take it up: what they
# list is the real build's list plus the test guard's lines, nothing
# else (no benchmark, power cut or guest runs); init takes its option
# and refuses another guard's, info names its file, a page write torn by
# injection is found by check, repaired by recover (its restore phase
# runs), bench write reports its statistics and verify passes, and
# crash-sim (as root, loop devices) cuts the power under it with nothing
# lost.  The real build lists its guards without it and refuses a store
# made with it in one line.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
UNTORN=${UNTORN:-$top/build/untorn}
TG_BUILD=${UNTORN_TESTGUARD_BUILD:-$top/build-testguard}
TG=$TG_BUILD/untorn
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/var/tmp}/untorn-guardplugin-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 12

# the test build: its own tree, so the real build never holds the guard
make -C "$top" -s -j2 TEST_GUARD=1 BUILD="$TG_BUILD" "$TG" >"$scratch/build.log" 2>&1
ok $? "make TEST_GUARD=1 builds untorn with tests/guard_test.c in $TG_BUILD"
[ -x "$TG" ] || { sed 's/^/# /' "$scratch/build.log"; exit 1; }

# the test build lists the real build's guards, then its own
real=$("$UNTORN" guards --list | tr '\n' ' ')
[ "$("$TG" guards --list | tr '\n' ' ')" = "${real}test " ] &&
	! echo " $real" | grep -q " test " && [ "$(echo $real | wc -w)" -ge 5 ] &&
	[ "$("$TG" guards --get id test)" = 250 ] &&
	[ "$("$TG" guards --get restore_phase test)" = test-restore ] &&
	[ -z "$("$TG" guards --get judges_devices test)" ] &&
	[ "$("$UNTORN" guards --get judges_devices sector)" = yes ] &&
	"$TG" init --help | grep -q -- '--test-note TEXT'
ok $? "guards --list: the test build has one guard more than the real build ($real), the test guard; init --help shows its option"

# the scripts that run every guard take it up from `untorn guards`, with
# no change but the untorn they are given: what they list with the test
# build is what they list with the real build, plus the test guard's
# lines (plus_test NAME REAL TG: TG less its test lines is REAL, and it
# has some)
plus_test() {
	local n
	n=$(grep -c '^test ' "$3")
	echo "# $1: $n line(s) of the test guard: $(grep '^test ' "$3" | tr '\n' ';')"
	[ "$n" -ge 1 ] && ! grep -q '^test ' "$2" && diff <(grep -v '^test ' "$3") "$2" >/dev/null
}
UNTORN=$UNTORN "$top/dev/crash-matrix" --list >"$scratch/cm.real" 2>&1 &&
	UNTORN=$TG "$top/dev/crash-matrix" --list >"$scratch/cm.tg" 2>&1 &&
	plus_test crash-matrix "$scratch/cm.real" "$scratch/cm.tg" &&
	grep -qx "test ext4-journal mid-page" "$scratch/cm.tg" &&
	UNTORN=$TG "$top/dev/crash-matrix" --list --guards test | grep -q '^test '
ok $? "dev/crash-matrix --list: the test guard cut under on ext4 data=journal (and shown to detect with one LSN a page), every other configuration as before; --guards test takes it"

# bench-matrix --target DIR --dry-run: the steps it would take per guard
# (UNTORN_TARGET_NEED: the space check passed, nothing is written)
bm_guards() {
	mkdir -p "$scratch/target"
	UNTORN=$1 UNTORN_TARGET_NEED=1 "$top/scripts/bench-matrix" --target "$scratch/target" --dry-run \
		--rows 2000 --threads 1 --out "$scratch/bm-out" 2>&1 |
		sed -n 's/^  \([a-z0-9_-]*\): in that directory.*/\1 runs/p'
}
bm_guards "$UNTORN" >"$scratch/bm.real" && bm_guards "$TG" >"$scratch/bm.tg" &&
	plus_test bench-matrix "$scratch/bm.real" "$scratch/bm.tg" &&
	[ "$(wc -l <"$scratch/bm.real")" -ge 5 ] && [ ! -e "$scratch/bm-out" ] &&
	[ -z "$(ls -A "$scratch/target")" ]
ok $? "scripts/bench-matrix --target DIR --dry-run: the test guard's steps beside every other guard's, nothing made"

ks_ok=0
for suite in quick full; do
	UNTORN=$UNTORN "$top/dev/kernel-suite" --list --suite $suite >"$scratch/ks.real" 2>&1 &&
		UNTORN=$TG "$top/dev/kernel-suite" --list --suite $suite >"$scratch/ks.tg" 2>&1 &&
		plus_test "kernel-suite $suite" "$scratch/ks.real" "$scratch/ks.tg" || ks_ok=1
done
ok $ks_ok "dev/kernel-suite --list (quick and full): the test guard's power-cut replays beside every other guard's, as before"

S=$scratch/s
"$TG" init "$S" --page-size 16k --guard test --unsafe --dblwr-batch 4 >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "is for the doublewrite guard" "$scratch/err" &&
	[ ! -e "$S" ] &&
	"$TG" init "$S" --guard test --unsafe --test-note "$(printf 'x%.0s' $(seq 65))" >/dev/null 2>"$scratch/err"
rc2=$?
[ $rc2 -eq 2 ] && grep -q "at most 64" "$scratch/err" && [ ! -e "$S" ]
ok $? "init refuses another guard's option and the test guard's bad option in one line, nothing made"

"$TG" init "$S" --page-size 16k --guard test --unsafe --test-note plugin >/dev/null &&
	grep -q plugin "$S/untorn.testguard" &&
	"$TG" info "$S" | grep -q "^testguard  *$S/untorn.testguard" &&
	"$TG" info --json "$S" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["guard"] == "test" and d["testguard_file"].endswith("untorn.testguard"), d'
ok $? "init --guard test makes its file with the note; info names the guard and its file"

# a pool (1 MiB, 64 pages) smaller than the rows' leaves: the updates
# evict dirty pages, so the guard writes batches within the second
"$TG" load "$S" --rows 20000 >/dev/null &&
	"$TG" bench write "$S" --seconds 1 --threads 2 --pool 1M --json >"$scratch/bench.json" &&
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["guard"] == "test" and d["pages_written"] > 0 and d["copy_slot_waits"] > 0, d' "$scratch/bench.json" &&
	"$TG" verify "$S" >/dev/null
ok $? "load and bench write run under it; its statistics (batches as slot waits) reach bench; verify passes"

UNTORN_INJECT=torn-page-write:1 "$TG" put "$S" 7 torn >/dev/null 2>&1
rc=$?
"$TG" check "$S" >"$scratch/check" 2>&1
crc=$?
[ $rc -eq 137 ] && [ $crc -eq 1 ] && grep -q torn "$scratch/check"
ok $? "a page write torn after its first block: the process dies, check finds the torn page"

"$TG" recover --json "$S" >"$scratch/rec.json" &&
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["recovered"] is True and d["copy_pages_checked"] > 0, d' "$scratch/rec.json" &&
	"$TG" check "$S" >/dev/null && [ "$("$TG" get "$S" 7)" = torn ]
ok $? "recover runs its restore phase and rebuilds the page from redo; check clean, the row there"

"$UNTORN" info "$S" >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "names guard 250, which this build does not have" "$scratch/err"
ok $? "the real build refuses the store in one line: guard 250 is not one of its"

if [ "$(id -u)" -ne 0 ]; then
	ok_skip "crash-sim --guard test" "needs root (loop devices, mounts)"
else
	UNTORN=$TG "$top/scripts/crash-sim" --guard test --fs ext4-journal --moment mid-page \
		--trials "${UNTORN_CRASHSIM_TRIALS:-3}" >"$scratch/sim" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -q "cannot run here" "$scratch/sim"; then
		ok_skip "crash-sim --guard test" "$(grep -m1 'cannot run here' "$scratch/sim" | sed 's/.*cannot run here: //')"
	else
		tail -1 "$scratch/sim" | sed 's/^/# /'
		ok $rc "crash-sim --guard test on ext4 data=journal, pages cut mid-write: nothing lost"
	fi
fi
