#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# demo_report.py - what scripts/demo prints at its end.  `report`: the
# table of what the demo measured (bench write per device and guard, as
# ratios to doublewrite and none; cold scans per layout and read-ahead
# policy, with the fraction of the bound), what was skipped or failed,
# DIR/demo.json, and with matplotlib demo-write.png and demo-scan.png.
# `verdicts`: untorn-fscheck's verdicts, first on this machine's own
# mounts (their --json objects, one after another on stdin), then on
# the filesystems the benchmarks ran on (the run JSONs, each carrying
# device and filesystem), one line each and a closing line: where the
# doublewrite may be turned off, and where each copyless guard is safe.
# The guards are ordered as UNTORN_GUARD_ORDER lists them.
#
# USAGE: demo_report.py report DIR MODE ELAPSED-S FAILED SECONDS
#        demo_report.py verdicts [MEASURED-JSON...] < FSCHECK-JSONS
#   report    DIR holds the runs (*-write-*.json, *-scan-*.json),
#             hdd-calibration.json and skipped.txt; MODE full or plain;
#             FAILED the step that failed ("": none); SECONDS each
#             bench write's
import glob
import json
import os
import sys

POLICIES = ["none", "linear", "logical"]
LAYOUTS = ["sequential", "random", "split"]


def load(p):
    return json.load(open(p))


def devices_of(runs):
    """The devices the runs were on, in the demo's order."""
    return [d for d in ["ssd", "hdd", "plain"] if any(w["device"] == d for w in runs)]


def write_table(writes, order, devices, seconds, mode):
    """bench write's table: each guard's TPS and its ratios."""
    wby = {(w["device"], w["guard"]): w for w in writes}
    # what the runs are: a regime, a length, one round; the figures read as such
    regime = "commit-bound (sync commit: every commit waits for its fdatasync), 4 threads, %s s, one run per guard" % seconds
    lines = ["\nbench write, " + regime + "; 16 KiB pages, fragmented store" +
             (", each guard's redo log on a device of its own (init --redo-dir)" if mode == "full" else ""),
             "%-6s %-12s %-22s %9s %8s %8s %10s %9s %7s" % ("device", "guard", "filesystem", "TPS", "/dblwr", "/none",
                                                          "p99 us", "dev MB", "fsyncs")]
    for d in devices:
        for g in order:
            w = wby.get((d, g))
            if not w:
                continue
            base, none = wby.get((d, "doublewrite")), wby.get((d, "none"))
            mb = w["device_bytes_written"] / 1e6 if isinstance(w["device_bytes_written"], (int, float)) else float("nan")
            lines.append("%-6s %-12s %-22s %9.0f %8s %8s %10d %9.1f %7d" % (
                d, g, w["filesystem"][:22], w["tps"],
                "%.2fx" % (w["tps"] / base["tps"]) if base else "-",
                "%.2fx" % (w["tps"] / none["tps"]) if none else "-",
                w["commit_p99_us"], mb, w["fsyncs"]))
    if writes:
        lines += ["one short run per guard, bound by commits, not page writes: such runs of doublewrite and none on an",
                  "SSD loop gave none 0.81-1.08x of doublewrite (docs/demo.md), so a gap under 20 % between guards here is",
                  "noise, not a cost; what the doublewrite costs shows where page writes bound (%s)"
                  % ("the flush-bound runs below" if mode == "full" else "make demo as root: its flush-bound runs")]
    return lines


def scan_table(scans, devices):
    """bench scan's table: each layout's MB/s per read-ahead policy."""
    sby = {(s["device"], s["layout"], s["policy"]): s for s in scans}
    lines = ["\nbench scan --cold: full scan in key order, pool 4 MiB, MB/s of leaves; logical: a 2 MiB window,",
             "merged by fio's figures; bound: the least time any policy with that window could take",
             "%-6s %-10s %6s %8s %8s %8s %8s %8s %9s" % ("device", "layout", "frag", "none", "linear", "logical",
                                                        "log/lin", "log/none", "of bound")]
    for d in devices:
        for l in LAYOUTS:
            s = {p: sby.get((d, l, p)) for p in POLICIES}
            if not all(s.values()):
                continue
            lg = s["logical"]
            lines.append("%-6s %-10s %5.0f%% %8.1f %8.1f %8.1f %7.1fx %7.1fx %9s" % (
                d, l, 100 * lg["tree"]["fragmentation"],
                s["none"]["mb_per_s"], s["linear"]["mb_per_s"], lg["mb_per_s"],
                lg["mb_per_s"] / s["linear"]["mb_per_s"], lg["mb_per_s"] / s["none"]["mb_per_s"],
                "%.2f" % lg["fraction_of_bound"] if "fraction_of_bound" in lg else "-"))
    return lines


def bars(plt, path, title, ylabel, groups, series, value):
    """A bar chart, a panel per group, each on its own linear axis from
    zero: bar heights compare as the numbers do, and the HDD's few
    hundred TPS are not flattened under the SSD's thousands."""
    fig, axes = plt.subplots(1, max(1, len(groups)), figsize=(max(5, 2.6 * len(groups)), 4), squeeze=False)
    for g, ax in zip(groups, axes[0]):
        ax.bar(range(len(series)), [value(g, s) for s in series], color=["C%d" % i for i in range(len(series))])
        ax.set_xticks(range(len(series)))
        ax.set_xticklabels(series, rotation=30, ha="right", fontsize="small")
        ax.set_ylim(bottom=0)
        ax.set_title(g, fontsize="medium")
    axes[0][0].set_ylabel(ylabel)
    fig.suptitle(title + " (linear axes from 0)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def charts(plt, res, writes, scans, order, devices, seconds):
    """demo-write.png and demo-scan.png."""
    wby = {(w["device"], w["guard"]): w for w in writes}
    sby = {(s["device"], s["layout"], s["policy"]): s for s in scans}
    bars(plt, os.path.join(res, "demo-write.png"),
         "bench write per guard, commit-bound:\nsync commit, 4 threads, %s s, one run each\n(gaps under 20 %% are noise)" % seconds,
         "transactions/s",
         devices, [g for g in order if any(k[1] == g for k in wby)],
         lambda d, g: wby[(d, g)]["tps"] if (d, g) in wby else 0)
    groups = ["%s %s" % (d, l) for d in devices for l in LAYOUTS if (d, l, "logical") in sby]
    bars(plt, os.path.join(res, "demo-scan.png"), "cold full scan per layout and read-ahead policy", "MB/s of leaves",
         groups, [p for p in POLICIES if any(k[2] == p for k in sby)],
         lambda g, p: sby[tuple(g.split()) + (p,)]["mb_per_s"] if tuple(g.split()) + (p,) in sby else 0)


def report(res, mode, elapsed, failed, seconds, order):
    writes = [load(p) for p in sorted(glob.glob(os.path.join(res, "*-write-*.json")))]
    scans = [load(p) for p in sorted(glob.glob(os.path.join(res, "*-scan-*.json")))]
    cal = os.path.join(res, "hdd-calibration.json")
    skipped = [l for l in open(os.path.join(res, "skipped.txt")).read().splitlines() if l]
    devices = devices_of(writes + scans)
    lines = write_table(writes, order, devices, seconds, mode) + scan_table(scans, devices)
    lines += ["skipped: " + s for s in skipped]
    if failed:
        lines.append("failed: %s; the rows above are what the steps before it measured" % failed)
    print("\n".join(lines))
    summary = dict(mode=mode, elapsed_seconds=elapsed, failed=failed or None, writes=writes, scans=scans, skipped=skipped,
                   hdd_calibration=load(cal) if os.path.exists(cal) else None)
    json.dump(summary, open(os.path.join(res, "demo.json"), "w"), indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: no PNG; apt-get install python3-matplotlib)")
        return 0
    charts(plt, res, writes, scans, order, devices, seconds)
    print("\nresults in %s (demo.json, demo-write.png, demo-scan.png); %d s" % (res, elapsed))
    return 0


def json_stream(text):
    """The JSON objects written one after another in text."""
    dec, out, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        d, at = dec.raw_decode(text, at)
        out.append(d)
    return out


def copyless_guards(verdicts):
    """The guards that write no copy, as untorn-fscheck names them
    (untorn_GUARD), from the first verdict."""
    first = verdicts[0] if verdicts else {}
    return [k[len("untorn_"):] for k, x in first.items()
            if k.startswith("untorn_") and isinstance(x, dict) and "safe" in x and k != "untorn_doublewrite"]


def verdict_lines(ds, name, guards):
    """A line per filesystem: InnoDB's verdict and each guard's."""
    lines = []
    for d in ds:
        v = d["innodb_doublewrite_off"]
        lines.append("  %s: InnoDB %s; untorn %s%s" % (
            name(d), "SAFE" if v["safe"] else "UNSAFE",
            ", ".join("%s guard %s" % (g, "SAFE" if d["untorn_" + g]["safe"] else "unsafe") for g in guards),
            "" if v["safe"] else ": " + v["reason"]))
    return lines


def closing(ds, name, what, guards):
    """The closing line over the filesystems ds: where the doublewrite
    may go, and where each guard is safe."""
    n = len(ds)
    safe = [name(d) for d in ds if d["innodb_doublewrite_off"]["safe"]]
    if n == 1:
        off = ("safe on %s" if safe else "not safe on %s: keep the doublewrite there") % name(ds[0])
    elif not safe:
        off = "safe on none of %s: keep the doublewrite on every one" % what
    elif len(safe) == n:
        off = "safe on all %s" % what
    else:
        off = "safe on %s (%d of %s); keep the doublewrite on the others" % (", ".join(safe), len(safe), what)
    per = ["untorn --guard %s on %s" % (g, ", ".join(name(d) for d in ds if d["untorn_" + g]["safe"]) or "none")
           for g in guards]
    return "innodb_doublewrite=OFF is %s; %s" % (off, "; ".join(per))


def verdicts(own, measured):
    """The verdicts' lines: this machine's own mounts, then what the
    demo measured."""
    guards = copyless_guards(own + measured)
    lines = [""]
    if own:
        def mount(d):
            return "%s (%s on %s)" % (d["mount_point"], d["fstype"], d["source"])
        lines.append("this machine's own mounts, not what the demo measured, by untorn-fscheck (16 KiB pages):")
        lines += verdict_lines(own, mount, guards)
        lines.append("this machine: " + closing(own, lambda d: d["mount_point"], "its %d mounts" % len(own), guards))
    else:
        lines.append("this machine: no ext4, XFS or btrfs mount of a disk to judge"
                     " (untorn-fscheck PATH judges any other)")
    if measured:
        def where(d):
            return "%s %s" % (d["device"], d["filesystem"])
        lines += ["", "the filesystems the benchmarks above ran on, by untorn-fscheck (16 KiB pages):"]
        lines += verdict_lines(measured, where, guards)
        lines.append("measured above: " + closing(measured, where, "the %d filesystems measured" % len(measured),
                                                  guards))
    return lines


def main(argv):
    if argv[:1] == ["report"] and len(argv) == 6:
        return report(argv[1], argv[2], int(argv[3]), argv[4], argv[5], os.environ["UNTORN_GUARD_ORDER"].split())
    if argv[:1] == ["verdicts"]:
        print("\n".join(verdicts(json_stream(sys.stdin.read()), [load(f) for f in argv[1:]])))
        return 0
    print("usage: demo_report.py report DIR MODE ELAPSED-S FAILED SECONDS | verdicts [MEASURED-JSON...]",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
