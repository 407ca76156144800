#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# crash_summary.py - dev/crash-matrix's line and results row for one
# configuration, from crash-sim --json's "summary" object (one JSON line
# on stdin): torn pages before recovery, pages unrecoverable after,
# acknowledged commits checked and lost, transactions applied in half,
# damage unreported by check, and seconds.  A configuration that left no
# summary (crash-sim failed or skipped it) gives an empty line, or a
# results row with its figures blank.
#
# USAGE: crash_summary.py line < SUMMARY-JSON
#        crash_summary.py row GUARD FS MOMENT FORMAT VERDICT < SUMMARY-JSON
#   line  the figures after the summary table's columns
#   row   the row of the Markdown results table (docs/results)
import json
import sys


def parse(text):
    """The summary object, or None when there is none."""
    try:
        d = json.loads(text)
    except ValueError:
        return None
    return d if isinstance(d, dict) else None


def line(d):
    """The figures of the summary table's line ("" without a summary)."""
    try:
        return ("torn %d, unrecoverable %d, lost %d of %d acked commits checked (half transactions %d), "
                "unreported %d, %d s" % (d["torn_before"], d["unrecoverable_after"], d["lost"], d["checked"],
                                         d.get("half_transactions", 0), d["undetected"], d["seconds"]))
    except (TypeError, KeyError, ValueError):
        return ""


def row(d, g, fs, m, x, v):
    """The Markdown row: the configuration, the figures, the verdict."""
    try:
        return "| %s | %s | %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |" % (
            g, fs, m, x, d["trials"], d["torn_before"], d["unrecoverable_after"], d["checked"], d["lost"],
            d.get("half_transactions", 0), d["undetected"], d["seconds"], v)
    except (TypeError, KeyError, ValueError):
        return "| %s | %s | %s | %s | | | | | | | | | %s |" % (g, fs, m, x, v)


def main(argv):
    d = parse(sys.stdin.read())
    if argv == ["line"]:
        print(line(d))
        return 0
    if argv[:1] == ["row"] and len(argv) == 6:
        print(row(d, *argv[1:]))
        return 0
    print("usage: crash_summary.py line | row GUARD FS MOMENT FORMAT VERDICT < SUMMARY-JSON", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
