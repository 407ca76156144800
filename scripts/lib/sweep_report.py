#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# sweep_report.py - the sweeps of bench-matrix: `--rows N,N...` (each
# size's matrix in DIR/rows-N), `--log-room SIZE,SIZE...` (each room's in
# DIR/room-SIZE, or DIR/rows-N/room-SIZE with both) and `--pacing
# MODE,MODE...` (each mode's in DIR/pacing-MODE, or DIR/rows-N/pacing-MODE
# with both).  A point of the sweep is its rows and log room.  One table over
# the matrix.json of each SUBDIR of DIR bench-matrix names, side by side: each guard's TPS over
# doublewrite's and none's at the same size and mode, and over the first
# mode's; sweep.json; and two charts: every second's TPS per guard, size
# and mode, warm-up included (sweep-tps-over-time.png, Dimitri
# Kravtchuk's graph), and each guard's TPS over doublewrite's (none's
# when doublewrite did not run) by size (sweep-ratios.png), and with
# several rooms each guard's TPS against the log room
# (sweep-room.png).  With
# --repeat a size's runs are its rounds' median runs, and a second table
# gives every guard's TPS and ratios as median [min-max] over the rounds.
#
# USAGE: sweep_report.py DIR SUBDIR...
import json
import os
import signal
import sys


def run_main(main):
    """main(), which SIGINT or SIGTERM ends in one line, not a traceback,
    and by that signal (status 130 or 143, as bench-matrix's)"""
    def stop(signo, frame):
        print("bench-matrix: report stopped by %s" % signal.Signals(signo).name, file=sys.stderr)
        signal.signal(signo, signal.SIG_DFL)
        os.kill(os.getpid(), signo)
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, stop)
    main()


def guard_order(guards):
    """The guards in the order of `untorn guards --list`, which
    bench-matrix passes as UNTORN_GUARD_ORDER; without it, the guards
    as they come in the runs (no list of their own)."""
    order = os.environ.get("UNTORN_GUARD_ORDER", "").split()
    for g in guards:
        if g not in order:
            order.append(g)
    return order


def load(out, subs):
    runs = []
    for sub in subs:
        path = os.path.join(out, sub, "matrix.json")
        try:
            runs.extend(json.load(open(path)))
        except (OSError, ValueError) as e:
            print("bench-matrix: %s unreadable (%s); left out of the sweep" % (path, e))
    for r in runs:
        r.setdefault("rows", 0)
        r.setdefault("pacing_mode", "on")
        # the point: rows and the log room asked (0: each guard's own)
        r["point"] = (r["rows"], r.get("log_room_asked") or 0)
    return runs


def mib(n):
    return "-" if not n else "%dM" % (n >> 20)


def thread_share(r, key):
    """What fraction of the writers' thread-time went to key (ns)."""
    total = r["threads"] * r["seconds"] * 1e9
    return r.get(key, 0) / total if total else 0


def table(runs, order, modes):
    by = {(r["device"], r["threads"], r["point"], r["pacing_mode"], r["guard"]): r for r in runs}
    print("\nsweep: side by side (worst/med, <half, <1/4 over the measured seconds;"
          " settle from the writers' start; logwait and paced as shares of thread-time;"
          " /%s: TPS over the same guard's with pacing %s; keeps: the %s run's median second"
          " over this run's mean TPS, what pacing %s keeps of this mode's throughput)"
          % (modes[0], modes[0], modes[0], modes[0]))
    print("%-5s %7s %9s %6s %-8s %-12s %9s %7s %7s %9s %6s %9s %6s %6s %7s %8s %7s %9s" % (
        "dev", "threads", "rows", "room", "pacing", "guard", "tps", "/dblwr", "/none", "/" + modes[0][:8], "keeps",
        "worst/med", "<half", "<1/4", "settle", "logwait", "paced", "p99 us"))
    rows = []
    for key in sorted(by, key=lambda k: (k[0], k[1], k[2], order.index(k[4]) if k[4] in order else 99,
                                         modes.index(k[3]))):
        dev, t, n, p, g = key
        r = by[key]
        base = by.get((dev, t, n, p, "doublewrite"))
        none = by.get((dev, t, n, p, "none"))
        first = by.get((dev, t, n, modes[0], g))
        row = dict(device=dev, threads=t, rows=n[0], log_room_asked=n[1], pacing=p, guard=g, tps=r["tps"],
                   log_room_bytes=r.get("log_room_bytes"), memory_peak_bytes=r.get("memory_peak_bytes"),
                   over_doublewrite=r["tps"] / base["tps"] if base and base["tps"] else None,
                   over_none=r["tps"] / none["tps"] if none and none["tps"] else None,
                   over_first_pacing=r["tps"] / first["tps"] if first and first["tps"] else None,
                   first_median_over_mean=first["tps_median_second"] / r["tps"]
                   if p != modes[0] and first and r["tps"] and "tps_median_second" in first else None,
                   worst_over_median=r.get("worst_over_median", 0),
                   seconds_below_half=r.get("seconds_below_half_median", 0),
                   seconds_below_quarter=r.get("seconds_below_quarter_median", 0),
                   longest_below_half=r.get("longest_below_half_seconds", 0),
                   settle_seconds=r.get("settle_seconds"), settled=r.get("settled", True),
                   log_space_wait_share=thread_share(r, "log_space_wait_ns"),
                   paced_share=thread_share(r, "log_pace_ns"),
                   commit_p99_us=r.get("commit_p99_us"), warmup_seconds=r.get("warmup_seconds"), seconds=r.get("seconds"))
        rows.append(row)
        settle = row["settle_seconds"]
        print("%-5s %7d %9d %6s %-8s %-12s %9.0f %7s %7s %9s %6s %9.2f %5ds %5ds %7s %7.1f%% %6.1f%% %9s" % (
            dev, t, n[0], mib(n[1]), p, g, r["tps"],
            "%.2fx" % row["over_doublewrite"] if row["over_doublewrite"] else "-",
            "%.2fx" % row["over_none"] if row["over_none"] else "-",
            "%.2fx" % row["over_first_pacing"] if row["over_first_pacing"] else "-",
            "%.2f" % row["first_median_over_mean"] if row["first_median_over_mean"] else "-",
            row["worst_over_median"], row["seconds_below_half"], row["seconds_below_quarter"],
            "-" if settle is None else ("%ds" % settle if row["settled"] else "never"),
            100 * row["log_space_wait_share"], 100 * row["paced_share"],
            row["commit_p99_us"] if row["commit_p99_us"] is not None else "-"))
    return by, rows


def spread_table(by, order, rows):
    """bench-matrix --repeat: each size's runs are the median runs of its
    rounds, with every round's TPS and ratios beside them."""
    if not any("round_tps" in r for r in by.values()):
        return
    from repeat_report import spread  # the rounds' median [min-max], one format
    print("\nover the rounds of --repeat: median [min-max]; a ratio is taken within a round")
    print("%-5s %9s %6s %-8s %-12s %6s %20s %20s %20s" % ("dev", "rows", "room", "pacing", "guard", "rounds", "tps", "/dblwr", "/none"))
    for row in rows:
        r = by[(row["device"], row["threads"], (row["rows"], row["log_room_asked"]), row["pacing"], row["guard"])]
        tps = r.get("round_tps", [])
        row.update(round_tps=tps, over_doublewrite_rounds=r.get("over_doublewrite_rounds", []),
                   over_none_rounds=r.get("over_none_rounds", []))
        print("%-5s %9d %6s %-8s %-12s %6d %20s %20s %20s" % (
            row["device"], row["rows"], mib(row["log_room_asked"]), row["pacing"], row["guard"], len(tps),
            spread(tps, "%.0f"),
            spread(row["over_doublewrite_rounds"], "%.2f") if row["guard"] != "doublewrite" else "-",
            spread(row["over_none_rounds"], "%.2f") if row["guard"] != "none" else "-"))


def charts(out, by, order, order_modes):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("\n(matplotlib not installed: no PNG; apt-get install python3-matplotlib)")
        return
    panels = sorted({(d, t, n, p) for d, t, n, p, g in by})
    guards = [g for g in order if any(k[4] == g for k in by)]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 2.6 * len(panels)), squeeze=False)
    for (d, t, n, p), ax in zip(panels, axes[:, 0]):
        warm = 0
        for i, g in enumerate(guards):
            r = by.get((d, t, n, p, g))
            if not r:
                continue
            w = r.get("warmup_tps_series", [])
            warm = max(warm, len(w))
            series = w + r.get("tps_series", [])
            ax.plot(range(1, len(series) + 1), series, label=g, color="C%d" % i, linewidth=0.9)
        if warm:
            ax.axvline(warm + 0.5, color="grey", linestyle="--", linewidth=0.8)
        ax.set_title("%s, %d threads, %d rows%s, pacing %s%s" % (d, t, n[0], ", log room %s" % mib(n[1]) if n[1] else "", p,
                                                          ", warm-up left of the dashed line" if warm else ""),
                     fontsize="medium")
        ax.set_ylim(bottom=0)
        ax.set_ylabel("transactions/s")
        ax.legend(fontsize="small", ncol=len(guards))
    axes[-1][0].set_xlabel("second since the writers started")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sweep-tps-over-time.png"), dpi=90)
    devs = sorted({(d, t) for d, t, n, p in panels})
    modes = [m for m in order_modes if any(p == m for d, t, n, p in panels)]
    # the ratios' reference: doublewrite, or none when it did not run
    ref = "doublewrite" if "doublewrite" in guards else "none" if "none" in guards else guards[0]
    fig, axes = plt.subplots(1, len(devs), figsize=(5 * len(devs), 3.6), squeeze=False)
    for (d, t), ax in zip(devs, axes[0]):
        sizes = sorted({n for dd, tt, n, p in panels if (dd, tt) == (d, t)})
        # along rows, or along the room when the sweep is of rooms alone
        along = 1 if len({n[0] for n in sizes}) == 1 and len({n[1] for n in sizes}) > 1 else 0
        for i, g in enumerate(guards):
            for j, p in enumerate(modes):
                pts = [(n, by[(d, t, n, p, g)]["tps"] / by[(d, t, n, p, ref)]["tps"]) for n in sizes
                       if (d, t, n, p, g) in by and (d, t, n, p, ref) in by
                       and by[(d, t, n, p, ref)]["tps"]]
                if pts:
                    ax.plot([q[0][along] / (1 << 20 if along else 1) for q in pts], [q[1] for q in pts], marker="o", color="C%d" % i,
                            linestyle=["-", "--", ":"][j % 3],
                            label=g if len(modes) == 1 else "%s, pacing %s" % (g, p))
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("log room, MiB (log scale)" if along else "rows (log scale)")
        ax.set_ylabel("TPS over %s's" % ref)
        ax.set_title("%s, %d threads" % (d, t), fontsize="medium")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sweep-ratios.png"), dpi=90)
    rooms = room_chart(plt, out, by, guards, devs, modes)
    print("\nwrote %s/sweep.json, sweep-tps-over-time.png, sweep-ratios.png%s" % (out, rooms))


def room_chart(plt, out, by, guards, devs, modes):
    """Each guard's TPS against the log room, per device (a line per
    size): where a larger log buys more than turning a guard off."""
    if len({k[2][1] for k in by}) < 2:
        return ""
    fig, axes = plt.subplots(1, len(devs), figsize=(5 * len(devs), 3.6), squeeze=False)
    for (d, t), ax in zip(devs, axes[0]):
        sizes = sorted({k[2][0] for k in by if k[:2] == (d, t)})
        for i, g in enumerate(guards):
            for j, n in enumerate(sizes):
                pts = sorted((k[2][1], r["tps"]) for k, r in by.items()
                             if k[:2] == (d, t) and k[2][0] == n and k[4] == g and k[3] == modes[0] and k[2][1])
                if pts:
                    ax.plot([q[0] / (1 << 20) for q in pts], [q[1] for q in pts], marker="o", color="C%d" % i,
                            linestyle=["-", "--", ":", "-."][j % 4],
                            label=g if len(sizes) == 1 else "%s, %d rows" % (g, n))
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("log room, MiB (redo log, + jbd2 on data=journal)")
        ax.set_ylabel("transactions/s")
        ax.set_title("%s, %d threads" % (d, t), fontsize="medium")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sweep-room.png"), dpi=90)
    return " and sweep-room.png"


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: sweep_report.py DIR SUBDIR...")
    out = sys.argv[1]
    runs = load(out, sys.argv[2:])
    if not runs:
        sys.exit("bench-matrix: no matrix.json in %s; no sweep table" % ", ".join(sys.argv[2:]))
    order = guard_order(r["guard"] for r in runs)
    # the modes in the order bench-matrix was given them, the first the base
    seen = [m for m in os.environ.get("UNTORN_PACING_ORDER", "").split(",")
            if any(r["pacing_mode"] == m for r in runs)]
    for r in runs:
        if r["pacing_mode"] not in seen:
            seen.append(r["pacing_mode"])
    by, rows = table(runs, order, seen)
    spread_table(by, order, rows)
    json.dump(rows, open(os.path.join(out, "sweep.json"), "w"), indent=1)
    charts(out, by, order, seen)


if __name__ == "__main__":
    run_main(main)
