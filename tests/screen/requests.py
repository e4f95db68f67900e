#!/usr/bin/env python3
"""The request table tells the truth, in a real terminal (tmux): the hint
line always names the highlighted request, and F5 and F6 act on that one
and no other. With bob's plan and carl's `rm -rf junkdir` both pending:
at every selection the hint names the highlighted row and F5 approves
that row; a request that arrives later does not take the hint; a command
the hint cannot show whole is shown in the detail view before F5 acts;
Enter opens the details; `/approve nonsense` decides nothing; `t` in a
network request's details allows the host for the whole team; a command
padded with blanks and line ends shows why it was flagged and its
dangerous line on the row, the hint and the detail view.
"""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)

SGR = re.compile(r"\x1b\[[0-9;]*m")
HIGHLIGHT = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:4[0-7]|7)(?:;[0-9;]*)?m")


def team(fake, command="rm -rf junkdir", carl_delay_ms=0, cols=120,
         rows=40):
    """A screen where bob's plan, then carl's command, wait for the
    person."""
    fake.reset()
    carl = {"agent": "carl", "kind": "tool_use",
            "calls": [{"name": "bash", "input": {"command": command}}]}
    if carl_delay_ms:
        carl["delay_ms"] = carl_delay_ms
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": "bob", "role": "writer", "prompt": "Plan.",
                "plan_required": True}},
            {"name": "spawn_teammate", "input": {
                "name": "carl", "role": "ops", "prompt": "Clean up."}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 12,
        {"agent": "bob", "kind": "tool_use", "calls": [
            {"name": "submit_plan", "input": {
                "plan": "1. write bob.txt\n2. tell the lead"}}]},
        *[{"agent": "bob", "kind": "text", "text": "Understood."}] * 4,
        carl,
        *[{"agent": "carl", "kind": "text", "text": "Done."}] * 4)
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    os.makedirs(os.path.join(work, "junkdir"))
    return fake_screen(fake, ["--quit-timeout", "2", "--plan-review",
                              "human"], cols, rows, workdir=work), work


ROW = re.compile(r"(req_[0-9a-f]{8})\s+(plan|permission)\s+(\w+) → \w+\s+\S+"
                 r"\s+(\w+)")


def table(s):
    """The request rows: [(id, type, from, status, highlighted)]."""
    raw = s.text(escapes=True).split("\n")
    rows = []
    for line in raw:
        plain = SGR.sub("", line)
        m = ROW.search(plain)
        if m:
            start = SGR.findall(line[:line.find("req_")])
            rows.append([m.group(1), m.group(2), m.group(3), m.group(4),
                         "".join(start)])
    # The highlighted row has a background (or reverse video); the
    # others only a foreground colour.
    for r in rows:
        r[4] = bool(HIGHLIGHT.search(r[4]))
    return rows


def hint(s):
    return s.rows()[-3]


def both_pending(s):
    return s.wait_for(lambda t: len([r for r in table(s)
                                     if r[3] == "pending"]) == 2,
                      20, "two pending requests")


def selected_is_named(s, owner=None):
    """Waits until one row is highlighted and the hint names it."""
    def ok(_):
        rows = table(s)
        hi = [r for r in rows if r[4]]
        if len(hi) != 1 or (owner and hi[0][2] != owner):
            return False
        kind = "plan" if hi[0][1] == "plan" else "command"
        return "%s's %s" % (hi[0][2], kind) in hint(s)
    s.wait_for(ok, 5, "the hint naming the highlighted row (%s)" % owner)
    return [r for r in table(s) if r[4]][0]


def select_row(s, owner):
    """With both requests pending, gives the table the focus and moves the
    highlight to OWNER's row, each key waited for on the screen (a key
    chosen from a screen not yet redrawn can move past the row)."""
    both_pending(s)
    s.send_keys("BTab")
    first = selected_is_named(s)
    if first[2] != owner:
        s.send_keys("Down" if table(s)[0][4] else "Up")
    return selected_is_named(s, owner)


def test_hint_highlight_and_f5_agree(fake):
    s, work = team(fake)
    with s:
        say_to_lead(s)
        both_pending(s)
        s.send_keys("BTab")      # the table
        first = selected_is_named(s)
        other = "carl" if first[2] == "bob" else "bob"
        s.send_keys("Down" if table(s)[0][4] else "Up")
        second = selected_is_named(s, other)
        expect(second[0] != first[0], "the selection did not move")
        s.send_keys("Up" if table(s)[-1][4] else "Down")
        selected_is_named(s, first[2])
        s.send_keys("Down" if table(s)[0][4] else "Up")
        chosen = selected_is_named(s, other)
        s.send_keys("F5")
        s.wait_for(lambda t: any(r[0] == chosen[0] and r[3] == "approved"
                                 for r in table(s)), 10, "F5 approved it")
        rows = {r[0]: r[3] for r in table(s)}
        expect(rows[first[0]] == "pending",
               "F5 also decided the other request: %s" % rows)
        # The one left is selected and named; F5 decides it.
        selected_is_named(s, first[2])
        s.send_keys("F5")
        s.wait_for(lambda t: all(r[3] == "approved" for r in table(s)),
                   10, "both approved")
        quit_clean(s)


def test_a_new_request_does_not_take_the_hint(fake):
    s, _ = team(fake, carl_delay_ms=1500)
    with s:
        say_to_lead(s)
        s.wait_for(lambda t: any(r[1] == "plan" and r[3] == "pending"
                                 for r in table(s)), 20, "bob's plan")
        s.wait_for(lambda t: "bob's plan" in hint(s), 5, "the hint")
        both_pending(s)
        expect("bob's plan" in hint(s) and "carl" not in hint(s),
               "carl's request took the hint: %r" % hint(s))
        expect("2 pending" in hint(s), hint(s))
        s.send_keys("F5")
        s.wait_for(lambda t: any(r[1] == "plan" and r[3] == "approved"
                                 for r in table(s)), 10, "bob's plan approved")
        expect(any(r[1] == "permission" and r[3] == "pending"
                   for r in table(s)), "carl's command was decided too")
        quit_clean(s)


def test_a_command_is_seen_whole_before_f5(fake):
    long = "rm -rf junkdir && echo " + "x" * 90 + " && echo END-OF-IT"
    s, work = team(fake, command=long, cols=80, rows=24)
    with s:
        say_to_lead(s)
        s.wait_for(lambda t: any(r[1] == "permission" and r[3] == "pending"
                                 for r in table(s)), 20, "carl's command")
        select_row(s, "carl")
        expect("END-OF-IT" not in hint(s), "the hint shows all of it")
        s.send_keys("F5")
        s.wait_for(lambda t: "END-OF-IT" in t and "Esc closes" in t, 5,
                   "the detail view with the whole command")
        s.send_keys("Escape")
        s.wait_gone("Esc closes", 5)
        expect(any(r[2] == "carl" and r[3] == "pending" for r in table(s)),
               "F5 ran a command the person had not seen")
        s.send_keys("F5")
        s.wait_for("Esc closes", 5, "the detail view again")
        s.send_keys("F5")
        s.wait_for(lambda t: any(r[2] == "carl" and r[3] == "approved"
                                 for r in table(s)), 10, "approved from the "
                   "detail view")
        quit_clean(s)


PADDED = ("echo harmless-looking-step" + " " * 400 + "\n" * 40 +
          "rm -rf junk2")


def test_the_person_sees_what_runs(fake):
    """The padded attack: the row and the hint lead with why and show
    `rm -rf junk2`; F5 shows the numbered lines before anything runs."""
    s, work = team(fake, command=PADDED, cols=80, rows=24)
    with s:
        say_to_lead(s)
        s.wait_for(lambda t: any(r[1] == "permission" and r[3] == "pending"
                                 for r in table(s)), 20, "carl's command")
        select_row(s, "carl")
        row = next(line for line in s.rows() if ROW.search(line) and
                   "permission" in line)
        expect(re.search(r"pending\s+rm -r · .*rm -rf junk2", row),
               "the row hides why or what: %r" % row)
        h = hint(s)
        expect(re.search(r"carl's command.*: rm -r · .*rm -rf junk2 "
                         r"\(41 lines\)", h), "the hint: %r" % h)
        expect("harmless" not in h or h.index("harmless") <
               h.index("rm -rf junk2"), h)
        # The 80x24 layout holds: the keys on the last row, the input
        # above it, the hint above that, nothing past the edge.
        rows = s.rows()
        expect(len(rows) == 24 and all(len(r) <= 80 for r in rows),
               "the screen is not 80x24")
        expect(rows[-1].lstrip().startswith("F1"), "the keys: %r" % rows[-1])
        # (The table has the focus: the prompt says what Enter does.)
        expect(rows[-2].startswith(("lead>", "Enter shows the permission "
                                    "request carl → lead>")),
               "the input: %r" % rows[-2])
        # F5 does not approve 41 lines seen as one: it shows them.
        s.send_keys("F5")
        s.wait_for(lambda t: "Esc closes" in t and "why flagged  rm -r" in t and
                   re.search(r"│\s+1 │ echo harmless-looking-step", t), 5,
                   "the detail view, from line 1")
        t = s.text()
        expect(re.search(r"directory +\S*%s" % re.escape(
            os.path.basename(work)), t), "the directory: %s" % t)
        expect("who asked    carl (bash), to lead" in t, "who asked: %s" % t)
        expect(any(r[2] == "carl" and r[3] == "pending" for r in table(s))
               or "pending" in t, "F5 ran what it had not shown")
        # It scrolls to the flagged line, marked.
        for _ in range(6):
            s.send_keys("PgDn")
        s.wait_for(re.compile(r"41 ▶ rm -rf junk2"), 5,
                   "the flagged line, scrolled to")
        s.send_keys("Escape")
        s.wait_gone("Esc closes", 5)
        expect(any(r[2] == "carl" and r[3] == "pending" for r in table(s)),
               "looking decided it")
        quit_clean(s)


def test_enter_shows_all_and_nonsense_decides_nothing(fake):
    s, _ = team(fake)
    with s:
        say_to_lead(s)
        both_pending(s)
        s.send_text("/approve nonsense")
        s.send_keys("Enter")
        s.wait_for("nothing was decided", 5, "the error")
        expect(all(r[3] == "pending" for r in table(s)),
               "/approve nonsense decided something")
        select_row(s, "bob")
        s.send_keys("Enter")
        s.wait_for(lambda t: "Esc closes" in t and re.search(
            r"│ 2\. tell the lead", t), 5, "the whole plan")
        s.send_keys("Escape")
        s.wait_gone("Esc closes", 5)
        expect(all(r[3] == "pending" for r in table(s)),
               "looking decided something")
        # /requests lists them in the lead's pane, pending first.
        s.send_text("/requests")
        s.send_keys("Enter")
        s.wait_for(lambda t: "requests (pending first" in t and
                   len(re.findall(r"req_[0-9a-f]{8} · \w+ · \w+ → lead · "
                                  r"pending", t)) == 2, 5, "the list")
        quit_clean(s)


def test_the_table_grows_and_counts(fake):
    n = 7
    s = mates_with_plans(fake, n)
    with s:
        say_to_lead(s)
        screen = s.wait_for(re.compile(r"requests · 7 pending"), 30,
                            "seven plans")
        rows = screen.split("\n")
        top = next(i for i, r in enumerate(rows) if "requests · 7" in r)
        bottom = next(i for i in range(top + 1, len(rows))
                      if rows[i].startswith("└"))
        expect(bottom - top + 1 == 24 // 3,
               "the table is %d rows, not a third of 24" % (bottom - top + 1))
        expect(re.search(r"0 more above · 3 more below", screen), screen)
        # Every request can be reached, and the counts follow.
        s.send_keys("BTab")
        seen = set()
        for _ in range(n + 1):
            seen |= {r[0] for r in table(s)}
            s.send_keys("Down")
        s.wait_for(re.compile(r"3 more above · 0 more below"), 5,
                   "the end of the table")
        seen |= {r[0] for r in table(s)}
        expect(len(seen) == n, "only %d of %d requests seen" % (len(seen), n))
        quit_clean(s)


def mates_with_plans(fake, n):
    """A screen at 80x24 where n teammates' plans wait for the person."""
    mates = ["mate%d" % i for i in range(n)]
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": m, "role": "w", "prompt": "Plan.",
                "plan_required": True}} for m in mates]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 40,
        *[{"agent": m, "kind": "tool_use", "calls": [
            {"name": "submit_plan", "input": {"plan": "plan of " + m}}]}
          for m in mates],
        *[{"agent": m, "kind": "text", "text": "Going."} for m in mates])
    return fake_screen(fake, ["--quit-timeout", "2", "--plan-review", "human",
                              "--max-teammates", str(n)], 80, 24)


def highlighted(s):
    hi = [r for r in table(s) if r[4]]
    return hi[0][0] if len(hi) == 1 else None


def test_the_selection_stays_and_clicks_are_exact(fake):
    """At 80x24 with plans waiting and some decided: the person's
    selection on a decided row stays through the ticks (it used to snap
    back to the pending row within a second), and a click selects the row
    clicked, never the one below it; a click on the header selects
    nothing."""
    s = mates_with_plans(fake, 5)
    with s:
        say_to_lead(s)
        s.wait_for(re.compile(r"requests · 5 pending"), 30, "five plans")
        s.send_keys("BTab")
        for left in (4, 3):
            first = selected_is_named(s)
            s.send_keys("F5")
            s.wait_for(lambda t: first[0] not in [
                r[0] for r in table(s) if r[3] == "pending"], 10,
                "the plan approved")
            s.wait_for(re.compile(r"requests · %d pending" % left), 10,
                       "%d left" % left)
        # Down to the last row, a decided one below the fold, each key
        # waited for.
        for _ in range(4):
            before = highlighted(s)
            s.send_keys("Down")
            s.wait_for(lambda t: highlighted(s) not in (None, before), 5,
                       "Down")
        last = [r for r in table(s) if r[4]][0]
        expect(last[3] == "approved" and "0 more below" in s.text(),
               "not the last row: %r\n%s" % (last, s.text()))
        decided = [last[0]]
        # Two ticks: a pending row's age counts on.
        ages = []

        def ticked(_):
            line = next((ln for ln in s.rows() if "pending" in ln and
                         "req_" in ln), "")
            if not ages or ages[-1] != line:
                ages.append(line)
            return len(ages) >= 3
        s.wait_for(ticked, 10, "two ticks of the clock")
        # A decided row's age counts on too (how long ago it was
        # decided): it used to stay at its decision's.
        age = re.compile(re.escape(decided[-1]) + r"\s+plan\s+\S+ → \S+"
                         r"\s+(\S+)")
        first_age = age.search(s.text()).group(1)
        s.wait_for(lambda t: age.search(t) and
                   age.search(t).group(1) != first_age, 10,
                   "the decided row's age to count on")
        expect(highlighted(s) == decided[-1],
               "the selection snapped from %s to %s" % (decided[-1],
                                                         highlighted(s)))
        # A click on each row selects that row; on the header, nothing.
        screen = s.rows()
        for want in [r[0] for r in table(s)]:
            y = next(i for i, ln in enumerate(screen)
                     if ln.startswith("│" + want + " ") and ROW.search(ln))
            s.click(10, y)
            s.wait_for(lambda t: highlighted(s) == want, 5,
                       "the click on %s" % want)
        head = next(i for i, ln in enumerate(screen)
                    if ln.startswith("│id ") and "status" in ln)
        order = [r[0] for r in table(s)]
        expect(highlighted(s) == order[-1], "the last click")
        s.click(10, head)
        s.send_keys("Up")
        s.wait_for(lambda t: highlighted(s) == order[-2], 5, "Up from the "
                   "last row (the header's click selected nothing)")
        quit_clean(s)


def test_letters_on_the_table(fake):
    s, _ = team(fake)
    with s:
        say_to_lead(s)
        both_pending(s)
        # Typed into the input line, a letter is text, not a key.
        s.send_text("a")
        s.wait_for(lambda t: "lead> a" in s.rows()[-2], 5, "a typed")
        expect(all(r[3] == "pending" for r in table(s)),
               "a typed letter decided a request")
        s.send_keys("BSpace", "BTab")      # an empty line, the table
        first = selected_is_named(s)
        # j and k move as Down and Up do.
        s.send_text("j")
        s.wait_for(lambda t: highlighted(s) not in (None, first[0]), 5,
                   "j moves down")
        s.send_text("k")
        s.wait_for(lambda t: highlighted(s) == first[0], 5, "k moves up")
        chosen = selected_is_named(s)
        s.send_text("r")
        s.wait_for("feedback:", 5, "r asks for the rejection's feedback")
        s.send_text("not now")
        s.send_keys("Enter")
        s.wait_for(lambda t: any(r[0] == chosen[0] and r[3] == "rejected"
                                 for r in table(s)), 10, "r rejected it")
        left = selected_is_named(s)
        s.send_text("a")
        s.wait_for(lambda t: any(r[0] == left[0] and r[3] == "approved"
                                 for r in table(s)), 10, "a approved it")
        s.send_text("?")
        s.wait_for("Esc or q closes", 5, "? opens the help")
        s.send_text("q")
        s.wait_gone("Esc or q closes", 5)
        quit_clean(s)


def test_t_allows_a_network_host_for_the_team(fake):
    import http.server
    import threading

    class Page(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            body = b"page-from-the-host\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    host = "localhost:%d" % srv.server_address[1]
    fetch = {"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "bash", "input": {"command": "curl -sS http://%s/" % host}}]}
    fake.reset()
    fake.script(fetch, fetch,
                *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 4)
    # A service on this machine: the person lets the proxy reach it (it
    # still asks for each command).
    s = fake_screen(fake, ["--quit-timeout", "2", "--allow-local", host],
                    120, 40)
    with s:
        say_to_lead(s)
        s.wait_for(lambda t: "lead's network request (F5 " in t, 10,
                   "the hint")
        s.send_keys("BTab")
        s.send_keys("Enter")
        s.wait_for("t for the whole team", 5, "the detail view's keys")
        s.send_text("t")
        s.wait_for(lambda t: "Esc closes" not in t and re.search(
            r"approved lead's permission \(req_[0-9a-f]+\), for the whole "
            r"team", t), 5, "the answer")
        # The second fetch asks nothing: both pages arrive.
        s.wait_for(lambda t: t.count("page-from-the-host") >= 2, 15,
                   "both fetches")
        expect(not [r for r in table(s) if r[3] == "pending"],
               "the team's host asked again")
        quit_clean(s)
    srv.shutdown()


def tests(r, fake):
    r.run("the hint names the highlighted row, F5 decides that one",
          test_hint_highlight_and_f5_agree, fake)
    r.run("a request that arrives later does not take the hint",
          test_a_new_request_does_not_take_the_hint, fake)
    r.run("a command too long for the hint is shown whole before F5",
          test_a_command_is_seen_whole_before_f5, fake)
    r.run("the person sees why and what runs: the padded command",
          test_the_person_sees_what_runs, fake)
    r.run("Enter shows all; /approve nonsense decides nothing",
          test_enter_shows_all_and_nonsense_decides_nothing, fake)
    r.run("the table grows to a third of the screen, and counts the rest",
          test_the_table_grows_and_counts, fake)
    r.run("the selection stays where the person puts it; clicks are "
          "exact", test_the_selection_stays_and_clicks_are_exact, fake)
    r.run("letters on the table: a approves, r rejects, ? helps",
          test_letters_on_the_table, fake)
    r.run("t in a network request's details allows it for the team",
          test_t_allows_a_network_host_for_the_team, fake)


if __name__ == "__main__":
    run_main(tests)
