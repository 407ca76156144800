#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# measure_report.py - doublewrite-cost's result and report (untorn-fscheck
# --measure): from the verdict and bench-matrix's runs of doublewrite,
# none and the copyless guard, the ratios (none over doublewrite, the
# guard over none), the one sentence and the table.
#
# USAGE: measure_report.py result VERDICT-JSON OUT GUARD ENGINE PATH ROWS
#                                 WARMUP MEASURED
#        measure_report.py report RESULT-JSON [--json]
#   result  one JSON object on stdout from the verdict (untorn-fscheck
#           --json) and OUT/target-GUARD-t8.json (GUARD "-": no copyless
#           guard is safe here); exit 2 when doublewrite or none did not
#           run
#   report  the table and the sentence (or the object, --json), exit 0
#           (the caller reads "safe" for its status)
import json
import os
import sys

THREADS = 8


def buy_phrase(gain):
    """What none buys over doublewrite, from their ratio."""
    if gain >= 1.005:
        return "would buy %.0f %%" % ((gain - 1) * 100)
    return "would buy nothing measurable (none at %.2fx of doublewrite)" % gain


def sentence(verdict, guard, runs):
    """The one sentence: what none buys, whether turning the doublewrite
    off is safe for InnoDB/MariaDB, and untorn's copyless guard."""
    dw, none = runs["doublewrite"], runs["none"]
    inno = verdict["innodb_doublewrite_off"]
    s = "turning the doublewrite off here %s (measured: none %.0f against doublewrite %.0f transactions/s), " \
        "and for InnoDB/MariaDB it is %s because %s" % (buy_phrase(none["tps"] / dw["tps"]), none["tps"], dw["tps"],
                                                      "SAFE" if inno["safe"] else "UNSAFE", inno["reason"])
    if guard in runs:
        s += "; untorn's %s guard is SAFE here and runs at %.2fx of none" % (guard, runs[guard]["tps"] / none["tps"])
    elif guard:
        s += "; untorn's %s guard is safe here but did not run" % guard
    else:
        s += "; no untorn guard without a second copy is safe here"
    return s + "."


def build(verdict, runs, guard, engine, path, rows, warmup, measured):
    """The result object from the verdict and the runs ({guard: run});
    None when doublewrite or none did not run."""
    dw, none = runs.get("doublewrite"), runs.get("none")
    if not dw or not none:
        return None
    inno = verdict["innodb_doublewrite_off"]
    return {"path": path, "verdict": verdict, "engine": engine,
            "rows": int(rows), "warmup_s": int(warmup), "seconds": int(measured), "threads": THREADS,
            "regime": "flush", "target": dw.get("target"), "calibration": dw.get("calibration"),
            "runs": [{"guard": g, "tps": r["tps"], "commit_p99_us": r.get("commit_p99_us"),
                      "worst_over_median": r.get("worst_over_median"), "pages_written": r.get("pages_written"),
                      "log_space_wait_ns": r.get("log_space_wait_ns")} for g, r in runs.items()],
            "none_over_doublewrite": round(none["tps"] / dw["tps"], 3), "guard": guard or None,
            "guard_over_none": round(runs[guard]["tps"] / none["tps"], 3) if guard in runs else None,
            "safe": inno["safe"] if engine == "innodb" else bool(guard),
            "sentence": sentence(verdict, guard, runs)}


def table(res):
    """The report's lines: the target, a row a guard, the sentence."""
    c, t = res.get("calibration") or {}, res.get("target") or {}
    runs = {r["guard"]: r for r in res["runs"]}
    dw, none = runs["doublewrite"]["tps"], runs["none"]["tps"]
    lines = ["  target: %s (%s), %s %s; fio: %s random 16 KiB writes/s, fdatasync %s ms" % (
        t.get("device", "?"), t.get("model", "?"), t.get("fstype", "?"), t.get("mount_options", ""),
        c.get("randwrite_16k_iops", "?"), c.get("fdatasync_ms", "?")),
        "", "%-12s %10s %13s %8s %12s" % ("guard", "tps", "/doublewrite", "/none", "worst second")]
    for g, r in runs.items():
        lines.append("%-12s %10.0f %12.2fx %7.2fx %12.2f" % (g, r["tps"], r["tps"] / dw, r["tps"] / none,
                                                          r.get("worst_over_median") or 0))
    return lines + ["", res["sentence"]]


def main(argv):
    if len(argv) == 9 and argv[0] == "result":
        vf, out, guard, engine, path, rows, warmup, measured = argv[1:]
        guard = "" if guard == "-" else guard
        verdict = json.load(open(vf))
        runs = {}
        for g in ("doublewrite", "none", guard):
            f = os.path.join(out, "target-%s-t%d.json" % (g, THREADS))
            if g and os.path.exists(f):
                runs[g] = json.load(open(f))
        res = build(verdict, runs, guard, engine, path, rows, warmup, measured)
        if res is None:
            print("doublewrite-cost: doublewrite or none did not run (bench-matrix's output: %s/bench.log)" % out,
                  file=sys.stderr)
            return 2
        print(json.dumps(res, indent=1))
        return 0
    if len(argv) in (2, 3) and argv[0] == "report":
        res = json.load(open(argv[1]))
        if argv[2:] == ["--json"]:
            print(json.dumps(res, indent=1))
        else:
            print("\n".join(table(res)))
        return 0
    print("usage: measure_report.py result VERDICT OUT GUARD ENGINE PATH ROWS WARMUP MEASURED\n"
          "       measure_report.py report RESULT [--json]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
