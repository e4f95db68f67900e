#!/usr/bin/env python3
"""--resume restores the screen as it was at the quit, in a real terminal
(tmux): a teammate that approved the quit's shutdown comes back idle, not
terminated; every pending request is in the table (six plans); and the
panes show what they showed live, in the same forms (the person's words,
a teammate's message, a tool call and its result)."""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)
from screen_driver import region  # noqa: E402
from fakellm_client import HUDDLE  # noqa: E402

PLANNERS = ["p%d" % i for i in range(1, 7)]
ROW = re.compile(r"(req_[0-9a-f]{8})\s+plan\s+(p\d) → lead\s+\S+\s+pending")
# Lines the panes show live that must come back the same after --resume.
LIVE_LINES = ("you  go", "✉ alice: hi is done", "· alice is idle: Waiting.",
              "▸ submit_plan plan of p6")


def script(fake):
    fake.reset()
    spawns = [{"name": "spawn_teammate", "input": {
        "name": "alice", "role": "coder", "prompt": "Say hi."}}]
    spawns += [{"name": "spawn_teammate", "input": {
        "name": p, "role": "planner", "prompt": "Plan.",
        "plan_required": True}} for p in PLANNERS]
    items = [{"agent": "lead", "kind": "tool_use", "calls": spawns},
             *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 20,
             {"agent": "alice", "kind": "tool_use", "calls": [
                 {"name": "bash", "input": {"command": "echo hi"}}]},
             {"agent": "alice", "kind": "tool_use", "calls": [
                 {"name": "send_message", "input": {
                     "to": "lead", "content": "hi is done"}}]},
             {"agent": "alice", "kind": "text", "text": "Waiting."},
             # The quit asks her to stop: she approves.
             {"agent": "alice", "kind": "tool_use", "calls": [
                 {"name": "shutdown_response", "input": {
                     "request_id": "{{request_id}}", "approve": True}}]}]
    for p in PLANNERS:
        items.append({"agent": p, "kind": "tool_use", "calls": [
            {"name": "submit_plan", "input": {"plan": "plan of " + p}}]})
        # Waiting for the person, a planner hears of the quit and
        # approves stopping too; its plan stays pending.
        items.append({"agent": p, "kind": "tool_use", "calls": [
            {"name": "shutdown_response", "input": {
                "request_id": "{{request_id}}", "approve": True}}]})
    fake.script(*items)


def script_resumed(fake):
    """Each agent continues with a word after --resume."""
    fake.reset()
    fake.script(*[{"agent": who, "kind": "text", "text": "Resumed."}
                  for who in ["lead", "alice"] + PLANNERS for _ in range(3)])


COLS, ROWS = 200, 80


def lead_lines(screen):
    """The lines inside the lead's pane (the left column, down to its
    bottom border), without its border and the blank rows. The pane
    fills from the bottom, so however few lines it holds, they are all
    in it."""
    rows = region(screen, 1, 0, ROWS - 1, COLS // 2 - 1).split("\n")
    out = []
    for r in rows:
        if r.startswith("└"):
            break
        r = r[1:].rstrip("│").rstrip()
        if r:
            out.append(r)
    return out


def told(lines):
    """The lines of messages, requests and notices the lead was sent."""
    return [line for line in lines if line[:1] in ("⚑", "✉", "·")]


def own(lines):
    """The lead's own lines: its text, thinking, calls and results. A
    result wrapped onto a second row stays with its first."""
    return [line for line in lines if line[:1] not in ("⚑", "✉", "·")]


def shown_again(live, resumed):
    """Whether the lines shown live are shown after --resume, in order.
    The resumed pane may hold more (what happened since) and so have
    scrolled: where it starts inside what was shown live, what came
    before that start is above the pane's top, not lost."""
    if resumed and resumed[0] in live:
        live = live[live.index(resumed[0]):]
    return in_order(live, resumed)


def in_order(wanted, lines):
    """Whether every line of `wanted` is in `lines`, in the same order."""
    it = iter(lines)
    return all(any(w == line for line in it) for w in wanted)


def pending_plans(screen):
    return {who: rid for rid, who in ROW.findall(screen)}


def test_resume_is_as_at_quit(fake):
    script(fake)
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    args = ["--quit-timeout", "3", "--plan-review", "human",
            "--max-teammates", "8"]
    with fake_screen(fake, args, cols=COLS, rows=ROWS, workdir=work) as s:
        say_to_lead(s)
        live = s.wait_for(lambda t: len(pending_plans(t)) == 6 and
                          all(line in t for line in LIVE_LINES), 30,
                          "six plans pending and alice done")
        plans = pending_plans(live)
        before = lead_lines(live)
        s.send_keys("F10")
        expect(s.exit_status(30) == 0, "huddle did not quit cleanly")
        # The way back, on the terminal once the screen has closed: this
        # very program (a build tree's huddle is on no PATH), as a
        # shell would take it; the line may wrap.
        way = ("huddle: the team is kept; to continue it: %s --resume"
               % os.path.realpath(HUDDLE))
        shown = s.text()
        joined = shown.replace("\n", "")
        expect(way in joined and ("--workdir " + work) in joined,
               "no resume line after the quit:\n" + shown)

    script_resumed(fake)
    with fake_screen(fake, ["--resume"] + args, cols=COLS, rows=ROWS,
                     workdir=work) as s:
        # The rows themselves, not the table's title: a capture may hold
        # the top of a frame and not yet its bottom.
        screen = s.wait_for(lambda t: pending_plans(t) == plans, 10,
                            "the pending plans as at the quit: %r" % plans)
        after = lead_lines(screen)
        # What the lead's model did and what others sent it are each
        # shown in their order; where a message fell between a tool call
        # and its result live depends on timing, and --resume puts the
        # lead's own turn first.
        expect(shown_again(own(before), own(after)) and
               shown_again(told(before), told(after)),
               "the lead's pane does not show after --resume what it "
               "showed live:\n%s\n---- after:\n%s"
               % ("\n".join(before), "\n".join(after)))
        expect(re.search(r"alice · coder · (idle|working)", screen),
               "alice approved the quit's shutdown and should be back:\n"
               + screen)
        expect("terminated" not in screen,
               "a teammate shows as terminated after a normal quit:\n"
               + screen)
        quit_clean(s)


def register(r, fake):
    r.run("--resume: statuses, requests and panes as at the quit",
          lambda: test_resume_is_as_at_quit(fake))


if __name__ == "__main__":
    run_main(register)
