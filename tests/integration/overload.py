#!/usr/bin/env python3
"""Turns that finish: the real binary in --headless mode against the fake
LLM server on a busy day.

* A teammate whose calls meet ten 529s in a row waits them out (each
  wait announced as a retry event, attempt by attempt) and finishes its
  turn; what the person sends it meanwhile is queued and reaches it after.
* An outage of some seconds (the fake refuses everything for that long)
  is outlasted with default settings but a small --retry-max-delay; a
  --retry-for shorter than the outage ends in the error the server gave,
  with the attempts it took.
* A stream that stalls halfway is asked for again.
* A 429 with retry-after waits what the server asked.
* A 400 fails at once, quoting the server's sentence, with no retry.
* Interrupting (Esc; /interrupt in headless mode) during a retry's wait
  ends the wait at once, and a message makes the agent go on.
* A 200-round turn completes with default settings; with --max-rounds a
  teammate cut short tells the lead it is NOT done, and why.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import run_timed  # noqa: E402
from team_driver import Huddle, call, ev, expect, notes, say  # noqa: E402

ALICE_DONE = "Alice finished the tests."
# A stop inside huddle (event times), and seen from here.
CANCEL_MS = 100
CANCEL_WALL_S = 1.0


def spawn_alice():
    return [{"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "spawn_teammate",
         "input": {"name": "alice", "role": "coder",
                   "prompt": "Write the tests."}}]}] + notes("lead", 10)


def alice_work():
    return [call("alice", "bash", command="echo tests-written"),
            say("alice", ALICE_DONE)]


def requests_of(fake, agent):
    return [r for r in fake.requests() if r.get("agent") == agent]


def retries_of(h, agent, since=0):
    return [e for e in h.events[since:]
            if e["event"] == "retry" and e.get("agent") == agent]


def start(fake, items, args=()):
    fake.reset()
    fake.script(*items)
    h = Huddle(fake, args=list(args))
    h.start()
    h.send("go")
    return h


def finishes(h, timeout=30):
    """Alice finishes her turn without an error."""
    h.wait_text("alice", ALICE_DONE, timeout=timeout)
    h.wait(ev("status", "alice", status="idle"), what="alice idle")
    expect(not any(e["event"] == "error" and e.get("agent") == "alice"
                   for e in h.events),
           "alice showed an error: %r" % [e for e in h.events
                                         if e["event"] == "error"])


def test_ten_529s(fake):
    outage = {"agent": "alice", "kind": "outage", "status": 529, "count": 10,
              "retry_after_ms": 150}
    h = start(fake, spawn_alice() + [outage] + alice_work())
    try:
        first = h.wait(ev("retry", "alice"), what="alice's first retry")
        # Typed while she waits: queued, and hers after the outage.
        h.send("/msg alice also cover the parser")
        finishes(h)
        retries = retries_of(h, "alice")
        expect([r["attempt"] for r in retries] == list(range(1, 11)),
               "retry events %r" % [r["attempt"] for r in retries])
        for r in retries:
            expect("HTTP 529" in r["message"] and "overloaded_error" in
                   r["message"] and "Overloaded" in r["message"],
                   "a retry does not say what the server said: %r" % r)
            expect(r["delay_ms"] == 150, "retry-after-ms not honoured: %r" % r)
        expect(first["attempt"] == 1, "first retry %r" % first)
        got = [r["response_status"] for r in requests_of(fake, "alice")]
        expect(got == [529] * 10 + [200, 200],
               "alice's attempts were answered %r" % got)
        later = json.dumps(requests_of(fake, "alice")[-1]["body"])
        expect("also cover the parser" in later,
               "the message sent during the outage never reached alice")
    finally:
        h.discard()


def test_timed_outage(fake):
    # Refused for 4 s with no retry-after at all: the backoff (its cap
    # made small here) outlasts it.
    outage = {"agent": "alice", "kind": "outage", "status": 529, "seconds": 4}
    h = start(fake, spawn_alice() + [outage] + alice_work(),
              ["--retry-max-delay", "300ms"])
    try:
        finishes(h, timeout=40)
        retries = retries_of(h, "alice")
        expect(len(retries) >= 6, "only %d retries in a 4 s outage" % len(retries))
        expect(all(r["delay_ms"] <= 300 for r in retries),
               "a wait passed the cap: %r" % [r["delay_ms"] for r in retries])
        reqs = requests_of(fake, "alice")
        got = [q["response_status"] for q in reqs]
        expect(got[-2:] == [200, 200] and set(got[:-2]) == {529},
               "alice's attempts were answered %r" % got)
        expect(reqs[-2]["time"] - reqs[0]["time"] >= 4 - 0.05,
               "alice got through before the outage was over")
    finally:
        h.discard()


def test_budget_runs_out(fake):
    outage = {"agent": "alice", "kind": "outage", "status": 529, "seconds": 30,
              "message": "Overloaded right now"}
    h = start(fake, spawn_alice() + [outage] + alice_work(),
              ["--retry-for", "2s", "--retry-max-delay", "250ms"])
    try:
        err = h.wait(ev("error", "alice"), timeout=15, what="alice's error")
        for part in ("HTTP 529", "overloaded_error", "Overloaded right now",
                     "attempts"):
            expect(part in err["message"], "the error %r does not say %r"
                   % (err["message"], part))
        reqs = requests_of(fake, "alice")
        took = reqs[-1]["time"] - reqs[0]["time"]
        expect(1.5 <= took <= 2.6, "the retries took %.2f s for 2 s" % took)
        expect(len(reqs) >= 5, "only %d attempts in 2 s" % len(reqs))
        h.wait(ev("status", "alice", status="error"), what="alice's error status")
    finally:
        h.discard()


def test_stalled_stream(fake):
    # A stream that stops halfway (its connection timed out by
    # --stall-timeout) is asked for again, and the turn goes on.
    stall = say("alice", "This reply stalls halfway.", fault="stall",
                stall_s=20, fault_after=4)
    h = start(fake, spawn_alice() + [stall] + alice_work(),
              ["--stall-timeout", "1"])
    try:
        finishes(h)
        retries = retries_of(h, "alice")
        expect(len(retries) == 1 and "timeout_error" in retries[0]["message"],
               "retries %r" % retries)
    finally:
        h.discard()


def test_429_retry_after(fake):
    outage = {"agent": "alice", "kind": "outage", "status": 429, "count": 2}
    h = start(fake, spawn_alice() + [outage] + alice_work())
    try:
        finishes(h)
        retries = retries_of(h, "alice")
        expect([r["delay_ms"] for r in retries] == [1000, 1000],
               "retry-after 1 gave waits %r" % [r["delay_ms"] for r in retries])
        expect(all("HTTP 429" in r["message"] and "rate_limit_error" in
                   r["message"] for r in retries), "retries %r" % retries)
    finally:
        h.discard()


def test_400_fails_at_once(fake):
    sentence = ("messages.1.content.0.type: Expected `thinking` or "
                "`redacted_thinking`, but found `tool_use`")
    bad = {"agent": "alice", "kind": "error", "status": 400, "message": sentence}
    h = start(fake, spawn_alice() + [bad] + alice_work())
    try:
        err = h.wait(ev("error", "alice"), what="alice's error")
        for part in ("HTTP 400", "invalid_request_error", sentence):
            expect(part in err["message"], "the error %r does not quote %r"
                   % (err["message"], part))
        expect(not retries_of(h, "alice"), "a 400 was retried")
        expect(len(requests_of(fake, "alice")) == 1,
               "a 400 was sent again")
    finally:
        h.discard()


def test_interrupt_during_wait(fake):
    outage = {"agent": "alice", "kind": "outage", "status": 529, "count": 1,
              "retry_after_ms": 30000}
    h = start(fake, spawn_alice() + [outage] + alice_work())
    try:
        r = h.wait(ev("retry", "alice"), what="alice's retry")
        expect(r["delay_ms"] == 30000, "retry-after-ms 30000 gave %r" % r)
        mark = len(h.events)
        sent = time.monotonic()
        h.send("/interrupt alice")
        reply = h.wait(ev("reply", command="interrupt"), since=mark,
                       what="/interrupt's reply")
        done = h.wait(ev("notice", "alice", message="interrupted"), since=mark,
                      what="alice interrupted")
        wall = time.monotonic() - sent
        expect(done["t"] - reply["t"] <= CANCEL_MS,
               "the wait ended %d ms after the interrupt" % (done["t"] - reply["t"]))
        expect(wall <= CANCEL_WALL_S, "the interrupt took %.2f s" % wall)
        expect(len(requests_of(fake, "alice")) == 1, "alice retried anyway")
        h.wait(ev("status", "alice", status="idle"), since=mark,
               what="alice idle after the interrupt")
        expect(not any(e["event"] == "error" and e.get("agent") == "alice"
                       for e in h.events), "an interrupt was shown as an error")
        h.send("/msg alice go on")
        h.wait_text("alice", ALICE_DONE, since=mark)
    finally:
        h.discard()


def test_200_rounds(fake):
    # The lead works through 200 tool rounds in one turn.
    fake.reset()
    # Without thinking blocks, whose checks grow with the conversation:
    # the rounds are what is tested here.
    fake.configure(thinking="off")
    fake.script({"agent": "lead", "kind": "rounds", "rounds": 200,
                 "round_tool": "write_file"})
    h = Huddle(fake)
    h.start()
    try:
        began = time.monotonic()
        h.send("go")
        h.wait_text("lead", "All 200 rounds are done", timeout=240)
        print("  (200 rounds: %.1f s)" % (time.monotonic() - began))
        expect(not any(e["event"] == "error" for e in h.events),
               "errors: %r" % [e for e in h.events if e["event"] == "error"])
        calls = [e for e in h.events if e["event"] == "llm_call"
                 and e.get("agent") == "lead"]
        expect(len(calls) == 201, "%d calls for 200 rounds" % len(calls))
    finally:
        h.discard()


def test_capped_teammate_is_not_done(fake):
    items = spawn_alice() + [{"agent": "alice", "kind": "rounds", "rounds": 10,
                              "round_tool": "write_file"}]
    h = start(fake, items, ["--max-rounds", "3"])
    try:
        note = h.wait(ev("message", type="idle_notification",
                         **{"from": "alice"}), timeout=30,
                      what="alice's notice to the lead")
        text = note["content"]
        expect("NOT done" in text and "3 tool rounds" in text and
               "--max-rounds" in text, "the notice says %r" % text)
        expect("is idle" not in text, "the notice says idle: %r" % text)
    finally:
        h.discard()


CASES = [
    ("ten 529s in a row: the teammate finishes; a message sent "
     "meanwhile reaches it", test_ten_529s),
    ("overloaded for 4 s: outlasted", test_timed_outage),
    ("--retry-for 2s: the server's error after the budget",
     test_budget_runs_out),
    ("a stalled stream: retried", test_stalled_stream),
    ("429 with retry-after: the wait the server asked", test_429_retry_after),
    ("400: fails at once with the server's sentence", test_400_fails_at_once),
    ("interrupt during a retry's wait: ends it at once",
     test_interrupt_during_wait),
    ("a 200-round turn completes by default", test_200_rounds),
    ("--max-rounds: the lead hears the teammate is NOT done",
     test_capped_teammate_is_not_done),
]


def main():
    run_timed(CASES)


if __name__ == "__main__":
    main()
