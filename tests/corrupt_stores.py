#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
corrupt_stores.py - the driver behind corrupt_test.sh: copies a crashed
store N times, damages each copy one way (random bytes, a zeroed block,
a truncated file, two pages swapped, a flipped bit, another store's redo
log or doublewrite file), runs `untorn recover`, `untorn check` and
`untorn verify --acks` on it under a time limit, and sorts the outcome:

  recovered  recover 0, check 0, verify 0: every acknowledged commit and
             every value intact
  refused    recover, check or verify stopped with exit 1 or 2 and a
             message naming the damage (a file, a page or block, an LSN)
  reported   recover went on past zeros in a fresh log with sound log
             after them, and said which LSNs it did not apply: the tail of
             an interrupted write and zeroed damage look the same there
  other      a crash (signal), a hang (time limit), another exit code, a
             silent error (no message), or recover and check both clean
             while verify finds rows lost or wrong: must never happen

USAGE: corrupt_stores.py UNTORN BASE_STORE OTHER_STORE ACKS WORKDIR N SEED
Prints one line per kind and a JSON summary on the last line; exit 0 when
no outcome is "other".
"""
import collections
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys

FILES = ["untorn.dat", "untorn.redo", "untorn.dblwr"]
NAMES = re.compile(r"untorn\.(dat|redo|dblwr)|page \d+|block \d+|LSN|superblock|checkpoint|"
                   r"doublewrite|redo|store", re.I)


def page_size(store):
    with open(os.path.join(store, "untorn.dat"), "rb") as f:
        f.seek(12)
        return int.from_bytes(f.read(4), "little")


UNUSED_LOG_BLOCK = b"\xff" * 8	# block_lsn of a redo block never written


def live_offset(path, size, rng):
    """A random offset, nine times in ten inside a block that holds data
    (most of a fresh store's files are still zeros or unused redo blocks:
    damage there proves little)"""
    if rng.random() < 0.9:
        with open(path, "rb") as f:
            data = f.read()
        live = [i for i in range(0, len(data), 512)
                if any(data[i:i + 512]) and data[i:i + 8] != UNUSED_LOG_BLOCK]
        if live:
            return rng.choice(live) + rng.randrange(512)
    return rng.randrange(size)


def live_pages(path, ps):
    with open(path, "rb") as f:
        data = f.read()
    return [i for i in range(len(data) // ps) if any(data[i * ps:(i + 1) * ps])]


def corrupt(kind, store, other, rng):
    """Damages store one way; returns a short description."""
    name = rng.choice(FILES)
    path = os.path.join(store, name)
    size = os.path.getsize(path)
    ps = page_size(store) or 16384
    with open(path, "r+b") as f:
        if kind == "random-bytes":
            off, n = live_offset(path, size, rng), rng.randint(1, 512)
            f.seek(off)
            f.write(rng.randbytes(min(n, size - off)))
            return "%s: %d random bytes at %d" % (name, n, off)
        if kind == "zero-block":
            off = live_offset(path, size, rng) // 512 * 512
            f.seek(off)
            f.write(bytes(min(4096, size - off)))
            return "%s: zeroed 4 KiB at %d" % (name, off)
        if kind == "flip-bit":
            off = rng.randrange(min(size, 3 * 512)) if rng.random() < 0.3 else live_offset(path, size, rng)
            f.seek(off)
            b = f.read(1)[0] ^ (1 << rng.randrange(8))
            f.seek(off)
            f.write(bytes([b]))
            return "%s: bit flipped at %d" % (name, off)
        if kind == "truncate":
            n = rng.randrange(size)
            f.truncate(n)
            return "%s: truncated to %d of %d" % (name, n, size)
    if kind == "swap-pages":
        path = os.path.join(store, "untorn.dat")
        pages = live_pages(path, ps)
        a, b = rng.sample(pages, 2) if len(pages) > 1 else (0, 0)
        with open(path, "r+b") as f:
            f.seek(a * ps)
            pa = f.read(ps)
            f.seek(b * ps)
            pb = f.read(ps)
            f.seek(a * ps)
            f.write(pb)
            f.seek(b * ps)
            f.write(pa)
        return "untorn.dat: pages %d and %d swapped" % (a, b)
    if kind == "foreign-file":
        name = rng.choice(["untorn.redo", "untorn.dblwr"])
        shutil.copyfile(os.path.join(other, name), os.path.join(store, name))
        return "%s from another store" % name
    raise ValueError(kind)


def run(cmd, limit):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def judge(untorn, store, acks, limit):
    """(outcome, detail)"""
    steps = [("recover", [untorn, "recover", store]), ("check", [untorn, "check", store]),
             ("verify", [untorn, "verify", store, "--acks", acks])]
    for name, cmd in steps:
        rc, out, err = run(cmd, limit)
        if rc == "timeout":
            return "other", "%s hung (> %d s)" % (name, limit)
        if rc < 0:
            return "other", "%s died of signal %d: %s" % (name, -rc, err.strip()[-200:])
        if rc not in (0, 1, 2):
            return "other", "%s exited %d: %s" % (name, rc, err.strip()[-200:])
        if rc == 0:
            if name == "recover" and "WARNING: the log stops at an unwritten block" in out:
                # zeros in a fresh log with sound log after: a torn write
                # or damage, which cannot be told apart; said, not hidden
                return "reported", out.strip().splitlines()[-2][:200]
            continue
        text = (err + out).strip()
        if not text:
            return "other", "%s exited %d with no message" % (name, rc)
        if name == "verify" and rc == 1:
            return "other", "recover and check were clean, verify found: %s" % text.splitlines()[-1][:200]
        if not NAMES.search(text):
            return "other", "%s exited %d without naming the damage: %s" % (name, rc, text[:200])
        return "refused", "%s %d: %s" % (name, rc, text.splitlines()[0][:160])
    return "recovered", ""


def judged(untorn, store, acks):
    """judge(), then the copy goes"""
    try:
        return judge(untorn, store, acks, 60)
    finally:
        shutil.rmtree(store, ignore_errors=True)


def main():
    untorn, base, other, acks, work, n, seed = sys.argv[1:8]
    n, rng = int(n), random.Random(int(seed))
    kinds = ["random-bytes", "zero-block", "flip-bit", "truncate", "swap-pages", "foreign-file"]
    stats = {k: {"recovered": 0, "refused": 0, "reported": 0, "other": 0} for k in kinds}
    others = []
    # the copies are damaged in order from one generator (the same SEED
    # and N make the same damage again) and judged one per CPU at once;
    # at most two per CPU wait on disk
    workers = os.cpu_count() or 1
    pending = collections.deque()

    def collect():	# the oldest first: others stay in the order of i
        i, kind, what, fut = pending.popleft()
        outcome, detail = fut.result()
        stats[kind][outcome] += 1
        if outcome == "other":
            others.append("%d %s (%s): %s" % (i, kind, what, detail))

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for i in range(n):
            kind = kinds[i % len(kinds)]
            store = os.path.join(work, "c%d" % i)
            shutil.copytree(base, store)
            what = corrupt(kind, store, other, rng)
            pending.append((i, kind, what, pool.submit(judged, untorn, store, acks)))
            if len(pending) >= 2 * workers:
                collect()
        while pending:
            collect()
    for k in kinds:
        s = stats[k]
        print("%-13s recovered %4d  refused %4d  reported %3d  other %d" % (k, s["recovered"], s["refused"],
              s["reported"], s["other"]))
    for o in others[:20]:
        print("other: " + o)
    total = {o: sum(s[o] for s in stats.values()) for o in ("recovered", "refused", "reported", "other")}
    print(json.dumps({"stores": n, "seed": int(seed), "total": total, "by_kind": stats}))
    return 1 if total["other"] else 0


if __name__ == "__main__":
    sys.exit(main())
