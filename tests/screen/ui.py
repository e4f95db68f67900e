#!/usr/bin/env python3
"""The screen, as a person uses it: the real binary in a real terminal
(tmux), driven with keys and read back with capture-pane, against the
built-in demo (script provider) and the fake LLM server over HTTP.
"""

import os
import re
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from screen_driver import Results, Screen, expect, region, tmux_available  # noqa: E402
from fakellm_client import API_KEY, FakeLLM  # noqa: E402
from huddle_screen import quit_clean as huddle_quit_clean  # noqa: E402
from huddle_screen import read_help, say_to_lead  # noqa: E402

BUILD = os.path.abspath(os.environ.get("top_builddir", "."))
HUDDLE = os.path.join(BUILD, "src", "huddle")


def demo(cols=120, rows=40, env=None):
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    return Screen([HUDDLE, "--demo", "--workdir", work, "--quit-timeout", "3"],
                  env=env, cols=cols, rows=rows, settle=True), work


def with_fake(fake, cols=120, rows=40):
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    return Screen([HUDDLE, "--workdir", work, "--quit-timeout", "2"],
                  env={"ANTHROPIC_API_KEY": API_KEY,
                       "ANTHROPIC_BASE_URL": fake.anthropic_url},
                  cols=cols, rows=rows, settle=True)


def quit_clean(s):
    s.send_keys("F10")
    status = s.exit_status(30)
    expect(status == 0, "exit status %s" % status)


def test_start_and_layout():
    s, _ = demo()
    with s:
        s.wait_for("F10Quit", what="the key bar")
        screen = s.wait_for(lambda t: "alice · coder" in t and "bob · refactorer" in t,
                            what="both teammate panes")
        rows = screen.split("\n")
        expect(rows[0].startswith("┌ lead"), "the lead's pane is not top left: %r" % rows[0])
        expect(any("requests ·" in r for r in rows), "no request table")
        expect(rows[-2 if rows[-1] == "" else -1].startswith("F1Help"), "no key bar")
        expect(any(r.startswith("lead> ") or r == "lead>" for r in rows), "no input prompt")
        quit_clean(s)


def test_streamed_text_in_the_right_pane():
    s, _ = demo()
    with s:
        screen = s.wait_for("I'll write README.md first.", 15, "alice's streamed text")
        rows = screen.split("\n")
        row = next(i for i, r in enumerate(rows) if "I'll write README.md first." in r)
        col = rows[row].index("I'll write")
        expect(col > 40, "alice's text is not in the right-hand pane (column %d)" % col)
        quit_clean(s)


def test_f5_approves_the_plan():
    s, work = demo()
    with s:
        s.wait_for(re.compile(r"req_[0-9a-f]{8}\s+plan\s+bob → lead\s+\S+\s+pending"), 20,
                   "bob's pending plan")
        s.send_keys("F5")
        s.wait_for(re.compile(r"plan\s+bob → lead\s+\S+\s+approved"), 10, "approved")
        s.wait_for("Refactor done", 20, "bob acts on the plan")
        bob = os.path.join(work, ".huddle", "worktrees", "bob", "hello.py")
        expect("def greet(" in open(bob).read(), "no edit")
        quit_clean(s)


def test_f6_rejects_with_feedback():
    s, work = demo()
    with s:
        s.wait_for(re.compile(r"plan\s+bob → lead\s+\S+\s+pending"), 20, "bob's plan")
        s.send_keys("F6")
        s.wait_for("feedback:", 5, "the feedback prompt")
        s.send_text("add tests first")
        # Esc leaves the reason; F6 again on the same request has it.
        s.send_keys("Escape")
        s.wait_for(lambda t: "feedback:" not in t, 5, "the prompt closed")
        s.send_keys("F6")
        s.wait_for("add tests first", 5, "the reason typed before")
        s.send_keys("Enter")
        s.wait_for(re.compile(r"plan\s+bob → lead\s+\S+\s+rejected"), 10, "rejected")
        s.wait_for("add tests first", 10, "the feedback reaches bob")
        # bob says he changed nothing and submits again; no pane claims
        # the refactoring was done.
        s.wait_for("changed nothing", 20, "bob answers the rejection")
        s.wait_for(re.compile(r"plan\s+bob → lead\s+\S+\s+pending"), 20,
                   "bob's plan, submitted again")
        expect("Refactor done" not in s.text(), "a pane claims the refactoring")
        bob = os.path.join(work, ".huddle", "worktrees", "bob", "hello.py")
        expect("def greeting(" in open(bob).read(),
               "the file changed without an approved plan")
        quit_clean(s)


def test_f9_shuts_a_teammate_down():
    s, _ = demo()
    with s:
        s.wait_for("Done. Waiting for more work.", 20, "alice idle")
        s.send_keys("F9")
        s.wait_for("shut a teammate down", 5, "the menu")
        s.send_keys("Enter")
        s.wait_for("alice · coder · terminated", 15, "alice terminated")
        quit_clean(s)


def test_f9_starts_on_the_focused_teammate():
    """F9's menu starts on the teammate whose pane has the focus (it
    started on the first one whatever was picked)."""
    s, _ = demo()
    with s:
        s.wait_for(re.compile(r"bob · \w+"), 20, "bob's pane")
        for _ in range(4):
            s.send_keys("S-Down")
            screen = s.wait_for(re.compile(r"(\w+) picked:"), 5, "a pick")
            if "bob picked:" in screen:
                break
        expect("bob picked:" in s.text(), "bob could not be picked")
        s.send_keys("F9")
        s.wait_for("shut a teammate down", 5, "the menu")
        item = re.compile(r"│ +(alice|bob) · (idle|working|waiting)\b")
        rows = [ln for ln in s.text(escapes=True).split("\n")
                if item.search(re.sub(r"\x1b\[[0-9;]*m", "", ln))]
        sgr = re.compile(r"\x1b\[[0-9;]*m")
        # The selected row: black on cyan (the menu's others: on blue).
        hi = re.compile(r"\x1b\[(?:[0-9;]*;)?46(?:;[0-9;]*)?m")
        chosen = []
        for ln in rows:
            name = item.search(sgr.sub("", ln)).group(1)
            before = sgr.findall(ln[:ln.find(name + " · ")])
            if before and hi.search(before[-1]):
                chosen.append(name)
        expect(chosen == ["bob"], "the menu's selection: %r" % chosen)
        s.send_keys("Escape")
        quit_clean(s)


def test_first_screen_says_what_to_do(fake):
    """A new team's empty lead pane says what to type and where the keys
    are, at 80x24; it goes once the person has said something."""
    fake.reset()
    fake.script({"agent": "lead", "kind": "text", "text": "On it."})
    with with_fake(fake, 80, 24) as s:
        screen = s.wait_for("Type what the team should do", 10,
                            "the first screen's words")
        expect("F1 (or ? on an empty line)" in screen, screen)
        s.send_text("go")
        s.send_keys("Enter")
        s.wait_for("On it.", 10, "the lead's answer")
        s.wait_gone("Type what the team should do", 5)
        quit_clean(s)


def test_team_is_a_table():
    """/team shows the members as a table in the lead's pane: a header,
    a row each, the columns lined up (it was wrapped prose)."""
    s, _ = demo(cols=160, rows=48)
    with s:
        s.wait_for(re.compile(r"bob · \w+"), 20, "bob's pane")
        s.send_text("/team")
        s.send_keys("Enter")
        screen = s.wait_for(re.compile(r"│member +status +ctx +tokens"), 10,
                            "the table's header")
        rows = screen.split("\n")
        head = next(ln for ln in rows if re.search(r"│member +status", ln))
        col = head.index("status")
        for name in ("lead", "alice", "bob"):
            row = next((ln for ln in rows if re.match(r"│%s +\w" % name,
                                                     ln)), None)
            expect(row is not None and row[col - 1] == " " and
                   row[col] != " ", "%s's row does not line up:\n%s\n%s"
                   % (name, head, row))
        quit_clean(s)


def test_tab_completes_a_command_line():
    """Tab on a line that starts with '/' completes the command, then a
    teammate's name; elsewhere Tab moves the focus."""
    s, _ = demo()
    with s:
        s.wait_for(re.compile(r"bob · \w+"), 20, "bob's pane")
        s.send_text("/ms")
        s.send_keys("Tab")
        s.wait_for(lambda t: s.rows()[-2].rstrip() == "lead> /msg", 5,
                   "the command completed")
        s.send_text("a")
        s.send_keys("Tab")
        s.wait_for(lambda t: s.rows()[-2].rstrip() == "lead> /msg alice",
                   5, "the name completed")
        s.send_keys("C-u")
        s.send_text("/ta")
        s.send_keys("Tab")
        s.wait_for("task add task assign", 5, "the choices named")
        s.send_keys("C-u")
        quit_clean(s)


def test_zoom_and_scroll():
    # A small terminal, so the lead's pane has more than it can show.
    s, _ = demo(cols=80, rows=24)
    with s:
        s.wait_for("Both are working", 15, "the lead's text")
        s.send_keys("F8")
        screen = s.wait_for(lambda t: "┌ alice ·" not in t, 5, "zoomed")
        first = screen.split("\n")[0]
        expect(first.startswith("┌ lead") and first.endswith("┐") and len(first) == 80,
               "the lead's pane is not full width: %r" % first)
        s.send_keys("F8")
        # alice's title names her role or, at 80 columns once she is
        # idle, her status first.
        s.wait_for("┌ alice ·", 5, "unzoomed")
        s.send_keys("PageUp")
        s.wait_for("↑ scrolled", 5, "scrolled back")
        s.send_keys("End")
        s.wait_gone("↑ scrolled", 5)
        quit_clean(s)


def test_typing_and_focus(fake):
    fake.reset()
    fake.script({"agent": "lead", "kind": "tool_use",
                 "calls": [{"name": "spawn_teammate",
                            "input": {"name": "alice", "role": "coder", "prompt": "Hi."}}]},
                {"agent": "lead", "kind": "text", "text": "Spawned alice for you.",
                 "delta_chars": 3, "chunk_delay_ms": 20},
                *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 6,
                {"agent": "alice", "kind": "text", "text": "Hello from alice."},
                {"agent": "alice", "kind": "text", "text": "You said: thanks"},
                {"agent": "alice", "kind": "tool_use",
                 "calls": [{"name": "shutdown_response",
                            "input": {"request_id": "{{request_id}}", "approve": True}}]})
    with with_fake(fake) as s:
        say_to_lead(s, "please spawn alice")
        s.wait_for("you  please spawn alice", 5, "what the person typed")
        s.wait_for("Spawned alice for you.", 10, "the lead's streamed reply")
        s.wait_for("Hello from alice.", 10, "alice's reply in her pane")
        s.send_keys("Tab")
        s.wait_for(re.compile(r"^alice>", re.M), 5, "focus moves to alice")
        s.send_text("thanks")
        s.send_keys("Enter")
        s.wait_for("You said: thanks", 10, "a message to the focused teammate")
        s.send_keys("Tab")
        s.send_keys("Tab")
        s.wait_for(re.compile(r"^lead>", re.M), 5, "focus cycles back to the lead")
        quit_clean(s)


def test_resize_while_streaming(fake):
    fake.reset()
    long_text = " ".join("word%d" % i for i in range(400)) + " THE-END"
    fake.script({"agent": "lead", "kind": "text", "text": long_text,
                 "delta_chars": 10, "chunk_delay_ms": 10},
                *[{"agent": "lead", "kind": "text", "text": "ok"}] * 3)
    with with_fake(fake) as s:
        say_to_lead(s)
        s.wait_for("word20 ", 10, "streaming started")
        s.resize(90, 26)
        s.wait_for(lambda t: t.split("\n")[0].endswith("┐") and
                   len(t.split("\n")[0]) == 90, 5, "redrawn at 90 columns")
        s.resize(70, 20)
        s.wait_for("terminal too small", 5, "the small-terminal notice")
        s.resize(140, 45)
        s.wait_for("THE-END", 20, "the end of the stream after resizing")
        screen = s.text()
        expect(len(screen.split("\n")[0]) == 140, "not redrawn at 140 columns")
        quit_clean(s)


def test_thinking_is_folded_and_ctrl_o_unfolds_it():
    s, _ = demo()
    with s:
        # The lead's first turn thinks before it speaks (src/demo.c).
        screen = s.wait_for("Both are working", 15, "the lead's text")
        expect("thinking · " in screen, "no folded thought:\n" + screen)
        expect("The person wants to see a team." not in screen,
               "the thought is not folded")
        s.send_keys("C-o")
        s.wait_for("The person wants to see a team.", 5, "the thought in full")
        s.send_keys("C-o")
        s.wait_gone("The person wants to see a team.", 5)
        quit_clean(s)


def test_help_lists_the_keys_and_the_sandbox():
    s, _ = demo()
    with s:
        s.wait_for("F10Quit", what="the key bar")
        s.send_keys("F1")
        screen = read_help(s)
        for want in ("Esc ", "C-o ", "/interrupt NAME", "/budget"):
            expect(want in screen, "the help lacks %r:\n%s" % (want, screen))
        expect(re.search(r"commands: (Landlock sandbox|NO sandbox)", screen),
               "the help does not say how commands are confined:\n" + screen)
        s.send_keys("q")
        s.wait_gone("Esc or q closes", 5)
        quit_clean(s)


def test_escape_interrupts_the_focused_agent(fake):
    fake.reset()
    fake.script({"agent": "lead", "kind": "text", "text": "never shown",
                 "delay_ms": 30000},
                {"agent": "lead", "kind": "text", "text": "Listening again."})
    with with_fake(fake) as s:
        say_to_lead(s, "think about it")
        s.wait_for("lead · working", 10, "the lead at work")
        s.send_keys("Escape")
        s.wait_for("— interrupted —", 5, "the interrupt in the lead's pane")
        s.wait_for("lead · idle", 5, "the lead idle")
        s.send_text("go on")
        s.send_keys("Enter")
        s.wait_for("Listening again.", 10, "the lead answers the next message")
        quit_clean(s)


def test_mouse_focuses_a_pane():
    s, _ = demo()
    with s:
        screen = s.wait_for("bob · refactorer", 15)
        rows = screen.split("\n")
        row = next(i for i, r in enumerate(rows) if "bob · refactorer" in r)
        s.click(80, row + 2)
        s.wait_for(re.compile(r"^bob>", re.M), 5, "a click focuses bob")
        quit_clean(s)


def test_mouse_wheel_scrolls_the_pane_under_it():
    # A small terminal, so the lead's pane has more than it can show.
    s, _ = demo(cols=80, rows=24)
    with s:
        s.wait_for("Both are working", 15, "the lead's text")
        s.wheel(5, 3, up=True)
        s.wait_for("↑ scrolled", 5, "the wheel scrolls the lead's pane back")
        expect(re.search(r"^lead>", s.text(), re.M), "the wheel moved the focus")
        for _ in range(10):
            s.wheel(5, 3, up=False)
        s.wait_gone("↑ scrolled", 5)
        quit_clean(s)


def test_resume_shows_the_conversation():
    s, work = demo()
    with s:
        s.wait_for("I'll write README.md first.", 15, "alice at work")
        s.send_keys("F10")
        expect(s.exit_status(30) == 0, "the demo did not quit cleanly")
    script = os.path.join(work, "none.json")
    with open(script, "w") as f:
        f.write('{"agents": {}}')
    with Screen([HUDDLE, "--resume", "--provider", "script", "--script", script,
                 "--workdir", work, "--quit-timeout", "1"], cols=120, rows=60,
                settle=True) as s:
        screen = s.wait_for("— resumed —", 10, "the stored conversations")
        expect("I'll write README.md first." in screen, "alice's history is missing")
        # How much the lead said before the quit varies with timing, so
        # its first line may be above the pane: scroll back to it.
        for _ in range(10):
            if "you  Show me how a team works." in screen:
                break
            s.send_keys("PageUp")
            before = screen
            screen = s.wait_for(lambda t: t != before, 5, "scrolled back")
        expect("you  Show me how a team works." in screen,
               "the lead's history is missing:\n" + screen)
        quit_clean(s)


def test_demo_resumed_does_not_promise_the_plan():
    """The demo's first hint speaks of bob's plan waiting; resumed after
    the plan was approved, it says only what it knows."""
    s, work = demo()
    with s:
        s.wait_for(re.compile(r"req_[0-9a-f]{8}\s+plan\s+bob → lead\s+\S+"
                              r"\s+pending"), 20, "bob's pending plan")
        s.send_keys("F5")
        s.wait_for(re.compile(r"plan\s+bob → lead\s+\S+\s+approved"), 10,
                   "approved")
        huddle_quit_clean(s)
    with Screen([HUDDLE, "--demo", "--resume", "--workdir", work,
                 "--quit-timeout", "3"], cols=120, rows=40,
                settle=True) as s:
        screen = s.wait_for("demo resumed where you left it", 10,
                            "the resumed demo's hint")
        expect("bob's plan will wait for you" not in screen, screen)
        huddle_quit_clean(s)


def test_fatal_signal_restores_the_terminal():
    s, work = demo()
    with s:
        s.wait_for("F10Quit")
        pid = int(subprocess.run(["pgrep", "-f", "--", "--workdir %s" % work],
                                 capture_output=True, text=True).stdout.split()[-1])
        with open("/proc/%d/comm" % pid) as f:
            expect(f.read().strip() == "huddle", "not huddle's pid")
        os.kill(pid, signal.SIGSEGV)
        s.wait_for("[exited 139]", 10, "huddle dies of the signal")
        screen = s.text()
        # The alternate screen was left: huddle's frame is gone.
        expect("F10Quit" not in screen and "┌ lead" not in screen,
               "the terminal was not restored:\n" + screen)


def test_no_color():
    colour = re.compile(r"\x1b\[[0-9;]*(3[0-7]|4[0-7]|38;5;\d+|48;5;\d+)[0-9;]*m")
    s, _ = demo(env={"NO_COLOR": "1"})
    with s:
        s.wait_for("alice · coder", 15)
        expect(not colour.search(s.text(escapes=True)), "colours despite NO_COLOR")
        quit_clean(s)
    s, _ = demo()
    with s:
        s.wait_for("alice · coder", 15)
        expect(colour.search(s.text(escapes=True)), "no colours without NO_COLOR")
        quit_clean(s)


def test_quit_returns_the_shell():
    s, _ = demo()
    with s:
        s.wait_for("F10Quit")
        s.send_keys("F10")
        expect(s.exit_status(30) == 0, "huddle did not exit cleanly")
        s.wait_for("[exited 0]", 5)


def test_escape_sequences_are_stripped(fake):
    fake.reset()
    evil = ("before\x1b[2J\x1b[H\x1b]0;pwned-title\x07\x1b]8;;http://x\x1b\\link"
            "\x1b]8;;\x1b\\ \x1b[31mRED\x1b[0m \x1bPdcs\x1b\\\u009b2Jafter")
    fake.script({"agent": "lead", "kind": "tool_use", "text": evil, "split": 3,
                 "calls": [{"name": "bash",
                            "input": {"command": "printf 'out\\033[2J\\033]0;tool-title\\007put'"}}]},
                {"agent": "lead", "kind": "text", "text": "done"},
                *[{"agent": "lead", "kind": "text", "text": "ok"}] * 3)
    with with_fake(fake) as s:
        say_to_lead(s)
        screen = s.wait_for("done", 10, "the lead's replies")
        expect("beforelink RED after" in screen,
               "the text is not shown cleanly:\n" + screen)
        expect("output" in screen, "the tool output is not shown cleanly")
        expect("┌ lead" in screen and "F10Quit" in screen,
               "an escape sequence cleared the screen")
        title = s.info("#{pane_title}")
        expect("pwned" not in title and "tool-title" not in title,
               "model output set the terminal title: %r" % title)
        raw = s.text(escapes=True)
        expect("\x1b[31mRED" not in raw, "the model's colour reached the terminal")
        quit_clean(s)


def main():
    if not tmux_available():
        print("tmux is missing: screen tests skipped")
        sys.exit(77)
    r = Results()
    r.run("start: the layout of DESIGN §6", test_start_and_layout)
    r.run("streamed text appears in the right pane", test_streamed_text_in_the_right_pane)
    r.run("F5 approves bob's plan and he acts", test_f5_approves_the_plan)
    r.run("F6 rejects with feedback; the gate holds", test_f6_rejects_with_feedback)
    r.run("F9 + Enter shuts a teammate down", test_f9_shuts_a_teammate_down)
    r.run("F8 zooms, PgUp scrolls, End returns", test_zoom_and_scroll)
    r.run("a click focuses a pane", test_mouse_focuses_a_pane)
    r.run("the mouse wheel scrolls the pane under it",
          test_mouse_wheel_scrolls_the_pane_under_it)
    r.run("F10 quits and the shell returns", test_quit_returns_the_shell)
    r.run("NO_COLOR turns colours off", test_no_color)
    r.run("--resume shows the stored conversations", test_resume_shows_the_conversation)
    r.run("/team is a table", test_team_is_a_table)
    r.run("Tab completes a command line", test_tab_completes_a_command_line)
    r.run("F9 starts on the focused teammate",
          test_f9_starts_on_the_focused_teammate)
    r.run("a resumed demo does not promise bob's plan",
          test_demo_resumed_does_not_promise_the_plan)
    r.run("thinking is folded; C-o unfolds it",
          test_thinking_is_folded_and_ctrl_o_unfolds_it)
    r.run("F1 lists the keys, the commands and the sandbox",
          test_help_lists_the_keys_and_the_sandbox)
    r.run("a fatal signal restores the terminal", test_fatal_signal_restores_the_terminal)
    with FakeLLM() as fake:
        r.run("typing to the lead and to a focused teammate", test_typing_and_focus, fake)
        r.run("resizing in the middle of streaming", test_resize_while_streaming, fake)
        r.run("Esc interrupts the focused agent", test_escape_interrupts_the_focused_agent,
              fake)
        r.run("model and tool output cannot inject escape sequences",
              test_escape_sequences_are_stripped, fake)
        r.run("the first screen says what to do",
              test_first_screen_says_what_to_do, fake)
    r.finish()


if __name__ == "__main__":
    main()
