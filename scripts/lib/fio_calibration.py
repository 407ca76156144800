#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# fio_calibration.py - the figures of calibrate.sh's fio runs: one run's
# "IOPS MB/s LATENCY-MS" from fio's JSON (the reads', else the writes';
# the latency fdatasync's where the job synced, else the completion
# latency), and the six runs of a calibration as one JSON object.
#
# USAGE: fio_calibration.py figures < FIO-JSON
#        fio_calibration.py json PATH RESULT...
#   figures  one line "IOPS MB/s LATENCY-MS" (%.0f %.1f %.2f); exit 1
#            when the JSON is not fio's
#   json     the object of fio_json (device, randread_16k_iops,
#            randread_16k_qd32_iops, randwrite_16k_iops, seqread_1m_mb_s,
#            seqwrite_4k_iops, seqwrite_4k_mb_s, fdatasync_ms) from the
#            six RESULTs ("IOPS MB/s LATENCY-MS" each, in fio_jobs' order)
import json
import sys


def figures(fio):
    """(iops, MB/s, mean latency in ms) of fio's first job."""
    j = fio["jobs"][0]
    r = j["read"] if j["read"]["io_bytes"] else j["write"]
    lat = j["sync"]["lat_ns"]["mean"] if j.get("sync", {}).get("lat_ns", {}).get("mean") else r["clat_ns"]["mean"]
    return r["iops"], r["bw_bytes"] / 1e6, lat / 1e6


def calibration(path, results):
    """fio_json's object from the six "IOPS MB/s LATENCY-MS" results."""
    f = [s.split() for s in results]
    return {"device": path, "randread_16k_iops": int(f[0][0]),
            "randread_16k_qd32_iops": int(f[1][0]), "randwrite_16k_iops": int(f[2][0]),
            "seqread_1m_mb_s": float(f[3][1]), "seqwrite_4k_iops": int(f[4][0]),
            "seqwrite_4k_mb_s": float(f[4][1]), "fdatasync_ms": float(f[5][2])}


def main(argv):
    if argv[:1] == ["figures"]:
        try:
            print("%.0f %.1f %.2f" % figures(json.load(sys.stdin)))
        except (ValueError, KeyError, IndexError, TypeError):
            return 1
        return 0
    if argv[:1] == ["json"] and len(argv) == 8:
        print(json.dumps(calibration(argv[1], argv[2:])))
        return 0
    print("usage: fio_calibration.py figures < FIO-JSON | json PATH RESULT x6", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
