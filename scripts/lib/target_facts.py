#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# target_facts.py - the facts of a --target (target.sh's target_facts):
# a block device, or a directory on a mounted filesystem, as one JSON
# object -- the device and its whole disk, its model, whether it is
# rotational, its logical and physical block sizes, queue depth, write
# cache and atomic write units (from /sys/block/DISK/queue), and for a
# directory its filesystem, mount options and data mode from
# untorn-fscheck's JSON and ext4's jbd2 journal size from dumpe2fs --
# written to OUT and printed as one line.
#
# USAGE: target_facts.py PATH OUT [DEVICE] [FSCHECK-JSON]
#   DEVICE        the block device under PATH when PATH is a directory
#                 ("": found from the mount, findmnt's SOURCE)
#   FSCHECK-JSON  untorn-fscheck PATH --json's output ("" or not JSON:
#                 no filesystem facts)
import json
import os
import subprocess
import sys

# target.json's name for a fact of /sys/block/DISK/queue, and the file
QUEUE = (("rotational", "rotational"), ("logical_block_size", "logical_block_size"),
         ("physical_block_size", "physical_block_size"), ("queue_depth", "nr_requests"),
         ("write_cache", "write_cache"), ("atomic_write_unit_min_bytes", "atomic_write_unit_min_bytes"),
         ("atomic_write_unit_max_bytes", "atomic_write_unit_max_bytes"),
         ("atomic_write_boundary_bytes", "atomic_write_boundary_bytes"),
         ("atomic_write_max_bytes", "atomic_write_max_bytes"))
# untorn-fscheck's keys a directory's facts keep (those not naming the
# filesystem or the mount get fs_ before them)
FS_KEYS = ("fstype", "mount_point", "mount_options", "data_mode", "block_size",
           "atomic_write_unit_min", "atomic_write_unit_max", "stack_layers", "stack_atomic_unit")


def rd(p):
    """A sysfs file's text, stripped, or None."""
    try:
        with open(p) as f:
            return f.read().strip()
    except OSError:
        return None


def run(argv):
    """A command's stdout ("" when it cannot run)."""
    try:
        return subprocess.run(argv, capture_output=True, text=True).stdout
    except OSError:
        return ""


def parse_fscheck(text):
    """untorn-fscheck's JSON as a dict ({} for nothing or not JSON)."""
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return {}


def fs_facts(fs):
    """A directory's facts from untorn-fscheck's object."""
    return {("fs_" + k if not k.startswith(("fs", "mount")) else k): fs[k] for k in FS_KEYS if k in fs}


def jbd2_size(dumpe2fs_out):
    """The jbd2 journal's size as dumpe2fs -h prints it, or None."""
    size = None
    for line in dumpe2fs_out.splitlines():
        if line.startswith(("Journal size:", "Total journal size:")):
            size = line.split(":", 1)[1].strip()
    return size


def disk_facts(dev, sysfs="/sys"):
    """The facts of the block device dev ("" when unknown) and of its
    whole disk, read from sysfs."""
    facts = {}
    name = os.path.basename(os.path.realpath(dev)) if dev else ""
    sysd = os.path.join(sysfs, "class/block", name)
    if name and os.path.exists(sysd + "/partition"):
        whole = os.path.basename(os.path.dirname(os.path.realpath(sysd)))
    else:
        whole = name
    facts["device"] = "/dev/" + name if name else ""
    facts["disk"] = whole
    q = os.path.join(sysfs, "block", whole, "queue")
    for k, f in QUEUE:
        v = rd(os.path.join(q, f))
        if v is not None:
            facts[k] = int(v) if v.isdigit() else v
    blk = os.path.join(sysfs, "block", whole)
    model = " ".join(x for x in (rd(blk + "/device/vendor"), rd(blk + "/device/model")) if x)
    if not model and whole.startswith("loop"):
        model = "loop device on " + (rd(blk + "/loop/backing_file") or "?")
    facts["model"] = model or "unknown"
    return facts


def facts_of(path, dev, fscheck, sysfs="/sys"):
    """PATH's facts: a device's own, or a directory's filesystem and the
    device under it."""
    facts = {"target": path, "kind": "directory" if os.path.isdir(path) else "device"}
    if facts["kind"] == "device":
        dev = path
    else:
        fs = parse_fscheck(fscheck)
        src = run(["findmnt", "-no", "SOURCE", "-T", path]).strip()
        dev = dev or src
        facts.update(fs_facts(fs))
        facts["source"] = src
        if fs.get("fstype") in ("ext4", "ext3"):
            size = jbd2_size(run(["dumpe2fs", "-h", src]))
            if size is not None:
                facts["jbd2_journal_size"] = size
    facts.update(disk_facts(dev, sysfs))
    return facts


def line(facts):
    """The facts in one line, as the scripts print them."""
    return "%s: %s (%s), %s, %s/%s-byte blocks, queue %s, cache %s, atomic writes %s%s" % (
        facts["target"], facts["device"] or "?", facts["model"],
        "rotational" if facts.get("rotational") == 1 else "non-rotational",
        facts.get("logical_block_size", "?"), facts.get("physical_block_size", "?"),
        facts.get("queue_depth", "?"), facts.get("write_cache", "?"),
        "%s-%s bytes" % (facts.get("atomic_write_unit_min_bytes"), facts.get("atomic_write_unit_max_bytes"))
        if facts.get("atomic_write_unit_max_bytes") else "none",
        ("; %s %s, journal %s" % (facts.get("fstype"), facts.get("mount_options"), facts.get("jbd2_journal_size", "-")))
        if facts["kind"] == "directory" else "")


def main(argv):
    if len(argv) < 2:
        print("usage: target_facts.py PATH OUT [DEVICE] [FSCHECK-JSON]", file=sys.stderr)
        return 2
    path, out = argv[0], argv[1]
    dev = argv[2] if len(argv) > 2 else ""
    fscheck = argv[3] if len(argv) > 3 else ""
    facts = facts_of(path, dev, fscheck)
    json.dump(facts, open(out, "w"), indent=1)
    print(line(facts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
