#!/usr/bin/env python3
"""The keys keep their word, in a real terminal (tmux): at every width
from 80 to 200 columns the hint line's promise about the highlighted
command is what F5 does (approve when the command is shown whole, show
it all first when it is cut); F10 and Ctrl-C quit from every view and
popup; Enter with nothing typed shows the request the hint names, from
the lead's pane; the help opens with `?`, scrolls, searches, closes with
Esc or q, and shows every command README.md lists at 80x24.
"""

import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from huddle_screen import (expect, fake_screen, quit_clean, read_help,  # noqa: E402
                           run_main, say_to_lead)

COMMAND = "rm -rf junkdir && echo " + "x" * 60 + " END-OF-IT"
ROW = re.compile(r"req_[0-9a-f]{8}\s+permission\s+lead → lead\s+\S+\s+(\w+)")
README = os.path.join(os.environ.get("top_srcdir", os.path.join(HERE, "..", "..")),
                      "README.md")


def asking(fake, cols, rows, command=COMMAND):
    """A screen where the lead's risky command waits for the person."""
    fake.reset()
    fake.script({"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "bash", "input": {"command": command}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 6)
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    os.makedirs(os.path.join(work, "junkdir"))
    s = fake_screen(fake, ["--quit-timeout", "2"], cols, rows, workdir=work)
    return s


def start(s):
    say_to_lead(s)
    s.wait_for(lambda t: ROW.search(t) and "pending" in ROW.search(t).group(0),
               20, "the lead's command, pending")


def status(s):
    m = ROW.search(s.text())
    return m.group(1) if m else None


def hint(s):
    return s.rows()[-3]


def bar_of(s):
    rows = s.rows()
    return rows[-2 if rows[-1] == "" else -1]


def hints_at_every_width(s):
    """Widens the 24-row screen a column at a time, 80 to 200, and yields
    each width with the hint, once the hint row spans the screen redrawn
    at that width."""
    for cols in range(80, 201):
        if cols != 80:
            s.resize(cols, 24)
        s.wait_for(lambda t, cols=cols: len(hint(s)) == cols and
                   "lead's command" in hint(s), 5,
                   "the hint at %d columns" % cols)
        yield cols, hint(s)


def test_hint_and_f5_agree_at_every_width(fake):
    s = asking(fake, 80, 24)
    with s:
        start(s)
        cut_at, whole_at = None, None
        for cols, h in hints_at_every_width(s):
            whole = "END-OF-IT" in h
            decides = "F5 approves" in h
            shows = re.search(r"F5 (or Enter )?shows all", h) is not None
            expect(not (decides and shows), "two promises: %r" % h)
            expect(not decides or whole,
                   "at %d columns the hint promises F5 approves a command "
                   "it cut: %r" % (cols, h))
            expect(whole or shows,
                   "at %d columns the command is cut and the hint does not "
                   "say F5 shows it first: %r" % (cols, h))
            # The key bar says it too (its row comes after the hint's).
            s.wait_for(lambda t, shows=shows: ("F5Show" in bar_of(s)) ==
                       shows and ("F5Approve" in bar_of(s)) == (not shows),
                       5, "the key bar agreeing with %r" % h)
            if not whole and cut_at is None:
                cut_at = cols
            if decides and whole_at is None:
                whole_at = cols
        expect(cut_at is not None and whole_at is not None,
               "the widths never cut (%s) or never showed whole (%s)" %
               (cut_at, whole_at))
        # Where it is cut, F5 shows it all and decides nothing.
        s.resize(cut_at, 24)
        # (tmux cuts the old frame's rows at once: wait for the new one.)
        s.wait_for(lambda t: len(hint(s)) == cut_at and
                   "F5 or Enter shows all" in hint(s), 5, "the cut hint again")
        s.send_keys("F5")
        s.wait_for(lambda t: "Esc closes" in t and "END-OF-IT" in t, 5,
                   "F5 shows the whole command")
        s.send_keys("Escape")
        s.wait_gone("Esc closes", 5)
        expect(status(s) == "pending", "F5 decided a command it had cut")
        # Where it is whole, F5 approves at once.
        s.resize(200, 60)
        s.wait_for(lambda t: len(hint(s)) == 200 and "F5 approves" in hint(s),
                   5, "the whole hint at 200 columns")
        s.send_keys("F5")
        s.wait_for(lambda t: status(s) == "approved", 10, "F5 approved it")
        quit_clean(s)


def test_a_multiline_command_is_never_promised(fake):
    """Two lines never fit the hint line: at no width does it promise that
    F5 approves, and F5 shows both lines first."""
    s = asking(fake, 80, 24, command="rm -rf junkdir\necho END-OF-IT")
    with s:
        start(s)
        for cols, h in hints_at_every_width(s):
            expect("F5 approves" not in h and "F5 or Enter shows all" in h,
                   "at %d columns: %r" % (cols, h))
        s.send_keys("F5")
        s.wait_for(lambda t: "Esc closes" in t and "END-OF-IT" in t, 5,
                   "F5 shows both lines")
        s.send_keys("Escape")
        s.wait_gone("Esc closes", 5)
        expect(status(s) == "pending", "F5 decided two lines seen as one")
        quit_clean(s)


def quits_from(fake, cols, rows, opens, wait, key="F10"):
    """Opens a view with the keys `opens`, waits for `wait` on screen, and
    `key` must quit: with the lead's command waiting for the person, the
    first says, in that view, what the quit withdraws, and the second
    quits."""
    s = asking(fake, cols, rows)
    with s:
        start(s)
        s.send_keys(*opens)
        s.wait_for(wait, 5, "the view opened by %s" % (opens,))
        s.send_keys(key)
        s.wait_for("F10 again quits and withdraws the 1 request", 5,
                   "%s in %s to say what the quit withdraws" % (key, opens))
        s.send_keys(key)
        st = s.exit_status(30)
        expect(st == 0, "%s in %s: exit status %s" % (key, opens, st))


def test_f10_quits_from_every_view(fake):
    # (The table focused first, so Enter opens the detail view on any
    # version: what is tested here is the quitting.)
    for cols, rows in ((80, 24), (200, 60)):
        quits_from(fake, cols, rows, ["BTab", "Enter"], "Esc closes")
    quits_from(fake, 80, 24, ["F1"], "closes")
    quits_from(fake, 80, 24, ["F9"], "shut a teammate down")
    quits_from(fake, 80, 24, ["BTab", "Enter", "F6"], "feedback:")
    quits_from(fake, 80, 24, ["BTab", "Enter"], "Esc closes", key="C-c")


def test_enter_shows_the_named_request_from_the_lead(fake):
    s = asking(fake, 120, 40)
    with s:
        start(s)
        expect(s.rows()[-2].startswith("lead>"), "the lead is not focused")
        s.wait_for(lambda t: "Enter shows all" in hint(s) or
                   "or Enter shows all" in hint(s), 5, "the hint's Enter")
        s.send_keys("Enter")
        s.wait_for(lambda t: "Esc closes" in t and "END-OF-IT" in t, 5,
                   "Enter shows the request the hint names")
        s.send_keys("Escape")
        s.wait_gone("Esc closes", 5)
        expect(status(s) == "pending", "looking decided it")
        quit_clean(s)


def readme_commands():
    """The commands README.md lists: "/task add", "/team", …"""
    text = open(README).read()
    found = []
    for m in re.finditer(r"`(/[a-z]+(?:-[a-z]+)?"
                         r"(?: (?:add|assign|done|cancel|reopen))?)"
                         r"[ `|]", text):
        if m.group(1) not in found:
            found.append(m.group(1))
    return found


def test_the_help_at_80x24(fake):
    s = asking(fake, 80, 24)
    with s:
        start(s)
        # With text typed, ? is text.
        s.send_text("why?")
        s.wait_for(lambda t: s.rows()[-2].startswith("lead> why?"), 5,
                   "? typed")
        expect("Esc or q closes" not in s.text(), "? opened the help")
        s.send_keys("C-u")
        s.send_text("?")
        s.wait_for("Esc or q closes", 5, "? opens the help")
        pages = read_help(s)
        wanted = readme_commands()
        expect(len(wanted) >= 19, "README lists %d commands" % len(wanted))
        for cmd in wanted:
            expect(re.search(r"│ *%s\b" % re.escape(cmd), pages),
                   "%s is not in the help at 80x24" % cmd)
        for key in ("F10", "C-c", "PgUp/PgDn", "Esc"):
            expect(key in pages, "the help lacks %s" % key)
        # Home goes back; a search finds and marks a line; n goes on.
        s.send_keys("Home")
        s.wait_for(re.compile(r" 1-\d+ of \d+"), 5, "the top again")
        s.send_text("/worktrees")
        s.wait_for("search: worktrees_", 5, "the search typed")
        s.send_keys("Enter")
        s.wait_for(lambda t: "search:" not in t and
                   re.search(r"│ */worktrees ", t) and
                   not re.search(r" 1-\d+ of \d+", t), 5, "the search found")
        s.send_text("n")
        s.wait_for(lambda t: re.search(r"│ */worktrees ", t), 5, "n again")
        s.send_keys("Escape")
        s.wait_gone("Esc or q closes", 5)
        s.send_keys("F1")
        s.wait_for("Esc or q closes", 5, "F1 opens the help")
        s.send_text("q")
        s.wait_gone("Esc or q closes", 5)
        expect(status(s) == "pending", "the help decided something")
        quit_clean(s)


def test_familiar_keys(fake):
    """Shift-Down picks a teammate, x then asks to stop it (F9's menu);
    x at any other time is text; Ctrl-T the task board, Ctrl-O what is
    folded; F1 lists them."""
    fake.reset()
    fake.script({"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "spawn_teammate", "input": {
            "name": "alice", "role": "coder", "prompt": "Wait."}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 6,
        *[{"agent": "alice", "kind": "text", "text": "Waiting."}] * 6)
    s = fake_screen(fake, ["--quit-timeout", "2"], 80, 24)
    with s:
        say_to_lead(s)
        s.wait_for("┌ alice · ", 20, "alice's pane")
        # Without a pick, x is text.
        s.send_keys("Tab")
        s.wait_for(lambda t: s.rows()[-2].startswith("alice>"), 5, "Tab")
        s.send_text("x")
        s.wait_for(lambda t: s.rows()[-2].startswith("alice> x"), 5,
                   "x typed")
        s.send_keys("BSpace", "BTab")
        s.wait_for(lambda t: s.rows()[-2].startswith("lead>"), 5, "the lead")
        s.send_keys("S-Down")
        s.wait_for(lambda t: s.rows()[-2].startswith("alice>") and
                   "alice picked" in t, 5, "S-Down picks alice")
        s.send_text("x")
        s.wait_for("shut a teammate down", 5, "x asks first")
        s.send_keys("Enter")
        # The notice gives way to the new request, once it is selected.
        s.wait_for(lambda t: "asked alice to shut down" in t or
                   "shutdown request to alice" in t, 5, "the shutdown asked")
        s.send_keys("C-t")
        s.wait_for(re.compile(r"┌ tasks · "), 5, "C-t shows the task board")
        s.send_keys("C-t")
        s.wait_for(re.compile(r"┌ requests · "), 5, "C-t again: the requests")
        s.send_keys("C-o")
        s.wait_for("thinking and tool output are shown in full (C-o)", 5,
                   "C-o unfolds")
        s.send_keys("F1")
        pages = read_help(s)
        for key in ("S-Up/S-Down", "C-t", "C-o", "x "):
            expect(key in pages, "F1 lacks %s" % key)
        s.send_keys("Escape")
        s.wait_gone("Esc or q closes", 5)
        quit_clean(s)


def tests(r, fake):
    r.run("the hint and F5 agree at every width from 80 to 200",
          test_hint_and_f5_agree_at_every_width, fake)
    r.run("a command of two lines: F5 shows it first at every width",
          test_a_multiline_command_is_never_promised, fake)
    r.run("F10 and Ctrl-C quit from every view", test_f10_quits_from_every_view,
          fake)
    r.run("Enter shows the request the hint names, from the lead",
          test_enter_shows_the_named_request_from_the_lead, fake)
    r.run("the help at 80x24: ?, scrolling, search, every README command",
          test_the_help_at_80x24, fake)
    r.run("familiar keys: S-Up/Down, x, C-t, C-o", test_familiar_keys, fake)


if __name__ == "__main__":
    run_main(tests)
