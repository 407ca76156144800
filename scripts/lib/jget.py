#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# jget.py - the one JSON reader of untorn's shell scripts (common.sh's
# jget): fields of a JSON file, one a line, as Python prints them (a
# string as it is, true as True, 0.5 as 0.5).  A KEY is a path into the
# object, its steps joined by dots: a name in an object, a number in a
# list (jobs.0.read.iops).  Reads the JSON as JSON, not by its lines, so
# it holds whatever indentation the writer used.  Several files in one
# call, each with its keys, after "--": a Python start is what a field
# costs (in a software-emulated guest, much).
#
# USAGE: jget.py [--default VALUE] FILE KEY[.KEY...] [KEY...] [-- FILE KEY...]...
#   FILE       a JSON file; - is stdin
#   --default  VALUE printed for a field that is missing, and for each
#              field of a FILE that is missing or is not JSON; without
#              it these end in one line on stderr and exit 1
import json
import sys


class Missing(Exception):
    """A field jget cannot give: the message says which and why."""


def field(doc, key):
    """The value at KEY (steps joined by dots) in doc, or Missing."""
    v = doc
    for step in key.split("."):
        if isinstance(v, dict) and step in v:
            v = v[step]
        elif isinstance(v, list) and step.lstrip("-").isdigit() and -len(v) <= int(step) < len(v):
            v = v[int(step)]
        else:
            raise Missing("no %s" % key)
    return v


def load(path):
    """The JSON document of path (- is stdin), or Missing."""
    try:
        if path == "-":
            return json.load(sys.stdin)
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise Missing("cannot read it (%s)" % (e.strerror or e))
    except ValueError as e:
        raise Missing("not JSON (%s)" % e)


def groups(args):
    """[(FILE, [KEY...]), ...] from FILE KEY... [-- FILE KEY...]..."""
    out, cur = [], []
    for a in args + ["--"]:
        if a != "--":
            cur.append(a)
            continue
        if len(cur) < 2:
            raise ValueError("each FILE needs at least one KEY")
        out.append((cur[0], cur[1:]))
        cur = []
    return out


def values(args, default=None):
    """The lines jget prints for args, in order; Missing ends it unless
    a default stands in."""
    lines = []
    for path, keys in groups(args):
        try:
            doc = load(path)
        except Missing as e:
            if default is None:
                raise Missing("%s: %s" % (path, e))
            lines.extend([default] * len(keys))
            continue
        for k in keys:
            try:
                lines.append(str(field(doc, k)))
            except Missing as e:
                if default is None:
                    raise Missing("%s: %s" % (path, e))
                lines.append(default)
    return lines


def main(argv):
    default = None
    if argv[:1] == ["--default"] and len(argv) > 1:
        default, argv = argv[1], argv[2:]
    try:
        lines = values(argv, default)
    except ValueError as e:
        print("jget: %s; usage: jget [--default VALUE] FILE KEY[.KEY...]... [-- FILE KEY...]..." % e,
              file=sys.stderr)
        return 2
    except Missing as e:
        print("jget: %s" % e, file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
