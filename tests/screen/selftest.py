#!/usr/bin/env python3
"""Self-test of screen_driver.py on ordinary programs (not huddle): `cat`,
shells that exit with known statuses, and echo_curses.py, a small curses
program that shows the last key by name, the terminal size and the last
mouse event.  Skips (status 77) when tmux is not installed.
"""

import glob
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import screen_driver  # noqa: E402
from screen_driver import Results, Screen, expect, region  # noqa: E402

ECHO = [sys.executable, os.path.join(HERE, "echo_curses.py")]


def row(text, n):
    return text.split("\n")[n]


# --- plain programs ----------------------------------------------------------

def test_cat_echoes_text():
    with Screen(["cat"], cols=60, rows=10) as s:
        s.wait_for(lambda t: s.cursor() == (0, 0), what="cat to start")
        tricky = "plain -dash semi; \\;tail ünïcode 日本 \"q\" 'q' $HOME"
        s.send_text(tricky)
        s.send_text(";")          # an argument that is only ';'
        s.send_keys("Enter")
        t = s.wait_for(lambda t: t.count(tricky + ";") == 2, what="the echoed line")
        expect(s.rows()[:2] == [tricky + ";"] * 2, "rows: %r" % s.rows()[:2])
        expect(s.cursor() == (0, 2), "cursor at %r" % (s.cursor(),))
        s.send_keys("C-d")
        expect(s.exit_status() == 0, "cat's status")
        expect("[exited 0]" in s.text(), "no [exited 0] line")


def test_exit_status_3():
    for cmd in ("exit 3", ["sh", "-c", "exit 3"],
                [sys.executable, "-c", "import sys; print('bye'); sys.exit(3)"]):
        with Screen(cmd, cols=40, rows=5) as s:
            status = s.exit_status(timeout=5)
            expect(status == 3, "%r exited %d" % (cmd, status))
            expect(re.search(r"^(bye\n)?\[exited 3\]", s.text()), s.text())


def test_ctrl_c_in_cooked_mode():
    """SIGINT kills cat, but not the wrapper: the status is still shown."""
    with Screen(["cat"], cols=40, rows=5) as s:
        # cat runs once it gives back a line (the cursor at 0,0 is not
        # proof: under load, a C-c sent before cat started went to the
        # wrapper, which ignores it).
        s.send_text("ready")
        s.send_keys("Enter")
        s.wait_for(lambda t: t.count("ready") == 2, what="cat to run")
        s.send_keys("C-c")
        expect(s.exit_status() == 130, "status %r" % s.exit_status())


def test_wrapper_killed_backstop():
    """If the wrapper shell itself dies, tmux's record still gives a status
    at once. (Usually 137; tmux does not always record the signal, so only
    "a status, without waiting for the timeout" is asserted.)"""
    # The wrapper dies once the pane has its size. What the driver relies
    # on is tmux's pane_dead record, so that is what is checked: the
    # "Pane is dead" line tmux writes is not waited for, because tmux
    # 3.3a sometimes leaves it out (about 1 run in 20 on a loaded machine:
    # the pane is closed before the wrapper's exit status is collected,
    # and then the line is never drawn).
    # "dying" is on the screen before the wrapper is killed: Linux drops
    # what a pty's master has not read yet once its last slave closes,
    # so a kill right after the echo could take the line with it.
    with Screen("read go; echo dying; read now; kill -KILL $PPID",
                cols=40, rows=5) as s:
        s.send_keys("Enter")
        s.wait_for("dying", what="the program's output")
        s.send_keys("Enter")
        status = s.exit_status(timeout=5)
        expect(status in (0, 137), "status %r" % status)
        expect(s.info("#{pane_dead}") == "1", "the pane is not dead")
        expect("dying" in s.text(), "the program's output is gone")


def test_env_cwd_term():
    os.environ["SCREEN_SELFTEST_GONE"] = "1"
    os.environ["COLUMNS"], os.environ["LINES"] = "33", "7"
    try:
        with Screen('echo "foo=$FOO gone=${SCREEN_SELFTEST_GONE-unset} '
                    'cols=${COLUMNS-unset} term=$TERM lc=$LC_ALL"; pwd; stty size',
                    env={"FOO": "b a r", "SCREEN_SELFTEST_GONE": None},
                    cwd="/tmp", cols=80, rows=8) as s:
            s.exit_status()
            r = s.rows()
            want = "foo=b a r gone=unset cols=unset term=%s lc=C.UTF-8" % s.term
            expect(r[0] == want, "%r != %r" % (r[0], want))
            expect(r[1:3] == [os.path.realpath("/tmp"), "8 80"], r[1:3])
    finally:
        for k in ("SCREEN_SELFTEST_GONE", "COLUMNS", "LINES"):
            del os.environ[k]


def test_wait_for_forms_and_timeouts():
    with Screen("echo alpha; read x; echo beta; read y", cols=40, rows=6) as s:
        s.wait_for("alpha")
        s.wait_for(re.compile(r"^al+pha$", re.M))
        s.wait_for(lambda t: row(t, 0) == "alpha")
        start = time.monotonic()
        try:
            s.wait_for("never", timeout=0.3)
        except AssertionError as e:
            expect("'never'" in str(e) and "|alpha" in str(e), "message: %s" % e)
        else:
            raise AssertionError("wait_for did not time out")
        expect(time.monotonic() - start < 1, "timeout took too long")
        s.send_keys("Enter")
        s.wait_for("beta")
        s.send_text("alpha gone\n")
        s.send_keys("C-l")       # not in cooked mode: no clearing; just a key
        s.exit_status()
    with Screen("printf 'busy\\n'; read x; clear; read y", cols=40, rows=6) as s:
        s.wait_for("busy")
        s.send_keys("Enter")
        s.wait_gone("busy")
        try:
            s.click(1, 1, timeout=0.2)
        except AssertionError as e:
            expect("mouse reporting" in str(e), str(e))
        else:
            raise AssertionError("click without mouse reporting did not fail")


def test_unknown_key_name_refused():
    with Screen(["cat"], cols=40, rows=5) as s:
        for bad in ("Entr", "hello", "C-Foo"):
            try:
                s.send_keys(bad)
            except ValueError:
                pass
            else:
                raise AssertionError("send_keys(%r) was accepted" % bad)
        s.send_keys("a", "M-b", "S-Up", "C-c")    # valid ones pass


# --- the curses program --------------------------------------------------------

KEYS = [("F1", "KEY_F(1)"), ("F2", "KEY_F(2)"), ("F3", "KEY_F(3)"),
        ("F4", "KEY_F(4)"), ("F5", "KEY_F(5)"), ("F6", "KEY_F(6)"),
        ("F7", "KEY_F(7)"), ("F8", "KEY_F(8)"), ("F9", "KEY_F(9)"),
        ("F10", "KEY_F(10)"), ("F11", "KEY_F(11)"), ("F12", "KEY_F(12)"),
        ("Tab", "^I"), ("BTab", "KEY_BTAB"), ("Enter", "^M"),
        ("PageUp", "KEY_PPAGE"), ("PPage", "KEY_PPAGE"),
        ("PageDown", "KEY_NPAGE"), ("NPage", "KEY_NPAGE"),
        ("Home", "KEY_HOME"), ("End", "KEY_END"),
        ("Up", "KEY_UP"), ("Down", "KEY_DOWN"), ("Left", "KEY_LEFT"),
        ("Right", "KEY_RIGHT"), ("Escape", "^["), ("C-c", "^C"), ("C-l", "^L"),
        ("BSpace", "KEY_BACKSPACE"), ("DC", "KEY_DC"), ("IC", "KEY_IC"),
        ("z", "z")]


def test_curses_keys(s):
    for n, (key, name) in enumerate(KEYS, 1):
        s.send_keys(key)
        t = s.wait_for("keys: %d " % n, timeout=10, what="key %s" % key)
        got = row(t, 0)
        expect(got == "keys: %d last: %s" % (n, name), "%s arrived as %r" % (key, got))
    s.send_text("é")
    s.wait_for("keys: %d last: é" % (len(KEYS) + 1))


def test_curses_cursor(s):
    expect(s.cursor() == (7, 3), "cursor at %r" % (s.cursor(),))
    expect(s.cursor_visible(), "cursor hidden")


def test_curses_region(s):
    t = s.text()
    expect(region(t, 5, 30, 1, 5) == "RIGHT", repr(region(t, 5, 30, 1, 5)))
    expect(region(t, 5, 0, 1, 14) == "日本語テキスト", repr(region(t, 5, 0, 1, 14)))
    expect(region(t, 5, 4, 1, 4) == "語テ", repr(region(t, 5, 4, 1, 4)))
    expect(region(t, 5, 13, 1, 17) == "", repr(region(t, 5, 13, 1, 17)))
    expect(region(t, 5, 13, 1, 19) == " " * 17 + "RI", repr(region(t, 5, 13, 1, 19)))
    expect(region(t, s.rows_count - 1, s.cols - 1, 1, 1) == "#", "no # bottom right")


def test_curses_mouse(s):
    s.click(10, 7)
    t = s.wait_for("mouse: 1 ", timeout=10)
    expect(row(t, 2) == "mouse: 1 at 10,7 BUTTON1_CLICKED", row(t, 2))
    s.click(0, 0, button=3)
    t = s.wait_for("mouse: 2 ", timeout=10)
    expect(row(t, 2) == "mouse: 2 at 0,0 BUTTON3_CLICKED", row(t, 2))
    s.click(s.cols - 1, s.rows_count - 1)   # beyond 94: bytes above 0x7f in X10
    t = s.wait_for("mouse: 3 ", timeout=10)
    want = "mouse: 3 at %d,%d BUTTON1_CLICKED" % (s.cols - 1, s.rows_count - 1)
    expect(row(t, 2) == want, row(t, 2))
    s.wheel(4, 5, up=True)
    t = s.wait_for("mouse: 4 ", timeout=10)
    expect(row(t, 2) == "mouse: 4 at 4,5 BUTTON4_PRESSED", row(t, 2))
    s.wheel(4, 5, up=False)
    t = s.wait_for("mouse: 5 ", timeout=10)
    expect(row(t, 2) == "mouse: 5 at 4,5 BUTTON5_PRESSED", row(t, 2))


def test_curses_resize(s):
    t = s.text()
    expect(row(t, 1) == "size: %dx%d resizes: 0" % (s.cols, s.rows_count), row(t, 1))
    for n, (cols, rows) in enumerate([(100, 30), (60, 12), (150, 45)], 1):
        s.resize(cols, rows)
        expect(s.size() == (cols, rows), "pane is %r" % (s.size(),))
        t = s.wait_for("size: %dx%d resizes: %d" % (cols, rows, n), timeout=10)
        expect(region(t, rows - 1, cols - 1, 1, 1) == "#",
               "no # in the new bottom-right cell")
        expect(len(t.split("\n")) == rows, "%d rows captured" % len(t.split("\n")))
    s.click(140, 40)           # the mouse still works at the new size
    t = s.wait_for("at 140,40 ", timeout=10)


def test_curses_exit(s):
    s.send_keys("x")
    expect(s.exit_status() == 5, "status %d" % s.exit_status())


def test_sgr_mouse():
    """With TERM=xterm-256color ncurses asks for SGR mouse reports (1006):
    click() then sends SGR, which reaches columns past 222."""
    with Screen(ECHO, cols=240, rows=10, term="xterm-256color") as s:
        s.wait_for("keys: 0")
        expect(s.mouse_mode()["sgr"], "mouse mode %r" % s.mouse_mode())
        s.click(230, 8)
        t = s.wait_for("mouse: 1 ", timeout=10)
        expect(row(t, 2) == "mouse: 1 at 230,8 BUTTON1_CLICKED", row(t, 2))
        s.send_keys("q")
        expect(s.exit_status() == 0, "status")


def test_region_unit():
    expect(region("abc\ndef", 0, 1, 2, 2) == "bc\nef", "plain")
    expect(region(["abc", "def"], 1, 0, 1, 9) == "def", "list input")
    expect(region("a", 0, 0, 3, 5) == "a\n\n", "padded to height")
    line = "日本語|x"
    expect(region(line, 0, 6, 1, 2) == "|x", "after wide characters")
    expect(region(line, 0, 1, 1, 4) == " 本", repr(region(line, 0, 1, 1, 4)))
    expect(region(line, 0, 3, 1, 2) == "", "halves are spaces, stripped")
    expect(region("ｘｙz", 0, 4, 1, 1) == "z", "full-width forms")
    expect(region("e\u0301x", 0, 0, 1, 1) == "e\u0301", "combining mark kept")
    expect(region("e\u0301x", 0, 1, 1, 1) == "x", "combining mark is zero wide")
    expect(screen_driver.display_width("日本 x") == 6, "display_width")


def test_parallel_and_cleanup():
    before = set(glob.glob("/tmp/tmux-%d/huddle-screen-%d-*" % (os.getuid(), os.getpid())))
    a = Screen("echo I am A; exec cat", cols=30, rows=4).start()
    b = Screen("echo I am B; exec cat", cols=30, rows=4).start()
    try:
        expect(a.socket != b.socket, "shared socket")
        a.wait_for("I am A")
        b.wait_for("I am B")
        a.send_text("to a")
        b.send_text("to b")
        a.wait_for("to a")
        b.wait_for("to b")
        expect("to b" not in a.text() and "to a" not in b.text(), "cross-talk")
    finally:
        a.close()
        b.close()
        b.close()                    # twice is harmless
    for s in (a, b):
        expect(not os.path.exists(s.socket_path), "socket %s left" % s.socket_path)
        expect(not s._group_alive(), "processes of %s left" % s.socket)
    after = set(glob.glob("/tmp/tmux-%d/huddle-screen-%d-*" % (os.getuid(), os.getpid())))
    expect(after <= before, "sockets left: %r" % (after - before))


def main():
    if not screen_driver.tmux_available():
        print("SKIP: tmux is not installed")
        return 77
    start = time.monotonic()
    r = Results()
    r.run("region() counts display columns", test_region_unit)
    r.run("cat echoes typed text", test_cat_echoes_text)
    r.run("exit_status of a command exiting 3", test_exit_status_3)
    r.run("C-c in cooked mode: status 130, wrapper survives", test_ctrl_c_in_cooked_mode)
    r.run("a killed wrapper still gives a status", test_wrapper_killed_backstop)
    r.run("environment, cwd and TERM", test_env_cwd_term)
    r.run("wait_for forms, timeouts, wait_gone", test_wait_for_forms_and_timeouts)
    r.run("send_keys refuses unknown key names", test_unknown_key_name_refused)
    with Screen(ECHO, cols=120, rows=40) as s:
        try:
            s.wait_for("keys: 0", what="echo_curses to start")
        except AssertionError as e:
            print("FAIL: echo_curses did not start: %s" % e)
            r.failed += 1
        else:
            r.run("curses: the cursor position", test_curses_cursor, s)
            r.run("curses: region() on a screen with wide characters",
                  test_curses_region, s)
            r.run("curses: named keys arrive as curses names", test_curses_keys, s)
            r.run("curses: clicks and the wheel (X10 encoding)", test_curses_mouse, s)
            r.run("curses: resize reaches the program", test_curses_resize, s)
            r.run("curses: exit status after endwin", test_curses_exit, s)
    r.run("curses: clicks in SGR encoding", test_sgr_mouse)
    r.run("two screens in parallel; nothing left behind", test_parallel_and_cleanup)
    took = time.monotonic() - start
    # The suite runs it beside sanitized builds' tests: their load slows
    # tmux and Python too.
    limit = 30 * float(os.environ.get("CK_TIMEOUT_MULTIPLIER", "1"))
    if took > limit:
        print("FAIL: the self-test took %.1f s (limit %.0f s)" % (took, limit))
        r.failed += 1
    else:
        print("took %.1f s" % took)
    r.finish()


if __name__ == "__main__":
    sys.exit(main())
