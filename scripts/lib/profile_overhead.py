#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# profile_overhead.py - profile-overhead's result: `untorn bench write`
# TPS with the bpftrace scripts attached against without them, the
# medians over the rounds as a ratio (the target: >= 0.95), and what the
# scripts' BPF programs ran per transaction (the kernel's run_time_ns
# over the traced runs) and as a share of the CPU time one traced
# transaction had (the benchmark keeps every CPU busy).  Prints the
# table; writes the JSON when OUT is given.
#
# USAGE: profile_overhead.py SCRIPTS THREADS SECONDS OUT PLAIN TRACED
#                            BPF-RUNS BPF-NS TXNS TARGET-JSON
#   OUT         the JSON file to write ("": none)
#   PLAIN ...   space-separated lists, one figure a round: TPS without
#               and with the scripts, the BPF programs' runs and
#               nanoseconds and the transactions of each traced run
#   TARGET-JSON the target's facts (target.sh), kept when it exists
import json
import os
import statistics
import sys

TARGET = 0.95


def figures(plain, traced, runs, ns, txns, cpus):
    """The medians, unrounded: TPS without (p) and with (t) the scripts,
    the BPF programs' microseconds a transaction (us), nanoseconds a run
    (per_run) and share of the CPUs' time (share)."""
    p, t = statistics.median(plain), statistics.median(traced)
    us = statistics.median(n / c / 1000 for n, c in zip(ns, txns))
    per_run = statistics.median(n / r for n, r in zip(ns, runs) if r) if any(runs) else 0  # no program ran
    return dict(p=p, t=t, us=us, per_run=per_run, share=us / (cpus * 1e6 / t))


def result(scripts, threads, seconds, plain, traced, runs, ns, txns, cpus, f):
    """The result object from each round's figures and their medians f."""
    return dict(scripts=scripts, threads=threads, seconds=seconds, rounds=len(plain),
                tps_without=plain, tps_with=traced, median_without=f["p"], median_with=f["t"],
                ratio=round(f["t"] / f["p"], 3), target=TARGET, cpus=cpus,
                bpf_runs=runs, bpf_run_ns=ns, transactions=txns,
                bpf_us_per_transaction=round(f["us"], 3), bpf_ns_per_run=round(f["per_run"]),
                bpf_runs_per_transaction=round(statistics.median(r / c for r, c in zip(runs, txns)), 2),
                bpf_cpu_share=round(f["share"], 4))


def table(res, f):
    """The table's lines (the first blank) for the result and its
    unrounded medians f."""
    p, t = f["p"], f["t"]
    return [
        "\n%-28s %12s %12s %8s" % ("bench write, %d threads" % res["threads"], "median tps", "runs", "ratio"),
        "%-28s %12.0f %12d %8s" % ("without tracing", p, len(res["tps_without"]), "1.00"),
        "%-28s %12.0f %12d %8.2f   (target >= 0.95: %s)" % (
            "with scripts: " + res["scripts"], t, len(res["tps_with"]), t / p,
            "met" if t / p >= TARGET else "NOT met"),
        "BPF programs: %.1f runs and %.2f us a transaction (%.0f ns a run): %.1f %% of the %d CPUs' time" % (
            res["bpf_runs_per_transaction"], f["us"], f["per_run"], 100 * f["share"], res["cpus"]),
        "(the uprobes' traps and the tracepoints' dispatch come on top: docs/profiling.md)"]


def main(argv):
    scripts, threads, seconds, out = argv[0], int(argv[1]), int(argv[2]), argv[3]
    plain = [float(x) for x in argv[4].split()]
    traced = [float(x) for x in argv[5].split()]
    runs, ns, txns = ([int(x) for x in a.split()] for a in argv[6:9])
    cpus = os.cpu_count()
    f = figures(plain, traced, runs, ns, txns, cpus)
    res = result(scripts, threads, seconds, plain, traced, runs, ns, txns, cpus, f)
    if os.path.exists(argv[9]):
        res["target"] = json.load(open(argv[9]))
    print("\n".join(table(res, f)))
    if out:
        json.dump(res, open(out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
