#!/usr/bin/env python3
"""The task board on the screen, in a real terminal (tmux): the lead
makes a dependency graph and spawns three autonomous teammates; F4 turns
the bottom table into the tasks view, which shows the tasks live —
ready first, those in progress with their owners (also in the owners'
pane titles), and at the end every one completed with its check's ✓ —
and names the pending requests it hides; F5 on the tasks view brings the
requests back before anything is decided; /task add works from the
input line; --resume brings the board back as it was.
"""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)

ROW = re.compile(r"^│?(t\d+)\s+(ready|pending|in_progress|completed|"
                 r"cancelled)\s+(\S+)\s+(\S+)\s+\S+\s+(✓|✗| )\s+(.*?)\s*│?$")

GRAPH = [("scaffold", []), ("parser", ["t1"]), ("printer", ["t1"]),
         ("round trip", ["t2", "t3"])]


def team(fake, workdir=None):
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "task_create", "input": {
                "subject": s, "blocked_by": b, "verify": "true"}}
            for s, b in GRAPH]},
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": n, "role": "worker", "autonomous": True,
                "prompt": "Take tasks."}} for n in ("ann", "ben", "cat")]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 6,
        {"kind": "worker", "work_ms": 700})
    return fake_screen(fake, ["--quit-timeout", "2"], 120, 40,
                       workdir=workdir)


def tasks(s):
    """The rows of the tasks view now: {id: (status, owner, after, check,
    subject)}."""
    return rows_of("\n".join(s.rows()))


def rows_of(text):
    """The rows of the tasks view in one capture of the screen."""
    out = {}
    for line in text.split("\n"):
        m = ROW.search(line.strip())
        if m:
            out[m.group(1)] = m.groups()[1:]
    return out


# Where a status goes in the view: ready, in progress, waiting,
# completed, cancelled.
RANK = {"ready": 0, "in_progress": 1, "pending": 2, "completed": 3,
        "cancelled": 4}


def test_tasks_view_live(fake):
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    s = team(fake, work)
    with s:
        say_to_lead(s, "Build it.")
        s.wait_for("F4 tasks", 20, "the requests table naming the tasks")
        s.send_keys("F4")
        s.wait_for("tasks · ", 5, "the tasks view")
        expect("F4Requests" in s.text(), "the key bar does not say F4 "
               "goes back:\n" + s.text())
        # Live: a task in progress, with its owner in the row and in the
        # owner's pane title.
        def busy_in_title(t):
            busy = [(i, r[1]) for i, r in rows_of(t).items()
                    if r[0] == "in_progress"]
            return any(re.search(r"┌ %s · (worker · )?working · %s " %
                                 (owner, i), t)
                       for i, owner in busy)
        t = s.wait_for(busy_in_title, 20, "a task in progress, in its row "
                       "and in its owner's pane title")
        # Ready tasks first, then those in progress, then those waiting,
        # then the completed (all read from one capture: tasks move on).
        ranks = [RANK[r[0]] for r in rows_of(t).values()]
        expect(ranks == sorted(ranks), repr(rows_of(t)))
        s.wait_for(lambda t: len(tasks(s)) == 4 and all(
            r[0] == "completed" and r[3] == "✓" for r in tasks(s).values()),
            40, "every task completed and checked")
        expect(tasks(s)["t4"][2] == "t2,t3", repr(tasks(s)["t4"]))
        s.wait_for("0 open", 5)
        # The input line adds to the board.
        s.send_text("/task add write the changelog after t4")
        s.send_keys("Enter")
        s.wait_for(lambda t: "t5" in tasks(s), 10, "t5 on the board")
        # Its reply speaks the board's words, not the store's.
        s.wait_for("added t5, ready on the board: write the changelog", 5,
                   "the reply in the board's words")
        expect(tasks(s)["t5"][0] in ("ready", "in_progress", "completed"),
               repr(tasks(s)["t5"]))
        s.wait_for(lambda t: tasks(s).get("t5", ("",))[0] == "completed",
                   20, "t5 done")
        board = tasks(s)
        # F5 on the tasks view decides nothing: the requests come back.
        s.send_keys("F5")
        s.wait_for("requests · 0 pending", 5, "the requests again")
        s.wait_for("F4Tasks", 5)
        quit_clean(s)
    # --resume shows the board as it was.
    fake.reset()
    fake.script({"kind": "worker"})
    with fake_screen(fake, ["--quit-timeout", "2", "--resume"], 120, 40,
                     workdir=work) as s:
        s.wait_for("F4 tasks (0 open)", 10, "the board restored")
        s.send_keys("F4")
        s.wait_for(lambda t: tasks(s) == board, 5, "the same rows: %r"
                   % board)
        quit_clean(s)


def tests(r, fake):
    r.run("the tasks view shows the board live, F5 brings back requests",
          test_tasks_view_live, fake)


if __name__ == "__main__":
    run_main(tests)
