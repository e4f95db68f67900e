#!/usr/bin/env python3
"""No circle among the files of src/ (doc/architecture.md): each file
calls and includes only files below it, so any part can be read, built
and tested with what lies beneath it alone.

The graph's nodes are the files: an edge from A.c to B.c when A's object
uses a symbol B's defines (from `nm` on the build's objects: what the
code really calls and reads, not what its text seems to say), and from
a file to each header it includes. A header is never compiled alone, so
a circle is either of calls among .c files or of includes among
headers; each is printed with the edges that make it (their symbols or
includes) and fails the test.
"""

import collections
import os
import re
import subprocess
import sys

SRC = os.path.join(os.environ.get("top_srcdir", "."), "src")
BUILD = os.path.join(os.environ.get("top_builddir", "."), "src")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)


def include_edges(edges):
    """Adds A -> B.h for each `#include "B.h"` in file A."""
    for root, _, files in os.walk(SRC):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(root, f)
            node = os.path.relpath(path, SRC)
            with open(path, encoding="utf-8") as fh:
                for target in INCLUDE.findall(fh.read()):
                    header = target + ".h"
                    if header != node and os.path.exists(
                            os.path.join(SRC, header)):
                        edges[node][header].add("#include")


def call_edges(edges):
    """Adds A.c -> B.c for each symbol A.o uses that B.o defines.
    Returns how many objects were read."""
    defined, used = {}, collections.defaultdict(set)
    objects = []
    for root, _, files in os.walk(BUILD):
        objects += [os.path.join(root, f) for f in files
                    if f.endswith(".o")]
    for obj in objects:
        node = os.path.relpath(obj, BUILD)[:-2] + ".c"
        # An object left from a file since removed is not the code.
        if not os.path.exists(os.path.join(SRC, node)):
            continue
        out = subprocess.run(["nm", obj], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBRC":
                defined.setdefault(parts[2], node)
            elif len(parts) == 2 and parts[0] == "U":
                used[node].add(parts[1])
    for node, symbols in used.items():
        for sym in symbols:
            owner = defined.get(sym)
            if owner is not None and owner != node:
                edges[node][owner].add(sym)
    return len(objects)


def circles(edges):
    """The strongly connected components of more than one node
    (Tarjan's algorithm, without recursion)."""
    index, low, on, stack, found = {}, {}, set(), [], []
    counter = 0
    nodes = sorted(set(edges) | {b for a in edges for b in edges[a]})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def main():
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    include_edges(edges)
    if call_edges(edges) == 0:
        print("FAIL: no objects under %s: build first" % BUILD)
        return 1
    found = circles(edges)
    for comp in found:
        print("FAIL: a circle among %s:" % ", ".join(comp))
        for a in comp:
            for b in comp:
                if b in edges[a]:
                    why = sorted(edges[a][b])
                    print("    %s -> %s: %s%s" % (a, b, " ".join(why[:5]),
                                                  " ..." if len(why) > 5
                                                  else ""))
    if found:
        return 1
    print("ok: no circle among %d files" % len(
        set(edges) | {b for a in edges for b in edges[a]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
