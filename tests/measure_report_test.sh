#!/bin/bash
# SPDX-License-Identifier: MIT
#
# measure_report_test.sh - the report of untorn-fscheck --measure
# (scripts/lib/measure_report.py) as a unit, on made-up rounds, no root
# and no disk: a ratio whose interval over the rounds spans 1.0 is said
# to be one the rounds "cannot tell them apart here (within ±N %)", N
# from the interval; none slower than doublewrite in every round is a
# cost with its size, never "nothing"; faster in every round, a gain
# with its size; the result's JSON holds for each ratio an object with
# its median, low, high and every round's value (the old scalar keys
# beside them, equal to the medians); an older result (one run a guard)
# prints through doublewrite-cost --report-only as one round: no
# spread, its status the verdict's.  The redo lever (doublewrite with 4x
# the server's redo log) is told the same way, and weighed against
# turning the doublewrite off by its ratio to none.  dev/measure-repeat
# counts the pairs of results whose intervals overlap.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-measure-report-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 9
export PYTHONPATH=$top/scripts/lib PYTHONDONTWRITEBYTECODE=1

# unit CODE: the module's functions as M, a verdict as V; prints its own
# "# " lines, fails on an assertion
unit() {
	python3 -c "import measure_report as M
V = {'innodb_doublewrite_off': {'safe': False, 'reason': 'ext4 overwrites 16384-byte pages in place'}}
def say(*a):
    for x in a:
        print('# ' + x)
$1" 2>&1 | sed 's/^\([^#]\)/# \1/'
	return "${PIPESTATUS[0]}"
}

unit '
iv = M.interval([1.10, 0.89, 0.98])
assert (iv["median"], iv["low"], iv["high"], iv["rounds"]) == (0.98, 0.89, 1.10, [1.10, 0.89, 0.98]), iv
assert M.told(iv) == "cannot tell" and M.within_pct(iv) == 11, (M.told(iv), M.within_pct(iv))
s = M.sentence(V, "sector", iv, M.interval([0.97, 1.02, 1.04]), 76000, 77600, True)
say(s)
assert "cannot tell them apart here (within \u00b111 %" in s, s
assert "within \u00b14 %" in s and "would buy" not in s and "would cost" not in s and "nothing" not in s, s
assert s.startswith("turning the doublewrite off here: none against doublewrite, 3 rounds")
# an end of the interval on 1.0 still spans it
assert M.told(M.interval([1.0, 1.05, 1.08])) == "cannot tell"
'
ok $? "an interval spanning 1.0: 'cannot tell them apart here (within ±N %)', N from the interval (0.89-1.10: ±11 %), no gain or cost called"

unit '
iv = M.interval([0.89, 0.85, 0.93])
s = M.sentence(V, "", iv, None, 69000, 77693, False)
say(s)
assert M.told(iv) == "slower"
assert s.startswith("turning the doublewrite off here would cost 11 % (7-15 %): none was slower than doublewrite in every one of 3 rounds"), s
assert "nothing" not in s and "would buy" not in s, s
assert "no untorn guard without a second copy is safe here" in s
'
ok $? "none slower than doublewrite in every round: a cost, its size and range (11 %, 7-15 %), never 'nothing'"

unit '
iv = M.interval([1.10, 1.04, 1.15, 1.12, 1.08])
s = M.sentence(V, "sector", iv, M.interval([0.90, 0.85, 0.998, 0.92, 0.91]), 85433, 77693, True)
say(s)
assert M.told(iv) == "faster"
assert s.startswith("turning the doublewrite off here would buy 10 % (4-15 %): none was faster than doublewrite in every one of 5 rounds"), s
assert "for InnoDB/MariaDB it is UNSAFE because ext4 overwrites 16384-byte pages in place" in s, s
# a bound below 1.0 that two decimals would show as 1.00 reads 0.998
assert "untorn\x27s sector guard is SAFE here and runs at 0.91x of none, slower in every one of 5 rounds (0.85-0.998x)" in s, s
'
ok $? "none faster than doublewrite in every round: a gain, its size and range; the verdict's part and the guard's as before (a bound of 0.998 not shown as 1.00)"

unit '
rd = M.interval([1.30, 1.25, 1.41])
rn = M.interval([1.20, 1.31, 1.18])
s = M.redo_phrase(rd, rn, 100 << 20)
say(s)
assert s.startswith("a 4x redo log (400 MiB against 100 MiB) would buy 30 % (25-41 %) with the doublewrite on, in every one of 3 rounds"), s
assert "so the larger redo log buys more here than turning the doublewrite off (doublewrite with it at 1.20x of none, 1.18-1.31x)" in s, s
s = M.redo_phrase(M.interval([0.97, 1.02, 1.01]), M.interval([0.91, 0.88, 0.95]), 96 << 20)
say(s)
assert "with the doublewrite on: 3 rounds cannot tell it from the server\x27s here (within \u00b13 %" in s, s
assert "so turning the doublewrite off buys more here than the larger redo log" in s and "nothing" not in s, s
s = M.redo_phrase(M.interval([0.90, 0.93, 0.95]), M.interval([0.97, 1.04, 1.00]), 100 << 20)
say(s)
assert "would cost 7 % (5-10 %)" in s and "which of the two buys more the rounds cannot tell here" in s, s
'
ok $? "the redo lever: a 4x log's gain, no difference or cost told as none's is, and weighed against turning the doublewrite off by its ratio to none"

# made-up rounds as doublewrite-cost leaves them
python3 - "$scratch" <<'PY'
import json, os, sys
d = sys.argv[1]
json.dump({"fstype": "ext4", "innodb_doublewrite_off": {"safe": False, "reason": "ext4 overwrites pages in place"},
           "untorn_sector": {"safe": True}}, open(os.path.join(d, "verdict.json"), "w"))
tps = {"doublewrite": [77000, 80000, 76000], "none": [85000, 70000, 83000], "sector": [76000, 79000, 75000],
       "redo-4x/doublewrite": [90000, 95000, 88000]}
for k in range(3):
    os.makedirs(os.path.join(d, "out", "round-%d" % (k + 1), "redo-4x"))
    for g, t in tps.items():
        r = {"guard": g.split("/")[-1], "tps": t[k], "commit_p99_us": 900 + k, "worst_over_median": 0.8 - k / 10,
             "pages_written": 1000, "log_space_wait_ns": 0, "redo_log_bytes": (400 if "/" in g else 100) << 20}
        if k == 0:
            r["target"] = {"device": "/dev/loop9", "model": "made up", "fstype": "ext4", "mount_options": "rw"}
            r["calibration"] = {"randwrite_16k_iops": 8000, "fdatasync_ms": 0.2}
        sub, _, name = g.rpartition("/")
        json.dump(r, open(os.path.join(d, "out", "round-%d" % (k + 1), sub, "target-%s-t8.json" % name), "w"))
PY
python3 "$top/scripts/lib/measure_report.py" result "$scratch/verdict.json" "$scratch/out" sector innodb /srv/x \
	150000 5 14 3 $((100 << 20)) >"$scratch/res.json" 2>"$scratch/err"
rc=$?
sed 's/^/# stderr: /' "$scratch/err"
[ $rc -eq 0 ] && python3 - "$scratch/res.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
nd, gn = m["ratios"]["none_over_doublewrite"], m["ratios"]["guard_over_none"]
print("# none_over_doublewrite: %s" % json.dumps(nd))
want = [round(a / b, 3) for a, b in ((85000, 77000), (70000, 80000), (83000, 76000))]
assert nd["rounds"] == want, nd
assert (nd["median"], nd["low"], nd["high"]) == (sorted(want)[1], min(want), max(want)), nd
assert nd["told"] == "cannot tell" and nd["within_pct"] == 13, nd
assert gn["rounds"] == [round(a / b, 3) for a, b in ((76000, 85000), (79000, 70000), (75000, 83000))], gn
assert set(gn) >= {"median", "low", "high", "rounds"}
# the old scalar keys beside them, the medians
assert m["none_over_doublewrite"] == nd["median"] and m["guard_over_none"] == gn["median"], m
assert [r["round"] for r in m["rounds"]] == [1, 2, 3]
assert [r["guard"] for r in m["rounds"][1]["runs"]] == ["doublewrite", "none", "sector", "doublewrite@4x"]
assert [r["guard"] for r in m["runs"]] == ["doublewrite", "none", "sector", "doublewrite@4x"]
rd, rn = m["ratios"]["redo4x_over_doublewrite"], m["ratios"]["redo4x_over_none"]
assert rd["rounds"] == [round(a / b, 3) for a, b in ((90000, 77000), (95000, 80000), (88000, 76000))], rd
assert rn["rounds"] == [round(a / b, 3) for a, b in ((90000, 85000), (95000, 70000), (88000, 83000))], rn
assert rd["told"] == rn["told"] == "faster" and m["redo_capacity_bytes"] == 100 << 20, (rd, rn)
assert m["runs"][3]["redo_log_bytes"] == 400 << 20, m["runs"][3]
assert "a 4x redo log (400 MiB against 100 MiB) would buy 17 % (16-19 %)" in m["sentence"], m["sentence"]
assert "the larger redo log buys more here than turning the doublewrite off" in m["sentence"], m["sentence"]
assert m["runs"][1]["tps"] == 83000 and m["runs"][1]["tps_rounds"] == [85000, 70000, 83000], m["runs"][1]
assert m["runs"][0]["worst_over_median"] == 0.6 and m["calibration"]["randwrite_16k_iops"] == 8000
assert m["safe"] is False and m["guard"] == "sector"
assert "cannot tell them apart here (within \u00b113 %" in m["sentence"], m["sentence"]
PY
ok $? "result: per ratio an object (median, low, high, every round's value, taken within a round; the 4x redo log's over doublewrite and over none too), the old scalars equal to the medians, the rounds' runs"

# the table from it, and doublewrite-cost's status the verdict's
"$top/scripts/doublewrite-cost" --report-only "$scratch/res.json" >"$scratch/report" 2>&1
rc=$?
sed 's/^/# /' "$scratch/report"
[ $rc -eq 1 ] && grep -q '^  3 rounds of doublewrite, none, sector, doublewrite@4x, 5 s warm-up and 14 s measured a run' "$scratch/report" &&
	grep -q '^  redo log: 100 MiB a run (the server.s capacity), 400 MiB for doublewrite@4x' "$scratch/report" &&
	grep -Eq '^doublewrite@4x +90000 \[88000-95000\] +1\.17x \[1\.16-1\.19\] +1\.06x \[1\.06-1\.36\]' "$scratch/report" &&
	grep -Eq '^none +83000 \[70000-85000\] +1\.09x \[0\.88-1\.10\] +1\.00x' "$scratch/report" &&
	grep -q '^turning the doublewrite off here: none against doublewrite, 3 rounds cannot tell them apart here' "$scratch/report"
ok $? "doublewrite-cost --report-only: the rounds, each guard's median [min-max], the sentence; exit 1 (UNSAFE)"

# an older result: one run a guard, the scalar ratios, its own sentence
python3 - "$scratch/res.json" "$scratch/old.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
old = {k: m[k] for k in ("path", "verdict", "engine", "rows", "warmup_s", "seconds", "threads", "regime",
                         "target", "calibration", "guard", "safe")}
old["runs"] = [{"guard": g, "tps": t, "worst_over_median": 0.9} for g, t in
               (("doublewrite", 77693), ("none", 69000), ("sector", 68000))]
old.update(none_over_doublewrite=0.888, guard_over_none=0.986, engine="untorn", safe=True,
           sentence="turning the doublewrite off here would buy nothing measurable (none at 0.89x of doublewrite)")
json.dump(old, open(sys.argv[2], "w"))
PY
"$top/scripts/doublewrite-cost" --report-only "$scratch/old.json" >"$scratch/report" 2>&1
rc=$?
sed 's/^/# /' "$scratch/report"
[ $rc -eq 0 ] && ! grep -q Traceback "$scratch/report" && grep -q 'one round: no spread' "$scratch/report" &&
	grep -Eq '^none +69000 +0\.89x +1\.00x' "$scratch/report" && ! grep -q nothing "$scratch/report"
ok $? "an older result (one run a guard): the table and 'one round: no spread', no difference called, exit 0 (its verdict: untorn's, SAFE)"

# no round where doublewrite ran: no result, one line, exit 2
rm "$scratch"/out/round-*/target-doublewrite-t8.json
python3 "$top/scripts/lib/measure_report.py" result "$scratch/verdict.json" "$scratch/out" sector innodb /srv/x \
	150000 5 14 3 $((100 << 20)) >"$scratch/out.json" 2>"$scratch/err"
rc=$?
echo "# $(cat "$scratch/err")"
[ $rc -eq 2 ] && [ ! -s "$scratch/out.json" ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "did not run" "$scratch/err"
ok $? "doublewrite in no round: one line saying it did not run, exit 2, no result"

# dev/measure-repeat --from: pairs of results compared ratio by ratio
python3 - "$scratch" <<'PY'
import json, sys
d = sys.argv[1]
def res(name, nd, gn):
    json.dump({"ratios": {"none_over_doublewrite": {"median": sum(nd) / 2, "low": nd[0], "high": nd[1]},
                          "guard_over_none": {"median": sum(gn) / 2, "low": gn[0], "high": gn[1]},
                          "redo4x_over_doublewrite": None}}, open("%s/%s.json" % (d, name), "w"))
res("a1", (1.02, 1.15), (0.95, 1.03))
res("a2", (1.10, 1.20), (0.99, 1.01))   # overlaps a1 in both
res("b1", (1.02, 1.08), (0.95, 1.03))
res("b2", (1.09, 1.20), (0.96, 1.00))   # none/doublewrite apart from b1's
json.dump({"runs": []}, open("%s/bad.json" % d, "w"))
PY
"$top/dev/measure-repeat" --from "$scratch/a1.json" "$scratch/a2.json" >"$scratch/rep.ok" 2>&1
rc_ok=$?
"$top/dev/measure-repeat" --json --from "$scratch/a1.json" "$scratch/a2.json" "$scratch/b1.json" "$scratch/b2.json" >"$scratch/rep.json" 2>&1
rc_no=$?
"$top/dev/measure-repeat" --from "$scratch/a1.json" "$scratch/bad.json" >/dev/null 2>"$scratch/rep.err"
rc_bad=$?
"$top/dev/measure-repeat" --from "$scratch/a1.json" >/dev/null 2>"$scratch/rep.err1"
rc_odd=$?
sed 's/^/# /' "$scratch/rep.ok"
[ $rc_ok -eq 0 ] && grep -q '^1 of 1 pairs overlap' "$scratch/rep.ok" && [ $rc_no -eq 1 ] &&
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
p = r["pairs"]
assert (r["overlapping"], r["of"]) == (1, 2), r
assert [x["overlap"] for x in p[1]["ratios"]] == [True, False], p[1]   # guard_over_none, none_over_doublewrite
' "$scratch/rep.json" && [ $rc_bad -eq 2 ] && grep -q 'not an untorn-fscheck --measure result' "$scratch/rep.err" &&
	[ $rc_odd -eq 2 ] && grep -q 'even number' "$scratch/rep.err1"
ok $? "dev/measure-repeat --from: pairs whose intervals overlap in every ratio counted (exit 0), one apart (exit 1, the ratio named in JSON), a file that is no result or an odd count refused (exit 2)"

ktap_finish
