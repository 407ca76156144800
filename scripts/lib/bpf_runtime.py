#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# bpf_runtime.py - what the BPF programs of the running bpftrace
# processes have cost so far (bt.sh's bt_prog_runtime): "RUNS NS", each
# program's run_cnt and run_time_ns from its fd's fdinfo, summed over
# the programs and counted once per prog_id (two bpftrace processes may
# hold one program).  The kernel counts them only while the sysctl
# kernel.bpf_stats_enabled is 1 (two clock reads per run).
#
# USAGE: bpf_runtime.py [PROC]
#   PROC  where /proc is (default /proc; the tests give a made-up one)
import glob
import os
import sys


def fdinfo(path):
    """An fdinfo file's "key: value" lines as a dict of strings."""
    with open(path) as f:
        return dict(line.split(":", 1) for line in f if ":" in line)


def bpftrace_pids(proc):
    """The /proc/PID directories of the processes named bpftrace."""
    for comm in glob.glob(os.path.join(proc, "[0-9]*", "comm")):
        try:
            with open(comm) as f:
                if f.read().strip() == "bpftrace":
                    yield os.path.dirname(comm)
        except OSError:  # a process gone while read
            continue


def runtime(proc="/proc"):
    """(runs, ns) summed over the BPF programs bpftrace holds, each
    prog_id once."""
    seen, runs, ns = set(), 0, 0
    for pid_dir in bpftrace_pids(proc):
        try:
            for fd in os.listdir(os.path.join(pid_dir, "fdinfo")):
                f = fdinfo(os.path.join(pid_dir, "fdinfo", fd))
                prog_id = f.get("prog_id", "").strip()
                if prog_id and prog_id not in seen and "run_time_ns" in f:
                    seen.add(prog_id)
                    runs += int(f["run_cnt"])
                    ns += int(f["run_time_ns"])
        except OSError:  # a process or fd gone while read
            continue
    return runs, ns


def main(argv):
    runs, ns = runtime(argv[0] if argv else "/proc")
    print(runs, ns)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
