#!/bin/bash
# SPDX-License-Identifier: MIT
#
# guards_plugin_test.sh - a guard is one file plus one table line, as
# fio's engines are: a build of its own (make TEST_GUARD=1, tree
# build-testguard) compiles tests/guard_test.c, one more guard, "test",
# named in guard_list.h, and nothing else changes.  With it: `untorn
# guards` lists it, init takes its option and refuses another guard's,
# info names its file, a page write torn by injection is found by check,
# repaired by recover (its restore phase runs), bench write reports its
# statistics and verify passes, and crash-sim (as root, loop devices) cuts the power under
# it with nothing lost.  The real build lists its guards without it and
# refuses a store made with it in one line.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
UNTORN=${UNTORN:-$top/build/untorn}
TG_BUILD=${UNTORN_TESTGUARD_BUILD:-$top/build-testguard}
TG=$TG_BUILD/untorn
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/var/tmp}/untorn-guardplugin-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 9

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
