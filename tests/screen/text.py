#!/usr/bin/env python3
"""Text the terminal draws as curses counts it, in a real terminal (tmux):
a teammate's emoji sequences (a family joined with ZWJ, a flag, a skin
tone, a keycap) never push the neighbouring pane's border out of line;
under LANG=C the screen is plain ASCII of the same layout, with no byte a
terminal would show as garbage; a long output keeps its end."""

import os
import re
import sys
import tempfile
import time
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)

FAMILY = "\U0001F468\u200D\U0001F469\u200D\U0001F467"
FLAG = "\U0001F1EB\U0001F1F7"
THUMB = "\U0001F44D\U0001F3FD"
KEYCAP = "1\uFE0F\u20E3"
TRICKY = "%s family %s flag %s thumb %s keycap caf\u00e9 \u4e2d\u6587 end" % (
    FAMILY, FLAG, THUMB, KEYCAP)


def session(fake, env=None):
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": "ana", "role": "writer", "prompt": "Write."}},
            {"name": "spawn_teammate", "input": {
                "name": "ben", "role": "reader", "prompt": "Read."}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted " + TRICKY}] * 6,
        *[{"agent": "ana", "kind": "text", "text": TRICKY + " " + str(i)}
          for i in range(6)],
        *[{"agent": "ben", "kind": "text", "text": "plain words"}] * 3)
    s = fake_screen(fake, ["--quit-timeout", "2"], 120, 40)
    if env:
        s.env.update(env)
    return s


def border_columns(rows, border="│"):
    """The display column of every pane border on each row (a wide
    character takes two)."""
    out = []
    for row in rows:
        col, found = 0, []
        for ch in row:
            if ch == border:
                found.append(col)
            col += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        out.append(tuple(found))
    return out


def test_emoji_keep_the_panes_in_line(fake):
    with session(fake) as s:
        say_to_lead(s)
        s.wait_for("keycap café 中文 end 0", 20, "ana's line")
        s.wait_for("ben is idle", 20, "ben's turn")
        rows = s.rows()[:-4]
        expect(any("FR flag" in r for r in rows),
               "the flag is not shown as its letters:\n" + "\n".join(rows))
        expect(any("\U0001F468 family" in r for r in rows),
               "the family is not shown as its first person")
        # Every row of the pane area has its borders where the first
        # does: a cell too many or too few would shift the right ones.
        cols = border_columns(rows)
        boxed = [c for c in cols if len(c) >= 4]
        expect(boxed and all(c == boxed[0] for c in boxed),
               "the pane borders are out of line:\n" + "\n".join(
                   "%r %s" % (c, r) for c, r in zip(cols, rows)))
        quit_clean(s)


def test_lang_c_is_plain_ascii(fake):
    with session(fake, {"LANG": "C", "LC_ALL": "C"}) as s:
        say_to_lead(s)
        s.wait_for("caf? ???? end 0", 20, "ana's line")
        s.wait_for("ben is idle", 20, "ben's turn")
        screen = s.text()
        expect("ana - writer" in screen,
               "titles are not in ASCII:\n" + screen)
        expect("lead>" in screen and "F10Quit" in screen, screen)
        expect("caf? ???? end" in screen,
               "non-ASCII text is not shown as '?' per column:\n" + screen)
        # Every character is ASCII; the borders are the terminal's
        # line-drawing set (DEC special graphics, which tmux's capture
        # shows as the letters that select them: x is a vertical line).
        odd = sorted({ch for ch in screen if ord(ch) > 0x7e})
        expect(not odd, "non-ASCII on a LANG=C screen: %r" % odd)
        expect("M-" not in screen, "bytes shown as meta characters")
        rows = s.rows()[1:14]
        cols = [tuple(i for i in c if i in (0, 59, 60, 119))
                for c in border_columns(rows, "x")]
        expect(all(c == (0, 59, 60, 119) for c in cols),
               "the pane borders are out of line:\n" + screen)
        quit_clean(s)


def test_long_output_keeps_its_end(fake):
    """1,500 lines of output: expanded, the pane ends with the last line
    (the end of a build is what people read), and a line says where the
    middle was left out."""
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "bash", "input": {"command": "seq 1 1500"}}]},
        {"agent": "lead", "kind": "text", "text": "Counted."})
    with fake_screen(fake, ["--quit-timeout", "2"], 100, 30) as s:
        say_to_lead(s)
        s.wait_for("Counted.", 20, "the command's end")
        s.send_keys("C-o")
        s.wait_for(lambda t: re.search(r"│\s+1500\s+│", t) and
                   "Counted." in t, 5, "the last line of the output, "
                   "expanded")
        s.send_keys("C-f")
        s.send_text("left out here")
        s.send_keys("Enter")
        s.wait_for("… 500 lines left out here", 5,
                   "the line where the middle was left out")
        quit_clean(s)


# The pager reads the output on its standard input, in the output's
# folder (not the working tree).
PAGER = """#!/bin/sh
cat > "$PAGED/copy"
pwd > "$PAGED/where"
touch "$PAGED/started"
if [ -e "$PAGED/hold" ]; then exec sleep 60; fi
"""


def wait_file(path, what, timeout=10):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        expect(time.monotonic() < deadline, "timed out waiting for " + what)
        time.sleep(0.05)


def test_whole_output_in_a_pager(fake):
    """3,000 lines: the pane keeps 1,000 and says C-p shows them all; C-p
    gives the whole output to $PAGER and the screen comes back; C-c in
    the pager is the pager's, not huddle's quit."""
    paged = tempfile.mkdtemp(prefix="huddle-paged-")
    pager = os.path.join(paged, "pager.sh")
    with open(pager, "w") as f:
        f.write(PAGER)
    os.chmod(pager, 0o755)
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "bash", "input": {"command": "seq 1 3000"}}]},
        {"agent": "lead", "kind": "text", "text": "Counted."})
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    s = fake_screen(fake, ["--quit-timeout", "2"], 100, 30, workdir=work)
    s.env.update({"PAGER": pager, "PAGED": paged})
    with s:
        say_to_lead(s)
        s.wait_for("Counted.", 20, "the command's end")
        s.wait_for("C-p: all", 5, "the folded output's mark")
        s.send_keys("C-p")
        wait_file(os.path.join(paged, "started"), "the pager")
        with open(os.path.join(paged, "copy")) as f:
            got = f.read().split()
        expect(got == [str(i) for i in range(1, 3001)],
               "the pager got %d lines, ending %r" % (len(got), got[-3:]))
        with open(os.path.join(paged, "where")) as f:
            where = f.read().strip()
        expect(where.endswith("/outputs") and not
               where.startswith(os.path.realpath(work)),
               "the pager ran in %s" % where)
        s.wait_for(lambda t: "Counted." in t and "lead>" in t, 5,
                   "the screen back after the pager")
        # A pager that stays: C-c ends it, and huddle goes on.
        os.remove(os.path.join(paged, "started"))
        open(os.path.join(paged, "hold"), "w").close()
        s.send_keys("C-p")
        wait_file(os.path.join(paged, "started"), "the pager again")
        s.wait_for(lambda t: "Counted." not in t, 5, "the pager's screen")
        s.send_keys("C-c")
        s.wait_for(lambda t: "Counted." in t and "lead>" in t, 5,
                   "the screen back after C-c in the pager")
        s.send_text("still here")
        s.wait_for("still here", 5, "huddle taking keys after the pager")
        quit_clean(s)
    # After --resume the output is found again by its call.
    os.remove(os.path.join(paged, "hold"))
    os.remove(os.path.join(paged, "started"))
    os.remove(os.path.join(paged, "copy"))
    s = fake_screen(fake, ["--quit-timeout", "2", "--resume"], 100, 30,
                    workdir=work)
    s.env.update({"PAGER": pager, "PAGED": paged})
    with s:
        s.wait_for("C-p: all", 10, "the resumed output's mark")
        s.send_keys("C-p")
        wait_file(os.path.join(paged, "started"), "the pager after --resume")
        with open(os.path.join(paged, "copy")) as f:
            expect(len(f.read().split()) == 3000, "the resumed output")
        s.wait_for("lead>", 5, "the screen back")
        quit_clean(s)


def register(r, fake):
    r.run("emoji sequences keep the panes in line",
          lambda: test_emoji_keep_the_panes_in_line(fake))
    r.run("a long output keeps its end",
          lambda: test_long_output_keeps_its_end(fake))
    r.run("C-p: the whole output in $PAGER",
          lambda: test_whole_output_in_a_pager(fake))
    r.run("LANG=C: a plain ASCII screen of the same layout",
          lambda: test_lang_c_is_plain_ascii(fake))


if __name__ == "__main__":
    run_main(register)
