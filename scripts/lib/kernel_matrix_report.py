#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# kernel_matrix_report.py - dev/kernel-matrix's matrix: a column per
# kernel (the host's first, then by release), a row per feature probe
# and test, from each column's KTAP (DIR/COLUMN.PART.ktap, PART one of
# features, suite, replay, atomic and their variants) and why a column
# has no results (DIR/COLUMN.why).  A cell is ok, FAIL, skip (why) or
# todo (why: a known failure, said and not counted), with the scratch
# paths that differ between columns taken out.  Writes DIR/matrix.md and
# DIR/matrix.json, prints the table, then for the first failures what
# each printed before its line (the end of a CI log is what gets read).
#
# USAGE: kernel_matrix_report.py DIR
#   exit 1 when a case failed, else 0
import glob
import json
import os
import re
import sys

PARTS = ("features", "suite", "replay", "atomic")
# a top-level KTAP case: nested KTAP is indented
CASE = re.compile(r"^(not ok|ok) (\d+) (.*?)(?: # (SKIP|TODO) ?(.*))?$")
# a scratch path, which says nothing across columns
SCRATCH = re.compile(r"(?: (?:on|in|for))? /(?:run|tmp|var/tmp)/[^\s:)]*:?")


def columns(d):
    """({column: [(part, path)]}, the columns in order): the host's
    first, then by name with its numbers compared as numbers."""
    parts, cols = {}, []
    for p in sorted(glob.glob(os.path.join(d, "*.ktap"))):
        col, _, part = os.path.basename(p)[:-5].rpartition(".")
        if not col:
            col, part = part, ""
        parts.setdefault(col, []).append((part, p))
        if col not in cols:
            cols.append(col)
    cols.sort(key=lambda c: (not c.startswith("host"), [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", c)]))
    return parts, cols


def order(part):
    """A part's place: features, suite, replay, atomic, then the rest."""
    head = part.split("-")[0]
    return (PARTS.index(head) if head in PARTS else 9, part)


def failure_lines(block):
    """What a failed case printed before its line: the nested cases that
    failed with the comments just before each, else the comments that
    say FAIL or quote the kernel, and the last two."""
    keep, notes = [], [b for b in block if b.strip().startswith("#")]
    for i, l in enumerate(block):
        # a nested case is a comment: "# not ok 8 ..." in the program's block
        if re.sub(r"^(#\s*)+", "", l.strip()).startswith("not ok") and "# TODO" not in l:
            keep += [b for b in block[max(0, i - 3):i] if b.strip().startswith("#")] + [l]
    if not keep:
        keep = [b for b in notes[:-2] if re.search(r"FAIL|does not|kernel:|rror", b)][-8:] + notes[-2:]
    return keep[-12:]


def row_name(part, title):
    """The row a case goes in: its title without the selftests prefix,
    what follows ": " or " (", and a trailing "# exit=1" (the same row
    as ok), after its part."""
    name = re.sub(r"^selftests: untorn: ", "", title)
    name = re.sub(r"(: |\s\().*$", "", name).strip()
    name = re.sub(r"\s+#\s.*$", "", name)
    return part + ": " + name if part else name


def skip_cell(m, nested):
    """A skipped case's cell: its reason, or for a program every case of
    which skipped, the first one's."""
    why = SCRATCH.sub("", m.group(5) or "").strip()
    if not why:
        skips = [re.search(r"# SKIP (.+)$", b) for b in nested if re.match(r"^#\s*ok \d+ ", b.strip())]
        why = next((SCRATCH.sub("", k.group(1)).strip() for k in skips if k), "")
    return "skip (%s)" % why if why else "skip"


def matrix(d):
    """(cols, rows, cells, failed, why_failed) of the KTAP in d."""
    parts, cols = columns(d)
    rows, cells, failed, rank, why_failed = [], {}, 0, {}, []
    for c in cols:
        why = os.path.join(d, c + ".why")
        note = open(why).read().strip() if os.path.exists(why) else ""
        seen = False
        for part, path in sorted(parts[c], key=lambda x: order(x[0])):
            block = []  # the lines since the last top-level case: its diagnostics
            for line in open(path, errors="replace").read().splitlines():
                m = CASE.match(line)
                if not m:
                    block.append(line)
                    continue
                if m.group(1) == "not ok" and m.group(4) != "TODO":
                    why_failed.append(("%s %s: %s" % (c, part, m.group(3)), failure_lines(block)))
                nested, block = block, []
                seen = True
                name = row_name(part, m.group(3))
                if name not in rows:
                    rows.append(name)
                    rank[name] = (order(part), int(m.group(2)))
                if m.group(4) == "TODO":  # a known failure, said and not counted
                    cells[(name, c)] = "todo (%s)" % SCRATCH.sub("", m.group(5) or "").strip()
                elif m.group(1) == "not ok":
                    cells[(name, c)] = "FAIL"
                    failed += 1
                elif m.group(4) is not None:
                    cells[(name, c)] = skip_cell(m, nested)
                else:
                    cells[(name, c)] = "ok"
        if not seen:
            cells[("(no result)", c)] = "skip (%s)" % (note or "no KTAP from this column")
            if "(no result)" not in rows:
                rows.append("(no result)")
    rows.sort(key=lambda r: rank.get(r, ((99, ""), 0)))  # by part, then case number; "(no result)" last
    return cols, rows, cells, failed, why_failed


def markdown(cols, rows, cells):
    """The matrix as a Markdown table's lines."""
    md = ["| feature / test | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for r in rows:
        md.append("| %s | %s |" % (r.replace("|", "/"), " | ".join(cells.get((r, c), "-").replace("|", "/") for c in cols)))
    return md


def main(argv):
    if len(argv) != 1:
        print("usage: kernel_matrix_report.py DIR", file=sys.stderr)
        return 2
    d = argv[0]
    cols, rows, cells, failed, why_failed = matrix(d)
    md = markdown(cols, rows, cells)
    open(os.path.join(d, "matrix.md"), "w").write("\n".join(md) + "\n")
    json.dump({"columns": cols, "rows": rows,
               "cells": {r: {c: cells.get((r, c), "-") for c in cols} for r in rows}},
              open(os.path.join(d, "matrix.json"), "w"), indent=1)
    print("\n".join(md))
    # what failed, after the table: the end of a CI log is what gets read
    for head, lines in why_failed[:8]:
        print("FAIL %s" % head[:300])
        for l in lines:
            print("    %s" % l.strip()[:300])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
