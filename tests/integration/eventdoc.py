"""The events as doc/headless.md's table of events gives them: each kind's
fields with their JSON types, and which may be missing. A test checks that
the events a run of huddle --headless wrote are all as documented (the
unit test test_event holds the table to huddle's own schema).
"""

import os
import re

_HERE = os.path.dirname(os.path.abspath(__file__))
_DOC = os.path.join(os.environ.get("top_srcdir") or
                    os.path.join(_HERE, "..", ".."), "doc", "headless.md")

_TYPES = {
    "string": lambda v: isinstance(v, str),
    "string or null": lambda v: v is None or isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "any": lambda v: True,
}

# What every line has, and what the answers to commands add to the kinds
# they share with events ("error" and "notice").
_LINE = {"event", "t", "agent"}


def schema():
    """{kind: {field: (type, optional)}} from the doc's table of events."""
    with open(_DOC, encoding="utf-8") as f:
        text = f.read()
    section = text.split("\n## Events\n", 1)[1].split("\n## ", 1)[0]
    kinds = {}
    for line in section.splitlines():
        m = re.match(r"\| `(\w+)` \| ([^|]*) \|", line)
        if not m:
            continue
        fields = {}
        for item in m.group(2).split(", "):
            f = re.fullmatch(r"`(\w+)` (.+?)( \*optional\*)?", item.strip())
            if not f or f.group(2) not in _TYPES:
                raise ValueError("doc/headless.md: cannot read %r" % item)
            fields[f.group(1)] = (f.group(2), bool(f.group(3)))
        kinds[m.group(1)] = fields
    return kinds


def problems(events):
    """What in events differs from the doc: a list of sentences."""
    kinds = schema()
    out = []
    for e in events:
        kind = e.get("event")
        if kind not in kinds or (kind == "error" and "command" in e):
            continue  # an answer to a command
        fields = kinds[kind]
        for name, value in e.items():
            if name in _LINE:
                continue
            if name not in fields:
                out.append("%s has %s, which is not documented: %s"
                           % (kind, name, e))
            elif not _TYPES[fields[name][0]](value):
                out.append("%s's %s is not %s: %s"
                           % (kind, name, fields[name][0], e))
        for name, (_, optional) in fields.items():
            if not optional and name not in e:
                out.append("%s lacks %s: %s" % (kind, name, e))
    return out
