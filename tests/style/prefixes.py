#!/usr/bin/env python3
"""A function's name says where it lives (doc/style.md): every function
a file of src/ exports (from `nm` on the build's objects) is named

  * after its file: tools.c's tools_run, catalog_print.c's catalog_print,
    or after its folder and file: mcp/set.c's mcp_set_add;
  * or after a type its own header declares, for the functions of that
    type: roster.h declares struct member, so roster.c has member_free
    (an opaque type, declared in the header, is defined in the file);
  * or, in a file named team*.c, after the team (team_spawn in
    teamspawn.c): the team's interface (agent/team.h) is one, kept in
    files of one concept each.

The allocation wrappers of util/xmalloc.c (xmalloc, xstrdup...) keep the
names every C programmer knows. Programs' entry points (main) are not
checked. A name that breaks the rule is printed with its file."""

import os
import re
import subprocess
import sys

SRC = os.path.join(os.environ.get("top_srcdir", "."), "src")
BUILD = os.path.join(os.environ.get("top_builddir", "."), "src")
TYPE = re.compile(r"^\s*(?:typedef\s+)?(?:struct|enum)\s+([a-z_][a-z0-9_]*)"
                  r"\s*\{", re.M)
OPAQUE = re.compile(r"^struct\s+([a-z_][a-z0-9_]*)\s*;", re.M)
WELL_KNOWN = {"util/xmalloc"}


def types_in(path, pattern):
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as fh:
        return set(pattern.findall(fh.read()))


def header_types(stem):
    """The struct and enum types src/STEM.h defines, or declares and
    src/STEM.c defines (an opaque type)."""
    header = os.path.join(SRC, stem + ".h")
    return types_in(header, TYPE) | (types_in(header, OPAQUE) &
                                     types_in(os.path.join(SRC, stem + ".c"),
                                              TYPE))


def allowed(stem, name):
    base = os.path.basename(stem)
    folder = os.path.basename(os.path.dirname(stem))
    if any(name == b or name.startswith(b + "_")
           for b in (base, folder + "_" + base)):
        return True
    if base.startswith("team") and name.startswith("team_"):
        return True
    return any(name == t or name.startswith(t + "_")
               for t in header_types(stem))


def main():
    bad, seen = [], 0
    for root, _, files in os.walk(BUILD):
        for f in sorted(files):
            if not f.endswith(".o"):
                continue
            obj = os.path.join(root, f)
            stem = os.path.relpath(obj, BUILD)[:-2]
            if not os.path.exists(os.path.join(SRC, stem + ".c")) or \
                    stem in WELL_KNOWN:
                continue
            seen += 1
            out = subprocess.run(["nm", obj], capture_output=True,
                                 text=True, check=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] == "T" and \
                        parts[2] != "main" and not allowed(stem, parts[2]):
                    bad.append("src/%s.c: %s" % (stem, parts[2]))
    if seen == 0:
        print("FAIL: no objects under %s: build first" % BUILD)
        return 1
    for b in sorted(bad):
        print("FAIL: %s is not named after its file or its header's "
              "types" % b)
    if bad:
        return 1
    print("ok: every function of %d files is named after where it lives"
          % seen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
