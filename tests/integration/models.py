#!/usr/bin/env python3
"""Today's models, end to end: the real binary in --headless mode against
the fake LLM server speaking as today's models do (thinking on).

Covers the thinking round trip in tool loops with the requests of every
agent extending the one before, thinking kept out of what the lead hears,
a teammate on its own model, usage with its cache figures and price (kept
across --resume), the spending limit and /budget, a model with no price
refused under the limit unless --price gives one, and interrupting a
model call and a running command.
"""

import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "fakellm"))
from fakellm_client import API_KEY, FakeLLM, Results, run_huddle  # noqa: E402
import eventdoc  # noqa: E402
from team_driver import (Huddle, call, contains, ev, expect, notes,  # noqa: E402
                         say)
from today import strip_cache_marks  # noqa: E402

PRICES = {"input": 3.0, "output": 15.0, "cache_write_5m": 3.75,
          "cache_write_1h": 3.75, "cache_read": 0.3}
CHEAP = {"input": 1.0, "output": 5.0, "cache_write_5m": 1.25,
         "cache_write_1h": 1.25, "cache_read": 0.1}


def catalog_file():
    """A catalog of two adaptive models with known prices."""
    def model(mid, prices):
        return {"id": mid, "name": mid, "provider": "anthropic",
                "status": "current", "context_window": 200000,
                "max_output": 16000, "thinking": "adaptive",
                "sampling_params": False, "compaction": False,
                "cache_min_tokens": 1024, "prices": prices}
    path = os.path.join(tempfile.mkdtemp(prefix="huddle-catalog-"),
                        "models.json")
    with open(path, "w") as f:
        json.dump({"default_model": "test-main",
                   "models": [model("test-main", PRICES),
                              model("test-cheap", CHEAP)]}, f)
    return path


def leave(agent):
    return call(agent, "shutdown_response", request_id="{{request_id}}",
                approve=True)


def quit_cleanly(h):
    h.quit()
    wrong = eventdoc.problems(h.events)
    expect(not wrong, "events not as doc/headless.md says:\n" +
           "\n".join(wrong[:10]))


def flatten(messages):
    """The blocks of a conversation in order, each with its role: blocks
    that arrive later may join the last message, which still extends."""
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        out.extend((m["role"], json.dumps(b, sort_keys=True))
                   for b in strip_cache_marks(content))
    return out


def check_append_only(fake):
    """Each agent's every request extends the one before it: the same
    system prompt and tools, and the earlier blocks unchanged and in
    order. Returns the number of agents checked."""
    by_agent = {}
    for r in fake.requests():
        if r.get("agent") and isinstance(r.get("body"), dict):
            by_agent.setdefault(r["agent"], []).append(r["body"])
    for agent, bodies in by_agent.items():
        for n, (prev, cur) in enumerate(zip(bodies, bodies[1:]), 2):
            where = "%s's request %d" % (agent, n)
            expect(strip_cache_marks(prev.get("system")) ==
                   strip_cache_marks(cur.get("system")),
                   where + " changed the system prompt")
            expect(strip_cache_marks(prev.get("tools")) ==
                   strip_cache_marks(cur.get("tools")),
                   where + " changed the tools")
            a, b = flatten(prev["messages"]), flatten(cur["messages"])
            expect(b[:len(a)] == a, where + " does not extend the one before")
            expect(len(b) > len(a), where + " adds nothing")
    return len(by_agent)


def test_thinking_tool_loops(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder",
             prompt="Write a.txt, then check it."),
        *notes("lead"),
        call("alice", "write_file", path="a.txt", content="one\n"),
        call("alice", "bash", command="cat a.txt"),
        say("alice", "Written and checked.", thinking="SECRET-THOUGHT"),
        say("alice", "Nothing else."))
    with Huddle(fake) as h:
        h.send("go")
        h.wait(ev("thinking", "lead"), what="the lead's thinking")
        h.wait(ev("tool_result", "alice", tool="bash", is_error=False),
               what="alice's second round")
        idle = h.wait(ev("message", "lead", type="idle_notification"),
                      what="alice's idle notice")
        expect("Written and checked." in idle["content"], idle["content"])
        expect("SECRET-THOUGHT" not in idle["content"],
               "thinking reached the lead: " + idle["content"])
        expect(any(e.get("event") == "thinking" and e.get("agent") == "alice"
                   for e in h.events), "no thinking event for alice")
        # One more call of alice's carries every turn back (idle, she
        # stops for the quit without one).
        mark = len(h.events)
        h.send("/msg alice Anything else?")
        h.wait_text("alice", "Nothing else.", since=mark)
        quit_cleanly(h)
    refused = [r for r in fake.requests() if r["response_status"] != 200]
    expect(not refused, "requests refused: %s" % [
        (r.get("agent"), r["response_status"]) for r in refused])
    # Every assistant turn went back with its thinking first.
    alice = [r["body"] for r in fake.requests() if r.get("agent") == "alice"]
    last = alice[-1]["messages"]
    turns = [m for m in last if m["role"] == "assistant"]
    expect(len(turns) >= 3, "alice's history has %d turns" % len(turns))
    for m in turns:
        expect(m["content"][0]["type"] in ("thinking", "redacted_thinking"),
               "an assistant turn went back without its thinking: %s"
               % json.dumps(m)[:200])
    expect(check_append_only(fake) == 2, "not every agent was checked")


def usage_cost(u, prices):
    return (u["input_tokens"] * prices["input"] +
            u["output_tokens"] * prices["output"] +
            u["cache_write_tokens"] * prices["cache_write_5m"] +
            u["cache_read_tokens"] * prices["cache_read"]) / 1e6


def test_teammate_model_and_cost(fake):
    fake.reset()
    big = {"input_tokens": 1000, "output_tokens": 200,
           "cache_creation_input_tokens": 3000,
           "cache_read_input_tokens": 50000}
    fake.script(
        call("lead", "spawn_teammate", name="carol", role="coder",
             prompt="Say hi.", model="test-cheap; rm -rf /"),
        call("lead", "spawn_teammate", name="alice", role="coder",
             prompt="Say hi.", model="test-cheap"),
        call("lead", "spawn_teammate", name="bob", role="tester",
             prompt="Say hi.", model="mystery-model-9"),
        *notes("lead"),
        say("alice", "Hi.", usage=big),
        say("bob", "Hi."),
        leave("bob"),
        say("alice", "Back again."),
        leave("alice"))
    cat = catalog_file()
    work = tempfile.mkdtemp(prefix="huddle-team-")
    with Huddle(fake, workdir=work, args=["--catalog", cat]) as h:
        h.send("go")
        bad = h.wait(ev("tool_result", "lead", tool="spawn_teammate"),
                     what="a spawn with a bad model id")
        expect(bad["is_error"] and "model id" in bad["output"], bad)
        spawned = h.wait(ev("spawned", "alice"), what="alice spawned")
        expect(spawned.get("model") == "test-cheap", spawned)
        res = h.wait(ev("tool_result", "lead", tool="spawn_teammate",
                        output=contains("bob")), what="bob spawned")
        expect("not in the model catalog" in res["output"], res["output"])
        h.wait(ev("notice", "bob", message=contains("not in the model catalog")),
               what="the notice about bob's model")
        usage = h.wait(ev("usage", "alice"), what="alice's usage")
        for k in ("input_tokens", "output_tokens", "cache_write_tokens",
                  "cache_read_tokens", "cost_usd", "team_cost_usd"):
            expect(k in usage, "usage without %s: %s" % (k, usage))
        expect(usage["cache_read_tokens"] == 50000 and
               usage["cache_write_tokens"] == 3000, usage)
        expect(abs(usage["cost_usd"] - usage_cost(usage, CHEAP)) < 1e-9,
               "alice's cost %r is not her tokens at her prices" % usage)
        expect(usage["model"] == "test-cheap", usage)
        h.wait(ev("status", "bob", status="idle"), what="bob idle")
        mark = len(h.events)
        h.send("/team")
        team = h.wait(ev("team"), since=mark, what="the team listing")
        members = {m["name"]: m for m in team["members"]}
        expect(members["alice"]["model"] == "test-cheap", members["alice"])
        expect(members["bob"]["model"] == "mystery-model-9", members["bob"])
        expect(members["lead"]["model"] == "test-main", members["lead"])
        total = sum(m["cost_usd"] for m in team["members"])
        expect(abs(team["team_cost_usd"] - total) < 1e-9, team)
        expect(members["alice"]["cost_usd"] > 0 and
               members["lead"]["cost_usd"] > 0, team)
        h.kill9()  # so that the teammates are still there to resume
    by_agent = {}
    for r in fake.requests():
        by_agent.setdefault(r.get("agent"), set()).add(r["body"]["model"])
    expect(by_agent["alice"] == {"test-cheap"}, by_agent)
    expect(by_agent["lead"] == {"test-main"}, by_agent)
    expect(by_agent["bob"] == {"mystery-model-9"}, by_agent)

    # --resume continues the sums, and alice keeps her model.
    with Huddle(fake, workdir=work, args=["--catalog", cat],
                resume=True) as h:
        # Relaunched, alice is told with her model, as when spawned.
        back = h.wait(ev("spawned", "alice"), what="alice relaunched")
        expect(back.get("resumed") is True and
               back.get("model") == "test-cheap", back)
        mark = len(h.events)
        h.send("/team")
        again = h.wait(ev("team"), since=mark, what="the team after resume")
        before = {m["name"]: m for m in team["members"]}
        for m in again["members"]:
            expect(m["cost_usd"] >= before[m["name"]]["cost_usd"] - 1e-9 and
                   m["cache_read_tokens"] >= before[m["name"]]["cache_read_tokens"],
                   "the sums restarted: %s" % m)
        h.send("/msg alice once more")
        h.wait_text("alice", "Back again.")
        quit_cleanly(h)
    alice = [r for r in fake.requests() if r.get("agent") == "alice"]
    expect(alice[-1]["body"]["model"] == "test-cheap",
           "after --resume alice talks to %s" % alice[-1]["body"]["model"])


def test_budget_stops_new_calls(fake):
    fake.reset()
    usage = {"input_tokens": 100000, "output_tokens": 1000}
    first = call("lead", "list_teammates")
    first["usage"] = usage
    fake.script(first, say("lead", "All done."))
    cat = catalog_file()
    with Huddle(fake, args=["--catalog", cat, "--max-cost", "0.10"]) as h:
        h.send("go")
        # 100k input at $3/M and 1k output at $15/M: $0.315 > $0.10.
        b = h.wait(ev("budget", "lead"), what="the limit reached")
        expect(b["max_cost_usd"] == 0.10 and b["team_cost_usd"] > 0.3, b)
        h.wait(ev("status", "lead", status="waiting"), what="the lead waits")
        calls = len([r for r in fake.requests() if r.get("agent") == "lead"])
        time.sleep(0.5)  # a wrongly started call would show by now
        expect(len([r for r in fake.requests() if r.get("agent") == "lead"])
               == calls, "a model call started past the limit")
        mark = len(h.events)
        h.send("/budget")
        reply = h.wait(ev("reply", command="budget"), since=mark,
                       what="the budget shown")
        expect("$0.10" in reply["message"], reply)
        # An agent waiting on the limit can be interrupted like any other.
        h.send("/interrupt lead")
        h.wait(ev("notice", "lead", message="interrupted"), since=mark,
               what="the waiting lead interrupted")
        h.send("/budget 5")
        h.send("go on")
        h.wait_text("lead", "All done.")
        quit_cleanly(h)


def test_unpriced_model_needs_a_price(fake):
    """--max-cost cannot count a model with no price: huddle refuses to
    start, in a sentence that says how to give one; with --price it starts,
    says what it assumes of the model, and bills its tokens at that price;
    a teammate spawned on a model with no price is refused while a limit
    is set."""
    fake.reset()
    cat = catalog_file()
    env = {"ANTHROPIC_API_KEY": API_KEY,
           "ANTHROPIC_BASE_URL": fake.anthropic_url}
    work = tempfile.mkdtemp(prefix="huddle-team-")
    status, out, err, _, _ = run_huddle(
        ["--headless", "--workdir", work, "--catalog", cat, "--model",
         "mystery-model-9", "--max-cost", "1"], env=env, timeout=20)
    expect(status == 2 and "mystery-model-9 has no price" in err and
           "--price IN/OUT" in err, "status %d: %r" % (status, err))
    expect(out == "" and not fake.requests(), "it started anyway: %r" % out)

    usage = {"input_tokens": 100000, "output_tokens": 1000}
    fake.script(say("lead", "Priced.", usage=usage))
    with Huddle(fake, args=["--catalog", cat, "--model", "mystery-model-9",
                            "--max-cost", "5", "--price", "3/15"]) as h:
        note = h.wait(ev("notice", message=contains("not in the model "
                                                    "catalog")),
                      what="what huddle assumes of the model")
        expect("prices it at $3 and $15" in note["message"], note)
        h.send("go")
        used = h.wait(ev("usage", "lead"), what="the lead's usage")
        # Every input token, cached or not, at $3/M; output at $15/M.
        given = {"input": 3, "output": 15, "cache_write_5m": 3,
                 "cache_read": 3}
        expect(used["input_tokens"] == 100000 and
               abs(used["cost_usd"] - usage_cost(used, given)) < 1e-9,
               used)
        quit_cleanly(h)
    expect("not in the model catalog" in h.stderr.decode(),
           "no notice at start: %r" % h.stderr)

    fake.reset()
    fake.script(call("lead", "spawn_teammate", name="bob", role="tester",
                     prompt="Say hi.", model="mystery-model-9"),
                say("lead", "Bob could not start."))
    with Huddle(fake, args=["--catalog", cat, "--max-cost", "5"]) as h:
        h.send("go")
        res = h.wait(ev("tool_result", "lead", tool="spawn_teammate"),
                     what="the spawn refused")
        expect(res["is_error"] and "no price" in res["output"], res)
        h.wait_text("lead", "Bob could not start.")
        quit_cleanly(h)


def test_interrupt_a_model_call(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder",
             prompt="Think hard."),
        *notes("lead"),
        say("alice", "never seen", delay_ms=30000),
        say("alice", "Back to work."),
        leave("alice"))
    with Huddle(fake) as h:
        h.send("go")
        h.wait(ev("llm_call", "alice"), what="alice calls her model")
        h.wait(ev("status", "alice", status="working"), what="alice works")
        time.sleep(0.2)  # the request is on its way to the fake
        mark = len(h.events)
        sent = time.monotonic()
        h.send("/interrupt alice")
        h.wait(ev("notice", "alice", message="interrupted"), since=mark,
               what="the interrupt")
        took = time.monotonic() - sent
        print("  the model call was interrupted in %.0f ms" % (took * 1000))
        expect(took < 0.5, "the interrupt took %.3f s" % took)
        h.wait(ev("status", "alice", status="idle"), since=mark,
               what="alice idle")
        mark = len(h.events)
        h.send("/interrupt alice")
        err = h.wait(ev("error", command="interrupt"), since=mark,
                     what="a second interrupt refused")
        expect("not working" in err["message"], err)
        h.send("/msg alice go on")
        h.wait_text("alice", "Back to work.", since=mark)
        quit_cleanly(h)
    alice = [r for r in fake.requests() if r.get("agent") == "alice"]
    expect(all(r["response_status"] == 200 for r in alice[1:]),
           "alice's requests after the interrupt: %s"
           % [r["response_status"] for r in alice])
    expect("interrupted your turn" in json.dumps(alice[1]["body"]["messages"]),
           "the model was not told")


def test_interrupt_a_running_command(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder",
             prompt="Wait."),
        *notes("lead"),
        {"agent": "alice", "kind": "tool_use",
         "calls": [{"name": "bash", "input": {"command": "sleep 30"}},
                   {"name": "write_file",
                    "input": {"path": "late.txt", "content": "x"}}]},
        say("alice", "Stopped as asked."),
        leave("alice"))
    with Huddle(fake) as h:
        h.send("go")
        h.wait(ev("tool_call", "alice", tool="bash"), what="sleep runs")
        mark = len(h.events)
        sent = time.monotonic()
        h.send("/interrupt alice")
        res = h.wait(ev("tool_result", "alice", tool="bash"), since=mark,
                     what="the command's result")
        took = time.monotonic() - sent
        print("  the command was interrupted in %.0f ms" % (took * 1000))
        expect(res["is_error"], res)
        expect(took < 0.5, "the command ran on for %.3f s" % took)
        skipped = h.wait(ev("tool_result", "alice", tool="write_file"),
                         since=mark, what="the second call's result")
        expect(skipped["is_error"] and "interrupted" in skipped["output"],
               skipped)
        expect(not os.path.exists(os.path.join(h.workdir, "late.txt")),
               "a call after the interrupt ran")
        h.wait(ev("status", "alice", status="idle"), since=mark,
               what="alice idle")
        h.send("/msg alice carry on")
        h.wait_text("alice", "Stopped as asked.", since=mark)
        quit_cleanly(h)
    refused = [r for r in fake.requests() if r["response_status"] != 200]
    expect(not refused, "requests refused after the interrupt")


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("thinking goes back in tool loops; requests only grow",
              test_thinking_tool_loops, fake)
        r.run("a teammate on its own model; usage, cost and --resume",
              test_teammate_model_and_cost, fake)
        r.run("--max-cost stops new calls; /budget raises it",
              test_budget_stops_new_calls, fake)
        r.run("--max-cost refuses a model with no price; --price gives one",
              test_unpriced_model_needs_a_price, fake)
        r.run("Esc-style interrupt of a model call", test_interrupt_a_model_call,
              fake)
        r.run("interrupt of a running command", test_interrupt_a_running_command,
              fake)
    r.finish()


if __name__ == "__main__":
    main()
