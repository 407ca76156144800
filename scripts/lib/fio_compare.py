#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# fio_compare.py - fio-compare's summary: for each job file it ran (its
# fio --output-format=json+ result DIR/NAME.json and the mount it ran on,
# DIR/NAME.mount) every job's IOPS, MB/s, completion latency p50, p99 and
# p99.9 and fdatasync latency p50 and p99, in microseconds; the table,
# DIR/summary.json (with DIR/target.json's facts on --target), and with
# matplotlib DIR/fio-compare.png.  A job file whose result is missing or
# not JSON (fio failed: fio-compare said so) is left out.
#
# USAGE: fio_compare.py DIR DEVICE-PROFILE NAME...
import json
import os
import sys


def pct(lat, p):
    """Percentile p of a fio latency object, in microseconds (None when
    fio did not report it)."""
    v = lat.get("percentile", {}).get("%.6f" % p)
    return v / 1000.0 if v is not None else None


def job_rows(name, fio, mount):
    """A row per job of one job file's fio result."""
    rows = []
    for j in fio["jobs"]:
        rw = "write" if j["write"]["total_ios"] else "read"
        r = j[rw]
        clat = r.get("clat_ns", {})
        sync = j.get("sync", {}).get("lat_ns", {})
        rows.append(dict(file=name, job=j["jobname"], rw=rw, mount=mount,
                         iops=r["iops"], mb_s=r["bw_bytes"] / 1e6, ios=r["total_ios"],
                         clat_p50_us=pct(clat, 50), clat_p99_us=pct(clat, 99),
                         clat_p999_us=pct(clat, 99.9),
                         fdatasync_p50_us=pct(sync, 50), fdatasync_p99_us=pct(sync, 99)))
    return rows


def load(out, names):
    """The rows of every job file with a result in out."""
    rows = []
    for name in names:
        try:
            d = json.load(open(os.path.join(out, name + ".json")))
        except (OSError, ValueError):
            continue
        mount = open(os.path.join(out, name + ".mount")).read().strip()
        rows += job_rows(name, d, mount)
    return rows


def f(v):
    return "%9.0f" % v if v is not None else "%9s" % "-"


def table(rows, names, device, out):
    """The table's lines (the first blank), then where each file ran."""
    lines = ["\nfio-compare (%s profile); latencies in us; per-job files in %s" % (device, out),
             "%-22s %-5s %9s %8s %9s %9s %9s %9s %9s" % ("job", "rw", "IOPS", "MB/s", "clat p50", "clat p99", "p99.9",
                                                          "sync p50", "sync p99")]
    for r in rows:
        lines.append("%-22s %-5s %9.0f %8.1f %s %s %s %s %s" % (
            r["job"], r["rw"], r["iops"], r["mb_s"],
            f(r["clat_p50_us"]), f(r["clat_p99_us"]), f(r["clat_p999_us"]),
            f(r["fdatasync_p50_us"]), f(r["fdatasync_p99_us"])))
    for name in names:
        m = [r["mount"] for r in rows if r["file"] == name]
        if m:
            lines.append("  %s ran on %s" % (name, m[0]))
    return lines


def chart(plt, out, rows, device):
    """fio-compare.png: IOPS, and the latencies, per job (log axes)."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [r["job"] for r in rows]
    a1.barh(labels, [r["iops"] for r in rows])
    a1.set_xscale("log")
    a1.set_xlabel("IOPS")
    a1.invert_yaxis()
    for k, (p, lab) in enumerate([("clat_p50_us", "p50"), ("clat_p99_us", "p99"), ("fdatasync_p99_us", "fdatasync p99")]):
        a2.barh([i + k * 0.27 for i in range(len(rows))], [r[p] or 0 for r in rows], 0.27, label=lab)
    a2.set_yticks([i + 0.27 for i in range(len(rows))])
    a2.set_yticklabels(labels)
    a2.invert_yaxis()
    a2.set_xscale("log")
    a2.set_xlabel("latency (us)")
    a2.legend(loc="lower right", fontsize="small")
    fig.suptitle("untorn's I/O patterns under fio (%s profile)" % device)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fio-compare.png"), dpi=100)


def main(argv):
    if len(argv) < 2:
        print("usage: fio_compare.py DIR DEVICE-PROFILE NAME...", file=sys.stderr)
        return 2
    out, device, names = argv[0], argv[1], argv[2:]
    rows = load(out, names)
    facts = os.path.join(out, "target.json")
    summary = dict(device_profile=device, jobs=rows)
    if os.path.exists(facts):
        summary["target"] = json.load(open(facts))
    json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
    print("\n".join(table(rows, names, device, out)))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: no PNG; apt-get install python3-matplotlib)")
        return 0
    if not rows:
        return 0
    chart(plt, out, rows, device)
    print("wrote %s/summary.json and %s/fio-compare.png" % (out, out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
