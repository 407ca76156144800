#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# repeat_report.py - bench-matrix --repeat N: the same matrix run N times
# as rounds (DIR/round-K, every guard once per round, one after the
# other), so a guard's TPS and its ratio to doublewrite's and none's come
# with their spread.  A ratio is taken within a round (the two runs
# minutes apart on the same machine), then its median and range over the
# rounds: on a shared machine one run per guard moves as much as guards
# differ.  Prints one table, writes DIR/repeat.json (every round's
# figures) and DIR/matrix.json (per guard the run of median TPS, with
# the rounds' TPS and ratios beside it: what sweep_report.py reads for a
# size of a --rows sweep).
#
# USAGE: repeat_report.py DIR round-1 round-2 ...
import json
import os
import statistics
import sys

from sweep_report import guard_order, run_main, thread_share


def key_of(r):
    return (r["device"], r["threads"], r.get("rows", 0), r.get("pacing_mode", "on"), r["guard"])


def load(out, rounds):
    by = {}  # key -> [run or None per round]
    for k, sub in enumerate(rounds):
        path = os.path.join(out, sub, "matrix.json")
        try:
            runs = json.load(open(path))
        except (OSError, ValueError) as e:
            print("bench-matrix: %s unreadable (%s); that round left out" % (path, e))
            continue
        for r in runs:
            by.setdefault(key_of(r), [None] * len(rounds))[k] = r
    return by


def ratios(by, key, ref):
    """The guard's TPS over ref's, round by round (rounds where both ran)."""
    refkey = key[:4] + (ref,)
    if refkey not in by:
        return []
    return [a["tps"] / b["tps"] for a, b in zip(by[key], by[refkey]) if a and b and b["tps"]]


def spread(vals, fmt):
    if not vals:
        return "-"
    if len(vals) == 1:
        return fmt % vals[0]
    return (fmt + " [" + fmt + "-" + fmt + "]") % (statistics.median(vals), min(vals), max(vals))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: repeat_report.py DIR round-1 ...")
    out, rounds = sys.argv[1], sys.argv[2:]
    by = load(out, rounds)
    if not by:
        sys.exit("bench-matrix: no matrix.json in %s's rounds; no table" % out)
    order = guard_order(k[4] for k in by)
    print("\nrepeat: %d rounds, every guard once a round; median [min-max] over the rounds;"
          " a ratio is taken within a round" % len(rounds))
    print("%-5s %7s %9s %-12s %6s %24s %24s %24s %9s %5s %8s" % (
        "dev", "threads", "rows", "guard", "rounds", "tps", "/dblwr", "/none", "worst/med", "<1/4", "logwait"))
    rows, medians = [], []
    for key in sorted(by, key=lambda k: (k[0], k[1], k[2], k[3], order.index(k[4]) if k[4] in order else 99)):
        runs = [r for r in by[key] if r]
        tps = [r["tps"] for r in runs]
        over_dw, over_none = ratios(by, key, "doublewrite"), ratios(by, key, "none")
        wait = max(thread_share(r, "log_space_wait_ns") for r in runs)
        row = dict(device=key[0], threads=key[1], rows=key[2], pacing=key[3], guard=key[4],
                   rounds=len(runs), tps=tps, tps_median=statistics.median(tps),
                   over_doublewrite=over_dw, over_none=over_none,
                   worst_over_median_min=min(r.get("worst_over_median", 0) for r in runs),
                   seconds_below_quarter_max=max(r.get("seconds_below_quarter_median", 0) for r in runs),
                   log_space_wait_share_max=wait)
        rows.append(row)
        print("%-5s %7d %9d %-12s %6d %24s %24s %24s %9.2f %4ds %7.2f%%" % (
            key[0], key[1], key[2], key[4], len(runs), spread(tps, "%.0f"),
            spread(over_dw, "%.2f") if key[4] != "doublewrite" else "-",
            spread(over_none, "%.2f") if key[4] != "none" else "-",
            row["worst_over_median_min"], row["seconds_below_quarter_max"], 100 * wait))
        # the run of median TPS (the lower of the two middle ones when
        # the rounds are even) stands for the guard in matrix.json
        mid = sorted(runs, key=lambda r: r["tps"])[(len(runs) - 1) // 2]
        mid = dict(mid, round_tps=tps, over_doublewrite_rounds=over_dw, over_none_rounds=over_none)
        medians.append(mid)
    json.dump(rows, open(os.path.join(out, "repeat.json"), "w"), indent=1)
    json.dump(medians, open(os.path.join(out, "matrix.json"), "w"), indent=1)
    print("\nwrote %s/repeat.json and %s/matrix.json (per guard the run of median TPS)" % (out, out))


if __name__ == "__main__":
    run_main(main)
