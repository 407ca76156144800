#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# peer_report.py - peer-mariadb's runs and report: MariaDB under sysbench
# oltp_write_only in each configuration (dw: the doublewrite on; journal:
# off on ext4 data=journal; none: off, unsafe) on each device.  `run`:
# one run's JSON on stdout from sysbench's per-second lines after the
# warm-up (mean, median, worst second, worst over the median, seconds
# below half the median and at zero, every second's TPS; on --target the
# target's facts).  `report`: a line per device and configuration, its
# TPS over dw's beside untorn's own ratio for the same guard (from
# bench-matrix's runs in UNTORN-DIR, when given), and OUT/peer.json.
#
# USAGE: peer_report.py run SYSBENCH-LOG WARMUP-S DEVICE CONFIG THREADS
#                           SECONDS TARGET-JSON
#        peer_report.py report OUT UNTORN-DIR THREADS DEVICES CONFIGS
#   run     exit 1 when the log has no per-second figures
#   report  DEVICES and CONFIGS comma-separated; UNTORN-DIR "": none
import json
import os
import re
import statistics
import sys

# peer-mariadb's configuration and the untorn guard it stands beside
GUARD = {"dw": "doublewrite", "journal": "journal", "none": "none"}


def series_of(lines, warmup):
    """Each second's TPS after the warm-up, from sysbench's report lines."""
    series = []
    for line in lines:
        m = re.match(r"\[ (\d+)s \] thds: \d+ tps: ([\d.]+)", line)
        if m and int(m.group(1)) > warmup:
            series.append(float(m.group(2)))
    return series


def run_result(series, warmup, device, config, threads, seconds, facts):
    """A run's object from its seconds' TPS (facts: the target's, or None)."""
    med = statistics.median(series)
    return {"engine": "mariadb", "device": device, "config": config,
            "threads": threads, "seconds": seconds, "warmup_seconds": warmup,
            "tps": sum(series) / len(series), "tps_median_second": med,
            "tps_worst_second": min(series),
            "worst_over_median": min(series) / med if med else 0,
            "seconds_below_half_median": sum(1 for t in series if t < med / 2),
            "seconds_at_zero": sum(1 for t in series if t == 0),
            "target": facts,
            "tps_series": series}


def run(log, warmup, device, config, threads, seconds, facts):
    series = series_of(open(log), int(warmup))
    if not series:
        print("peer-mariadb: no per-second figures in the sysbench output", file=sys.stderr)
        return 1
    target = json.load(open(facts)) if device == "target" and os.path.exists(facts) else None
    json.dump(run_result(series, int(warmup), device, config, int(threads), int(seconds), target), sys.stdout)
    return 0


def untorn_ratio(udir, device, config, threads):
    """untorn's TPS for config's guard over doublewrite's on device, from
    bench-matrix's runs in udir (None when not there)."""
    try:
        ut = json.load(open(os.path.join(udir, f"{device}-{GUARD[config]}-t{threads}.json")))["tps"]
        ud = json.load(open(os.path.join(udir, f"{device}-doublewrite-t{threads}.json")))["tps"]
        return ut / ud
    except (OSError, KeyError, ValueError):
        return None


def report(out, udir, threads, devices, configs):
    rows = []
    print("\ndev    config      mariadb tps   /dw    worst/med   untorn /dw")
    for d in devices.split(","):
        base = None
        for c in configs.split(","):
            r = json.load(open(os.path.join(out, f"mariadb-{d}-{c}.json")))
            if c == "dw":
                base = r["tps"]
            ratio = r["tps"] / base if base else None
            u = untorn_ratio(udir, d, c, threads) if udir else None
            r.update({"ratio_to_dw": ratio, "untorn_ratio_to_doublewrite": u})
            rows.append(r)
            print(f"{d:6s} {c:8s} {r['tps']:14.0f} {ratio if ratio else 0:6.2f}x {r['worst_over_median']:9.2f}"
                  + (f" {u:11.2f}x" if u else "           -"))
    json.dump(rows, open(os.path.join(out, "peer.json"), "w"), indent=1)
    print(f"\nwrote {out}/peer.json")
    return 0


def main(argv):
    if argv[:1] == ["run"] and len(argv) == 8:
        return run(*argv[1:])
    if argv[:1] == ["report"] and len(argv) == 6:
        return report(*argv[1:])
    print("usage: peer_report.py run SYSBENCH-LOG WARMUP-S DEVICE CONFIG THREADS SECONDS TARGET-JSON"
          " | report OUT UNTORN-DIR THREADS DEVICES CONFIGS", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
