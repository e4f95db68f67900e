#!/usr/bin/env python3
"""One draft per pane, and what is folded in a pane found and expanded, in
a real terminal (tmux): text typed for the lead stays the lead's when Tab
moves to alice, and comes back with the lead; Tab skips a teammate that
has ended, and text for one is kept in its draft with a notice, never
sent; a tool output's folded lines appear after C-o, zoom, and Enter on
the output a search selected; a search finds a word in a pane and
highlights it.
"""

import json
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, read_help,  # noqa: E402
                           run_main, say_to_lead)

SPAWN = {"agent": "lead", "kind": "tool_use", "calls": [
    {"name": "spawn_teammate", "input": {
        "name": "alice", "role": "coder", "prompt": "Say hello."}}]}
NOTED = [{"agent": "lead", "kind": "text", "text": "Noted."}] * 8


def input_line(s):
    return s.rows()[-2].rstrip()


def test_tab_keeps_each_draft(fake):
    fake.reset()
    fake.script(SPAWN, *NOTED,
                {"agent": "alice", "kind": "text", "text": "Hello."})
    with fake_screen(fake, ["--quit-timeout", "3"], 120, 40) as s:
        say_to_lead(s)
        s.wait_for("alice is idle", 20, "alice at work")
        s.send_text("tally")
        s.wait_for(lambda t: input_line(s) == "lead> tally", 5, "typed")
        s.send_keys("Tab")
        s.wait_for(lambda t: input_line(s).startswith("alice>"), 5,
                   "alice focused")
        expect(input_line(s) == "alice>",
               "the lead's text came along to alice: %r" % input_line(s))
        s.send_text("hi")
        s.send_keys("Tab")
        # The table writes to the lead: the lead's draft is back.
        s.wait_for(lambda t: input_line(s) == "lead> tally", 5,
                   "the lead's draft on the table")
        s.send_keys("Tab")
        s.wait_for(lambda t: input_line(s) == "lead> tally", 5,
                   "the lead's draft back")
        s.send_keys("BTab", "BTab")
        s.wait_for(lambda t: input_line(s) == "alice> hi", 5,
                   "alice's own draft back")
        quit_clean(s)


def test_text_for_an_ended_teammate_is_kept(fake):
    fake.reset()
    fake.script(SPAWN, *NOTED,
                {"agent": "alice", "kind": "text", "text": "Hello."},
                {"agent": "alice", "kind": "tool_use", "calls": [
                    {"name": "shutdown_response", "input": {
                        "request_id": "{{request_id}}", "approve": True}}]})
    with fake_screen(fake, ["--quit-timeout", "3"], 120, 40) as s:
        say_to_lead(s)
        s.wait_for("alice is idle", 20, "alice at work")
        s.send_keys("Tab")
        s.wait_for(lambda t: input_line(s).startswith("alice>"), 5,
                   "alice focused")
        s.send_text("/shutdown alice")
        s.send_keys("Enter")
        s.wait_for("alice · coder · terminated", 20, "alice ended")
        s.send_text("one more thing")
        s.wait_for(lambda t: input_line(s) ==
                   "alice (ended: not sent)> one more thing", 5,
                   "the prompt says she reads no more")
        s.send_keys("Enter")
        s.wait_for("alice has ended", 5, "the notice")
        expect(input_line(s).endswith("> one more thing"),
               "the text was thrown away: %r" % input_line(s))
        time.sleep(0.5)  # give a wrongly sent message time to show
        sent = [json.dumps(r) for r in fake.requests()]
        expect(not any("one more thing" in r for r in sent),
               "the text reached a model")
        # Tab skips her: from the lead to the table, whose prompt says
        # what Enter does there, and round to the lead.
        s.send_keys("BTab")
        s.wait_for(lambda t: input_line(s) == "lead>", 5, "the lead")
        s.send_keys("Tab")
        s.wait_for(lambda t: input_line(s).startswith("Enter shows the "
                   "shutdown request user → alice>"), 5, "the table, and what Enter does")
        s.send_keys("Tab")
        s.wait_for(lambda t: input_line(s) == "lead>", 5,
                   "Tab went past the table to alice")
        quit_clean(s)


def folded_session(fake):
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    with open(os.path.join(work, "notes.txt"), "w") as f:
        f.write("first line\nsecond line\nhidden-three here\nfourth\n"
                "fifth\nsixth\n")
    fake.reset()
    fake.script({"agent": "lead", "kind": "tool_use", "calls": [
                    {"name": "read_file", "input": {"path": "notes.txt"}}]},
                {"agent": "lead", "kind": "text", "text": "Read it."},
                *NOTED)
    return fake_screen(fake, ["--quit-timeout", "3"], 100, 30,
                       workdir=work)


def test_folded_output_expands(fake):
    with folded_session(fake) as s:
        say_to_lead(s, "read the notes")
        s.wait_for(re.compile(r"\(\+\d+ lines\)"), 15, "a folded output")
        s.wait_for("Read it.", 10)
        expect("hidden-three" not in s.text(), "not folded")
        s.send_keys("C-o")
        s.wait_for("hidden-three", 5, "C-o expands it")
        s.send_keys("C-o")
        s.wait_gone("hidden-three", 5)
        s.send_keys("F8")
        s.wait_for("hidden-three", 5, "zoom shows it expanded")
        s.send_keys("F8")
        s.wait_gone("hidden-three", 5)
        # Selected by a search, Enter expands it in place.
        s.send_keys("C-f")
        s.wait_for(lambda t: input_line(s).startswith("find in lead:"), 5,
                   "the search")
        s.send_text("(+")
        s.send_keys("Enter")
        s.send_keys("Escape")
        s.wait_for(lambda t: input_line(s) == "lead>", 5, "search ended")
        expect("hidden-three" not in s.text(), "expanded too early")
        s.send_keys("Enter")
        s.wait_for("hidden-three", 5, "Enter expands the selected output")
        s.send_keys("Enter")
        s.wait_gone("hidden-three", 5)
        quit_clean(s)


# The match's highlight: a background colour or reverse video just
# before the word.
HIGHLIGHT = re.compile(r"\x1b\[[0-9;]*(?:4[0-7]|7)[0-9;]*m(?:\x1b\[[0-9;]*m)*"
                       r"hidden-three")


def test_search_finds_and_highlights(fake):
    with folded_session(fake) as s:
        say_to_lead(s, "read the notes")
        s.wait_for("Read it.", 15)
        s.send_keys("C-f")
        s.wait_for(lambda t: input_line(s).startswith("find in lead:"), 5,
                   "the search")
        s.send_text("hidden-thr")
        # Counted as it is typed: which match of how many, or none.
        s.wait_for(lambda t: input_line(s).startswith(
            "find in lead (1/1): hidden-thr"), 5, "the count as typed")
        s.send_text("x")
        s.wait_for(lambda t: input_line(s).startswith(
            "find in lead (no match): hidden-thrx"), 5, "no match, said")
        s.send_keys("BSpace")
        s.send_text("ee")
        # Found inside the folded output: shown, and highlighted.
        s.wait_for("hidden-three here", 5, "the match")
        s.wait_for(lambda t: HIGHLIGHT.search(s.text(escapes=True)), 5,
                   "the match highlighted")
        s.send_keys("Enter")
        s.send_text("n")
        s.wait_for("no older match", 5, "n: no other match")
        s.send_keys("Escape")
        s.wait_for(lambda t: input_line(s) == "lead>", 5, "Esc ends it")
        expect(not HIGHLIGHT.search(s.text(escapes=True)),
               "still highlighted after the search")
        # F1 lists the search's keys, from the key table.
        s.send_keys("F1")
        text = read_help(s)
        for want in ("C-f", "search the focused pane",
                     "Going through a pane's matches"):
            expect(want in text, "F1 lacks %r" % want)
        s.send_keys("Escape")
        quit_clean(s)


def tests(r, fake):
    r.run("Tab keeps each agent's draft", test_tab_keeps_each_draft, fake)
    r.run("text for an ended teammate is kept, with a notice",
          test_text_for_an_ended_teammate_is_kept, fake)
    r.run("a folded output's lines appear when expanded",
          test_folded_output_expands, fake)
    r.run("a search finds and highlights a word in a pane",
          test_search_finds_and_highlights, fake)


if __name__ == "__main__":
    run_main(tests)
