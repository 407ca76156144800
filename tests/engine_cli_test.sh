#!/bin/bash
# SPDX-License-Identifier: MIT
#
# engine_cli_test.sh - the engine's commands as a user runs them: put/get/
# delete, txn, load, bench write --json (every key the benchmark promises),
# recover --json, automatic recovery announced by the next command, and
# bad input (absurd or negative sizes, a newer format version, a missing
# store) refused with exit 2, one line, and no file changed.
set -u

UNTORN=${UNTORN:-${UNTORN_TOP:-$(dirname "$0")/..}/build/untorn}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-engine-cli-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 52

S=$scratch/s
"$UNTORN" init "$S" >/dev/null
"$UNTORN" put "$S" 42 hello && [ "$("$UNTORN" get "$S" 42)" = hello ]
ok $? "put then get returns the value"
"$UNTORN" put "$S" 42 "hello again" && [ "$("$UNTORN" get "$S" 42)" = "hello again" ]
ok $? "put on an existing key updates it"
"$UNTORN" delete "$S" 42 && { "$UNTORN" get "$S" 42 2>/dev/null; [ $? -eq 1 ]; }
ok $? "delete, then get exits 1 (not found)"
"$UNTORN" put "$S" 43 -x --wait 5 && [ "$("$UNTORN" get --wait=5 "$S" 43)" = -x ] &&
	"$UNTORN" put "$S" 44 -- --wait && [ "$("$UNTORN" get "$S" 44)" = --wait ] &&
	"$UNTORN" delete "$S" 43 && "$UNTORN" delete "$S" 44
ok $? "a value may start with '-' (and be --wait after --); --wait goes anywhere"

# untorn txn: the lines of stdin as one transaction
printf 'put 50 fifty\nput 51 fifty one\n# a comment\n\nput 50 fifty again\n' |
	"$UNTORN" txn "$S" >"$scratch/txn.out" &&
	[ "$("$UNTORN" get "$S" 50)" = "fifty again" ] && [ "$("$UNTORN" get "$S" 51)" = "fifty one" ] &&
	grep -q '^committed: 3 writes$' "$scratch/txn.out" &&
	printf 'delete 51\nput 52 x\n' | "$UNTORN" txn "$S" --json | grep -q '"committed": *true' &&
	{ "$UNTORN" get "$S" 51 >/dev/null 2>&1; [ $? -eq 1 ]; } && [ "$("$UNTORN" get "$S" 52)" = x ]
ok $? "txn: put and delete lines from stdin committed as one, a key written twice keeps its last write"
printf 'put 53 y\ndelete 50\n' | "$UNTORN" txn "$S" --abort >/dev/null &&
	{ "$UNTORN" get "$S" 53 >/dev/null 2>&1; [ $? -eq 1 ]; } && [ "$("$UNTORN" get "$S" 50)" = "fifty again" ]
ok $? "txn --abort: every line read and checked, nothing applied"
cp "$S/untorn.dat" "$scratch/before.dat"
bad=0
for input in 'put 54 a\nput 55\n' 'put 54 a\nupdate 55 b\n' 'put 54 a\nput -1 b\n' 'put 54 a\ndelete 55 56\n'; do
	printf "$input" | "$UNTORN" txn "$S" >/dev/null 2>"$scratch/txn.err"
	r=$?
	echo "# $(cat "$scratch/txn.err")"
	[ $r -eq 2 ] && [ "$(wc -l <"$scratch/txn.err")" -eq 1 ] && grep -q '^untorn: line 2: ' "$scratch/txn.err" || bad=1
done
printf 'put 54 a\ndelete 999999\n' | "$UNTORN" txn "$S" >/dev/null 2>"$scratch/txn.err"
r=$?
echo "# $(cat "$scratch/txn.err")"
[ $r -eq 1 ] && grep -q 'line 2: key 999999 not found' "$scratch/txn.err" || bad=1
{ "$UNTORN" get "$S" 54 >/dev/null 2>&1; [ $? -eq 1 ]; } || bad=1
cmp -s "$S/untorn.dat" "$scratch/before.dat" || bad=1
[ $bad -eq 0 ]
ok $? "txn: a malformed line (exit 2) or a missing key to delete (exit 1) is one line naming the line, and nothing is applied"
# larger than one commit can apply as one redo group (3 001 writes;
# about 1 100 fit one group on this store): through a commit file, whole
seq 100000 103000 | sed 's/.*/put & v/' | "$UNTORN" txn "$S" >"$scratch/txn.out" 2>"$scratch/txn.err"
r=$?
echo "# $(cat "$scratch/txn.out" "$scratch/txn.err")"
[ $r -eq 0 ] && grep -q '^committed: 3001 writes$' "$scratch/txn.out" &&
	[ "$("$UNTORN" get "$S" 100000 2>/dev/null)" = v ] && [ "$("$UNTORN" get "$S" 103000 2>/dev/null)" = v ] &&
	[ -z "$(find "$S" -maxdepth 1 -name 'untorn.txn.*')" ]
ok $? "txn: a transaction larger than one redo group (3 001 writes) commits whole through its commit file, none left"

"$UNTORN" load "$S" --rows 20000 --order random >"$scratch/out"
grep -q "loaded 20000 rows (random layout" "$scratch/out"
ok $? "load --rows 20000 --order random"
# the pages are written when load closes the store: they are counted
pages=$(sed -n 's/.*, \([0-9]*\) pages written$/\1/p' "$scratch/out")
echo "# $(cat "$scratch/out")"
[ "${pages:-0}" -gt 0 ]
ok $? "load: the pages written are counted (${pages:-none}), not 0"
# on a terminal (script(1) gives it one) load draws its progress line on
# stderr and erases it; in a pipe, nothing
script -qec "'$UNTORN' load '$S' --rows 3000 --start 40000" /dev/null >"$scratch/tty.out" 2>&1
"$UNTORN" load "$S" --rows 3000 --start 50000 >/dev/null 2>"$scratch/pipe.err"
grep -aq 'of 3000 rows (.*%), .*/s, .* left' "$scratch/tty.out" && grep -aq 'loaded 3000 rows' "$scratch/tty.out" &&
	[ ! -s "$scratch/pipe.err" ]
ok $? "load on a terminal: rows, rate and time left on stderr; in a pipe: nothing"
"$UNTORN" load "$S" --rows 5000 --start 100000 --order sequential --commit sync >/dev/null &&
	"$UNTORN" check "$S" >/dev/null
ok $? "sequential load with sync commits; check clean"
"$UNTORN" init "$scratch/split" >/dev/null &&
	"$UNTORN" load "$scratch/split" --rows 20000 --layout split >"$scratch/out" &&
	grep -q "loaded 20000 rows (split layout" "$scratch/out" &&
	"$UNTORN" verify "$scratch/split" | grep -q ": 20000 rows, 0 out of order; 20000 values .* checked: 0 damaged" &&
	"$UNTORN" bench scan "$scratch/split" --json | python3 -c '
import json, sys
t = json.load(sys.stdin)["tree"]
assert t["leaves"] > 0 and 0 < t["fragmentation"] < 1, t'
ok $? "load --layout split: 20000 rows verify, bench scan reports a fragmented tree"
# a pause of 50 ms between the windows: the scan of 20 000 rows
# otherwise ends within ~20 ms, before a writer on a busy machine commits
"$UNTORN" bench scan "$scratch/split" --cold --lra-size 1M --lra-sleep 50 --device-iops 200 \
	--device-mbps 100 --writers 2 --json >"$scratch/scanw.json" &&
	"$UNTORN" verify "$scratch/split" | grep -q " 0 out of order; [0-9]* values .* checked: 0 damaged" &&
	python3 - "$scratch/scanw.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# 1 MiB of 16 KiB leaves: a window of 64, read in one sweep
assert d["window_pages"] == 64 and d["batch"] == 64 and d["lra_size"] == 1 << 20, d
assert d["lra_sleep_ms"] == 50 and d["rows"] >= 20000, d
b = d["bound"]
# merged as the bound does: holes shorter than a positioning read through
assert d["gap_pages"] == int(b["position_ms"] / b["page_ms"]) == 29 and d["merge_pages"] == 1024, d
assert b["device_iops"] == 200 and b["device_mbps"] == 100 and b["seconds"] > 0, b
# a page at 100 MB/s, and the rest of a 5 ms random read positioning
assert abs(b["page_ms"] - 0.16384) < 1e-6 and abs(b["position_ms"] - (5 - 0.16384)) < 1e-6, b
assert b["runs"] >= b["windows"] >= d["tree"]["leaves"] // 64, b
assert abs(d["fraction_of_bound"] / (b["seconds"] / d["seconds"]) - 1) < 1e-3, d
w = d["writers"]
assert w["threads"] == 2 and w["transactions"] > 0 and w["tps"] > 0, w
PY
ok $? "bench scan --lra-size --lra-sleep --device-iops/mbps --writers: window, bound, writers' TPS; the store verifies"
"$UNTORN" bench scan "$scratch/split" --lra-size 1M --device-iops 200 --device-mbps 100 --gap-pages 3 \
	--merge-pages 32 --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["gap_pages"] == 3 and d["merge_pages"] == 32 and d["fraction_of_bound"] > 0, d'
ok $? "bench scan --gap-pages/--merge-pages given: kept, not fitted to the device"
sum0=$(cat "$scratch/split"/* | md5sum)
fails=0
for args in "--lra-size 200M" "--lra-size 9M --pool 16M" "--lra-size 1M --readahead linear" \
	"--lra-sleep 5 --readahead none" "--lra-size 1M --batch 8" "--device-iops 100" "--writers 65" \
	"--lra-size 8K"; do
	"$UNTORN" bench scan "$scratch/split" $args >/dev/null 2>"$scratch/err"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$scratch/err")" -ne 1 ]; then
		echo "# bench scan $args: exit $rc, $(cat "$scratch/err")"
		fails=1
	fi
done
"$UNTORN" bench scan "$scratch/split" --lra-size 200M 2>&1 |
	grep -q "larger than the 128M (default) buffer pool.*give --pool 400M or more" &&
	[ $fails -eq 0 ] && [ "$(cat "$scratch/split"/* | md5sum)" = "$sum0" ]
ok $? "bench scan refuses a window beyond the pool, window options without logical read-ahead, half a device: one line, exit 2, store unchanged"
"$UNTORN" load "$scratch/split" --rows 10 --layout zigzag >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "layout is sequential, random or split, not 'zigzag'" "$scratch/err"
ok $? "load --layout zigzag: refused in one line, exit 2"

"$UNTORN" bench write "$S" --threads 2 --seconds 1 --json >"$scratch/bench.json"
python3 - "$scratch/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("tps", "commit_p50_us", "commit_p95_us", "commit_p99_us", "pages_written",
          "device_bytes_written", "fsyncs", "copy_slot_wait_ns", "guard", "page_size"):
    assert k in d, k
assert d["guard"] == "doublewrite" and d["page_size"] == 16384
# the guard's statistics by role; their old names beside them, this
# release only (docs/commands.md)
for new, old in (("copy_bytes_written", "dblwr_bytes_written"), ("copy_slot_waits", "dblwr_waits"),
                 ("copy_slot_wait_ns", "dblwr_wait_ns"), ("page_journal_commits", "journal_commits")):
    assert d[new] == d[old], (new, old)
assert d["latch_waits"]["copy_slot"] == d["latch_waits"]["dblwr"]
assert d["tps"] > 0 and d["commits"] > 0 and d["fsyncs"] > 0
assert d["commit_p50_us"] <= d["commit_p95_us"] <= d["commit_p99_us"]
PY
ok $? "bench write --json has tps, commit p50/p95/p99, pages, device bytes, fsyncs, copy slot wait, guard, page size; the old dblwr_* and journal_commits keys equal the new"
"$UNTORN" bench write "$S" --threads 2 --seconds 3 --warmup 2 --json >"$scratch/settle.json" &&
	python3 - "$scratch/settle.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w, m = d["warmup_tps_series"], d["tps_series"]
assert len(w) == 2 and len(m) == 3 and all(c > 0 for c in w), d
med = d["tps_median_second"]
low = [c * 2 < med for c in w + m]
settle = max([i + 1 for i, l in enumerate(low) if l], default=0)
assert d["settle_seconds"] == settle, (d["settle_seconds"], settle)
assert d["settled"] == (settle < len(low)), d
run = best = 0
for l in low[len(w):]:
    run = run + 1 if l else 0
    best = max(best, run)
assert d["longest_below_half_seconds"] == best, d
assert d["seconds_below_quarter_median"] == sum(c * 4 < med for c in m), d
PY
ok $? "bench write --warmup 2 --json: the warm-up's seconds, the time to settle and the slow stretches as defined"
"$UNTORN" bench write "$S" --threads 2 --seconds 1 --txn-writes 4 --json --ack-fd 3 \
	>"$scratch/txn.json" 3>"$scratch/txn.acks" &&
	"$UNTORN" verify "$S" --acks "$scratch/txn.acks" >/dev/null &&
	python3 - "$scratch/txn.json" "$scratch/txn.acks" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
acks = sum(1 for _ in open(sys.argv[2]))
assert d["txn_writes"] == 4 and d["commits"] > 0, d
assert abs(d["row_writes_per_second"] - 4 * d["tps"]) < 1e-6 * d["tps"] + 1e-9, d
# every committed transaction acknowledged its four writes, and no more
assert acks % 4 == 0 and acks >= 4 * d["commits"], (acks, d["commits"])
PY
ok $? "bench write --txn-writes 4: four acknowledged writes a commit, all there (verify --acks)"
"$UNTORN" check "$S" >/dev/null
ok $? "check clean after the benchmark"
"$UNTORN" init "$scratch/fc" --log-size 8M >/dev/null &&
	"$UNTORN" load "$scratch/fc" --rows 20000 >/dev/null || echo "# cannot make the 8M-log store"
for mode in "" age; do
	"$UNTORN" bench write "$scratch/fc" ${mode:+--pacing $mode} --threads 2 --seconds 2 \
		--commit lazy --update-pct 100 --txn-writes 4 --rows 20000 --json --ack-fd 3 \
		>"$scratch/fc.json" 3>"$scratch/fc.acks" &&
		"$UNTORN" verify "$scratch/fc" --acks "$scratch/fc.acks" >/dev/null &&
		"$UNTORN" check "$scratch/fc" >/dev/null &&
		python3 - "$scratch/fc.json" "$scratch/fc.acks" "${mode:-forecast}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
acks = sum(1 for _ in open(sys.argv[2]))
assert d["pacing"] is True and d["pacing_mode"] == sys.argv[3], d
assert d["commits"] > 0 and acks >= 4 * d["commits"], (acks, d["commits"])
PY
	ok $? "bench write ${mode:+--pacing $mode }on an 8M log: pacing ${mode:-forecast}, every acknowledged write there (verify --acks), check clean"
done

"$UNTORN" recover --json "$S" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["recovered"] is False and d["copy_pages_restored"] == d["dblwr_restored"] == 0
assert d["copy_pages_checked"] == d["dblwr_checked"]'
ok $? "recover --json on a cleanly shut down store: nothing to do"

UNTORN_INJECT=torn-page-write:2 "$UNTORN" put "$S" 7 torn >/dev/null 2>&1
[ $? -eq 137 ]
ok $? "a put whose page write is torn after 2 blocks dies (injected)"
"$UNTORN" get "$S" 7 >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 0 ] && grep -q torn "$scratch/out" && grep -q "recovered automatically" "$scratch/err" &&
	grep -q "1 pages restored from the doublewrite buffer" "$scratch/err"
ok $? "the next command recovers automatically and says so"
echo "# $(cat "$scratch/err")"

# untorn bench --help: every benchmark there is, each one's --help its own
"$UNTORN" bench --help >"$scratch/bench.help" 2>&1 &&
	grep -q '^usage: untorn bench write DIR' "$scratch/bench.help" &&
	grep -q '^       untorn bench scan DIR' "$scratch/bench.help" &&
	"$UNTORN" bench write --help | grep -q '^usage: untorn bench write' &&
	"$UNTORN" bench scan --help | grep -q '^usage: untorn bench scan'
ok $? "bench --help names every benchmark (write, scan)"

# a key is refused as a key (not as a count), whatever the command
expect_fail "get: a KEY that is not a number" "KEY takes a whole number from 0 to 18446744073709551615, not 'abc'" "$S" -- get "$S" abc
expect_fail "put: a KEY with a unit" "KEY takes a whole number from 0 to 18446744073709551615, not '1x'" "$S" -- put "$S" 1x v
expect_fail "delete: a KEY beyond 2^64" "KEY takes a whole number from 0 to 18446744073709551615" "$S" -- delete "$S" 99999999999999999999
expect_fail "load: --start that is not a key" "\-\-start takes a whole number from 0 to" "$S" -- load "$S" --rows 1 --start x

# load --from a file that is not a dump: refused before the store is
# opened for writing, its files not even touched (mtime kept)
printf 'this is not a dump\n' >"$scratch/garbage"
touch -d '2020-01-02 03:04:05' "$S"/untorn.*
before=$(stat -c '%n %Y %s' "$S"/untorn.*)
expect_fail "load --from a file that is not a dump: one line, nothing loaded" "not a line of untorn dump" "$S" -- load "$S" --from "$scratch/garbage"
: >"$scratch/empty.tsv"
"$UNTORN" load "$S" --from "$scratch/empty.tsv" >"$scratch/out" 2>&1
rc=$?
echo "# $(cat "$scratch/out")"
[ "$(stat -c '%n %Y %s' "$S"/untorn.*)" = "$before" ] && [ $rc -eq 0 ] &&
	[ "$(cat "$scratch/out")" = "loaded 0 rows from $scratch/empty.tsv: it holds none, the store is unchanged" ]
ok $? "load --from a file that is not a dump, or an empty one, leaves the store's files untouched (mtime too)"

# Ctrl-C during load: it stops at the next row, closes the store cleanly,
# says how many rows are in (committed and durable), exits 130; the
# rows it names are there.  A terminal (script) shows when it has begun.
"$UNTORN" init "$scratch/int" >/dev/null
script -qec "echo \$\$ >'$scratch/int.pid'; exec '$UNTORN' load '$scratch/int' --rows 1000000 --layout sequential --commit sync" \
	/dev/null >"$scratch/int.out" 2>&1 &
spid=$!
for _ in $(seq 300); do
	grep -aq '[1-9][0-9]* of 1000000 rows' "$scratch/int.out" && break
	sleep 0.1
done
kill -INT "$(cat "$scratch/int.pid")"
wait $spid
rc=$?
# (the line follows the progress line's erase, ESC [K, on the terminal)
line=$(grep -ao 'untorn load: interrupted after [0-9]* of 1000000 rows: those [0-9]* are committed and durable, the store closed cleanly' "$scratch/int.out")
n=$(sed -n 's/.* after \([0-9]*\) of 1000000 rows: those \1 are .*/\1/p' <<<"$line")
echo "# exit $rc: ${line:-no line: $(tail -c 300 "$scratch/int.out" | tr -d '\033')}"
[ $rc -eq 130 ] && [ "${n:-0}" -gt 0 ] &&
	"$UNTORN" verify "$scratch/int" | grep -q ": $n rows, 0 out of order; $n values .* checked: 0 damaged" &&
	"$UNTORN" get "$scratch/int" $((n - 1)) >/dev/null &&
	{ "$UNTORN" get "$scratch/int" "$n" >/dev/null 2>&1; [ $? -eq 1 ]; } &&
	"$UNTORN" check "$scratch/int" >/dev/null
ok $? "Ctrl-C during load: one line with the rows committed and durable (${n:-none}), exit 130; verify, get and check find exactly those"

expect_fail "load: negative row count" "not a number" "$S" -- load "$S" --rows -5
expect_fail "load: zero rows" "out of range" "$S" -- load "$S" --rows 0
expect_fail "load: absurd value size" "out of range" "$S" -- load "$S" --rows 10 --value-size 10000000
expect_fail "load: value larger than 1/8 page" "exceeds" "$S" -- load "$S" --rows 10 --value-size 5000
expect_fail "bench: zero threads" "out of range" "$S" -- bench write "$S" --threads 0
expect_fail "bench: more writes a transaction than 2^24" "out of range" "$S" -- bench write "$S" --txn-writes 16777217
expect_fail "bench: --pacing neither forecast, on, age nor off" "forecast (or on), age or off" "$S" -- bench write "$S" --pacing maybe
expect_fail "bench: negative seconds" "not a number" "$S" -- bench write "$S" --seconds -1
expect_fail "load: a count is not a size (--rows 3k)" "digits only" "$S" -- load "$S" --rows 3k
expect_fail "bench: a count is not a size (--threads 2k)" "digits only" "$S" -- bench write "$S" --threads 2k
expect_fail "put: a negative KEY" "KEY takes a whole number" "$S" -- put "$S" -1 v
expect_fail "put: an unknown option after the VALUE" "unknown option '--bogus'" "$S" -- put "$S" 1 x --bogus
expect_fail "bench: missing store" "no such directory" "$scratch/nope" -- bench write "$scratch/nope"

cp -a "$S" "$scratch/v2"
python3 - "$scratch/v2/untorn.dat" <<'PY'
import struct, sys
def crc32c(data, crc=0):
    crc ^= 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1))
    return crc ^ 0xffffffff
with open(sys.argv[1], "r+b") as f:
    sec = bytearray(f.read(512))
    struct.pack_into("<I", sec, 8, 3)                 # format version 3
    struct.pack_into("<I", sec, 12, crc32c(bytes(sec[:12] + sec[16:])))
    f.seek(0)
    f.write(sec)
PY
expect_fail "load on a store of a newer format version" "format version 3" "$scratch/v2" -- load "$scratch/v2" --rows 10

cp "$scratch/s/untorn.redo" "$scratch/redo.keep"
"$UNTORN" init "$scratch/other" >/dev/null
cp "$scratch/other/untorn.redo" "$scratch/s/untorn.redo"
expect_fail "bench on a store whose redo log is another store's" "belongs to another store" "$S" -- bench write "$S" --seconds 1
cp "$scratch/redo.keep" "$scratch/s/untorn.redo"

# --ack-dev: one record per acknowledged commit, each in a block of its own
truncate -s 64M "$scratch/acks.dev"
"$UNTORN" bench write "$S" --seconds 1 --threads 2 --json --ack-dev "$scratch/acks.dev" >"$scratch/ackdev.json" 2>"$scratch/ackdev.err"
commits=$(sed -n 's/^  "commits": \([0-9]*\),$/\1/p' "$scratch/ackdev.json")
tr -d '\0' <"$scratch/acks.dev" >"$scratch/acks.txt"
records=$(wc -l <"$scratch/acks.txt")
blocks=$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(sum(1 for i in range(0, len(d), 4096) if d[i]))' "$scratch/acks.dev")
"$UNTORN" verify "$S" --acks "$scratch/acks.txt" --json >"$scratch/ackdev.verify" 2>&1
[ "${commits:-0}" -gt 0 ] && [ "$records" -eq "$commits" ] && [ "$blocks" -eq "$commits" ] &&
	grep -q '"lost": 0,' "$scratch/ackdev.verify" && grep -q '"stale": 0,' "$scratch/ackdev.verify"
ok $? "bench --ack-dev: a record per commit, each in its own 4 KiB block ($records records, $blocks blocks, $commits commits), verify finds all"

truncate -s 64K "$scratch/small.dev"
"$UNTORN" bench write "$S" --seconds 1 --threads 2 --ack-dev "$scratch/small.dev" >/dev/null 2>"$scratch/small.err"
r=$?
[ $r -eq 0 ] && [ "$(tr -d '\0' <"$scratch/small.dev" | wc -l)" -eq 16 ] &&
	[ "$(grep -c 'is full after 16 acknowledgements' "$scratch/small.err")" -eq 1 ]
ok $? "bench --ack-dev on a full device: 16 records, said once, the run goes on (exit $r)"
expect_fail "bench --ack-dev on a character device" "neither a block device nor a regular file" "$S" -- bench write "$S" --seconds 1 --ack-dev /dev/null

ktap_finish
