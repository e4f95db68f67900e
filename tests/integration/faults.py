#!/usr/bin/env python3
"""R2, API faults while a team works: the real binary in --headless mode,
real HTTP to the fake LLM server.

Every case starts a team of the lead and two teammates. The lead spawns
bob and alice in one tool round. Bob runs a command and then streams a
slow reply (a write every 100 ms, about 3 s in all), so his work is in
flight while alice's model call hits the fault: 401, 429 with
retry-after, 500 (retried until the retries run out, and with
x-should-retry: false), 529, an error event mid-stream (an overload,
retried; a refusal, final), a connection dropped mid-stream (retried), no response at all, a stalled stream (ended by /stop
and by /quit), malformed SSE, and, with --no-stream, a cut body and
malformed JSON.

Each case checks that alice shows the error as the API gave it (HTTP
status, error type, message); that she is retried per the official SDKs'
policy (doc/reliability.md: the requests the fake server recorded for her,
the gaps between them, the retry events); that a new message makes her
try again and recover once retries have run out; that a forced stop or a
quit ends a stalled call at once; that bob's work goes on meanwhile and
completes; and that /quit still exits 0 quickly afterwards.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import run_timed  # noqa: E402
from team_driver import Huddle, ev  # noqa: E402

# Bob's slow reply: a redacted thought (it arrives whole), then 32 text
# deltas and 5 other events, 100 ms apart.
BOB_TEXT = ("Bob: refactored the parser; every unit test passes and the docs "
            "match it, too.")
BOB_OUTPUT = "bob-was-here"
ALICE_BACK = "Alice is back."
ALICE_THROUGH = "Alice got through."
# Alice's first faulty reply waits for bob's second request (his reply,
# which streams slowly: its first text comes some 500 ms in), then this
# long, so that bob is streaming.
FIRST_DELAY_MS = 900

# A retry must not come sooner than huddle said it would wait (less this,
# for clock granularity), nor later than this after it.
EARLY_S = 0.02
LATE_S = 0.35
# A forced stop of a call in progress, seen inside huddle (event times):
# the target of R2 is 100 ms. Seen from here (pipe, reader thread) a
# looser bound.
CANCEL_MS = 100
CANCEL_WALL_S = 1.0
# /quit once the faults are over; /quit with a stalled call and
# --quit-timeout 1.
QUIT_S = 5.0
STALLED_QUIT_S = 3.0


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def say(agent, text, **extra):
    item = {"agent": agent, "kind": "text", "text": text}
    item.update(extra)
    return item


def approve_shutdown(agent):
    return {"agent": agent, "kind": "tool_use",
            "calls": [{"name": "shutdown_response",
                       "input": {"request_id": "{{request_id}}", "approve": True}}]}


def lead_items():
    spawn = {"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "spawn_teammate",
         "input": {"name": "bob", "role": "refactorer",
                   "prompt": "Refactor the parser."}},
        {"name": "spawn_teammate",
         "input": {"name": "alice", "role": "coder", "prompt": "Write the tests."}}]}
    return [spawn] + [say("lead", "Noted.") for _ in range(10)]


def bob_items(stream=True):
    run = {"agent": "bob", "kind": "tool_use",
           "calls": [{"name": "bash", "input": {"command": "echo " + BOB_OUTPUT}}]}
    if stream:
        done = say("bob", BOB_TEXT, delta_chars=3, chunk_delay_ms=100,
                   redacted=True)
    else:
        done = say("bob", BOB_TEXT, delay_ms=2500)
    return [run, done, approve_shutdown("bob")]


def requests_of(fake, agent):
    return [r for r in fake.requests() if r.get("agent") == agent]


def index_of(h, match, since=0):
    for i in range(since, len(h.events)):
        if match(h.events[i]):
            return i
    return None


def start_team(fake, alice, args=(), stream=True):
    """Queues the scripts, starts huddle and sets the team to work."""
    fake.reset()
    alice = [dict(item) for item in alice]
    alice[0]["delay_ms"] = alice[0].get("delay_ms", 0) + FIRST_DELAY_MS
    alice[0]["wait_for"] = {"agent": "bob", "requests": 2}
    fake.script(*lead_items(), *bob_items(stream), *alice)
    h = Huddle(fake, args=list(args) + ([] if stream else ["--no-stream"]))
    h.start()
    h.send("go")
    return h


def check_bob_completes(h):
    res = h.wait(ev("tool_result", "bob", tool="bash"), timeout=15, what="bob's command")
    expect(not res["is_error"] and BOB_OUTPUT in res["output"],
           "bob's command failed: %r" % res)
    h.wait_text("bob", BOB_TEXT, timeout=15)
    h.wait(ev("status", "bob", status="idle"), what="bob idle after his work")


def check_bob_overlaps(h, first_fault, last_fault, windows, stream=True):
    """Bob was at work across alice's fault: his reply was asked for
    before it, his text came after it, and (streaming) he wrote while
    alice waited to retry."""
    call = index_of(h, ev("llm_call", "bob", round=2))
    expect(call is not None and call < first_fault,
           "bob's reply was not under way when alice's fault came")
    texts = [i for i, e in enumerate(h.events)
             if e["event"] == "text" and e.get("agent") == "bob"]
    expect(texts and texts[-1] > last_fault,
           "bob wrote nothing after alice's fault")
    if not stream:
        return
    expect(texts[0] < first_fault, "bob's stream had not begun at alice's fault")
    for start, delay in windows:
        expect(any(start <= h.events[i]["t"] <= start + delay for i in texts),
               "bob wrote nothing while alice waited %d ms to retry (from t=%d)"
               % (delay, start))


def check_gaps(reqs, waits, retries):
    """The gap between alice's attempts is the delay her retry event
    announced: from when the server began its answer (plus what the
    answer took once begun: waits[i] s)."""
    for i, r in enumerate(retries):
        gap = reqs[i + 1]["time"] - reqs[i].get("replied", reqs[i]["time"]) \
            - waits[i]
        want = r["delay_ms"] / 1000.0
        expect(want - EARLY_S <= gap <= want + LATE_S,
               "attempt %d came %.3f s after the failure; %.3f s announced"
               % (i + 2, gap, want))


def quit_quickly(h, limit=QUIT_S):
    sent = time.monotonic()
    h.send("/quit")
    status = h.wait_exit(timeout=limit + 5)
    took = time.monotonic() - sent
    expect(status == 0, "exit status %s; stderr %s" % (status, h.stderr))
    expect(any(e["event"] == "exit" for e in h.events), "no exit event")
    expect(took <= limit, "/quit took %.2f s (limit %.1f s)" % (took, limit))
    return took


def fault_case(fake, alice, delays, statuses, error=None, waits=None,
               args=(), stream=True):
    """The common case. alice: her fault items (a good reply and the
    shutdown answer are added). delays: for each retry expected, the
    range (lo, hi) of its delay in ms. statuses: the HTTP statuses the
    server recorded for her attempts. error: None when the retries get
    through, else the parts her error message must contain; she then gets
    a message and must recover."""
    good = ALICE_THROUGH if error is None else ALICE_BACK
    h = start_team(fake, alice + [say("alice", good), approve_shutdown("alice")],
                   args, stream)
    try:
        waits = list(waits or [0.0] * len(delays))
        if error is None:
            h.wait_text("alice", good, timeout=15)
            end = index_of(h, ev("text", "alice"))
            h.wait(ev("status", "alice", status="idle"), what="alice idle")
            expect(index_of(h, ev("error", "alice")) is None,
                   "alice showed an error although a retry got through")
        else:
            err = h.wait(ev("error", "alice"), timeout=15, what="alice's error")
            for part in error:
                expect(part in err["message"], "alice's error %r does not name %r"
                       % (err["message"], part))
            end = h.events.index(err)
            h.wait(ev("status", "alice", status="error"), since=end,
                   what="alice's status error")
        retries = [e for e in h.events[:end]
                   if e["event"] == "retry" and e.get("agent") == "alice"]
        expect(len(retries) == len(delays), "%d retry events, %d expected: %r"
               % (len(retries), len(delays), retries))
        for n, (r, (lo, hi)) in enumerate(zip(retries, delays), 1):
            expect(r["attempt"] == n, "retry %d says attempt %r" % (n, r["attempt"]))
            expect(lo <= r["delay_ms"] <= hi, "retry %d waits %d ms, not %d..%d"
                   % (n, r["delay_ms"], lo, hi))
            # An HTTP error names its status; a broken connection says so.
            named = alice[n - 1].get("_named") or (
                "connection_error" if statuses[n - 1] in (None, 200)
                else "HTTP %d" % statuses[n - 1])
            expect(named in r["message"], "retry %d does not name %s: %r"
                   % (n, named, r["message"]))
            said = alice[n - 1].get("message")
            expect(said is None or said in r["message"],
                   "retry %d does not quote the API's message %r: %r"
                   % (n, said, r["message"]))
        # A retry after a reply began to stream says that reply is
        # void (the next attempt streams it anew); one before says not.
        since = 0
        for r in retries:
            at = h.events.index(r)
            shown = any(e.get("agent") == "alice" and e["event"] in (
                "text", "thinking") for e in h.events[since:at])
            expect(bool(r.get("discarded")) == shown,
                   "retry %d: streamed %s, discarded %r" % (
                       r["attempt"], shown, r.get("discarded")))
            since = at + 1
        reqs = requests_of(fake, "alice")
        got = [r["response_status"] for r in reqs]
        expect(got == statuses, "alice's attempts were answered %r, expected %r"
               % (got, statuses))
        check_gaps(reqs, waits, retries)
        for i in range(1, len(reqs)):
            expect(reqs[i]["body"] == reqs[0]["body"],
                   "attempt %d asked something else than attempt 1" % (i + 1))
        first = index_of(h, lambda e: e["event"] in ("retry", "error")
                         and e.get("agent") == "alice")

        if error is not None:
            mark = len(h.events)
            h.send("/msg alice please try again")
            h.wait_text("alice", good, since=mark)
            h.wait(ev("status", "alice", status="idle"), since=mark,
                   what="alice recovers")
            reqs = requests_of(fake, "alice")
            expect(len(reqs) == len(statuses) + 1,
                   "the message did not make exactly one new attempt")
            # The new call carries the message, and nothing of the reply
            # that failed.
            sent = json.dumps(reqs[-1]["body"]["messages"])
            expect("please try again" in sent, "the message is not in the new call")
            for item in alice:
                if item.get("text"):
                    expect(item["text"][:8] not in sent,
                           "the failed reply %r was kept: %s" % (item["text"], sent))
        check_bob_completes(h)
        check_bob_overlaps(h, first, end,
                           [(r["t"], r["delay_ms"]) for r in retries], stream)
        quit_quickly(h)
    finally:
        h.discard()


# --- the cases -----------------------------------------------------------

def test_401(fake):
    fault_case(fake, [{"agent": "alice", "kind": "error", "status": 401,
                       "message": "fault401 key revoked"}],
               [], [401], error=["HTTP 401", "authentication_error",
                                 "fault401 key revoked"])


def test_429_retry_after(fake):
    fault_case(fake, [{"agent": "alice", "kind": "error", "status": 429,
                       "message": "fault429 slow down", "headers": {"retry-after": "1"}}],
               [(1000, 1000)], [429, 200])


def test_500_until_retries_run_out(fake):
    fault_case(fake, [{"agent": "alice", "kind": "error", "status": 500,
                       "message": "fault500 attempt %d" % i} for i in (1, 2, 3)],
               [(375, 500), (750, 1000)], [500, 500, 500],
               error=["HTTP 500", "api_error", "fault500 attempt 3"],
               args=["--max-retries", "2"])


def test_500_should_not_retry(fake):
    fault_case(fake, [{"agent": "alice", "kind": "error", "status": 500,
                       "message": "fault500 final",
                       "headers": {"x-should-retry": "false"}}],
               [], [500], error=["HTTP 500", "api_error", "fault500 final"])


def test_529(fake):
    fault_case(fake, [{"agent": "alice", "kind": "error", "status": 529,
                       "message": "fault529 overloaded %d" % i} for i in (1, 2)],
               [(375, 500), (750, 1000)], [529, 529, 200])


def test_error_event(fake):
    # An overload announced mid-stream passes like one before it: the
    # reply is asked for again from the top (whether what it had
    # streamed is void is checked for every retry; tests/screen/retry.py
    # breaks a reply after its text began).
    fault_case(fake, [say("alice", "This reply will break off.", fault="error_event",
                          fault_error_type="overloaded_error",
                          fault_error_message="faultevent Overloaded",
                          _named="overloaded_error")],
               [(375, 500)], [200, 200])


def test_error_event_final(fake):
    # An error event of a kind no wait cures is final.
    fault_case(fake, [say("alice", "This reply will break off.", fault="error_event",
                          fault_error_type="invalid_request_error",
                          fault_error_message="faultevent refused")],
               [], [200], error=["invalid_request_error", "faultevent refused"])


def test_dropped_stream(fake):
    # A FIN mid-stream (the SSE body ends early), then an unterminated
    # chunked body: both failures after a 200, retried from the top.
    fault_case(fake, [say("alice", "This reply will break off.", fault="drop")],
               [(375, 500)], [200, 200])


def test_dropped_chunked_stream(fake):
    fault_case(fake, [say("alice", "This reply will break off.", fault="drop",
                          chunked=True)],
               [(375, 500)], [200, 200])


def test_no_response(fake):
    # The connection closes before any status line: a connection error,
    # retried after the backoff.
    fault_case(fake, [{"agent": "alice", "kind": "stall_headers", "stall_s": 0.2}],
               [(375, 500)], [None, 200], waits=[0.2])


def test_malformed_sse(fake):
    fault_case(fake, [say("alice", "This reply has a broken event.",
                          fault="malformed_sse")],
               [], [200], error=["invalid_response", "content_block_delta"])


def test_no_stream_cut_body_then_malformed_json(fake):
    # Without streaming: a body cut short is a connection error (retried);
    # a complete body that is not JSON is final.
    fault_case(fake, [say("alice", "A whole reply cut in half.", fault="drop"),
                      say("alice", "A whole reply, bad JSON.", fault="malformed_json")],
               [(375, 500)], [200, 200],
               error=["HTTP 200", "invalid_response", "not valid JSON"],
               stream=False)


def stop_alice(h, fake, ready):
    """Waits until ready(h) says alice's call hangs, then stops her by
    force; returns the stop's latency inside huddle, in ms."""
    ready(h)
    mark = len(h.events)
    sent = time.monotonic()
    h.send("/stop alice")
    reply = h.wait(ev("reply", command="stop"), since=mark, what="/stop's reply")
    done = h.wait(ev("status", "alice", status="terminated"), since=mark,
                  timeout=10, what="alice terminated")
    wall = time.monotonic() - sent
    inside = done["t"] - reply["t"]
    expect(inside <= CANCEL_MS, "the stop took %d ms inside huddle" % inside)
    expect(wall <= CANCEL_WALL_S, "the stop took %.3f s" % wall)
    expect(index_of(h, ev("error", "alice"), since=mark) is None,
           "a forced stop was shown as an error")
    expect(len(requests_of(fake, "alice")) == 1, "alice's call was retried")
    return inside


def stop_case(fake, alice, ready):
    h = start_team(fake, alice)
    try:
        ms = stop_alice(h, fake, ready)
        check_bob_completes(h)
        quit_quickly(h)
        print("  (stop: %d ms inside huddle)" % ms)
    finally:
        h.discard()


def stalled_stream(h):
    # fault_after 5: message_start, the redacted thought's start and stop,
    # the text block's start, its first delta.
    h.wait_text("alice", "A stall", timeout=10)


def test_stalled_stream_stop(fake):
    stop_case(fake, [say("alice", "A stalled reply.", fault="stall", stall_s=30,
                         delta_chars=7, redacted=True, fault_after=5)],
              stalled_stream)


def test_stalled_headers_stop(fake):
    def waiting(h):
        h.wait(ev("llm_call", "alice"), what="alice's call")
        deadline = time.monotonic() + 10
        while not requests_of(fake, "alice"):
            expect(time.monotonic() < deadline, "alice's request never arrived")
            time.sleep(0.02)
    stop_case(fake, [{"agent": "alice", "kind": "stall_headers", "stall_s": 30}],
              waiting)


def test_retry_sleep_stop(fake):
    def sleeping(h):
        r = h.wait(ev("retry", "alice"), timeout=10, what="alice's retry")
        expect(r["delay_ms"] == 30000, "retry-after 30 gave %r" % r["delay_ms"])
    stop_case(fake, [{"agent": "alice", "kind": "error", "status": 429,
                      "headers": {"retry-after": "30"}}], sleeping)


def test_stalled_stream_quit(fake):
    h = start_team(fake, [say("alice", "A stalled reply.", fault="stall",
                              stall_s=30, delta_chars=7, redacted=True,
                              fault_after=5)],
                   args=["--quit-timeout", "1"])
    try:
        stalled_stream(h)
        check_bob_completes(h)
        expect(h.proc.poll() is None, "huddle ended early")
        took = quit_quickly(h, STALLED_QUIT_S)
        expect(len(requests_of(fake, "alice")) == 1, "alice's call was retried")
        print("  (quit with a stalled stream: %.2f s)" % took)
    finally:
        h.discard()


CASES = [
    ("401: shown, not retried, recovers on a message", test_401),
    ("429 retry-after 1: retried after 1 s", test_429_retry_after),
    ("500 three times: backoff 0.5 s, 1 s, then error; recovers",
     test_500_until_retries_run_out),
    ("500 with x-should-retry false: not retried", test_500_should_not_retry),
    ("529 twice: backoff, then through", test_529),
    ("overloaded error event mid-stream: retried", test_error_event),
    ("refusal as an error event mid-stream: shown, not retried",
     test_error_event_final),
    ("connection dropped mid-stream: retried", test_dropped_stream),
    ("chunked stream cut off: retried", test_dropped_chunked_stream),
    ("connection closed before a response: retried", test_no_response),
    ("malformed SSE: shown, not retried", test_malformed_sse),
    ("--no-stream: cut body retried, malformed JSON shown",
     test_no_stream_cut_body_then_malformed_json),
    ("stalled stream: /stop ends the call at once", test_stalled_stream_stop),
    ("no response headers: /stop ends the call at once",
     test_stalled_headers_stop),
    ("waiting to retry: /stop ends the wait at once", test_retry_sleep_stop),
    ("stalled stream: /quit exits within --quit-timeout",
     test_stalled_stream_quit),
]


def main():
    run_timed(CASES)


if __name__ == "__main__":
    main()
