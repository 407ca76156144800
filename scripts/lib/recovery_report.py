#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# recovery_report.py - dev/recovery-compare's trials and report: how
# long `untorn recover` takes after a kill -9 under each guard.
# `trial`: one recover --json result, with its guard and trial number,
# appended to the list (JSON lines) and told in one line.  `report`: per
# guard the medians over the trials of recovery's seconds (and over the
# first guard's), the redo read from the checkpoint and the pages read.
#
# USAGE: recovery_report.py trial RECOVER-JSON GUARD TRIAL TRIALS-JSONL
#        recovery_report.py report TRIALS-JSONL GUARD,GUARD... MODEL
#   MODEL  the line above the table (the device the trials ran on)
import json
import statistics
import sys


def trial(src, guard, n, trials):
    """The recover result src with its guard and trial appended to
    trials; its line."""
    r = json.load(open(src))
    r.update(guard=guard, trial=n)
    open(trials, "a").write(json.dumps(r) + "\n")
    return ("trial %d %-12s recover %.3f s, redo %.1f MB from the checkpoint, %d records applied, %d pages read"
            % (r["trial"], r["guard"], r["seconds"], r["redo_bytes"] / 1e6, r["records_applied"], r["pages_read"]))


def table(rows, guards, model):
    """The report's lines (the first blank)."""
    def med(g, k):
        return statistics.median(r[k] for r in rows if r["guard"] == g)
    lines = ["\n%s\n%-12s %12s %10s %12s %12s" % (model, "guard", "recover s", "/" + guards[0], "redo MB", "pages read")]
    for g in guards:
        lines.append("%-12s %12.3f %9.2fx %12.1f %12d" % (g, med(g, "seconds"), med(g, "seconds") / med(guards[0], "seconds"),
                                                         med(g, "redo_bytes") / 1e6, med(g, "pages_read")))
    return lines


def main(argv):
    if argv[:1] == ["trial"] and len(argv) == 5:
        print(trial(argv[1], argv[2], int(argv[3]), argv[4]))
        return 0
    if argv[:1] == ["report"] and len(argv) == 4:
        rows = [json.loads(l) for l in open(argv[1])]
        print("\n".join(table(rows, argv[2].split(","), argv[3])))
        return 0
    print("usage: recovery_report.py trial RECOVER-JSON GUARD TRIAL TRIALS-JSONL"
          " | report TRIALS-JSONL GUARD,GUARD... MODEL", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
