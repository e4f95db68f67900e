#!/usr/bin/env python3
"""Long sessions, end to end (headless, real HTTP to the fake server):
a teammate works through many rounds of a command with a 7 KB output
against a small context window, with thinking on, and its conversation
is compacted as it goes; its own count of rounds, which it keeps only in
what it is sent, is right at the end, and it answers a shutdown request
with the right id. Also: compaction on the server, recovery from each
provider's prompt-too-long refusal, the protocol state restated after a
compaction, /compact and /context, the cut of an oversized tool result,
and a crash in the middle of a compaction.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import FakeLLM, Results  # noqa: E402
from team_driver import Huddle, call, contains, ev, expect, notes, say  # noqa: E402

BYTES = 7000


def rounds(agent, n, nbytes=BYTES):
    return {"agent": agent, "kind": "rounds", "rounds": n, "bytes": nbytes}


def sam_runs(fake, n, window, nbytes=BYTES, after=()):
    fake.reset()
    fake.configure(context_window=window)
    fake.script(
        call("lead", "spawn_teammate", name="sam", role="runner",
             prompt="Run the numbered rounds, one command each, until "
                    "all %d are done; count them." % n),
        say("lead", "Sam is on it."), *notes("lead", 12),
        rounds("sam", n, nbytes), *after)


def wait_done(h, n, timeout):
    done = h.wait(ev("text", "sam", text=contains("rounds are done")),
                  timeout=timeout, what="sam's last word")
    text = "".join(e["text"] for e in h.events
                   if e["event"] == "text" and e.get("agent") == "sam")
    expect("All %d rounds are done; the last was round %d." % (n, n) in text,
           "sam lost count: %r" % text[-200:])
    return done


def compactions(h, kind=None):
    return [e for e in h.events if e["event"] == "compaction" and
            (kind is None or e["kind"] == kind)]


def refusals(fake):
    return [r for r in fake.requests() if r.get("status") == 400]


def test_150_rounds_in_a_30k_window(fake):
    sam_runs(fake, 150, 30000, after=[
        call("sam", "shutdown_response", request_id="{{request_id}}",
             approve=True, reason="all rounds done")])
    with Huddle(fake, args=["--max-rounds", "1000", "--context-window",
                            "30000"]) as h:
        h.send("go")
        wait_done(h, 150, 240)
        done = compactions(h, "client")
        expect(len(done) >= 5, "only %d compactions" % len(done))
        for c in done:
            expect(c["after"] < c["before"] and
                   c["before"] <= c["context_window"],
                   "a compaction did not shrink the view: %r" % c)
        expect(not refusals(fake), "requests were refused: %r"
               % [r.get("error") for r in refusals(fake)][:3])
        mark = len(h.events)
        h.send("/shutdown sam")
        req = h.wait(ev("request", type="shutdown", to="sam",
                        status="pending"), since=mark, what="the request")
        h.wait(ev("request", id=req["id"], status="approved",
                  decided_by="sam"), since=mark, timeout=30,
               what="sam's answer with the right id")
        h.wait(ev("status", "sam", status="terminated"), since=mark,
               what="sam terminated")
        h.send("/quit")
        expect(h.wait_exit() == 0, "huddle did not quit cleanly")


def tests(r, fake):
    r.run("150 rounds of 7 KB in a 30,000-token window, then a shutdown",
          test_150_rounds_in_a_30k_window, fake)


if __name__ == "__main__":
    r = Results()
    with FakeLLM() as fake:
        tests(r, fake)
    r.finish()
