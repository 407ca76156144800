#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# scan_report.py - scan-matrix's lines and report.  `scan`: the line a
# cold `untorn bench scan` is told in, its MB/s, seconds and reads, its
# fraction of the bound for logical read-ahead's window (the store's
# logical scan's: every scan of a store is held to it), and under load
# the writers' TPS against theirs alone.  `report`: per device a table of
# each layout's scans (MB/s of leaves per read-ahead policy, logical over
# linear and none, its fraction of the bound and of fio's sequential
# reads, dump over scan), the scans under load when they ran (the
# writers' TPS and p99 against theirs alone), recovery after the same
# crash with sync and batched reads; DIR/scan-matrix.json.
#
# USAGE: scan_report.py scan SCAN-JSON NAME LOGICAL-SCAN-JSON
#        scan_report.py report DIR DEVICES LAYOUTS COMMAND COMMIT
#   report  DIR holds DEV-LAYOUT-scan-POLICY.json, DEV-LAYOUT-dump.json,
#           DEV-LAYOUT-fio-seq.json, DEV-recover-MODE.json (and
#           target.json with DEVICES target); DEVICES and LAYOUTS are
#           comma-separated; COMMAND and COMMIT go into the JSON
import datetime
import json
import os
import platform
import sys

POLICIES = ("none", "linear", "logical")
LOADS = ("linear-load", "logical-load", "logical-load-sleep", "logical-load-yield")


def scan_line(d, name, bound):
    """A scan's line: d its JSON, bound the logical scan's bound (s)."""
    w = d["writers"]
    return "  scan %-18s %8.1f MB/s %7.2f s, %6d reads, %.2f of the bound%s" % (
        name, d["mb_per_s"], d["seconds"], d["ios"], bound / d["seconds"],
        ", writers %.0f TPS (%.2f of %.0f alone)" % (w["tps"], w["tps_over_alone"], w["alone_tps"])
        if w["threads"] else "")


def loader(out):
    """load(dev, layout, name): DIR/DEV-LAYOUT-NAME.json, or None."""
    def load(dev, layout, name):
        p = os.path.join(out, "%s-%s-%s.json" % (dev, layout, name))
        return json.load(open(p)) if os.path.exists(p) else None
    return load


def layout_row(dev, layout, s, dump, seq):
    """The summary of a layout's scans s (by policy), its dump and fio's
    sequential MB/s."""
    lg = s["logical"]
    return {"device": dev, "layout": layout, "fragmentation": lg["tree"]["fragmentation"],
            "leaves": lg["tree"]["leaves"], "window_pages": lg["window_pages"],
            "mb_per_s": {p: s[p]["mb_per_s"] for p in s},
            "fraction_of_bound": {p: lg["bound"]["seconds"] / s[p]["seconds"] for p in s},
            "bound_seconds": lg["bound"]["seconds"], "fio_seq_mb_per_s": seq,
            "logical_over_linear": lg["mb_per_s"] / s["linear"]["mb_per_s"],
            "logical_over_none": lg["mb_per_s"] / s["none"]["mb_per_s"],
            "logical_of_fio_seq": lg["mb_per_s"] / seq,
            "dump_over_scan": lg["seconds"] / dump["seconds"] if dump and dump["seconds"] else None}


def layout_line(row, s, seq):
    lg = s["logical"]
    return "%-10s %5.0f%% %8.1f %8.1f %8.1f %8.1fx %8.1fx %9.2f %9.2f %8.1f %9.2f" % (
        row["layout"], 100 * row["fragmentation"], s["none"]["mb_per_s"], s["linear"]["mb_per_s"], lg["mb_per_s"],
        row["logical_over_linear"], row["logical_over_none"], lg["fraction_of_bound"],
        row["logical_of_fio_seq"], seq, row["dump_over_scan"] or 0)


def under_load(ld):
    """The scans under load (by name) summed up, with logical's MB/s
    over linear's."""
    lin = ld["linear-load"]["mb_per_s"]
    u = {p: {"mb_per_s": ld[p]["mb_per_s"], "over_linear": ld[p]["mb_per_s"] / lin,
             "writers_tps": ld[p]["writers"]["tps"],
             "writers_alone_tps": ld[p]["writers"]["alone_tps"],
             "writers_over_alone": ld[p]["writers"]["tps_over_alone"],
             "writers_p99_us": ld[p]["writers"]["p99_us"],
             "writers_alone_p99_us": ld[p]["writers"]["alone_p99_us"],
             "lra_sleep_ms": ld[p]["lra_sleep_ms"],
             "paused_seconds": ld[p]["yield"].get("paused_seconds", 0)} for p in ld}
    u["logical_over_linear"] = ld["logical-load"]["mb_per_s"] / lin
    return u


def ms(us):
    """Microseconds as milliseconds; -1 (no commit in the window) as -."""
    return "%.1f" % (us / 1000) if us >= 0 else "-"


def load_lines(layout, ld, u):
    """The lines of the scans under load."""
    lines = ["%-10s under load: %d writers; each run after %d s of the writers alone" % (
                 layout, ld["logical-load"]["writers"]["threads"], ld["logical-load"]["writers"]["baseline_seconds"]),
             "%-10s %-26s %8s %8s %9s %9s %9s %11s %11s" % ("", "scan", "MB/s", "/linear", "TPS",
                                                          "TPS alone", "/alone", "p99 ms", "alone p99")]
    names = {"linear-load": "linear", "logical-load": "logical, full speed",
             "logical-load-sleep": "logical, --lra-sleep %d" % ld["logical-load-sleep"]["lra_sleep_ms"],
             "logical-load-yield": "logical, --lra-spare %d" % ld["logical-load-yield"]["yield"].get("spare_pct", 0)}
    for p in LOADS:
        x = u[p]
        lines.append("%-10s %-26s %8.1f %7.1fx %9.0f %9.0f %9.2f %11s %11s" % (
            "", names[p], x["mb_per_s"], x["over_linear"], x["writers_tps"], x["writers_alone_tps"],
            x["writers_over_alone"], ms(x["writers_p99_us"]), ms(x["writers_alone_p99_us"])))
    return lines


def recovery(dev, rec):
    """Recovery after the same crash with sync and batched reads: its
    summary and line."""
    r = {"device": dev, "recovery": {m: {k: rec[m][k] for k in ("seconds", "pages_read", "read_submits")} for m in rec}}
    r["recovery"]["sync_over_batched"] = rec["sync"]["seconds"] / rec["batched"]["seconds"]
    line = "recovery after the same crash: sync %.2f s, batched %.2f s (%d pages): %.1fx" % (
        rec["sync"]["seconds"], rec["batched"]["seconds"], rec["batched"]["pages_read"],
        r["recovery"]["sync_over_batched"])
    return r, line


def report(out, devices, layouts, cmd, commit, now=None):
    """Prints the tables, returns the summary object."""
    load = loader(out)
    now = now or datetime.datetime.now(datetime.timezone.utc)
    summary = {"date": now.isoformat(timespec="seconds"),
               "kernel": platform.release(), "commit": commit, "command": cmd, "runs": []}
    if "target" in devices.split(",") and os.path.exists(os.path.join(out, "target.json")):
        summary["target"] = json.load(open(os.path.join(out, "target.json")))
    for dev in devices.split(","):
        print("\n%s: cold scans, MB/s of leaves; bound: the least time with the window on fio's figures" % dev)
        print("%-10s %6s %8s %8s %8s %9s %9s %9s %9s %8s %9s" % ("layout", "frag", "none", "linear", "logical",
              "log/lin", "log/none", "of bound", "of fio 1M", "fio 1M", "dump/scan"))
        for layout in layouts.split(","):
            s = {p: load(dev, layout, "scan-" + p) for p in POLICIES}
            if not all(s.values()):
                continue
            seq = json.load(open(os.path.join(out, "%s-%s-fio-seq.json" % (dev, layout))))["jobs"][0]["read"]["bw_bytes"] / 1e6
            row = layout_row(dev, layout, s, load(dev, layout, "dump"), seq)
            print(layout_line(row, s, seq))
            ld = {p: load(dev, layout, "scan-" + p) for p in LOADS}
            if all(ld.values()):
                row["under_load"] = under_load(ld)
                print("\n".join(load_lines(layout, ld, row["under_load"])))
            summary["runs"].append(row)
        rec = {m: load(dev, "recover", m) for m in ("sync", "batched")}
        if all(rec.values()):
            r, line = recovery(dev, rec)
            print(line)
            summary["runs"].append(r)
    return summary


def main(argv):
    if argv[:1] == ["scan"] and len(argv) == 4:
        bound = json.load(open(argv[3]))["bound"]["seconds"]
        print(scan_line(json.load(open(argv[1])), argv[2], bound))
        return 0
    if argv[:1] == ["report"] and len(argv) == 6:
        out = argv[1]
        summary = report(out, *argv[2:6])
        json.dump(summary, open(os.path.join(out, "scan-matrix.json"), "w"), indent=1)
        print("\nsaved in %s (scan-matrix.json and each run's JSON)" % out)
        return 0
    print("usage: scan_report.py scan SCAN-JSON NAME LOGICAL-SCAN-JSON | report DIR DEVICES LAYOUTS COMMAND COMMIT",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
