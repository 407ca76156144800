#!/bin/bash
# SPDX-License-Identifier: MIT
#
# lock_cli_test.sh - one store, one owner, as a script author meets it:
# four put loops on one store (each put acknowledged or refused with exit
# 2 naming the holder; with --wait all acknowledged; check clean and every
# acknowledged put readable either way), check during bench write (refused,
# then --wait until the writer is done), kill -9 of a writer and an
# immediate reopen, two stores on one filesystem side by side, and --wait
# that runs out.
set -u

UNTORN=${UNTORN:-${UNTORN_TOP:-$(dirname "$0")/..}/build/untorn}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-lock-cli-$$-XXXXXX")
bg_pids=()
cleanup() {
	local p
	for p in "${bg_pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 12

LOOPS=4
PUTS=40

# put_loop STORE LOOP [ARGS...]: PUTS puts of keys LOOP*1000+i, each
# result "KEY RC" in $scratch/loop-LOOP, stderr in $scratch/loop-LOOP.err
put_loop() {
	local s=$1 l=$2 i key rc
	shift 2
	for i in $(seq 1 $PUTS); do
		key=$((l * 1000 + i))
		"$UNTORN" put "$s" "$key" "v-$key" "$@" >/dev/null 2>>"$scratch/loop-$l.err"
		rc=$?
		echo "$key $rc" >>"$scratch/loop-$l"
	done
}

# run_loops STORE [ARGS...]: the loops at once; prints "acked refused other"
run_loops() {
	local s=$1 l pids=()
	shift
	rm -f "$scratch"/loop-*
	for l in $(seq 1 $LOOPS); do
		put_loop "$s" "$l" "$@" &
		pids+=($!)
	done
	wait "${pids[@]}"
	cat "$scratch"/loop-[0-9] | awk '$2 == 0 { a++ } $2 == 2 { r++ } $2 != 0 && $2 != 2 { o++ }
		END { printf "%d %d %d\n", a, r, o }'
}

# every_acked_readable STORE: each put that exited 0 reads back its value
every_acked_readable() {
	local key rc bad=0
	while read -r key rc; do
		[ "$rc" -eq 0 ] || continue
		[ "$("$UNTORN" get "$1" "$key" 2>/dev/null)" = "v-$key" ] || bad=$((bad + 1))
	done < <(cat "$scratch"/loop-[0-9])
	echo "# $bad acknowledged puts unreadable"
	[ $bad -eq 0 ]
}

# every refusal is one line naming the holder's pid and command, and a fix
refusal="store in use by writer pid [0-9]+ \([^)]*untorn put [^)]*\)( and other processes)?; wait for it to finish, or give --wait SECONDS"
refusals_named() {
	local total named
	total=$(cat "$scratch"/loop-*.err | grep -c . || true)
	# a scan of /proc is no snapshot: the holder that just let go and the
	# next one can both be seen ("and other processes")
	named=$(cat "$scratch"/loop-*.err | grep -cE "$refusal" || true)
	echo "# $total stderr lines, $named of them a named refusal"
	cat "$scratch"/loop-*.err | grep -vE "$refusal" | head -3 | sed 's/^/# other: /'
	[ "$total" -eq "$named" ]
}

S=$scratch/s
"$UNTORN" init "$S" --page-size 4k >/dev/null
"$UNTORN" load "$S" --rows 2000 >/dev/null

read -r acked refused other < <(run_loops "$S")
echo "# without --wait: $acked acknowledged, $refused refused (exit 2), $other other"
[ "$other" -eq 0 ] && [ $((acked + refused)) -eq $((LOOPS * PUTS)) ] && [ "$acked" -gt 0 ] && refusals_named
ok $? "$LOOPS concurrent put loops: every put acknowledged, or refused with exit 2 naming the holder"
"$UNTORN" check "$S" >"$scratch/check" && every_acked_readable "$S"
ok $? "then check is clean and every acknowledged put is readable"

read -r acked refused other < <(run_loops "$S" --wait 300)
echo "# with --wait 300: $acked acknowledged, $refused refused, $other other"
[ "$acked" -eq $((LOOPS * PUTS)) ]
ok $? "with --wait, all $((LOOPS * PUTS)) puts acknowledged"
"$UNTORN" check "$S" >/dev/null && every_acked_readable "$S"
ok $? "then check is clean and every put is readable"

# start_bench STORE SECONDS: bench write in the background, returning once
# it has committed (its first acknowledgement); pid in $bench_pid
start_bench() {
	local line
	rm -f "$scratch/acks"
	mkfifo "$scratch/acks"
	"$UNTORN" bench write "$1" --threads 2 --seconds "$2" --rows 2000 --pool 4M \
		--ack-fd 3 3>"$scratch/acks" >"$scratch/bench.out" 2>&1 &
	bench_pid=$!
	bg_pids+=("$bench_pid")
	exec 5<"$scratch/acks"
	read -r -u 5 line
	cat <&5 >/dev/null &
	bg_pids+=($!)
	exec 5<&-
}

start_bench "$S" 3
"$UNTORN" check "$S" >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && [ ! -s "$scratch/out" ] &&
	grep -q "store in use by writer pid $bench_pid (.*bench write" "$scratch/err"
ok $? "check while bench write runs: exit 2, one line naming the bench's pid"
echo "# $(cat "$scratch/err")"
"$UNTORN" check --wait 120 "$S" >"$scratch/out" 2>&1
rc=$?
# bench prints its results, flushes them and only then releases the store:
# a check that got the lock finds them written.  (kill -0 cannot tell: the
# bench may still be exiting, e.g. in ASan's leak check, or a zombie.)
bench_done=$(grep -q "^  tps " "$scratch/bench.out" && echo yes || echo no)
wait "$bench_pid"
bench_rc=$?
[ $rc -eq 0 ] && [ "$bench_done" = yes ] && [ $bench_rc -eq 0 ] && grep -q " 0 bad" "$scratch/out"
ok $? "check --wait runs once the bench is done (bench exit $bench_rc), and finds no bad page"

start_bench "$S" 600
kill -9 "$bench_pid"
wait "$bench_pid" 2>/dev/null
t0=$(date +%s%N)
"$UNTORN" put "$S" 999999 after-kill >"$scratch/out" 2>"$scratch/err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc -eq 0 ] && grep -q "recovered automatically" "$scratch/err"
ok $? "kill -9 of a writer, then an immediate put: no stale lock, recovered ($ms ms)"
"$UNTORN" check "$S" >/dev/null && [ "$("$UNTORN" get "$S" 999999)" = after-kill ]
ok $? "the store is clean after it"

T=$scratch/t
"$UNTORN" init "$T" --page-size 4k >/dev/null
start_bench "$S" 5
"$UNTORN" put "$T" 1 other-store && [ "$("$UNTORN" get "$T" 1)" = other-store ]
rc=$?
"$UNTORN" info "$S" >/dev/null 2>&1	# and the first store is still held
held=$?
[ $rc -eq 0 ] && [ $held -eq 2 ]
ok $? "a second store on the same filesystem is not blocked by the first"

"$UNTORN" info --wait 1 "$S" >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && grep -q "still in use by writer pid $bench_pid .*after waiting 1.000 s" "$scratch/err" &&
	[ ! -s "$scratch/out" ]
ok $? "info --wait 1 on a store held longer: exit 2 after the wait, holder named"
echo "# $(cat "$scratch/err")"
wait "$bench_pid"
expect_fail "put --wait with a bad value" "not a number" "$S" -- put "$S" 1 x --wait soon
expect_fail "get --wait beyond a day" "out of range" "$S" -- get "$S" 1 --wait 100000

ktap_finish
