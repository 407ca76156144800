#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# matrix_report.py - bench-matrix's runs and its report.  `run`: one
# `untorn bench write --json` result made a run of the matrix -- the
# device, its model, the filesystem, the rows, the log room asked, the
# memory cgroup's limit and peak, whether the store was loaded just
# before, and on --target the target's facts and calibration -- written
# to OUT and told in one line.  `report`: the table over every run in
# DIR (each guard's TPS as a ratio to doublewrite's and none's at the
# same device and threads, the log room and memory each run held, the
# worst second over the median, the time writers waited for log space
# and were paced), a line wherever the guards' log room or memory
# differ (their ratios are then not on equal footing), with --profile
# where the time went (the bpftrace outputs of each run, profile.json),
# DIR/matrix.json (every run), and with matplotlib bench-matrix.png and
# bench-tps-over-time.png (every second's TPS per guard).  The guards
# are ordered as UNTORN_GUARD_ORDER lists them (`untorn guards --list`).
#
# USAGE: matrix_report.py run RUN-JSON OUT DEVICE MODEL REDO-OWN-DEVICE ROWS
#                             FILESYSTEM DIR ROOM-BYTES MEMORY-BYTES
#                             MEMCG-PEAK-BYTES FRESH
#        matrix_report.py report DIR
#   run     REDO-OWN-DEVICE and FRESH are 1 or 0; MEMORY-BYTES 0: no
#           --memory; DIR: where target.json and target-calibration.json
#           are (read for DEVICE target)
#   report  exit 1 when DIR holds no run (every guard refused)
import glob
import json
import os
import re
import sys


def annotate(d, device, model, redo_own, rows, filesystem, out, room, mem, peak, fresh):
    """A bench write result d made a run of the matrix (in place)."""
    # --memory: the cgroup's limit, and the most it was charged with
    # (pool, page cache and the kernel's own, as the kernel counts them)
    if mem:
        d["memory_limit_bytes"] = mem
        d["memcg_peak_bytes"] = peak
    # --log-room: the room every guard was given (its JSON's
    # log_room_bytes says what it held: the redo log's capacity, plus
    # the jbd2 journal)
    d["log_room_asked"] = room
    # loaded just before this run (false: a --load-once round on the
    # store an earlier round loaded)
    d["fresh_load"] = fresh
    d["device"] = device
    d["device_model"] = model
    d["redo_own_device"] = redo_own
    d["rows"] = rows
    d["filesystem"] = filesystem
    # on --target: what the figures were measured on
    for key, f in (("target", "target.json"), ("calibration", "target-calibration.json")):
        if d["device"] == "target" and os.path.exists(os.path.join(out, f)):
            d[key] = json.load(open(os.path.join(out, f)))
    return d


def run_line(d):
    """The line a run is told in as it ends."""
    return "  %-4s %-12s %3d threads: %8.0f tps, p99 %6d us, worst second %.2f of the median, %s" % (
        d["device"], d["guard"], d["threads"], d["tps"], d["commit_p99_us"], d.get("worst_over_median", 0),
        "settled after %d s" % d.get("settle_seconds", 0) if d.get("settled", True) else "not settled")


def run(argv):
    (src, dst, device, model, redo_own, rows, filesystem, out,
     room, mem, peak, fresh) = argv
    d = annotate(json.load(open(src)), device, model, redo_own == "1", int(rows), filesystem, out,
                 int(room), int(mem), int(peak), fresh == "1")
    json.dump(d, open(dst, "w"), indent=1)
    print(run_line(d))
    return 0


def mib(r, key):
    """A run's bytes of KEY in MiB for the table: '-' from a run before it
    was reported, '?' where it could not be read."""
    v = r.get(key)
    return "-" if v is None else ("?" if not v else "%.0f" % (v / 1048576))


def by_key(runs):
    """The runs by (device, threads, guard)."""
    return {(r["device"], r["threads"], r["guard"]): r for r in runs}


def in_order(by, order):
    """by's items by device, threads, then the guards' order."""
    return sorted(by.items(), key=lambda x: (x[0][0], x[0][1], order.index(x[0][2])))


def table(by, order):
    """The table's lines, the first blank."""
    lines = ["\n%-5s %7s %-12s %5s %10s %7s %7s %10s %10s %9s %12s %8s %9s %6s %6s %7s %8s %8s" % (
        "dev", "threads", "guard", "block", "tps", "room M", "mem M", "/dblwr", "/none", "p99 us", "dev MB writ",
        "fsyncs", "worst/med", "<half", "<1/4", "settle", "logwait", "paced")]
    for (dev, t, g), r in in_order(by, order):
        base = by.get((dev, t, "doublewrite"))
        none = by.get((dev, t, "none"))
        mb = r["device_bytes_written"] / 1e6 if isinstance(r["device_bytes_written"], (int, float)) else float("nan")
        settle = r.get("settle_seconds")
        lines.append("%-5s %7d %-12s %5s %10.0f %7s %7s %10s %10s %9d %12.1f %8d %9.2f %5ds %5ds %7s %7.1fs %7.1fs" % (
            dev, t, g, r.get("block_size", "-"), r["tps"],
            mib(r, "log_room_bytes"), mib(r, "memory_peak_bytes"),
            "%.2fx" % (r["tps"] / base["tps"]) if base else "-",
            "%.2fx" % (r["tps"] / none["tps"]) if none else "-",
            r["commit_p99_us"], mb, r["fsyncs"], r.get("worst_over_median", 0),
            r.get("seconds_below_half_median", 0), r.get("seconds_below_quarter_median", 0),
            "-" if settle is None else ("%ds" % settle if r.get("settled", True) else "never"),
            r.get("log_space_wait_ns", 0) / 1e9, r.get("log_pace_ns", 0) / 1e9))
    return lines


def footing(by):
    """A line for each device and thread count whose guards' log room
    (redo log, and the jbd2 journal where it holds the pages) or memory
    (the budget where --memory set one, else what each held) differ by
    more than 10 %: their ratios do not compare like with like."""
    lines = []
    for dev, t in sorted({(d, t) for d, t, _ in by}):
        rs = [r for (d, tt, _), r in by.items() if (d, tt) == (dev, t)]
        mem = "memory_limit_bytes" if all(r.get("memory_limit_bytes") for r in rs) else "memory_peak_bytes"
        for key, what in (("log_room_bytes", "log room"), (mem, "memory")):
            vals = [r.get(key) for r in rs]
            if len(rs) > 1 and all(vals) and max(vals) > 1.1 * min(vals):
                lines.append("%s, %d threads: not on equal footing: %s %.0f-%.0f MiB across the guards (%s)" % (
                    dev, t, what, min(vals) / 1048576, max(vals) / 1048576,
                    ", ".join("%s %.0f" % (r["guard"], r[key] / 1048576) for r in rs)))
    return lines


def maps(path):
    """A bpftrace output's maps: {"@name": {"[key]" or "": value}}, or
    None when it cannot be read."""
    vals = {}
    try:
        for line in open(path, errors="replace"):
            m = re.match(r"^(@\w+)(\[.*\])?: (\d+)$", line.strip())
            if m:
                vals.setdefault(m.group(1), {})[m.group(2) or ""] = int(m.group(3))
    except OSError:
        return None
    return vals


def profile_row(pdir, dev, t, g, r):
    """Where one run's time went, from its --profile directory."""
    dw = maps(os.path.join(pdir, "dblwr-wait.txt")) or {}
    la = maps(os.path.join(pdir, "untorn-latch.txt")) or {}
    jb = maps(os.path.join(pdir, "jbd2-commit.txt")) or {}
    # jbd2-commit.bt sees every journal: the benchmark device's only
    try:
        mm = open(os.path.join(pdir, "device")).read().strip().split(":")
        key = "[%s, %s]" % (mm[0], mm[1])
        jb = {k: {kk: vv for kk, vv in v.items() if kk == key} for k, v in jb.items()}
    except (OSError, IndexError):
        pass
    lw = la.get("@wait_ms_total", {})
    top = max(lw.items(), key=lambda kv: kv[1]) if lw else ("-", 0)
    return dict(device=dev, threads=t, guard=g, tps=r["tps"],
                slot_waits=sum(dw.get("@waits", {}).values()),
                slot_wait_ms=sum(dw.get("@wait_ms_total", {}).values()),
                slot_hold_ms=sum(dw.get("@hold_ms_total", {}).values()),
                latch_wait_ms=sum(lw.values()), latch_top=top[0].strip("[]"), latch_top_ms=top[1],
                group_commit_wait_ms=lw.get("[log_flush]", 0), page_latch_wait_ms=lw.get("[page]", 0),
                jbd2_commits=sum(jb.get("@commits", {}).values()),
                jbd2_commit_ms=sum(jb.get("@commit_ms_total", {}).values()),
                jbd2_blocks_logged=sum(jb.get("@blocks_logged", {}).values()))


def profiled(out, by, order):
    """profile_row of every run that has a profile-DEV-GUARD-tT directory."""
    rows = []
    for (dev, t, g), r in in_order(by, order):
        pdir = os.path.join(out, "profile-%s-%s-t%d" % (dev, g, t))
        if os.path.isdir(pdir):
            rows.append(profile_row(pdir, dev, t, g, r))
    return rows


def profile_table(rows):
    """The lines of where the time went, the first blank."""
    head = "%-5s %7s %-12s %6s | %6s %8s %9s | %14s %13s | %7s %9s %10s"
    lines = ["\nwhere the time went (scripts/profile: dblwr-wait, untorn-latch, jbd2-commit on the benchmark's"
             " device; waits summed over threads)",
             head % ("dev", "threads", "guard", "tps", "slot", "slot", "slot", "group commit", "page latch",
                     "jbd2", "jbd2", "jbd2 blks"),
             head % ("", "", "", "", "waits", "wait ms", "hold ms", "wait ms", "wait ms", "commits",
                     "commit ms", "logged")]
    for p in rows:
        lines.append("%-5s %7d %-12s %6.0f | %6d %8d %9d | %14d %13d | %7d %9d %10d" % (
            p["device"], p["threads"], p["guard"], p["tps"],
            p["slot_waits"], p["slot_wait_ms"], p["slot_hold_ms"], p["group_commit_wait_ms"], p["page_latch_wait_ms"],
            p["jbd2_commits"], p["jbd2_commit_ms"], p["jbd2_blocks_logged"]))
    return lines


def charts(plt, out, runs, by, order):
    """bench-matrix.png (TPS per guard, a panel per device) and
    bench-tps-over-time.png (every second's TPS, a panel per device and
    thread count)."""
    groups = sorted({(d, t) for d, t, g in by})
    guards = [g for g in order if any(k[2] == g for k in by)]
    # a panel per device, each on a linear axis from zero: bar heights
    # compare as the numbers do (on a log scale, or one starting at 48
    # 000, a 9 % gap looked several-fold), and a disk's few hundred TPS
    # are not flattened under an SSD's thousands
    devs = sorted({d for d, t in groups})
    fig, axes = plt.subplots(1, len(devs), figsize=(max(6, len(groups) * 1.6), 4), squeeze=False)
    w = 0.8 / max(1, len(guards))
    for dev, ax in zip(devs, axes[0]):
        ts = [t for d, t in groups if d == dev]
        for i, g in enumerate(guards):
            ax.bar([j + i * w for j in range(len(ts))], [by[(dev, t, g)]["tps"] if (dev, t, g) in by else 0 for t in ts],
                   w, label=g, color="C%d" % i)
        ax.set_xticks([j + w * (len(guards) - 1) / 2 for j in range(len(ts))])
        ax.set_xticklabels(["%d thr" % t for t in ts])
        ax.set_ylim(bottom=0)
        ax.set_title(dev, fontsize="medium")
    axes[0][0].set_ylabel("transactions/s (bench write, %s commit)" % runs[0].get("commit", "sync"))
    axes[0][-1].legend(fontsize="small")
    fig.suptitle("untorn guards, 16 KiB pages (linear axes from 0)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bench-matrix.png"), dpi=100)
    fig, axes = plt.subplots(len(groups), 1, figsize=(8, 2.6 * max(1, len(groups))), squeeze=False)
    for (d, t), ax in zip(groups, axes[:, 0]):
        for g in guards:
            r = by.get((d, t, g), {})
            series = r.get("warmup_tps_series", []) + r.get("tps_series", [])
            if series:
                ax.plot(range(1, len(series) + 1), series, label=g)
        warm = max(len(by.get((d, t, g), {}).get("warmup_tps_series", [])) for g in guards)
        if warm:
            ax.axvline(warm + 0.5, color="grey", linestyle="--", linewidth=0.8)
        ax.set_title("%s, %d threads%s" % (d, t, " (warm-up left of the dashed line)" if warm else ""))
        ax.set_xlabel("second since the writers started")
        ax.set_ylabel("transactions/s")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bench-tps-over-time.png"), dpi=100)


def report(out, order):
    runs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(out, "*-t*.json")))]
    if not runs:
        print("bench-matrix: no runs in %s (every guard refused?); no table, no chart" % out, file=sys.stderr)
        return 1
    json.dump(runs, open(os.path.join(out, "matrix.json"), "w"), indent=1)
    by = by_key(runs)
    if any(r.get("redo_own_device") for r in runs):
        print("\n(the redo log of every guard on its own device of the same kind, ext4 data=ordered)")
    print("\n".join(table(by, order) + footing(by)))
    prof = profiled(out, by, order)
    if prof:
        json.dump(prof, open(os.path.join(out, "profile.json"), "w"), indent=1)
        print("\n".join(profile_table(prof)))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("\n(matplotlib not installed: no PNG; apt-get install python3-matplotlib)")
        return 0
    charts(plt, out, runs, by, order)
    print("\nwrote %s/matrix.json, %s/bench-matrix.png and %s/bench-tps-over-time.png" % (out, out, out))
    return 0


def main(argv):
    if argv[:1] == ["run"] and len(argv) == 13:
        return run(argv[1:])
    if argv[:1] == ["report"] and len(argv) == 2:
        return report(argv[1], os.environ["UNTORN_GUARD_ORDER"].split())
    print("usage: matrix_report.py run RUN-JSON OUT DEVICE MODEL REDO-OWN-DEVICE ROWS FILESYSTEM DIR"
          " ROOM-BYTES MEMORY-BYTES MEMCG-PEAK-BYTES FRESH | report DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
