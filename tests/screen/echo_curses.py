#!/usr/bin/env python3
"""A small curses program for selftest.py to drive through the harness.

It shows, one per row:
  0  keys: N last: NAME          N counts keys; NAME is curses' name for the
                                 last one (KEY_F(1), KEY_BTAB, ^I, ^[, x)
  1  size: COLSxROWS resizes: N  N counts KEY_RESIZE
  2  mouse: N at X,Y STATE       N counts KEY_MOUSE; STATE names the bstate
  3  input> _                    the cursor waits after the prompt
  5  wide characters at column 0, "RIGHT" at display column 30
and a "#" in the bottom-right cell.  It runs in raw mode (C-c is a key)
with keypad on, ESCDELAY 25 ms and mouse reporting on.  "q" quits with
status 0; "x" quits with status 5.
"""

import curses
import sys

WIDE = "日本語テキスト"      # 7 characters, 14 columns
WIDE_ROW, RIGHT_COL = 5, 30

BUTTONS = [(name, getattr(curses, name)) for name in dir(curses)
           if name.startswith(("BUTTON1_", "BUTTON2_", "BUTTON3_", "BUTTON4_",
                               "BUTTON5_")) and name[8:] in
           ("PRESSED", "RELEASED", "CLICKED", "DOUBLE_CLICKED", "TRIPLE_CLICKED")]


def key_name(k):
    if isinstance(k, str):
        o = ord(k)
        return curses.keyname(o).decode() if o < 32 or o == 127 else k
    return curses.keyname(k).decode()


def main(scr):
    curses.raw()
    curses.nonl()
    curses.noecho()
    curses.set_escdelay(25)
    scr.keypad(True)
    curses.mousemask(curses.ALL_MOUSE_EVENTS)
    try:
        curses.curs_set(1)
    except curses.error:
        pass
    keys, last, resizes, mice, mouse = 0, "none", 0, 0, "none"
    while True:
        rows, cols = scr.getmaxyx()
        scr.erase()
        lines = ["keys: %d last: %s" % (keys, last),
                 "size: %dx%d resizes: %d" % (cols, rows, resizes),
                 "mouse: %d at %s" % (mice, mouse)]
        for i, line in enumerate(lines):
            scr.addnstr(i, 0, line, cols - 1)
        if rows > WIDE_ROW and cols > RIGHT_COL + 5:
            scr.addstr(WIDE_ROW, 0, WIDE)
            scr.addstr(WIDE_ROW, RIGHT_COL, "RIGHT")
        scr.insstr(rows - 1, cols - 1, "#")
        scr.addstr(3, 0, "input> ")
        scr.refresh()
        k = scr.get_wch()
        if k == curses.KEY_RESIZE:
            resizes += 1
        elif k == curses.KEY_MOUSE:
            mice += 1
            try:
                _, x, y, _, bstate = curses.getmouse()
                names = [n for n, bit in BUTTONS if bstate & bit] or ["0x%x" % bstate]
                mouse = "%d,%d %s" % (x, y, "|".join(sorted(names)))
            except curses.error:
                mouse = "error"
        elif k == "q":
            return 0
        elif k == "x":
            return 5
        else:
            keys += 1
            last = key_name(k)


if __name__ == "__main__":
    sys.exit(curses.wrapper(main))
