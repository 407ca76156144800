#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# sweep_report.py - the size sweep of `bench-matrix --rows N,N...`: one
# table over every size's matrix (DIR/rows-N/matrix.json), sweep.json,
# and two charts: every second's TPS per guard and size, warm-up
# included (sweep-tps-over-time.png, Dimitri Kravtchuk's graph), and each
# guard's TPS over doublewrite's and none's at each size
# (sweep-ratios.png).
#
# USAGE: sweep_report.py DIR ROWS...
import json
import os
import sys


def load(out, sizes):
    runs = []
    for n in sizes:
        path = os.path.join(out, "rows-%d" % n, "matrix.json")
        try:
            for r in json.load(open(path)):
                r.setdefault("rows", n)
                runs.append(r)
        except (OSError, ValueError) as e:
            print("bench-matrix: no results for %d rows (%s); left out of the sweep" % (n, e))
    return runs


def thread_share(r, key):
    """What fraction of the writers' thread-time went to key (ns)."""
    total = r["threads"] * r["seconds"] * 1e9
    return r.get(key, 0) / total if total else 0


def table(runs, order):
    by = {(r["device"], r["threads"], r["rows"], r["guard"]): r for r in runs}
    print("\nsweep: every size side by side (worst/med, <half, <1/4 over the measured seconds;"
          " settle from the writers' start; logwait and paced as shares of thread-time)")
    print("%-5s %7s %9s %-12s %9s %7s %7s %9s %6s %6s %7s %8s %7s %9s" % (
        "dev", "threads", "rows", "guard", "tps", "/dblwr", "/none", "worst/med",
        "<half", "<1/4", "settle", "logwait", "paced", "p99 us"))
    rows = []
    for key in sorted(by, key=lambda k: (k[0], k[1], k[2], order.index(k[3]) if k[3] in order else 99)):
        dev, t, n, g = key
        r = by[key]
        base = by.get((dev, t, n, "doublewrite"))
        none = by.get((dev, t, n, "none"))
        row = dict(device=dev, threads=t, rows=n, guard=g, tps=r["tps"],
                   over_doublewrite=r["tps"] / base["tps"] if base and base["tps"] else None,
                   over_none=r["tps"] / none["tps"] if none and none["tps"] else None,
                   worst_over_median=r.get("worst_over_median", 0),
                   seconds_below_half=r.get("seconds_below_half_median", 0),
                   seconds_below_quarter=r.get("seconds_below_quarter_median", 0),
                   longest_below_half=r.get("longest_below_half_seconds", 0),
                   settle_seconds=r.get("settle_seconds"), settled=r.get("settled", True),
                   log_space_wait_share=thread_share(r, "log_space_wait_ns"),
                   paced_share=thread_share(r, "log_pace_ns"),
                   commit_p99_us=r.get("commit_p99_us"), pacing=r.get("pacing_mode"),
                   warmup_seconds=r.get("warmup_seconds"), seconds=r.get("seconds"))
        rows.append(row)
        settle = row["settle_seconds"]
        print("%-5s %7d %9d %-12s %9.0f %7s %7s %9.2f %5ds %5ds %7s %7.1f%% %6.1f%% %9s" % (
            dev, t, n, g, r["tps"],
            "%.2fx" % row["over_doublewrite"] if row["over_doublewrite"] else "-",
            "%.2fx" % row["over_none"] if row["over_none"] else "-",
            row["worst_over_median"], row["seconds_below_half"], row["seconds_below_quarter"],
            "-" if settle is None else ("%ds" % settle if row["settled"] else "never"),
            100 * row["log_space_wait_share"], 100 * row["paced_share"],
            row["commit_p99_us"] if row["commit_p99_us"] is not None else "-"))
    return by, rows


def charts(out, by, order):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("\n(matplotlib not installed: no PNG; apt-get install python3-matplotlib)")
        return
    panels = sorted({(d, t, n) for d, t, n, g in by})
    guards = [g for g in order if any(k[3] == g for k in by)]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 2.6 * len(panels)), squeeze=False)
    for (d, t, n), ax in zip(panels, axes[:, 0]):
        warm = 0
        for i, g in enumerate(guards):
            r = by.get((d, t, n, g))
            if not r:
                continue
            w = r.get("warmup_tps_series", [])
            warm = max(warm, len(w))
            series = w + r.get("tps_series", [])
            ax.plot(range(1, len(series) + 1), series, label=g, color="C%d" % i, linewidth=0.9)
        if warm:
            ax.axvline(warm + 0.5, color="grey", linestyle="--", linewidth=0.8)
        ax.set_title("%s, %d threads, %d rows%s" % (d, t, n, ", warm-up left of the dashed line" if warm else ""),
                     fontsize="medium")
        ax.set_ylim(bottom=0)
        ax.set_ylabel("transactions/s")
        ax.legend(fontsize="small", ncol=len(guards))
    axes[-1][0].set_xlabel("second since the writers started")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sweep-tps-over-time.png"), dpi=90)
    devs = sorted({(d, t) for d, t, n in panels})
    fig, axes = plt.subplots(1, len(devs), figsize=(5 * len(devs), 3.6), squeeze=False)
    for (d, t), ax in zip(devs, axes[0]):
        sizes = sorted({n for dd, tt, n in panels if (dd, tt) == (d, t)})
        for i, g in enumerate(guards):
            pts = [(n, by[(d, t, n, g)]["tps"] / by[(d, t, n, "doublewrite")]["tps"]) for n in sizes
                   if (d, t, n, g) in by and (d, t, n, "doublewrite") in by and by[(d, t, n, "doublewrite")]["tps"]]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=g, color="C%d" % i)
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("rows (log scale)")
        ax.set_ylabel("TPS over doublewrite's")
        ax.set_title("%s, %d threads" % (d, t), fontsize="medium")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sweep-ratios.png"), dpi=90)
    print("\nwrote %s/sweep.json, sweep-tps-over-time.png and sweep-ratios.png" % out)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: sweep_report.py DIR ROWS...")
    out, sizes = sys.argv[1], [int(a) for a in sys.argv[2:]]
    order = os.environ.get("UNTORN_GUARD_ORDER", "doublewrite journal atomic none sector").split()
    runs = load(out, sizes)
    if not runs:
        sys.exit("bench-matrix: no runs under %s/rows-*; no sweep table" % out)
    by, rows = table(runs, order)
    json.dump(rows, open(os.path.join(out, "sweep.json"), "w"), indent=1)
    charts(out, by, order)


main()
