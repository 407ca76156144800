#!/bin/bash
# SPDX-License-Identifier: MIT
#
# placement_test.sh - `untorn init --redo-dir DIR --dblwr-dir DIR`: the
# redo log and the doublewrite file in directories of their own (as root,
# the redo log on a filesystem of its own, a loop-mounted ext4), linked
# from the store; rows load and verify; a kill -9 under sync commits
# loses no acknowledged commit after recovery; a directory that is
# missing, not a directory, in memory, or given to a guard without a
# doublewrite file is refused before anything is made; a store whose
# redo log is gone (its filesystem not mounted) or is another store's is
# refused at open, in one line naming the fix.
set -u

UNTORN=${UNTORN:-${UNTORN_TOP:-$(dirname "$0")/..}/build/untorn}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/var/tmp}/untorn-placement-$$-XXXXXX")
loop=""
cleanup() {
	[ -n "$loop" ] && { umount "$scratch/redofs" 2>/dev/null; losetup -d "$loop" 2>/dev/null; }
	[ -n "${bench_pid:-}" ] && kill -9 "$bench_pid" 2>/dev/null
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 7

# the redo log's own filesystem where loop devices can be had
R=$scratch/redofs D=$scratch/dblwr S=$scratch/store
mkdir -p "$R" "$D"
if [ "$(id -u)" -eq 0 ] && truncate -s 128M "$scratch/redo.img" &&
   mkfs.ext4 -q -F "$scratch/redo.img" && loop=$(losetup -f --show "$scratch/redo.img") &&
   mount "$loop" "$R"; then
	where="a filesystem of its own ($loop)"
else
	loop=""
	where="a directory of its own (not root: no second filesystem)"
fi

"$UNTORN" init "$S" --page-size 4k --log-size 8M --redo-dir "$R" --dblwr-dir "$D" >/dev/null &&
	[ -L "$S/untorn.redo" ] && [ -L "$S/untorn.dblwr" ] &&
	[ "$(readlink "$S/untorn.redo")" = "$(ls "$(realpath "$R")"/untorn-*.redo)" ] &&
	[ -f "$(readlink "$S/untorn.dblwr")" ] &&
	"$UNTORN" load "$S" --rows 20000 >/dev/null && "$UNTORN" verify "$S" >/dev/null &&
	"$UNTORN" info "$S" | grep -q "^redo log .*$R"
ok $? "init --redo-dir on $where, --dblwr-dir: linked from the store, load and verify, info names them"

# kill -9 once enough commits are acknowledged (their records are on the
# ack device before the commit returns)
truncate -s 64M "$scratch/acks.dev"
"$UNTORN" bench write "$S" --commit sync --threads 2 --seconds 60 --ack-dev "$scratch/acks.dev" \
	>/dev/null 2>&1 &
bench_pid=$!
acked=0
for _ in $(seq 600); do
	acked=$(tr -d '\0' <"$scratch/acks.dev" | wc -l)
	[ "$acked" -ge 500 ] && break
	sleep 0.1
done
kill -9 "$bench_pid"
wait "$bench_pid" 2>/dev/null
bench_pid=""
tr -d '\0' <"$scratch/acks.dev" >"$scratch/acks.txt"
"$UNTORN" recover "$S" >"$scratch/recover" 2>&1 &&
	"$UNTORN" verify "$S" --acks "$scratch/acks.txt" --json >"$scratch/verify" 2>&1
rc=$?
echo "# $(wc -l <"$scratch/acks.txt") commits acknowledged before kill -9; verify: $(tr -d '\n' <"$scratch/verify" | head -c 200)"
[ $rc -eq 0 ] && [ "$acked" -ge 500 ]
ok $? "kill -9 under sync commits on the split store: recovery loses no acknowledged commit"

# refusals at init: one line, exit 2, nothing made
one_line_nothing_made() {	# DESCRIPTION ARGS...
	local desc=$1 rc
	shift
	rm -rf "$scratch/new"
	"$UNTORN" init "$scratch/new" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$scratch/err")" -ne 1 ] || [ -e "$scratch/new" ] ||
	   [ "$(ls "$R" "$D" | wc -l)" -ne "$files_before" ]; then
		echo "# $desc: exit $rc, made: $(ls "$scratch/new" 2>/dev/null), stderr: $(head -2 "$scratch/err")"
		return 1
	fi
	echo "# $desc: $(cat "$scratch/err")"
}
touch "$scratch/afile"
files_before=$(ls "$R" "$D" | wc -l)
bad=""
one_line_nothing_made missing --redo-dir "$scratch/no/such" || bad="$bad missing"
one_line_nothing_made file --redo-dir "$scratch/afile" || bad="$bad file"
one_line_nothing_made journal-dblwr --guard journal --unsafe --dblwr-dir "$D" || bad="$bad journal-dblwr"
one_line_nothing_made bad-dblwr-dir --dblwr-dir "$scratch/afile" || bad="$bad bad-dblwr-dir"
[ -z "$bad" ] || echo "# failed:$bad"
[ -z "$bad" ]
ok $? "a redo or doublewrite directory missing, not a directory, or for a guard without a doublewrite file: one line, exit 2, nothing made"

if [ "$(id -u)" -ne 0 ]; then
	ok_skip "a redo directory in memory (tmpfs) is refused" "not root (no tmpfs mount)"
else
	mkdir -p "$scratch/tmpfs"
	mount -t tmpfs -o size=16M tmpfs "$scratch/tmpfs"
	one_line_nothing_made tmpfs --redo-dir "$scratch/tmpfs" &&
		grep -q "power cut" "$scratch/err"
	ok $? "a redo directory in memory (tmpfs) is refused: a power cut empties it"
	umount "$scratch/tmpfs"
fi

# the redo log's filesystem not mounted: the link dangles
redo=$(readlink "$S/untorn.redo")
mv "$redo" "$redo.away"
"$UNTORN" get "$S" 1 >"$scratch/out" 2>"$scratch/err"
rc=$?
echo "# $(cat "$scratch/err")"
[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "which is missing: mount" "$scratch/err"
ok $? "the redo log missing (its filesystem not mounted): open refused, one line naming the fix, exit 2"

# another store's redo log behind the link
"$UNTORN" init "$scratch/other" --page-size 4k --log-size 8M --redo-dir "$R" >/dev/null
cp "$(readlink "$scratch/other/untorn.redo")" "$redo"
"$UNTORN" get "$S" 1 >"$scratch/out" 2>"$scratch/err"
rc=$?
echo "# $(cat "$scratch/err")"
[ $rc -eq 2 ] && grep -q "another store" "$scratch/err"
ok $? "another store's redo log behind the link: refused, exit 2"

mv "$redo.away" "$redo"
"$UNTORN" verify "$S" --acks "$scratch/acks.txt" >/dev/null 2>&1 && "$UNTORN" check "$S" >/dev/null
ok $? "with its own redo log back the store opens, checks clean and keeps every acknowledged commit"

ktap_finish
