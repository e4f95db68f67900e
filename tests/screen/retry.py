#!/usr/bin/env python3
"""A model call waiting to retry, in a real terminal (tmux): the pane
says what the server said and "retrying in Ns (attempt k)", the pane's
title and the status line count the seconds down, Esc ends the wait at
once (the turn is interrupted, nothing is shown as an error), and a new
message goes on; a reply that broke off mid-stream is replaced by the
retry's, not shown twice.
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)

WAITING = re.compile(r"retrying in (\d+)s \(attempt 2\)")


def last_row(text):
    return text.rstrip("\n").split("\n")[-1]


def test_retry_shown_and_esc_ends_it(fake):
    fake.reset()
    fake.script({"agent": "lead", "kind": "outage", "status": 529, "count": 1,
                 "retry_after_ms": 25000},
                {"agent": "lead", "kind": "text", "text": "Through at last."})
    s = fake_screen(fake, ["--quit-timeout", "2"], 140, 30)
    with s:
        say_to_lead(s)
        screen = s.wait_for(lambda t: WAITING.search(last_row(t)), 10,
                            "the status line's countdown")
        expect("HTTP 529 overloaded_error: Overloaded" in screen,
               "the pane does not say what the server said")
        expect(re.search(r"lead · working · retrying in \d+s \(attempt 2\)",
                         screen), "the pane's title does not say it waits")
        first = int(WAITING.search(last_row(screen)).group(1))
        expect(20 <= first <= 25, "a 25 s wait shown as %ds" % first)
        # The countdown moves on its own.
        s.wait_for(lambda t: WAITING.search(last_row(t)) and
                   int(WAITING.search(last_row(t)).group(1)) < first, 5,
                   "the countdown moving")
        sent = time.monotonic()
        s.send_keys("Escape")
        s.wait_for(lambda t: "interrupted" in t and
                   "retrying in" not in last_row(t), 5,
                   "the wait ended by Esc")
        expect(time.monotonic() - sent < 2, "Esc took %.1f s"
               % (time.monotonic() - sent))
        expect("✗" not in last_row(s.text()), "the interrupt shown as an error")
        expect(len(fake.requests()) == 1, "retried after Esc")
        s.send_text("go on")
        s.send_keys("Enter")
        s.wait_for("Through at last.", 10, "the next turn")
        quit_clean(s)


def test_retries_in_a_row_are_one_line(fake):
    """Three failures in a row: one line in the pane, its attempt
    counting on, not a line per try; the lead's pane is not flooded."""
    fake.reset()
    fake.script({"agent": "lead", "kind": "outage", "status": 529, "count": 3,
                 "retry_after_ms": 300},
                {"agent": "lead", "kind": "text", "text": "Through at last."})
    with fake_screen(fake, ["--quit-timeout", "2"], 140, 30) as s:
        say_to_lead(s)
        screen = s.wait_for("Through at last.", 20, "the reply after three "
                            "retries")
        lines = [ln for ln in screen.split("\n") if "↻" in ln]
        expect(len(lines) == 1 and "attempt 4" in lines[0],
               "retries in a row shown as %d lines: %r" % (len(lines),
                                                           lines))
        quit_clean(s)


def test_a_void_reply_is_replaced(fake):
    """A stream that breaks off after its text began is asked for again:
    the pane shows the reply once, the broken start replaced by it."""
    fake.reset()
    fake.script({"agent": "lead", "kind": "text",
                 "text": "BEGUN-ONCE and then the rest of it.",
                 "delta_chars": 4, "fault": "error_event",
                 "fault_after": 17, "fault_error_type": "overloaded_error",
                 "fault_error_message": "Overloaded"},
                {"agent": "lead", "kind": "text",
                 "text": "BEGUN-ONCE and then the rest of it."})
    s = fake_screen(fake, ["--quit-timeout", "2"], 140, 30)
    with s:
        say_to_lead(s)
        t = s.wait_for(lambda t: "the rest of it." in t and
                       "reply starts again" in t, 15, "the reply, whole")
        expect(t.count("BEGUN") == 1, "the broken start is still shown:\n"
               + t)
        quit_clean(s)


def tests(r, fake):
    r.run("a retry's wait is shown and counted down; Esc ends it",
          test_retry_shown_and_esc_ends_it, fake)
    r.run("retries in a row are one line", test_retries_in_a_row_are_one_line,
          fake)
    r.run("a reply that broke off is replaced by the retry's",
          test_a_void_reply_is_replaced, fake)


if __name__ == "__main__":
    run_main(tests)
