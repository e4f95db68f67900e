#!/usr/bin/env python3
"""Fifty requests at 80x24, in a real terminal (tmux): five teammates each
open ten connections through the proxy, each a network request. The
person reaches the last row by keys (j) and answers it; reaches a row in
the middle by the mouse wheel, clicks it and answers it; and / filters
the table down to one request, whose row shows how it was answered.
"""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)
from requests import table  # noqa: E402
from fakellm_client import remote_addresses  # noqa: E402

TEAM = ["ann", "bea", "cal", "dan", "eve"]
EACH = 10
ALL = len(TEAM) * EACH


def big_team(fake):
    addrs = remote_addresses(ALL)
    fake.reset()
    script = [{"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "spawn_teammate", "input": {
            "name": n, "role": "ops", "prompt": "Fetch."}} for n in TEAM]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 20]
    for k, n in enumerate(TEAM):
        mine = addrs[k * EACH:(k + 1) * EACH]
        flood = ("for a in %s; do curl -s -o /dev/null http://$a/ & "
                 "done; wait; echo done" % " ".join(mine))
        script += [{"agent": n, "kind": "tool_use", "calls": [
            {"name": "bash", "input": {"command": flood}}]},
            *[{"agent": n, "kind": "text", "text": "Done."}] * 4]
    fake.script(*script)
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    return fake_screen(fake, ["--quit-timeout", "2"], 80, 24, workdir=work)


def title(s):
    return next((r for r in s.rows() if "requests · " in r), "")


def pending_count(s):
    m = re.search(r"requests · (\d+) pending", title(s))
    return int(m.group(1)) if m else 0


def highlighted(s):
    hi = [r for r in table(s) if r[4]]
    return hi[0] if len(hi) == 1 else None


def marker(s):
    """The table's last line: "N more above · M more below …"."""
    for r in s.rows():
        m = re.search(r"(\d+) (?:more )?above · (\d+) (?:more )?below", r)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def table_top(s):
    """The screen row of the table's header."""
    for i, r in enumerate(s.rows()):
        if re.search(r"\bid\s+type\s+from → to", r):
            return i
    return None


def answer(s, key, left, what):
    """Approves the selected request with key (a or F5): when the hint
    line cannot show all of it, the first press shows it whole and F5
    there approves. Waits until `left` are pending."""
    if key == "a":
        s.send_text("a")
    else:
        s.send_keys(key)
    t = s.wait_for(lambda t: pending_count(s) == left or
                   "'s permission ─" in t, 10, what)
    if pending_count(s) != left:
        s.send_keys("F5")
        s.wait_for(lambda t: pending_count(s) == left, 10, what)


def test_fifty_rows_by_keys_mouse_and_filter(fake):
    s = big_team(fake)
    with s:
        say_to_lead(s)
        s.wait_for(lambda t: pending_count(s) == ALL, 60,
                   "%d requests pending" % ALL)
        s.send_keys("BTab")
        s.wait_for(lambda t: highlighted(s) is not None, 5,
                   "a row highlighted")
        first = highlighted(s)[0]
        # Keys: j to the very last row.
        for _ in range(ALL - 1):
            s.send_keys("j")
        s.wait_for(lambda t: marker(s) is not None and marker(s)[1] == 0 and
                   highlighted(s) is not None, 10, "the last row reached")
        above, _ = marker(s)
        rows = table(s)
        expect(rows and rows[-1][4], "the last row shown is not the one "
               "highlighted: %r" % rows)
        expect(above + len(rows) == ALL, "%d above and %d shown of %d"
               % (above, len(rows), ALL))
        last = highlighted(s)[0]
        expect(last != first, "the selection never moved")
        answer(s, "a", ALL - 1, "the last row answered")
        # The mouse: back to the top with k, then the wheel down 24 rows
        # over the table, a click on the row highlighted, and F5.
        for _ in range(ALL):
            s.send_keys("k")
        s.wait_for(lambda t: marker(s) is not None and marker(s)[0] == 0,
                   10, "back at the top")
        top = table_top(s)
        expect(top is not None, "no table header on the screen")
        for _ in range(24):
            s.wheel(10, top + 1, up=False)
        s.wait_for(lambda t: marker(s) is not None and marker(s)[0] > 0,
                   10, "the wheel moved down the table")
        pick = highlighted(s)
        expect(pick is not None, "no row highlighted after the wheel")
        line = next(i for i, r in enumerate(s.rows()) if pick[0] in r)
        s.click(30, line)
        s.wait_for(lambda t: (highlighted(s) or [""])[0] == pick[0], 5,
                   "the clicked row selected")
        answer(s, "F5", ALL - 2, "the middle row answered")
        # The filter: / and an id leave one row, approved.
        s.send_text("/")
        s.wait_for(lambda t: "filter (" in s.rows()[-2], 5, "the filter")
        s.send_text(pick[0])
        s.wait_for(lambda t: [r[0] for r in table(s)] == [pick[0]], 5,
                   "one row left")
        expect(table(s)[0][3] == "approved", "the row: %r" % table(s))
        s.send_keys("Enter")
        s.wait_for(lambda t: "/%s: 1 of %d · %d waiting hidden"
                   % (pick[0], ALL, ALL - 2) in t, 5,
                   "the filter named under the table, and what it hides")
        # Esc on the table: every row again.
        s.send_keys("Escape")
        s.wait_for(lambda t: len(table(s)) > 1 and "/%s:" % pick[0]
                   not in t, 5, "the filter cleared")
        # A command typed at / acts on the row chosen before it, not on
        # one the letters typed on the way passed by.
        s.send_keys("k")
        s.send_keys("k")
        s.send_keys("k")
        s.wait_for(lambda t: highlighted(s) is not None and
                   highlighted(s)[3] == "pending", 5, "a pending row")
        chosen = highlighted(s)[0]
        s.send_text("/")
        s.send_text("approve ")
        s.wait_for("command (Enter runs it)> /approve", 5,
                   "the prompt reads it as a command")
        s.send_keys("Enter")
        s.wait_for(lambda t: pending_count(s) == ALL - 3, 10,
                   "the command ran")
        s.send_text("/")
        s.send_text(chosen)
        s.wait_for(lambda t: [r[0] for r in table(s)] == [chosen], 5,
                   "the chosen row alone")
        expect(table(s)[0][3] == "approved",
               "/approve typed at / did not approve the row chosen: %r"
               % table(s))
        s.send_keys("Escape")
        quit_clean(s)


def tests(r, fake):
    r.run("50 requests at 80x24: any row by keys, by mouse, by filter",
          test_fifty_rows_by_keys_mouse_and_filter, fake)


if __name__ == "__main__":
    run_main(tests)
