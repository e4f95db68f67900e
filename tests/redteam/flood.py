"""The red team's flood: trudy, a hostile teammate, sends 40 messages of
1 MiB each to another teammate in one turn. Each must be cut to the cap
(64 KiB, with a note) and the team's store must stay small; a run of its
own, so the lead and mallory of the main run never carry the flood."""

import os
import sqlite3

from attack import judge
from fakellm_client import FakeLLM, team_folder
from team_driver import Huddle, call, ev, notes

COUNT = 40
SIZE = 1 << 20
CAP = 64 << 10
# What the lead and the recipient may keep of the flood: the 40 capped
# messages (2.6 MB) and their own turns, far below the 40 MiB sent.
OTHERS_CEILING = 16 << 20


def run():
    """Returns (rows, lost)."""
    with FakeLLM() as fake:
        fake.reset()
        body = "flood " * (SIZE // 6)
        fake.script(
            call("lead", "spawn_teammate", name="trudy", role="helper",
                 prompt="Help."),
            call("lead", "spawn_teammate", name="sink", role="helper",
                 prompt="Listen."),
            *notes("lead", 20),
            {"agent": "trudy", "kind": "tool_use", "json_chars": SIZE,
             "calls": [
                {"name": "send_message",
                 "input": {"to": "sink", "content": "%d %s" % (i, body)}}
                for i in range(COUNT)]},
            *notes("trudy", 6), *notes("sink", 20))
        with Huddle(fake, args=["--no-network"]) as h:
            db = os.path.join(team_folder(h.workdir), "team.db")
            h.send("Start the team.")
            results = []
            since = 0
            while len(results) < COUNT:
                res = h.wait(ev("tool_result", "trudy", tool="send_message"),
                             timeout=120, since=since,
                             what="trudy's sends (%d of %d)"
                             % (len(results), COUNT))
                since = h.events.index(res) + 1
                results.append(res)
            row = judge("%d send_message of 1 MiB" % COUNT,
                        "cut to 64 KiB, and no more kept",
                        _check, db, results)
            # (no quit: trudy's every later request would carry its
            # 40 MiB reply; leaving the context kills huddle)
    return [row], []


def _check(db, results):
    """Each message capped, and what the others keep of them too. trudy's
    own reply is kept as it came (a model's signed history cannot be
    cut), so the store as a whole is said, not judged; a model's reply
    is bounded by its output tokens, far below 40 MiB."""
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        longest, total = c.execute(
            "SELECT max(length(content)), sum(length(content)) FROM "
            "messages WHERE sender = 'trudy'").fetchone()
        others = c.execute("SELECT sum(length(entry)) FROM transcripts "
                           "WHERE member != 'trudy'").fetchone()[0]
    finally:
        c.close()
    longest, total, others = longest or 0, total or 0, others or 0
    size = sum(os.path.getsize(db + s) for s in ("", "-wal")
               if os.path.exists(db + s))
    refused = sum(1 for r in results if r["is_error"])
    ok = longest <= CAP + 1024 and total <= COUNT * (CAP + 1024) and \
        others <= OTHERS_CEILING
    what = ("longest kept %d bytes, %.1f MB in all, %.1f MB in the others' "
            "transcripts (store %.0f MB), %d refused" % (
                longest, total / 1e6, others / 1e6, size / 1e6, refused))
    return ok, what
