"""What the screen tests that run huddle against the fake LLM server
share: huddle in a tmux screen talking to the fake, a clean quit, and a
main() that skips without tmux."""

import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from screen_driver import (EXITED, Results, Screen, expect,  # noqa: E402
                           tmux_available)
from fakellm_client import API_KEY, HUDDLE, FakeLLM  # noqa: E402


def fake_screen(fake, args=(), cols=120, rows=40, term=None, workdir=None,
                env=None):
    """huddle in a fresh workdir (or `workdir`), talking to the fake,
    with `env`'s variables too; returns the Screen (not started: use it
    in a with)."""
    work = workdir or tempfile.mkdtemp(prefix="huddle-screen-")
    return Screen([HUDDLE, "--workdir", work] + list(args),
                  env=dict({"ANTHROPIC_API_KEY": API_KEY,
                            "ANTHROPIC_BASE_URL": fake.anthropic_url},
                           **(env or {})),
                  cols=cols, rows=rows, term=term, settle=True)


def say_to_lead(s, line="go"):
    """Types line to the lead, and Enter, once its input shows."""
    s.wait_for("lead>", 10)
    s.send_text(line)
    s.send_keys("Enter")


def quit_clean(s):
    """F10 (again when requests wait for the person and huddle says what
    the quit withdraws), and huddle must exit 0."""
    s.send_keys("F10")
    t = s.wait_for(lambda t: "F10 again quits" in t or "quitting" in t or
                   EXITED.search(t), 10,
                   "huddle to quit or say what the quit withdraws")
    if "F10 again quits" in t and not EXITED.search(t):
        s.send_keys("F10")
    expect(s.exit_status(30) == 0, "huddle did not quit cleanly")


def run_main(register):
    """Runs the tests `register(results, fake)` adds; skips without
    tmux."""
    if not tmux_available():
        print("tmux is missing: screen tests skipped")
        sys.exit(77)
    r = Results()
    with FakeLLM() as fake:
        register(r, fake)
    r.finish()


# The help's last row: its keys, then which of its lines are on show.
HELP_FOOT = re.compile(r"(\d+)-(\d+) of (\d+)")


def _help_range(text):
    m = HELP_FOOT.search(text)
    return tuple(int(g) for g in m.groups()) if m else None


def read_help(s, timeout=10):
    """Reads the open help page by page (PgDn) to its end; returns every
    page's screen, joined.  A page is read only once its footer, the
    last row of the box curses writes, shows the page's range: the rows
    above it reached the terminal before it, so a page is never caught
    half drawn."""
    pages = []
    screen = s.wait_for(lambda t: _help_range(t) is not None, timeout,
                        "the help's footer")
    while True:
        first, last, total = _help_range(screen)
        pages.append(screen)
        if last >= total:
            return "\n".join(pages)
        s.send_keys("PgDn")
        screen = s.wait_for(
            lambda t, first=first: (_help_range(t) or (0,))[0] > first,
            timeout, "the help's next page")
