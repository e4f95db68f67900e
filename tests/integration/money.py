#!/usr/bin/env python3
"""Money to the cent, on every API: a scripted team session (the lead
spawns alice, who calls tools over a few turns; on Anthropic the server
also compacts the lead's conversation, a step billed with its own cache
reads and writes) is billed by hand from the usage each reply carried
(the fake records it as `billed`) and the catalog's prices in
data/models.json, and the sum must equal what huddle says: the last
usage event's `team_cost_usd` and `/budget`'s figure.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fakellm_client import (API_KEY, SLOW, TOP_SRCDIR, FakeLLM,  # noqa: E402
                            Results)
from team_driver import Huddle, call, ev, expect, notes, say  # noqa: E402


def catalog():
    with open(os.path.join(TOP_SRCDIR, "data", "models.json")) as f:
        return {m["id"]: m for m in json.load(f)["models"]}


def rates(model, prompt):
    """The rates of a call whose prompt was `prompt` tokens."""
    if model.get("prices_above") and prompt > model["prices_above"]:
        return model["prices_long"]
    return model["prices"]


def anthropic_cost(model, u):
    split = u.get("cache_creation") or {}
    written = u.get("cache_creation_input_tokens", 0)
    w1 = split.get("ephemeral_1h_input_tokens", 0)
    w5 = written - w1 if split else written
    r = rates(model, u["input_tokens"] + u.get("cache_read_input_tokens", 0)
              + written)
    cost = (u["input_tokens"] * r["input"] + u["output_tokens"] * r["output"]
            + w5 * r["cache_write_5m"] + w1 * r["cache_write_1h"]
            + u.get("cache_read_input_tokens", 0) * r["cache_read"])
    # The compaction step: billed like a call, in its own band.
    for it in u.get("iterations") or []:
        if it.get("type") != "compaction":
            continue
        read = it.get("cache_read_input_tokens", 0)
        wrote = it.get("cache_creation_input_tokens", 0)
        cr = rates(model, it["input_tokens"] + read + wrote)
        cost += (it["input_tokens"] * cr["input"] + it["output_tokens"] *
                 cr["output"] + read * cr["cache_read"] + wrote *
                 cr["cache_write_5m"])
    return cost


def openai_cost(model, u, inp, out, details):
    cached = (u.get(details) or {}).get("cached_tokens", 0)
    r = rates(model, u[inp])
    return ((u[inp] - cached) * r["input"] + cached * r["cache_read"] +
            u[out] * r["output"])


def billed_by_hand(fake, models):
    total, calls, compacted = 0.0, 0, False
    for r in fake.requests():
        u = r.get("billed")
        if u is None:
            continue
        model = models[r["body"]["model"]]
        if r["path"].endswith("/messages"):
            total += anthropic_cost(model, u)
            compacted |= any(i.get("type") == "compaction" and
                             i.get("cache_read_input_tokens", 0) > 0
                             for i in u.get("iterations") or [])
        elif r["path"].endswith("/responses"):
            total += openai_cost(model, u, "input_tokens", "output_tokens",
                                 "input_tokens_details")
        else:
            total += openai_cost(model, u, "prompt_tokens",
                                 "completion_tokens", "prompt_tokens_details")
        calls += 1
    return total / 1e6, calls, compacted


def session(fake, env, args, compaction):
    fake.reset()
    work = [call("alice", "write_file", path="a%d.txt" % i,
                 content="line %d\n" % i * 40) for i in range(3)]
    lead = [{"agent": "lead", "kind": "rounds", "rounds": 12,
             "bytes": 30000, "round_tool": "write_file"}] if compaction \
        else []
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder",
             prompt="Write three files."),
        *lead, say("lead", "Alice is on it."), *notes("lead"),
        *work, say("alice", "Wrote them."), *notes("alice"))
    extra = ["--max-rounds", "1000", "--context-window", "80000"] \
        if compaction else []
    with Huddle(fake, env=env, args=list(args) + extra) as h:
        h.send("Run the numbered rounds, one write each, until all 12 are "
               "done." if compaction else "go")
        h.wait_text("alice", "Wrote them.", timeout=60 * SLOW)
        if compaction:
            h.wait_text("lead", "All 12 rounds are done", timeout=60 * SLOW)
            expect([e for e in h.events if e["event"] == "compaction" and
                    e.get("kind") == "server"], "the server did not compact")
        note = h.wait(ev("message", type="idle_notification",
                         **{"from": "alice"}), timeout=30 * SLOW,
                      what="alice idle")
        # Quiet: the lead has answered alice's notice too, and every
        # reply is in.
        h.wait(ev("status", "lead", status="idle"),
               since=h.events.index(note), timeout=30 * SLOW,
               what="the lead idle")
        mark = len(h.events)
        h.send("/budget")
        said = h.wait(ev("reply", command="budget"), since=mark,
                      what="/budget")["message"]
        usage = [e for e in h.events if e["event"] == "usage"]
        by_hand = billed_by_hand(fake, catalog())
        h.quit()
    return usage, said, by_hand


def check(fake, env, args, compaction=False):
    usage, said, (total, calls, compacted) = session(fake, env, args,
                                                    compaction)
    expect(calls > 4 and total > 0, "%d calls billed $%f" % (calls, total))
    if compaction:
        expect(compacted, "no compaction step read the cache")
    told = usage[-1]["team_cost_usd"]
    expect(abs(told - total) < 1e-9,
           "huddle says $%.9f, the replies' usage comes to $%.9f" %
           (told, total))
    expect("$%.2f" % total in said, "/budget says %r, by hand $%.2f" %
           (said, total))


def test_anthropic(fake):
    check(fake, {"ANTHROPIC_API_KEY": API_KEY,
                 "ANTHROPIC_BASE_URL": fake.anthropic_url}, [],
          compaction=True)


def openai_env(fake):
    return {"OPENAI_API_KEY": API_KEY, "OPENAI_BASE_URL": fake.openai_url}


def test_responses(fake):
    check(fake, openai_env(fake), ["--provider", "openai", "--model",
                                   "gpt-5.4"])


def test_chat(fake):
    check(fake, openai_env(fake), ["--provider", "openai-chat", "--model",
                                   "gpt-5.4"])


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("Anthropic, with a compaction on the server: to the cent",
              test_anthropic, fake)
        r.run("OpenAI Responses: to the cent", test_responses, fake)
        r.run("chat completions: to the cent", test_chat, fake)
    r.finish()


if __name__ == "__main__":
    main()
