#!/usr/bin/env python3
"""Text the terminal draws as curses counts it, in a real terminal (tmux):
a teammate's emoji sequences (a family joined with ZWJ, a flag, a skin
tone, a keycap) never push the neighbouring pane's border out of line;
under LANG=C the screen is plain ASCII of the same layout, with no byte a
terminal would show as garbage; a long output keeps its end."""

import os
import re
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import expect, fake_screen, quit_clean, run_main  # noqa: E402

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


def start(s):
    s.wait_for("lead>", 10)
    s.send_text("go")
    s.send_keys("Enter")


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
        start(s)
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
        start(s)
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
        s.wait_for("lead>", 10)
        s.send_text("go")
        s.send_keys("Enter")
        s.wait_for("Counted.", 20, "the command's end")
        s.send_keys("C-o")
        s.wait_for(lambda t: re.search(r"│\s+1500\s+│", t) and
                   "Counted." in t, 5, "the last line of the output, "
                   "expanded")
        s.send_keys("C-f")
        s.send_text("left out here")
        s.send_keys("Enter")
        s.wait_for("… 500 lines left out here …", 5,
                   "the line where the middle was left out")
        quit_clean(s)


def register(r, fake):
    r.run("emoji sequences keep the panes in line",
          lambda: test_emoji_keep_the_panes_in_line(fake))
    r.run("a long output keeps its end",
          lambda: test_long_output_keeps_its_end(fake))
    r.run("LANG=C: a plain ASCII screen of the same layout",
          lambda: test_lang_c_is_plain_ascii(fake))


if __name__ == "__main__":
    run_main(register)
