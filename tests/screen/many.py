#!/usr/bin/env python3
"""Panes in a real terminal (tmux): 12 teammates at 80x24 and 32 at
200x60 are each drawn, as a pane or folded to a row, or counted in a
"+N more" row; pane titles keep the status when the role does not fit;
a pane scrolled back stays put while output arrives, says how many lines
came, and End returns to them.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)

STATUSES = ("starting", "working", "waiting", "idle", "terminated")


def names(n):
    return ["mate%02d" % i for i in range(n)]


def test_all_shown_or_counted(fake, n, cols, rows):
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": m, "role": "a-rather-long-role-name",
                "prompt": "Say hello."}} for m in names(n)]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * (n + 4),
        *[{"agent": m, "kind": "text", "text": "Hello."} for m in names(n)])
    s = fake_screen(fake, ["--quit-timeout", "5", "--max-teammates", str(n)],
                    cols, rows)
    with s:
        say_to_lead(s)

        def accounted(text):
            seen = [m for m in names(n) if re.search(
                r"\b%s · (?:[\w-]+ · )?(%s)\b" % (m, "|".join(STATUSES)),
                text)]
            more = re.search(r"\+(\d+) more teammates", text)
            counted = int(more.group(1)) if more else 0
            return len(seen) + counted == n and (counted == 0 or
                                                 len(seen) > 0)
        # Once all are idle (the lead says so), each is accounted for.
        s.wait_for(lambda t: len(re.findall(r"is idle: Hello", t)) > 0,
                   30, "teammates at work")
        screen = s.wait_for(accounted, 30, "every teammate drawn or counted")
        # The status line: the spend, the clock, the agents by status.
        if cols >= 120:
            expect(re.search(r"\$\d+\.\d\d · (\d+m|\d+h\d\d) · (\d+ \w+ ?)+",
                             screen.split("\n")[-1]), screen.split("\n")[-1])
        # A title cut short still says the status.
        expect(not re.search(r"mate\d\d · a-rather-long-role-name · "
                             r"[a-z]{1,3}\b(?! )", screen),
               "a title lost its status")
        quit_clean(s)


def test_tab_slides_through_teammates(fake):
    """8 idle teammates at 80x24: Tab through them all. The focused one is
    always a pane; each Tab brings one pane in and takes at most one out;
    panes and folded rows keep the roster's order: nothing jumps."""
    n = 8
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": m, "role": "dev", "prompt": "Say hello."}}
            for m in names(n)]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * (n + 4),
        *[{"agent": m, "kind": "text", "text": "Hello."} for m in names(n)])
    s = fake_screen(fake, ["--quit-timeout", "5"], 80, 24)

    def panes(text):
        """The teammates drawn as panes and as folded rows, in screen
        order (rows top to bottom, left to right)."""
        shown, folded = [], []
        for line in text.split("\n"):
            shown += re.findall(r"┌ (mate\d\d) ·", line)
            folded += re.findall(r"▸ (mate\d\d) ·", line)
        return shown, folded

    with s:
        say_to_lead(s)
        s.wait_for(lambda t: len(re.findall(r"mate\d\d · (?:dev · )?idle",
                                            t)) >= 4 and
                   len(re.findall(r"is idle: Hello", t)) >= 1, 30,
                   "teammates idle")
        s.wait_for(lambda t: "Noted." in t and not re.search(
            r"mate\d\d · (?:dev · )?(working|starting)", t), 30,
            "every teammate idle")
        before, _ = panes(s.text())
        for step in range(n):
            s.send_keys("Tab")
            want = names(n)[step]
            t = s.wait_for(lambda t: want in panes(t)[0], 5,
                           "%s a pane once focused" % want)
            shown, folded = panes(t)
            expect(shown == sorted(shown) and folded == sorted(folded),
                   "out of the roster's order: panes %r, rows %r"
                   % (shown, folded))
            came = set(shown) - set(before)
            expect(len(came) <= 1, "Tab to %s brought in %r (before %r, "
                   "after %r)" % (want, sorted(came), before, shown))
            # The one just left stays in view beside it: the panes
            # slide, a window on the roster.
            if step > 0:
                expect(names(n)[step - 1] in shown, "Tab to %s took %s "
                       "(focused a moment ago) out of view: %r"
                       % (want, names(n)[step - 1], shown))
            before = shown
        quit_clean(s)


def test_a_scrolled_pane_stays_put(fake):
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "text",
         "text": "\n".join("line %d" % i for i in range(1, 61))},
        {"agent": "lead", "kind": "text",
         # Long lines: each wraps to several rows, and streams in.
         "text": "\n".join("new %d %s" % (i, "wrapping words " * 8)
                           for i in range(1, 11)),
         "delta_chars": 7, "chunk_delay_ms": 30})
    s = fake_screen(fake, ["--quit-timeout", "2"], 80, 24)

    def pane(text):
        # The lead's pane without its borders: rows 1.. of the top box.
        rows = text.split("\n")
        end = next(i for i, r in enumerate(rows) if r.startswith("└"))
        return rows[1:end]
    with s:
        say_to_lead(s)
        s.wait_for("line 60", 10, "the first reply")
        s.send_keys("PageUp")
        before = pane(s.wait_for("↑ scrolled", 5, "scrolled back"))
        expect("line 60" not in "\n".join(before), "did not scroll")
        s.send_text("more")
        s.send_keys("Enter")
        s.wait_for(lambda t: re.search(r"↓ (\d+) new", t) and
                   int(re.search(r"↓ (\d+) new", t).group(1)) >= 11, 10,
                   "eleven new lines counted")
        after = pane(s.text())
        expect(after == before, "the pane moved:\n%s\n--\n%s"
               % ("\n".join(before), "\n".join(after)))
        s.send_keys("End")
        s.wait_for(lambda t: re.search(r"new 10 wrapping", t) and
                   "↑ scrolled" not in t, 5, "back at the tail")
        quit_clean(s)


def test_a_turn_is_not_split(fake):
    words = " ".join("w%02d" % i for i in range(60))
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": "alice", "role": "coder", "prompt": "Report."}}]},
        {"agent": "lead", "kind": "text", "text": words + " END",
         "delta_chars": 4, "chunk_delay_ms": 40},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 4,
        {"agent": "alice", "kind": "tool_use", "delay_ms": 1000, "calls": [
            {"name": "send_message", "input": {
                "to": "lead", "content": "mid-stream note"}}]},
        {"agent": "alice", "kind": "text", "text": "Sent."})
    s = fake_screen(fake, ["--quit-timeout", "2"], 120, 40)
    with s:
        say_to_lead(s)
        screen = s.wait_for(lambda t: "END" in t and "mid-stream note" in t,
                            20, "the reply and alice's note")
        # The lead's pane, left half: the reply's words in one run, the
        # note after them.
        lead = [r[:r.index("│", 1) + 1] if "│" in r[1:] else r
                for r in screen.split("\n")]
        text = "\n".join(lead)
        first = text.index("w00")
        note = text.index("mid-stream note")
        expect(not first < note < text.index("END"),
               "the note split the reply:\n" + text)
        run = re.sub(r"[│\s]+", " ", text[first:text.index("END")])
        expect(run.strip() == words,
               "the reply is not one run: %r" % run)
        quit_clean(s)


def test_ended_teammates_fold_and_hide(fake):
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": m, "role": "helper", "prompt": "Say hello."}}
            for m in ("ann", "bea")]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 8,
        {"agent": "ann", "kind": "text", "text": "Hello."},
        {"agent": "bea", "kind": "text", "text": "Hello."},
        {"agent": "ann", "kind": "tool_use", "calls": [
            {"name": "shutdown_response", "input": {
                "request_id": "{{request_id}}", "approve": True}}]})
    with fake_screen(fake, ["--quit-timeout", "3"], 120, 40) as s:
        say_to_lead(s)
        s.wait_for("bea is idle", 20, "both at work")
        s.wait_for("ann is idle", 20, "both at work")
        s.send_text("/shutdown ann")
        s.send_keys("Enter")
        # Terminated, ann folds to a row.
        s.wait_for("▸ ann · helper · terminated", 20, "ann folded")
        s.send_keys("BTab")
        s.send_text("h")
        screen = s.wait_for("1 ended teammate hidden", 5, "h hides ann")
        expect("ann · helper" not in screen, "ann is still drawn")
        expect("bea · helper" in screen, "bea went too")
        s.send_text("h")
        s.wait_for("▸ ann · helper · terminated", 5, "h shows ann again")
        quit_clean(s)


def tests(r, fake):
    r.run("12 teammates at 80x24: each drawn or counted",
          test_all_shown_or_counted, fake, 12, 80, 24)
    r.run("32 teammates at 200x60: each drawn or counted",
          test_all_shown_or_counted, fake, 32, 200, 60)
    r.run("Tab through 8 teammates at 80x24: one pane in, one out",
          test_tab_slides_through_teammates, fake)
    r.run("a scrolled pane stays put as output arrives",
          test_a_scrolled_pane_stays_put, fake)
    r.run("an ended teammate folds to a row, and h hides it",
          test_ended_teammates_fold_and_hide, fake)
    r.run("a message arriving mid-stream waits for the turn's text",
          test_a_turn_is_not_split, fake)


if __name__ == "__main__":
    run_main(tests)
