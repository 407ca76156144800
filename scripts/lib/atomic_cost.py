#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# atomic_cost.py - dev/atomic-cost's runs and report: what an atomic
# write (RWF_ATOMIC) costs against a plain one, untorn-randwrite run
# plain and atomic in turns, round after round, at each queue depth.
# `add`: a run's JSON, with its round, appended to the list (JSON lines)
# and its rate printed for the progress line.  `report`: per queue depth
# the medians over the rounds of both modes' writes/s and p99, and of
# atomic over plain taken within a round, with its [min-max]; the table
# and OUT (every run beside the rows).
#
# USAGE: atomic_cost.py add RUN-JSON ROUND RUNS-JSONL
#        atomic_cost.py report RUNS-JSONL OUT WHERE
import json
import statistics
import sys


def add(run, rnd, runs):
    """run (a file) with its round appended to runs (JSON lines); its
    rate, "N writes/s"."""
    j = json.load(open(run))
    j["round"] = rnd
    open(runs, "a").write(json.dumps(j) + "\n")
    return "%.0f writes/s" % j["iops"]


def rows_of(runs):
    """A row per queue depth: both modes' medians over the rounds, and
    atomic over plain (median, min, max) taken within each round."""
    rows = []
    for qd in sorted({r["qd"] for r in runs}):
        ratios, plain, atomic = [], [], []
        for rnd in sorted({r["round"] for r in runs}):
            p = [r for r in runs if r["qd"] == qd and r["round"] == rnd and not r["atomic"]][0]
            a = [r for r in runs if r["qd"] == qd and r["round"] == rnd and r["atomic"]][0]
            plain.append(p)
            atomic.append(a)
            ratios.append(a["iops"] / p["iops"])

        def med(xs, k):
            return statistics.median(x[k] for x in xs)
        rows.append({"qd": qd, "plain_iops": med(plain, "iops"), "atomic_iops": med(atomic, "iops"),
                     "plain_p99_us": med(plain, "p99_us"), "atomic_p99_us": med(atomic, "p99_us"),
                     "atomic_over_plain": statistics.median(ratios),
                     "min": min(ratios), "max": max(ratios)})
    return rows


def table(rows):
    lines = ["%4s %12s %12s %10s %10s  %s" % ("qd", "plain w/s", "atomic w/s", "plain p99", "atomic p99", "atomic / plain")]
    for r in rows:
        lines.append("%4d %12.0f %12.0f %8.0fus %8.0fus  %.2f [%.2f-%.2f]" % (
            r["qd"], r["plain_iops"], r["atomic_iops"], r["plain_p99_us"], r["atomic_p99_us"],
            r["atomic_over_plain"], r["min"], r["max"]))
    return lines


def report(runs_file, out, where):
    runs = [json.loads(l) for l in open(runs_file)]
    rows = rows_of(runs)
    json.dump({"where": where, "units": [runs[0]["atomic_unit_min"], runs[-1]["atomic_unit_max"]],
               "rows": rows, "runs": runs}, open(out, "w"), indent=1)
    print("\n".join(table(rows)))
    print("\nwrote %s" % out)
    return 0


def main(argv):
    if argv[:1] == ["add"] and len(argv) == 4:
        print(add(argv[1], int(argv[2]), argv[3]))
        return 0
    if argv[:1] == ["report"] and len(argv) == 4:
        return report(*argv[1:])
    print("usage: atomic_cost.py add RUN-JSON ROUND RUNS-JSONL | report RUNS-JSONL OUT WHERE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
