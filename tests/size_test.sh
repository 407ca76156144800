#!/bin/bash
# SPDX-License-Identifier: MIT
#
# size_test.sh - one rule for sizes everywhere: the C parser behind the
# untorn command and untorn-fscheck (ut_parse_size) and the scripts'
# parse_size (scripts/lib/common.sh) give the same bytes, or both refuse,
# for every entry of one table; and the commands that take sizes follow
# it (untorn init --log-size, untorn-fscheck --page-size, mkfs-journal
# --size).
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
build=${BUILD:-$top/build}
helper=$build/tests/size_parse
UNTORN=${UNTORN:-$build/untorn}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-size-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
prog=size_test
. "$top/scripts/lib/common.sh"
ktap_plan 7

# input, then the bytes it means ("refused": not a size)
table="
512 512
0 0
16k 16384
16K 16384
16KiB 16384
16kib 16384
16KB 16384
256M 268435456
256MiB 268435456
256mb 268435456
1G 1073741824
1GiB 1073741824
1T 1099511627776
1TiB 1099511627776
4096b 4096
4096B 4096
007k 7168
200 200
3k 3072
4611686018427387903 4611686018427387903
4611686018427387904 refused
4194304T refused
-5 refused
1.5G refused
16kx refused
k refused
16 k refused
16KiBB refused
16P refused
refused refused
"
inputs=() want=()
while read -r line; do
	[ -n "$line" ] || continue
	inputs+=("${line% *}")
	want+=("${line##* }")
done <<<"$table"
# and the empty string
inputs[${#inputs[@]}]=""; want[${#want[@]}]=refused

# compare LABEL INPUTS GOT WANT (array names): a line for each entry
# read otherwise than wanted; bad is how many
compare() {
	local -n _in=$2 _got=$3 _want=$4
	local i
	bad=0
	for i in "${!_in[@]}"; do
		[ "${_got[$i]:-}" = "${_want[$i]}" ] && continue
		echo "# $1: '${_in[$i]}' -> '${_got[$i]:-}', want '${_want[$i]}'"
		bad=$((bad + 1))
	done
}

mapfile -t got_c < <("$helper" "${inputs[@]}")
compare C inputs got_c want
ok $bad "ut_parse_size reads all ${#inputs[@]} entries of the table as the rule says"

got_sh=()
for i in "${!inputs[@]}"; do
	got_sh[i]=$(parse_size "${inputs[$i]}") || got_sh[i]=refused
done
compare shell inputs got_sh want
ok $bad "the scripts' parse_size reads every entry the same way"

# counts: digits only, no unit, sign or space, from 1 (ut_parse_count,
# behind untorn's --threads and --rows, untorn-fscheck's seconds,
# untorn-randwrite's --qd; the scripts' need_uint is the same rule)
counts=(1 16 007 4611686018427387903 0 4611686018427387904 3k -5 +5 " 5" "5 " 1.5 "")
want_n=(1 16 7 4611686018427387903 refused refused refused refused refused refused refused refused refused)
mapfile -t got_n < <("$helper" --count "${counts[@]}")
compare count counts got_n want_n
ok $bad "ut_parse_count takes digits from 1 up and refuses units, signs, spaces, 0 and overflow (${#counts[@]} entries)"

"$UNTORN" init "$scratch/a" --log-size 16MiB --page-size 4KiB >/dev/null &&
	"$UNTORN" info --json "$scratch/a" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["page_size"] == 4096, d' 
ok $? "untorn init takes 16MiB and 4KiB"

expect_fail "untorn init refuses 16P" "is not a size" "$scratch/b" -- init "$scratch/b" --log-size 16P

"$build/untorn-fscheck" "$scratch" --page-size 16KiB >/dev/null 2>&1
rc=$?
"$build/untorn-fscheck" "$scratch" --page-size 16kb >/dev/null 2>&1
rc2=$?
[ $rc -le 1 ] && [ $rc2 -le 1 ]
ok $? "untorn-fscheck takes --page-size 16KiB and 16kb (exit $rc, $rc2)"

"$top/scripts/mkfs-journal" "$scratch/img" --size 200 --mount "$scratch/m" --dry-run \
	>"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && grep -q "200 bytes" "$scratch/err" && [ ! -e "$scratch/img" ]
ok $? "mkfs-journal --size 200 means 200 bytes, and is refused as too small"
echo "# $(cat "$scratch/err")"

ktap_finish
