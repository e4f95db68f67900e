#!/usr/bin/env python3
"""The person keeps the table under a flood, in a real terminal (tmux) at
80x24: mallory's one command opens a dozen connections through the proxy
at once, each a network request, while bob's `rm -rf junkdir` waits too.
The table's title counts them by agent on its one line; R on one of
mallory's rows rejects all of hers at once and says how many, bob's
request stays pending.
/reject-all then finds nothing more of hers.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)
from requests import hint, table  # noqa: E402
from fakellm_client import remote_addresses  # noqa: E402

# Under the proxy's share of connections for one command.
N = 12

# Addresses for documentation, none of them this machine's: no name to
# resolve, and nothing is ever sent there (every request is denied).
FLOOD = ("for a in %s; do curl -s -o /dev/null "
         "http://$a/ & done; wait; echo flood-over-$((6*7))"
         % " ".join(remote_addresses(N)))


def flood_team(fake):
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": "mallory", "role": "ops", "prompt": "Fetch."}},
            {"name": "spawn_teammate", "input": {
                "name": "bob", "role": "ops", "prompt": "Clean up."}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 12,
        {"agent": "mallory", "kind": "tool_use", "calls": [
            {"name": "bash", "input": {"command": FLOOD}}]},
        *[{"agent": "mallory", "kind": "text", "text": "Done."}] * 4,
        {"agent": "bob", "kind": "tool_use", "calls": [
            {"name": "bash", "input": {"command": "rm -rf junkdir"}}]},
        *[{"agent": "bob", "kind": "text", "text": "Done."}] * 4)
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    os.makedirs(os.path.join(work, "junkdir"))
    return fake_screen(fake, ["--quit-timeout", "2"], 80, 24, workdir=work)


def highlighted(s):
    hi = [r for r in table(s) if r[4]]
    return hi[0] if len(hi) == 1 else None


def title(s):
    return next((r for r in s.rows() if "requests · " in r), "")


def test_r_rejects_all_of_one_agents_requests(fake):
    s = flood_team(fake)
    with s:
        say_to_lead(s)
        want = "requests · %d pending (mallory %d, bob 1)" % (N + 1, N)
        s.wait_for(lambda t: want in title(s), 30, "the flood, counted")
        line = title(s)
        expect(line.startswith("┌") and line.rstrip().endswith("┐"),
               "the title is not on the table's one border line: %r" % line)
        # The table; one of mallory's rows.
        s.send_keys("BTab")
        seen = []
        s.wait_for(lambda _: seen.append(highlighted(s)) or
                   seen[-1] is not None, 5, "a row highlighted")
        if seen[-1][2] != "mallory":
            s.send_keys("Down")
            s.wait_for(lambda _: (highlighted(s) or [0, 0, ""])[2] ==
                       "mallory", 5, "one of mallory's rows")
        s.send_text("R")
        s.wait_for(lambda t: "rejected mallory's %d requests (%d network)"
                   % (N, N) in hint(s), 10, "the sentence")
        s.wait_for(lambda t: "requests · 1 pending (bob 1)" in title(s),
                   10, "bob's alone pending")
        rows = table(s)
        expect([r[2] for r in rows if r[3] == "pending"] == ["bob"],
               "pending now: %r" % [r[:4] for r in rows])
        expect(all(r[3] == "rejected" for r in rows if r[2] == "mallory"),
               "a row of mallory's not rejected: %r" % rows)
        # The command: nothing more of hers waits; bob's still does.
        s.send_text("/reject-all mallory")
        s.send_keys("Enter")
        s.wait_for(lambda t: "nothing was rejected: no request of mallory "
                   "waits for you" in hint(s), 10, "nothing more of hers")
        expect("requests · 1 pending (bob 1)" in title(s),
               "bob's request left: %r" % title(s))
        quit_clean(s)


def tests(r, fake):
    r.run("R rejects all of one agent's requests; the title counts them",
          test_r_rejects_all_of_one_agents_requests, fake)


if __name__ == "__main__":
    run_main(tests)
