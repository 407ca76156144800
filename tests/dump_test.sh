#!/bin/bash
# SPDX-License-Identifier: MIT
#
# dump_test.sh - `untorn dump` and `untorn load --from`: a dump restored
# into a new store dumps the same bytes (TSV and JSON lines, 4 KiB and
# 16 KiB pages, a split-layout store, from a file and from stdin) and
# verifies; a damaged dump (a bad line, odd hex digits, keys out of order,
# a value too large for the store, a missing file) is refused in one line
# naming the line, exit 2, and nothing is loaded; a full disk under the
# dump fails it in one line; on a terminal the dump shows rows, MB/s and
# the time left, in a pipe nothing but its summary.
set -u

UNTORN=$(readlink -f "${UNTORN:-${UNTORN_TOP:-$(dirname "$0")/..}/build/untorn}")
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-dump-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 7

cd "$scratch" || exit 1
"$UNTORN" init a16 --page-size 16k >/dev/null && "$UNTORN" load a16 --rows 30000 --layout split >/dev/null &&
	"$UNTORN" dump a16 >a16.tsv 2>dump.err &&
	"$UNTORN" init b16 --page-size 16k >/dev/null && "$UNTORN" load b16 --from a16.tsv >/dev/null &&
	"$UNTORN" dump b16 2>/dev/null | cmp -s - a16.tsv &&
	"$UNTORN" verify b16 | grep -q ": 30000 rows, 0 out of order; 30000 values .* checked: 0 damaged" &&
	[ "$(wc -l <a16.tsv)" -eq 30000 ]
ok $? "16 KiB, split layout: dump, load --from, dump again: the same 30000 lines; verify clean"

"$UNTORN" dump a16 --format jsonl >a16.jsonl 2>/dev/null &&
	"$UNTORN" init c4 --page-size 4k >/dev/null && "$UNTORN" load c4 --from - <a16.jsonl >/dev/null &&
	"$UNTORN" dump c4 2>/dev/null | cmp -s - a16.tsv &&
	"$UNTORN" dump c4 --format jsonl 2>/dev/null | cmp -s - a16.jsonl &&
	python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' a16.jsonl
ok $? "JSON lines (valid JSON each) into a 4 KiB store from stdin: the same rows in both formats"

# damaged dumps: one line naming FILE:LINE, exit 2, nothing loaded
"$UNTORN" init d --page-size 4k >/dev/null
fails=0
refused() {	# WHAT PATTERN FILE
	"$UNTORN" load d --from "$3" >out 2>err
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <err)" -ne 1 ] || ! grep -q -e "$2" err ||
		[ "$("$UNTORN" dump d 2>/dev/null | wc -l)" -ne 0 ]; then
		echo "# $1: exit $rc: $(cat err)"
		fails=$((fails + 1))
	fi
}
{ head -5 a16.tsv; echo "12x"; tail -3 a16.tsv; } >bad1.tsv
refused "a bad line" "bad1.tsv:6: not a line of untorn dump" bad1.tsv
{ head -2 a16.tsv; sed -n 3p a16.tsv | sed 's/.$//'; } >bad2.tsv
refused "odd hex digits" "bad2.tsv:3: the value has an odd number of hex digits" bad2.tsv
{ sed -n 2p a16.tsv; sed -n 1p a16.tsv; } >bad3.tsv
refused "keys out of order" "bad3.tsv:2: keys out of order" bad3.tsv
printf '7\t%s\n' "$(head -c 3000 /dev/zero | od -An -v -tx1 | tr -d ' \n')" >bad4.tsv
refused "a value too large for 4 KiB pages" "bad4.tsv:1: the value is longer than this store's largest" bad4.tsv
refused "a missing file" "load --from nosuch.tsv: No such file or directory" nosuch.tsv
ok $fails "damaged dumps (a bad line, odd hex, keys out of order, a value too large, no file): one line, exit 2, nothing loaded"

"$UNTORN" load d --from a16.tsv --rows 5 >out 2>err
[ $? -eq 2 ] && grep -q "drop --rows" err
ok $? "--from with --rows: refused"

"$UNTORN" dump a16 >/dev/full 2>err
[ $? -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "writing stdout failed after .* rows: No space left on device" err
ok $? "a full disk under the dump: one line, exit 2"

# progress: on a terminal (script gives one) rows, MB/s, the time left
script -qec "'$UNTORN' dump a16 >/dev/null" /dev/null >tty.out 2>&1
grep -aq '[0-9]* rows, [0-9.]* MB/s, [0-9]*% of the way, .* left' tty.out &&
	grep -q "^untorn: dumped 30000 rows" dump.err && grep -q "^untorn: dump yield: " dump.err && [ "$(wc -l <dump.err)" -eq 2 ]
ok $? "dump on a terminal: rows, MB/s, the time left; in a pipe only its summary"

"$UNTORN" dump a16 --format xml >out 2>err
[ $? -eq 2 ] && grep -q "format is tsv or jsonl" err
ok $? "dump --format xml: refused"
ktap_finish
