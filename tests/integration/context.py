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

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import API_KEY, FakeLLM, Results  # noqa: E402
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
    """Waits for sam's idle notice: its last words, whole."""
    note = h.wait(ev("message", type="idle_notification",
                     content=contains("rounds are done"), **{"from": "sam"}),
                  timeout=timeout, what="sam's last word")
    expect("All %d rounds are done; the last was round %d." % (n, n)
           in note["content"], "sam lost count: %r" % note["content"])
    return note


def compactions(h, kind=None):
    return [e for e in h.events if e["event"] == "compaction" and
            (kind is None or e["kind"] == kind)]


def refusals(fake):
    return [r for r in fake.requests() if r.get("response_status") == 400]


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
        h.quit()


def sam_requests(fake):
    return [r for r in fake.requests() if r.get("agent") == "sam"]


def test_pending_request_is_restated(fake):
    # The shutdown request comes early; the fake's summaries keep no
    # request id, so only huddle's restatement can carry it through.
    sam_runs(fake, 40, 30000, after=[
        call("sam", "shutdown_response", request_id="{{request_id}}",
             approve=True)])
    with Huddle(fake, args=["--max-rounds", "1000", "--context-window",
                            "30000"]) as h:
        h.send("go")
        h.wait(ev("tool_result", "sam", output=contains("round 3 done")),
               timeout=30, what="round 3")
        mark = len(h.events)
        h.send("/shutdown sam")
        req = h.wait(ev("request", type="shutdown", to="sam",
                        status="pending"), since=mark, what="the request")
        wait_done(h, 40, 120)
        late = [c for c in compactions(h, "client")
                if h.events.index(c) > mark]
        expect(len(late) >= 2, "no compaction after the request came")
        # Done with its rounds, sam is asked what is still open.
        h.send("/msg sam Anything left to answer?")
        h.wait(ev("request", id=req["id"], status="approved",
                  decided_by="sam"), since=mark, timeout=30,
               what="the answer with the request's id")
        # What sam answered from: the id came only through huddle's
        # restatement, the message that brought it long compacted away.
        body = json.dumps(sam_requests(fake)[-1]["body"])
        expect("waits for your answer: request_id %s" % req["id"] in body,
               "the request is not restated in sam's last request")
        expect("shutdown_request from user" not in body,
               "the original message is still in sam's view")
        h.quit()


def test_server_side_compaction(fake):
    # 75% of 80,000 is a trigger the API takes: the server compacts.
    sam_runs(fake, 45, 80000)
    with Huddle(fake, args=["--max-rounds", "1000", "--context-window",
                            "80000"]) as h:
        h.send("go")
        wait_done(h, 45, 120)
        server = compactions(h, "server")
        expect(server, "no compaction on the server")
        expect(not compactions(h, "client"), "huddle compacted itself too")
        expect(server[0]["before"] > 60000 and
               server[0]["after"] < server[0]["before"], repr(server[0]))
        expect(not refusals(fake), "requests were refused")
        compacted = [r for r in sam_requests(fake) if r.get("compacted")]
        expect(compacted, "the fake saw no compaction")
        h.quit()


def recovery(fake, provider):
    # huddle is not told the window, and never compacts on its own: the
    # server's refusal makes it compact, retry, and learn the window.
    sam_runs(fake, 30, 30000)
    args = ["--max-rounds", "1000", "--compact-at", "100"]
    env = {}
    if provider == "openai":
        args += ["--provider", "openai-chat", "--model", "gpt-fake"]
        env = {"OPENAI_API_KEY": API_KEY, "OPENAI_BASE_URL": fake.openai_url}
    with Huddle(fake, args=args, env=env) as h:
        h.send("go")
        wait_done(h, 30, 120)
        refused = refusals(fake)
        expect(refused, "no prompt was refused: the test proves nothing")
        expect(compactions(h, "client"), "no compaction after a refusal")
        expect(not [e for e in h.events if e["event"] == "status" and
                    e.get("agent") == "sam" and e["status"] == "error"],
               "sam ended in error")
        h.quit()


def test_oversized_result_is_cut(fake):
    sam_runs(fake, 3, 30000, nbytes=40000)
    with Huddle(fake, args=["--context-window", "30000"]) as h:
        h.send("go")
        wait_done(h, 3, 60)
        cut = [e for e in h.events if e["event"] == "tool_result" and
               e.get("agent") == "sam"]
        expect(len(cut) == 3, "%d results" % len(cut))
        for e in cut:
            expect("huddle left out" in e["output"] and
                   len(e["output"]) < 13000 and "done" in e["output"],
                   "a result was not cut to its head and tail: %d bytes"
                   % len(e["output"]))
        h.quit()


def test_compact_and_context_on_demand(fake):
    sam_runs(fake, 4, 30000, after=[
        say("sam", "<summary>Four rounds done; nothing left.</summary>")])
    with Huddle(fake, args=["--context-window", "30000"]) as h:
        h.send("go")
        wait_done(h, 4, 60)
        h.wait(ev("status", "sam", status="idle"), what="sam idle")
        mark = len(h.events)
        h.send("/context sam")
        line = h.wait(ev("reply", command="context"), since=mark)
        expect("of 30,000 tokens" in line["message"] and
               "not compacted yet" in line["message"], line["message"])
        h.send("/compact sam")
        h.wait(ev("reply", command="compact"), since=mark)
        c = h.wait(ev("compaction", "sam", kind="client"), since=mark,
                   what="the compaction")
        expect(c["after"] < c["before"], repr(c))
        mark = len(h.events)
        h.send("/context sam")
        line = h.wait(ev("reply", command="context"), since=mark)
        expect("compacted 1 time" in line["message"], line["message"])
        # Idle, sam does not take the summary for a message to answer.
        expect(not [e for e in h.events[mark:] if e["event"] == "llm_call"
                    and e.get("agent") == "sam"], "sam called its model")
        mark = len(h.events)
        h.send("/team")
        team = h.wait(ev("team"), since=mark)
        sam = [m for m in team["members"] if m["name"] == "sam"][0]
        expect(sam["context_window"] == 30000 and
               0 < sam["context_tokens"] < 30000, repr(sam))
        h.quit()


def test_crash_during_compaction(fake):
    fake.reset()
    fake.configure(context_window=30000)
    item = rounds("sam", 40)
    item["summary_delay_ms"] = 3000
    fake.script(
        call("lead", "spawn_teammate", name="sam", role="runner",
             prompt="Run the numbered rounds until all 40 are done."),
        say("lead", "Sam is on it."), *notes("lead", 12), item)
    args = ["--max-rounds", "1000", "--context-window", "30000"]
    h = Huddle(fake, args=args).start()
    try:
        h.send("go")
        h.wait(ev("notice", "sam", message=contains("compacting")),
               timeout=60, what="a compaction under way")
        seen = [e["output"] for e in h.events if e["event"] == "tool_result"]
    finally:
        h.kill9()
    with Huddle(fake, workdir=h.workdir, args=args, resume=True) as h2:
        wait_done(h2, 40, 120)
        after = [e["output"] for e in h2.events
                 if e["event"] == "tool_result"]
        got = set()
        for out in seen + after:
            for n in range(1, 41):
                if "round %d done" % n in out:
                    got.add(n)
        expect(got == set(range(1, 41)), "rounds lost: %r"
               % sorted(set(range(1, 41)) - got))
        h2.quit()


def tests(r, fake):
    r.run("150 rounds of 7 KB in a 30,000-token window, then a shutdown",
          test_150_rounds_in_a_30k_window, fake)
    r.run("a shutdown pending at compaction time is answered with its id",
          test_pending_request_is_restated, fake)
    r.run("compaction on the server", test_server_side_compaction, fake)
    r.run("Anthropic's prompt-too-long: compact, retry, learn the window",
          recovery, fake, "anthropic")
    r.run("OpenAI's context_length_exceeded: compact and retry",
          recovery, fake, "openai")
    r.run("a tool result over a tenth of the window is cut",
          test_oversized_result_is_cut, fake)
    r.run("/compact and /context", test_compact_and_context_on_demand, fake)
    r.run("kill -9 in the middle of a compaction, then --resume",
          test_crash_during_compaction, fake)


if __name__ == "__main__":
    r = Results()
    with FakeLLM() as fake:
        tests(r, fake)
    r.finish()
