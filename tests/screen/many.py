#!/usr/bin/env python3
"""Many teammates on a small screen (tmux): 12 teammates at 80x24 and 32
at 200x60 are each drawn, as a pane or folded to a row, or counted in a
"+N more" row; pane titles keep the status when the role does not fit.
"""

import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from screen_driver import Results, Screen, expect, tmux_available  # noqa: E402
from fakellm_client import API_KEY, HUDDLE, FakeLLM  # noqa: E402

STATUSES = ("starting", "working", "waiting", "idle", "terminated")


def names(n):
    return ["mate%02d" % i for i in range(n)]


def test_all_shown_or_counted(fake, n, cols, rows):
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": m, "role": "a-rather-long-role-name",
                "prompt": "Say hello."}} for m in names(n)]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * (n + 4),
        *[{"agent": m, "kind": "text", "text": "Hello."} for m in names(n)])
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    s = Screen([HUDDLE, "--workdir", work, "--quit-timeout", "5",
                "--max-teammates", str(n)],
               env={"ANTHROPIC_API_KEY": API_KEY,
                    "ANTHROPIC_BASE_URL": fake.anthropic_url},
               cols=cols, rows=rows)
    with s:
        s.wait_for("lead>", 10)
        s.send_text("go")
        s.send_keys("Enter")

        def accounted(text):
            seen = [m for m in names(n) if re.search(
                r"\b%s · (?:[\w-]+ · )?(%s)\b" % (m, "|".join(STATUSES)),
                text)]
            more = re.search(r"\+(\d+) more teammates", text)
            counted = int(more.group(1)) if more else 0
            return len(seen) + counted == n and (counted == 0 or
                                                 len(seen) > 0)
        # Once all are idle (the lead says so), each is accounted for.
        s.wait_for(lambda t: len(re.findall(r"is idle: Hello", t)) > 0,
                   30, "teammates at work")
        screen = s.wait_for(accounted, 30, "every teammate drawn or counted")
        # A title cut short still says the status.
        expect(not re.search(r"mate\d\d · a-rather-long-role-name · "
                             r"[a-z]{1,3}\b(?! )", screen),
               "a title lost its status")
        s.send_keys("F10")
        expect(s.exit_status(30) == 0, "huddle did not quit cleanly")


def main():
    if not tmux_available():
        print("tmux is missing: screen tests skipped")
        sys.exit(77)
    r = Results()
    with FakeLLM() as fake:
        r.run("12 teammates at 80x24: each drawn or counted",
              test_all_shown_or_counted, fake, 12, 80, 24)
        r.run("32 teammates at 200x60: each drawn or counted",
              test_all_shown_or_counted, fake, 32, 200, 60)
    r.finish()


if __name__ == "__main__":
    main()
