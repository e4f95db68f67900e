#!/usr/bin/env python3
"""Every stream event of the providers' own SDKs has its row in
doc/models.md ("Every stream event"): what huddle does with it, or why it
is safely ignored. The unions are read from the SDKs' type files at the
pinned versions (sdkinstall.py): Anthropic's beta
BetaRawMessageStreamEvent, BetaRawContentBlockDelta and BetaContentBlock,
and OpenAI's ResponseStreamEvent. A type the SDK has and the table lacks
fails the test, so an SDK update that brings a new event is noticed.
Skipped (77) without node or npm.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from sdkinstall import SDK_DIR, install_sdks, versions  # noqa: E402
from fakellm_client import TOP_SRCDIR  # noqa: E402

ANTHROPIC = os.path.join("@anthropic-ai", "sdk", "resources", "beta",
                         "messages", "messages.d.ts")
OPENAI = os.path.join("openai", "resources", "responses", "responses.d.ts")
UNIONS = [(ANTHROPIC, "BetaRawMessageStreamEvent"),
          (ANTHROPIC, "BetaRawContentBlockDelta"),
          (ANTHROPIC, "BetaContentBlock"),
          (OPENAI, "ResponseStreamEvent")]


def union_types(path, union):
    """The `type` literal of each member of a union of interfaces."""
    with open(os.path.join(SDK_DIR, "node_modules", path)) as f:
        text = f.read()
    m = re.search(r"^export type %s = ([^;]+);" % re.escape(union), text,
                  re.M)
    if m is None:
        raise AssertionError("%s: no union %s" % (path, union))
    out = []
    for name in (n.strip() for n in m.group(1).split("|")):
        body = re.search(r"^export interface %s \{(.*?)^\}"
                         % re.escape(name), text, re.M | re.S)
        lit = body and re.search(r"^    type: '([^']+)';", body.group(1),
                                 re.M)
        if not lit:
            raise AssertionError("%s: %s has no type literal" % (union,
                                                                 name))
        out.append(lit.group(1))
    return out


def documented():
    """Every `name` in the first cell of the tables of the section."""
    with open(os.path.join(TOP_SRCDIR, "doc", "models.md")) as f:
        text = f.read()
    start = text.index("## Every stream event")
    end = text.find("\n## ", start + 1)
    names = set()
    for line in text[start:end if end != -1 else None].split("\n"):
        if line.startswith("| ") and not line.startswith("|---"):
            names |= set(re.findall(r"`([^`]+)`", line.split("|")[1]))
    return names


def main():
    install_sdks("streamevents")
    print("streamevents: %s" % versions())
    have = documented()
    failed = 0
    for path, union in UNIONS:
        types = union_types(path, union)
        missing = [t for t in types if t not in have]
        for t in missing:
            print("FAIL: %s's %s is not in doc/models.md's stream event "
                  "tables" % (union, t))
        failed += len(missing)
        if not missing:
            print("ok: %s: %d types, each with its row" % (union,
                                                          len(types)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
