#!/bin/bash
# SPDX-License-Identifier: MIT
#
# demo_test.sh - `make demo`'s script (scripts/demo) in its plain
# directory mode, the one a user without root gets: a fragmented store,
# bench write with the doublewrite guard, a cold scan per read-ahead
# policy on each of the three layouts with the bound from fio's figures,
# all in demo.json with what was skipped and why; it refuses a directory
# it did not make.  (The root demo is `make demo`, run by hand: CI leaves
# it out for time, and tests the bench-matrix runs it is made of.)
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/var/tmp}/untorn-demo-test-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 8

"$top/scripts/demo" --plain --dir "$scratch/demo" --rows 20000 --seconds 1 >"$scratch/log" 2>&1
rc=$?
[ $rc -eq 0 ] || tail -5 "$scratch/log" | sed 's/^/# /'
python3 - "$scratch/demo/results/demo.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "plain", d["mode"]
assert sorted((s["layout"], s["policy"]) for s in d["scans"]) == sorted(
    (l, p) for l in ("sequential", "random", "split") for p in ("none", "linear", "logical"))
lg = [s for s in d["scans"] if s["policy"] == "logical"]
# a 2 MiB window of 16 KiB leaves, merged by fio's figures, the bound printed
assert all(s["window_pages"] == 128 and s["merge_pages"] == 1024 and 0 < s["fraction_of_bound"] for s in lg), lg
frag = {s["layout"]: s["tree"]["fragmentation"] for s in lg}
assert frag["sequential"] < 0.05 < frag["split"] < frag["random"], frag
assert all(s["rows"] == 20000 and s["cold"] for s in d["scans"]), [s["rows"] for s in d["scans"]]
assert [w["guard"] for w in d["writes"]] == ["doublewrite"] and d["writes"][0]["tps"] > 0
assert any("journal" in s for s in d["skipped"]) and any("HDD" in s for s in d["skipped"])
PY
py=$?
[ $rc -eq 0 ] && [ $py -eq 0 ]
ok $? "demo --plain: doublewrite bench write and cold scans of three layouts of 20000 rows, with the bound, in demo.json"

# what a plain directory skips: every guard but the one safe on every
# filesystem (the guard table's), "a, b and c"
ref="" others=""
for g in $("${UNTORN:-$top/build/untorn}" guards --list); do
	if [ -z "$ref" ] && [ "$("${UNTORN:-$top/build/untorn}" guards --get crash_fs "$g")" = "ext4-ordered ext4-journal xfs" ]; then
		ref=$g
	else
		others="$others$g "
	fi
done
others=$(printf '%s\n' $others | sed -z 's/\n$//; s/\n/, /g; s/, \([^,]*\)$/ and \1/')
grep -q '^device  *layout' "$scratch/log" && grep -q '^plain  *split ' "$scratch/log" &&
	grep -q "^skipped: $others guards" "$scratch/log" &&
	[ "$(grep -c '^\[ *[0-9]*s\]' "$scratch/log")" -ge 3 ]
ok $? "demo prints a progress line per step, the comparison tables and what it skipped"

# the write table says what its figures are: the regime, the threads,
# the length and the one run per guard
grep -q '^bench write, commit-bound (sync commit: every commit waits for its fdatasync), 4 threads, 1 s, one run per guard; ' "$scratch/log" &&
	grep -q '^one short run per guard, bound by commits, not page writes: ' "$scratch/log" &&
	grep -q 'so a gap under 20 % between guards here is$' "$scratch/log"
ok $? "the write table names its regime (commit-bound), threads, length and rounds, and what a gap in it is (noise)"
grep '^bench write, ' "$scratch/log" | sed 's/^/# /'

# the closing lines: this machine's own mounts, said not to be what was
# measured, then the verdict on the filesystem the benchmarks ran on,
# last; never "elsewhere" (which reads wrong when nothing is safe)
grep -Eq "^(this machine's own mounts, not what the demo measured|this machine: no ext4)" "$scratch/log" &&
	grep -q '^the filesystems the benchmarks above ran on, by untorn-fscheck' "$scratch/log" &&
	tail -n 1 "$scratch/log" | grep -Eq '^measured above: innodb_doublewrite=OFF is (not )?safe on plain [a-z0-9]* \(plain dir\)' &&
	! grep -q elsewhere "$scratch/log"
ok $? "demo ends with the verdict on the filesystem it measured, this machine's mounts labelled as not measured, no 'elsewhere'"
sed -n '/^this machine/p; $p' "$scratch/log" | sed 's/^/# /'

[ ! -e "$scratch/demo/work" ] && [ -d "$scratch/demo/results" ] &&
	{ ! python3 -c 'import matplotlib' 2>/dev/null || [ -s "$scratch/demo/results/demo-scan.png" ]; }
ok $? "demo removes its work directory and leaves results (and charts with matplotlib)"

# a second demo in the same directory while one runs (its lock held
# here): refused in one line, the first's results untouched
before=$(cd "$scratch/demo" && find results -type f | sort | xargs sha256sum)
exec 8>>"$scratch/demo/.untorn-demo.lock"
flock -n 8 && echo $$ >"$scratch/demo/.untorn-demo.pid"
"$top/scripts/demo" --plain --dir "$scratch/demo" --rows 20000 --seconds 1 >"$scratch/out" 2>"$scratch/err"
rc=$?
exec 8>&-
sed 's/^/# /' "$scratch/err"
[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "another demo (pid $$) is running" "$scratch/err" &&
	[ "$(cd "$scratch/demo" && find results -type f | sort | xargs sha256sum)" = "$before" ]
ok $? "a second demo in a directory where one runs: refused, one line naming the first, its results untouched"

# a step that fails late: what the steps before it measured is still
# reported (table, demo.json) with the failed step named, exit 1
cat >"$scratch/untorn-fails" <<EOF
#!/bin/bash
[ "\$1 \$2" = "bench write" ] && { echo "injected: bench write fails" >&2; exit 1; }
exec "$top/build/untorn" "\$@"
EOF
chmod +x "$scratch/untorn-fails"
UNTORN=$scratch/untorn-fails "$top/scripts/demo" --plain --dir "$scratch/late" --rows 20000 --seconds 1 \
	>"$scratch/out" 2>"$scratch/err"
rc=$?
tail -3 "$scratch/err" | sed 's/^/# /'
python3 - "$scratch/late/results/demo.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["scans"]) == 9 and not d["writes"], (len(d["scans"]), d["writes"])
assert "bench write doublewrite on plain" in d["failed"] and "injected" in d["failed"], d["failed"]
PY
py=$?
[ $rc -eq 1 ] && [ $py -eq 0 ] && grep -q '^plain  *split ' "$scratch/out" &&
	grep -q "stopped at step .*bench write doublewrite on plain" "$scratch/err"
ok $? "a failed last step: the scans measured before it in the table and demo.json, the step and its error named, exit 1"

mkdir -p "$scratch/mine" && echo keep > "$scratch/mine/data"
"$top/scripts/demo" --plain --dir "$scratch/mine" >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q 'UNTORN_DEMO_DIR' "$scratch/err" &&
	[ "$(ls -A "$scratch/mine")" = data ]
ok $? "demo refuses a non-empty directory it did not make: one line, exit 2, untouched"

ktap_finish
