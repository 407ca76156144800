#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# flushing_report.py - dev/flushing-compare's lines: two values of one
# knob (the flushing policy, or this build against another) run in
# pairs of `untorn bench write`.  `run`: a run's line -- TPS, its worst
# second over the median, seconds below half the median, pages written,
# the checkpoint age's peak and mean as a share of the log, the time
# writers waited for log space and were paced.  `medians`: each value's
# median TPS and worst/median over its runs (DIR/NAME-VALUE-*.json) and
# the first's TPS over the second's.
#
# USAGE: flushing_report.py run RUN-JSON KNOB VALUE
#        flushing_report.py medians DIR NAME VALUE-A VALUE-B
import glob
import json
import os
import statistics
import sys


def run_line(d, knob, value):
    """A run's line from its bench write JSON d."""
    return ("%-8s %-9s tps %7.0f (median second %6d)  worst/median %.2f  below half %3d  pages %6d  "
            "age peak %3.0f%% mean %3.0f%%  log-space wait %5.1f s  paced %5.1f s" % (
                knob, value, d["tps"], d["tps_median_second"], d["worst_over_median"],
                d["seconds_below_half_median"], d["pages_written"],
                100.0 * d["checkpoint_age_max"] / d["log_capacity"],
                100.0 * d.get("checkpoint_age_mean", 0) / d["log_capacity"],
                d["log_space_wait_ns"] / 1e9, d.get("log_pace_ns", 0) / 1e9))


def medians(out, name, values):
    """{value: (median TPS, median worst/median)} over the runs in out."""
    med = {}
    for v in values:
        runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out, "%s-%s-*.json" % (name, v))))]
        med[v] = (statistics.median(r["tps"] for r in runs), statistics.median(r["worst_over_median"] for r in runs))
    return med


def main(argv):
    if argv[:1] == ["run"] and len(argv) == 4:
        print(run_line(json.load(open(argv[1])), argv[2], argv[3]))
        return 0
    if argv[:1] == ["medians"] and len(argv) == 5:
        a, b = argv[3], argv[4]
        med = medians(argv[1], argv[2], (a, b))
        for v in (a, b):
            print("median %-9s tps %7.0f  worst/median %.2f" % (v, med[v][0], med[v][1]))
        print("%s / %s: %.2fx TPS" % (a, b, med[a][0] / med[b][0]))
        return 0
    print("usage: flushing_report.py run RUN-JSON KNOB VALUE | medians DIR NAME VALUE-A VALUE-B", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
