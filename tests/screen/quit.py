#!/usr/bin/env python3
"""A quit that forgives and tells, in a real terminal (tmux): C-c with a
line typed clears it and Up brings it back, and on an empty line it
quits; F10 while a permission waits for the person first says which the
quit withdraws, and only F10 again quits; at --resume the withdrawn
request is at the top of the table, marked so, and a notice names it.
"""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)
from screen_driver import EXITED  # noqa: E402


def input_line(s):
    return s.rows()[-2]


def test_ctrl_c_forgives(fake):
    fake.reset()
    fake.script(*[{"agent": "lead", "kind": "text", "text": "Noted."}] * 4)
    with fake_screen(fake, ["--quit-timeout", "5"], 100, 30) as s:
        s.wait_for("lead>", 10)
        s.send_text("a long thought I typed")
        s.wait_for(lambda t: "a long thought I typed" in input_line(s), 5,
                   "the typed line")
        s.send_keys("C-c")
        s.wait_for(lambda t: input_line(s).rstrip().endswith("lead>") and
                   "Up brings it back" in t, 5, "the line cleared")
        expect(not EXITED.search(s.text()), "C-c with a line typed quit")
        s.send_keys("Up")
        s.wait_for(lambda t: "a long thought I typed" in input_line(s), 5,
                   "Up to bring the line back")
        s.send_keys("C-c")
        s.wait_for(lambda t: input_line(s).rstrip().endswith("lead>"), 5,
                   "the line cleared again")
        # On an empty line, C-c quits as F10 does.
        s.send_keys("C-c")
        expect(s.exit_status(30) == 0, "C-c on an empty line did not quit")


def carl_asks(fake):
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": "carl", "role": "ops", "prompt": "Clean up."}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 10,
        {"agent": "carl", "kind": "tool_use", "calls": [
            {"name": "bash", "input": {"command": "rm -rf junkdir"}}]},
        *[{"agent": "carl", "kind": "text", "text": "Done."}] * 6)


WITHDRAWN = re.compile(r"│(req_[0-9a-f]{8})\s+permission\s+carl → lead\s+\S+"
                       r"\s+withdrawn\b")


def test_quit_says_what_it_withdraws(fake):
    carl_asks(fake)
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    os.makedirs(os.path.join(work, "junkdir"))
    args = ["--quit-timeout", "3"]
    with fake_screen(fake, args, 100, 30, workdir=work) as s:
        say_to_lead(s)
        s.wait_for(re.compile(r"requests · 1 pending"), 20,
                   "carl's command waiting")
        s.send_keys("F10")
        s.wait_for("F10 again quits and withdraws the 1 request waiting "
                   "for you (carl 1)", 5, "the quit's warning")
        expect(not EXITED.search(s.text()) and "quitting" not in s.text(),
               "the first F10 quit with a request waiting")
        # Any other key stays: the warning goes, nothing is withdrawn.
        s.send_keys("Down")
        s.wait_gone("F10 again quits", 5)
        expect(re.search(r"requests · 1 pending", s.text()), s.text())
        s.send_keys("F10")
        s.wait_for("F10 again quits", 5, "the warning again")
        s.send_keys("F10")
        expect(s.exit_status(30) == 0, "the second F10 did not quit")
    expect(os.path.isdir(os.path.join(work, "junkdir")),
           "the withdrawn command ran")
    fake.reset()
    fake.script(*[{"agent": "lead", "kind": "text", "text": "Noted."}] * 4,
                *[{"agent": "carl", "kind": "text", "text": "Ok."}] * 4)
    with fake_screen(fake, ["--resume"] + args, 100, 30, workdir=work) as s:
        screen = s.wait_for(lambda t: WITHDRAWN.search(t) and
                            "the last quit withdrew req_" in t, 15,
                            "the withdrawn request and the notice")
        rows = [ln for ln in screen.split("\n") if re.match(
            r"│req_[0-9a-f]{8}\s", ln)]
        expect(rows and WITHDRAWN.search(rows[0]),
               "the withdrawn request is not the table's first row:\n"
               + screen)
        expect("carl's bash: rm -rf junkdir" in screen, screen)
        quit_clean(s)


def register(r, fake):
    r.run("C-c clears a typed line (Up brings it back), then quits",
          lambda: test_ctrl_c_forgives(fake))
    r.run("F10 says what a quit withdraws; --resume names it, on top",
          lambda: test_quit_says_what_it_withdraws(fake))


if __name__ == "__main__":
    run_main(register)
