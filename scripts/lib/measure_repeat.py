#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# measure_repeat.py - are two `untorn-fscheck --measure` results on one
# mount the same answer?  Issue 57's target: run twice, their intervals
# overlap, 10 times out of 10.  Reads results (doublewrite-cost --json,
# the "ratios" objects with "low" and "high") in the order they ran,
# pairs them (1 with 2, 3 with 4, ...) and, for every ratio both of a
# pair hold, says whether the two intervals [low-high] overlap.  Prints a
# table and the count; with --json one object.
#
# USAGE: measure_repeat.py [--json] RESULT-JSON...
# Exit: 0 every pair overlaps in every ratio, 1 not, 2 bad input (an odd
# number of results, a file that is not a --measure result).
import json
import sys


def load(path):
    """A result's ratio intervals: {name: (low, high)}."""
    try:
        with open(path) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError("%s: %s" % (path, e))
    ratios = res.get("ratios") if isinstance(res, dict) else None
    if not isinstance(ratios, dict):
        raise ValueError("%s: not an untorn-fscheck --measure result (no \"ratios\" object)" % path)
    out = {}
    for name, r in ratios.items():
        if isinstance(r, dict) and "low" in r and "high" in r:
            out[name] = (float(r["low"]), float(r["high"]))
    if not out:
        raise ValueError("%s: its ratios have no intervals (a result from before the rounds)" % path)
    return out


def overlap(a, b):
    """Two intervals (low, high) share a point."""
    return max(a[0], b[0]) <= min(a[1], b[1])


def compare(results):
    """Pairs of results: for each, every ratio both hold, with the two
    intervals and whether they overlap."""
    if len(results) % 2 or not results:
        raise ValueError("give an even number of results (pairs run one after the other), not %d" % len(results))
    pairs = []
    for k in range(0, len(results), 2):
        a, b = results[k], results[k + 1]
        rows = [dict(ratio=n, first=list(a[n]), second=list(b[n]), overlap=overlap(a[n], b[n]))
                for n in sorted(set(a) & set(b))]
        pairs.append(dict(pair=k // 2 + 1, ratios=rows, overlap=all(r["overlap"] for r in rows)))
    return dict(pairs=pairs, overlapping=sum(p["overlap"] for p in pairs), of=len(pairs))


def table(rep):
    lines = ["| pair | ratio | first run [low-high] | second run [low-high] | overlap |", "|---|---|---|---|---|"]
    for p in rep["pairs"]:
        for r in p["ratios"]:
            lines.append("| %d | %s | %.2f-%.2f | %.2f-%.2f | %s |" % (
                p["pair"], r["ratio"], r["first"][0], r["first"][1], r["second"][0], r["second"][1],
                "yes" if r["overlap"] else "**no**"))
    lines.append("")
    lines.append("%d of %d pairs overlap in every ratio" % (rep["overlapping"], rep["of"]))
    return "\n".join(lines)


def main(argv):
    as_json = "--json" in argv
    files = [a for a in argv if a != "--json"]
    try:
        rep = compare([load(f) for f in files])
    except ValueError as e:
        print("measure_repeat: %s" % e, file=sys.stderr)
        return 2
    print(json.dumps(rep, indent=1) if as_json else table(rep))
    return 0 if rep["overlapping"] == rep["of"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
