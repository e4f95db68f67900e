#!/usr/bin/env python3
"""Input that behaves, and a quit you can trust, in a real terminal (tmux)
under both TERM=screen-256color and xterm-256color: Ctrl-Left, Alt-b and
unknown escape sequences never land in the input line as text; a
two-line paste is one message; Alt-Enter puts a newline in the line; a
second F10 takes the screen away at once while a teammate's command
runs, after a first that counts down; the last error stays on the status
line until C-g.
"""

import json
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)


def session(fake, term, *script):
    fake.reset()
    fake.script(*script,
                *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 8)
    return fake_screen(fake, ["--quit-timeout", "30"], 100, 30, term)


def requests_holding(fake, text, timeout=10):
    """The model requests (as JSON text) that hold text, once one does
    (or none, at the deadline)."""
    deadline = time.monotonic() + timeout
    while True:
        sent = [json.dumps(r) for r in fake.requests()]
        held = [r for r in sent if text in r]
        if held or time.monotonic() >= deadline:
            return held
        time.sleep(0.1)


def input_line(s):
    return s.rows()[-2]


def test_keys_never_become_text(fake, term):
    s = session(fake, term)
    with s:
        s.wait_for("lead>", 10)
        s.send_text("abc def")
        s.send_keys("C-Left")
        s.send_text("X")
        s.wait_for(lambda t: "lead> abc Xdef" in input_line(s), 5,
                   "Ctrl-Left moves back a word")
        s.send_keys("M-b")
        s.send_text("Y")
        s.wait_for(lambda t: "lead> abc YXdef" in input_line(s), 5,
                   "Alt-b moves back a word")
        s.send_keys("C-Left", "C-Right", "M-f")
        s.send_text("Z")
        s.wait_for(lambda t: "lead> abc YXdefZ" in input_line(s), 5,
                   "Ctrl-Right and Alt-f move on")
        # Sequences no terminfo entry knows: nothing typed.
        s.send_bytes(b"\x1b[99~\x1b[1;5X\x1b[?1;2c\x1bOx")
        s.send_text("!")
        s.wait_for(lambda t: "XdefZ!" in input_line(s), 5,
                   "typing after them")
        expect(not re.search(r"[\[;~]", input_line(s)),
               "a sequence landed as text: %r" % input_line(s))
        quit_clean(s)


def test_paste_is_one_message(fake, term):
    s = session(fake, term)
    with s:
        s.wait_for("lead>", 10)
        s.send_bytes(b"\x1b[200~line one\r\nline two\x1b[201~")
        s.wait_for(lambda t: "line one↵line two" in input_line(s), 5,
                   "the paste in the input line")
        s.send_keys("M-Enter")
        s.send_text("three")
        s.wait_for(lambda t: "line two↵three" in input_line(s), 5,
                   "Alt-Enter puts a newline in")
        s.send_keys("Enter")
        # One message of three lines (its further lines indented, as
        # every message's are for the model).
        texts = requests_holding(fake, "line one")
        expect(len(texts) == 1 and
               "line one\\n  line two\\n  three" in texts[0],
               "the paste did not reach the lead as one message: %s"
               % [t[:300] for t in texts])
        quit_clean(s)


def test_a_paste_over_the_cap_is_not_sent(fake, term):
    """A paste larger than a message keeps is not sent cut without a
    word: Enter says so, and the text stays in the line."""
    s = session(fake, term)
    with s:
        s.wait_for("lead>", 10)
        big = os.path.join(tempfile.mkdtemp(prefix="huddle-paste-"), "big")
        with open(big, "w") as f:
            f.write(("0123456789" * 7 + "\n") * 1000 + "END-OF-PASTE")
        s._tmux("load-buffer", big)
        s._tmux("paste-buffer", "-p", "-t", s.pane)
        s.wait_for(lambda t: "[Pasted 1001 lines]" in input_line(s), 20,
                   "the whole paste in the input line, folded")
        # Said at once, before any Enter.
        s.wait_for("this line is 70 KiB and a message keeps 64 KiB: Enter "
                   "will not send it", 5, "the cap said at the paste")
        before = len(fake.requests())
        s.send_keys("Enter")
        s.wait_for("not sent: this is 70 KiB and a message keeps 64 KiB",
                   5, "the cap said")
        expect("[Pasted 1001 lines]" in input_line(s),
               "the text left the line")
        expect(len(fake.requests()) == before, "it was sent")
        quit_clean(s)


def test_a_long_paste_is_folded(fake, term):
    """Ten pasted lines show as one piece in the input line, C-o shows
    them, Backspace takes them whole, and Enter sends them all."""
    s = session(fake, term)
    lines = "\r\n".join("pasted line %d" % i for i in range(1, 11))
    with s:
        s.wait_for("lead>", 10)
        s.send_text("look: ")
        s.send_bytes(b"\x1b[200~" + lines.encode() + b"\x1b[201~")
        s.wait_for(lambda t: "look: [Pasted 10 lines]" in input_line(s), 5,
                   "the paste folded")
        s.send_keys("C-o")
        s.wait_for(lambda t: "pasted line 9↵pasted line 10" in
                   input_line(s), 5, "C-o shows the pasted text")
        s.send_keys("C-o")
        s.wait_for(lambda t: "[Pasted 10 lines]" in input_line(s), 5,
                   "folded again")
        s.send_keys("BSpace")
        s.wait_for(lambda t: "Pasted" not in input_line(s) and
                   "look:" in input_line(s), 5, "Backspace took it whole")
        s.send_bytes(b"\x1b[200~" + lines.encode() + b"\x1b[201~")
        s.wait_for(lambda t: "[Pasted 10 lines]" in input_line(s), 5,
                   "pasted again")
        s.send_keys("Enter")
        texts = requests_holding(fake, "pasted line 10")
        expect(len(texts) == 1 and "look: pasted line 1" in texts[0] and
               "pasted line 10" in texts[0],
               "the paste did not reach the lead whole: %s"
               % [t[:300] for t in texts])
        quit_clean(s)


def test_second_f10_forces(fake, term):
    s = session(fake, term,
                {"agent": "lead", "kind": "tool_use", "calls": [
                    {"name": "spawn_teammate", "input": {
                        "name": "sam", "role": "ops", "prompt": "Wait."}}]},
                {"agent": "sam", "kind": "tool_use", "calls": [
                    {"name": "bash", "input": {"command": "sleep 40"}}]})
    with s:
        say_to_lead(s)
        # The role gives way in a narrow title (tokens and cost grow).
        s.wait_for(re.compile(r"sam · (ops · )?(working|waiting)"), 15,
                   "sam at work")
        s.wait_for("sleep 40", 10, "sam's command")
        s.send_keys("F10")
        s.wait_for(re.compile(r"sam still shutting down; stopped in \d+ s"),
                   5, "the countdown")
        t0 = time.monotonic()
        s.send_keys("F10")
        s.wait_for(lambda t: "lead>" not in t, 5, "the screen gone")
        took = time.monotonic() - t0
        expect(took < 1.0, "the screen took %.2f s to go" % took)
        expect(s.exit_status(15) == 0, "huddle did not exit 0")


def test_dumb_terminal_is_told(fake, term):
    s = session(fake, term)
    with s:
        s.wait_for("--headless", 10, "the message")
        expect("cannot show huddle's screen" in s.text(), s.text())
        expect(s.exit_status(10) == 2, "the status is not 2")


def test_error_stays_until_acknowledged(fake, term):
    s = session(fake, term,
                {"agent": "lead", "kind": "error", "status": 400,
                 "type": "invalid_request_error",
                 "message": "the answer was refused"})
    with s:
        say_to_lead(s)
        status = lambda: s.rows()[-1]
        s.wait_for(lambda t: "✗ lead:" in status() and "(C-g)" in status(),
                   10, "the error on the status line")
        # Other keys do not clear it; the next message's reply does not.
        s.send_text("again")
        s.send_keys("Enter")
        s.wait_for("Noted.", 10, "the next reply")
        expect("✗ lead:" in status(), "the error left the status line "
               "unacknowledged: %r" % status())
        s.send_keys("C-g")
        s.wait_for(lambda t: "✗" not in status(), 5, "C-g acknowledges it")
        quit_clean(s)


def tests(r, fake):
    for term in ("screen-256color", "xterm-256color"):
        r.run("%s: keys never become text" % term,
              test_keys_never_become_text, fake, term)
        r.run("%s: a two-line paste is one message" % term,
              test_paste_is_one_message, fake, term)
        r.run("%s: a paste over the cap is not sent" % term,
              test_a_paste_over_the_cap_is_not_sent, fake, term)
        r.run("%s: a long paste is folded" % term,
              test_a_long_paste_is_folded, fake, term)
    r.run("a second F10 takes the screen away at once",
          test_second_f10_forces, fake, "screen-256color")
    r.run("the last error stays on the status line until C-g",
          test_error_stays_until_acknowledged, fake, "screen-256color")
    r.run("TERM=dumb: a clear message, no screen",
          test_dumb_terminal_is_told, fake, "dumb")


if __name__ == "__main__":
    run_main(tests)
