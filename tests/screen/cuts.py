#!/usr/bin/env python3
"""Cuts that say so, in a real terminal (tmux): at 80, 120 and 200
columns every title, the hint line and the key bar end a cut in "…" (a
title or a hint never stops mid-word at its border), and the status line
always keeps the spend and the counts; at 80 columns a permission row
shows why it was flagged and `rm -rf`, however long the names in the
other rows; the request detail view shows the command as numbered lines
and then labelled fields, a long value wrapped inside its own field.
"""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)

LONG_COMMAND = "rm -rf junkdir && echo " + "y" * 70 + " LAST-WORD"
SUBJECT = ("Write unit tests for the parser and the printer and every "
           "corner case of both")
# The labels the key bar may show, whole.
LABELS = {"", "Help", "Tasks", "Requests", "Approve", "Reject", "Show",
          "Zoom", "Shutdown", "Quit", "Diff"}
COUNTS = re.compile(r"\d+ (working|waiting|idle)")
COST = re.compile(r"\$\d+\.\d\d")


def titles(rows):
    """The text of every box title on screen: what lies between a ┌ and
    the border's run of ─ before its ┐."""
    out = []
    for row in rows:
        for m in re.finditer(r"┌([^┐]*)┐", row):
            out.append(m.group(1).rstrip("─"))
    return out


def hint(s):
    return s.rows()[-3]


def bar_of(s):
    rows = s.rows()
    return rows[-2 if rows[-1] == "" else -1]


def check_cuts(s, cols):
    """Titles, the hint, the bar and the status line at this width."""
    rows = s.rows()
    for t in titles(rows):
        expect(t.endswith(" ") or t.endswith("…"),
               "at %d columns a title is cut without …: %r" % (cols, t))
    h = hint(s).rstrip("─")
    expect(h.endswith(" ") or h.endswith("…"),
           "at %d columns the hint is cut without …: %r" % (cols, h))
    bar = bar_of(s)
    for m in re.finditer(r"F(\d+)([A-Za-z…]*)", bar):
        label = m.group(2)
        expect(label in LABELS or label.endswith("…"),
               "at %d columns the key bar cuts %r: %r" % (cols, m.group(0),
                                                          bar))
    expect("F10" in bar, "at %d columns the bar lost F10: %r" % (cols, bar))
    expect(COST.search(bar) and COUNTS.search(bar),
           "at %d columns the status line lost the spend or the counts: "
           "%r" % (cols, bar))


def test_cuts_say_so(fake):
    """A teammate on a task with a long subject (its pane title cut), the
    lead's long command waiting (the hint cut): nothing is cut bare."""
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "task_create", "input": {
                "subject": SUBJECT, "verify": "true"}},
            {"name": "spawn_teammate", "input": {
                "name": "ann", "role": "documentation and release notes",
                "autonomous": True, "prompt": "Take tasks."}}]},
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "bash", "input": {"command": LONG_COMMAND}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 6,
        {"kind": "worker", "work_ms": 60000})
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    os.makedirs(os.path.join(work, "junkdir"))
    s = fake_screen(fake, ["--quit-timeout", "2"], 80, 24, workdir=work)
    with s:
        say_to_lead(s)
        s.wait_for(lambda t: "lead's command" in hint(s) and
                   re.search(r"┌ ann · .*t1 ", t), 30,
                   "the lead's command waiting, ann on t1")
        for cols in (80, 120, 200):
            s.resize(cols, 24)
            s.wait_for(lambda t, cols=cols: len(hint(s)) == cols and
                       len(bar_of(s)) <= cols and
                       re.search(r"┌ ann · .*t1 ", t) and
                       "lead's command" in hint(s), 10,
                       "the screen at %d columns" % cols)
            check_cuts(s, cols)
        # Something was cut, and said so: ann's task at 80 columns.
        s.resize(80, 24)
        s.wait_for(lambda t: len(hint(s)) == 80 and
                   re.search(r"┌ ann · .*t1 .*…", t), 10,
                   "ann's title cut with …")
        check_cuts(s, 80)
        quit_clean(s)


def row_of(s, who):
    """who's row of the request table: its id, its type, then who asked
    (a pane beside the table may show a request id and who's name on
    the same screen line, but not in that order)."""
    row = re.compile(r"req_[0-9a-f]{8}\s+\S+\s+" + re.escape(who))
    for line in s.rows():
        if row.search(line):
            return line
    return None


def test_permission_row_at_80(fake):
    """A teammate with a long name and a plan in the table, carl's
    `rm -rf junkdir && echo x` below it: at 80 columns carl's row shows
    why and `rm -rf`; the plan's detail view numbers its lines and says
    who asked and when."""
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": "documentation-writer", "role": "writer",
                "prompt": "Plan.", "plan_required": True}},
            {"name": "spawn_teammate", "input": {
                "name": "carl", "role": "ops", "prompt": "Clean up."}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 12,
        {"agent": "documentation-writer", "kind": "tool_use", "calls": [
            {"name": "submit_plan", "input": {
                "plan": "1. write the notes\n2. tell the lead"}}]},
        *[{"agent": "documentation-writer", "kind": "text",
           "text": "Understood."}] * 4,
        {"agent": "carl", "kind": "tool_use", "calls": [
            {"name": "bash", "input": {
                "command": "rm -rf junkdir && echo x"}}]},
        *[{"agent": "carl", "kind": "text", "text": "Done."}] * 4)
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    os.makedirs(os.path.join(work, "junkdir"))
    s = fake_screen(fake, ["--quit-timeout", "2", "--plan-review", "human"],
                    80, 24, workdir=work)
    with s:
        say_to_lead(s)
        s.wait_for(lambda t: row_of(s, "carl") and
                   row_of(s, "documentation") and "2 pending" in t, 30,
                   "the plan and carl's command, pending")
        row = row_of(s, "carl")
        expect(re.search(r"pending\s+rm -r · .*rm -rf", row),
               "carl's row hides why or what: %r" % row)
        # The plan's details: numbered lines, then who and when.
        # The hint names the first row before the table has the focus:
        # what is highlighted is known once the prompt says so.
        s.send_keys("BTab")
        s.wait_for(lambda t: s.rows()[-2].startswith("Enter shows the "),
                   5, "the table's focus")
        s.wait_for(lambda t: "'s plan" in hint(s) or
                   "carl's command" in hint(s), 5, "a request named")
        if "'s plan" not in hint(s):
            # The table's rows, not a pane's line that names a request
            # and its asker too.
            rows = s.rows()
            doc = rows.index(row_of(s, "documentation"))
            carl = rows.index(row_of(s, "carl"))
            s.send_keys("Down" if carl < doc else "Up")
        s.wait_for(lambda t: "documentation-writer's plan" in hint(s), 5,
                   "the plan selected")
        s.send_keys("Enter")
        t = s.wait_for(lambda t: "Esc closes" in t and "who asked" in t,
                       5, "the plan's details")
        expect(re.search(r"1 │ 1\. write the notes", t) and
               re.search(r"2 │ 2\. tell the lead", t),
               "the plan's lines are not numbered:\n" + t)
        expect(re.search(r"who asked +documentation-writer, to lead", t),
               "who asked:\n" + t)
        expect(re.search(r"when +asked \d+[smhd] ago", t), "when:\n" + t)
        expect(re.search(r"request +req_[0-9a-f]{8} · plan · pending", t),
               "the request:\n" + t)
        s.send_keys("Escape")
        s.wait_gone("Esc closes", 5)
        quit_clean(s)


def test_detail_view_fields(fake):
    """A command of two lines in a deep directory: its lines numbered in
    a block, then the labelled fields, the directory wrapped inside its
    own field."""
    fake.reset()
    fake.script({"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "bash", "input": {
            "command": "rm -rf junkdir\necho END-OF-IT"}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 6)
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    deep = os.path.join(work, "a-rather-long-folder-name-for-the-project",
                        "and-another-one-below-it-to-make-it-wrap")
    os.makedirs(os.path.join(deep, "junkdir"))
    s = fake_screen(fake, ["--quit-timeout", "2"], 80, 24, workdir=deep)
    with s:
        say_to_lead(s)
        s.wait_for(lambda t: "lead's command" in hint(s), 20,
                   "the lead's command")
        s.send_keys("BTab", "Enter")
        t = s.wait_for(lambda t: "Esc closes" in t and "request " in t, 5,
                       "the detail view")
        # The popup's inside: two columns in from its left border.
        rows = s.rows()
        left = [r.index("┌ lead's permission") for r in rows
                if "┌ lead's permission" in r][0] + 2
        width = len(rows[0]) - 8 - 4
        inner = [r[left:left + width].rstrip() for r in rows]
        # The block: numbered, verbatim, the flagged line marked.
        expect(any(re.match(r" *1 ▶ rm -rf junkdir$", r) for r in inner),
               "line 1:\n" + t)
        expect(any(re.match(r" *2 │ echo END-OF-IT$", r) for r in inner),
               "line 2:\n" + t)
        # The fields, after the block, each under its label.
        labels = ["why flagged", "directory", "who asked", "when",
                  "request"]
        at = []
        for label in labels:
            found = [i for i, r in enumerate(inner) if r.startswith(label)]
            expect(found, "no %r field:\n%s" % (label, t))
            at.append(found[0])
        expect(at == sorted(at), "the fields out of order: %r" % at)
        block = [i for i, r in enumerate(inner) if "END-OF-IT" in r][0]
        expect(block < at[0], "the fields come before the command")
        expect(re.match(r"why flagged +rm -r", inner[at[0]]),
               inner[at[0]])
        # The directory wraps inside its field: its rows are indented
        # under the value, and together they are the whole path.
        d = at[1]
        expect(at[2] - d >= 2, "the directory did not wrap:\n" + t)
        first = inner[d][len("directory"):]
        indent = len(inner[d]) - len(first.lstrip())
        parts = [first.strip()]
        for r in inner[d + 1:at[2]]:
            expect(r[:indent].strip() == "",
                   "a wrapped row runs under the label: %r" % r)
            parts.append(r.strip())
        expect("".join(parts) == deep or " ".join(parts) == deep,
               "the directory's rows %r are not %r" % (parts, deep))
        expect(re.match(r"who asked +lead \(bash\), to lead", inner[at[2]]),
               inner[at[2]])
        expect(re.match(r"when +asked \d+s ago", inner[at[3]]), inner[at[3]])
        expect(re.match(r"request +req_[0-9a-f]{8} · permission · pending",
                        inner[at[4]]), inner[at[4]])
        s.send_keys("Escape")
        s.wait_gone("Esc closes", 5)
        quit_clean(s)


def tests(r, fake):
    r.run("no cut without … at 80, 120 and 200 columns; the counts stay",
          test_cuts_say_so, fake)
    r.run("at 80 columns a permission row shows why and rm -rf",
          test_permission_row_at_80, fake)
    r.run("the detail view: numbered lines, then labelled fields",
          test_detail_view_fields, fake)


if __name__ == "__main__":
    run_main(tests)
