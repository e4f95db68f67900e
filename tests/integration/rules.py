#!/usr/bin/env python3
"""Each model's rules, end to end: the real binary against the fake
server, which applies the published per-model rules (tests/fakellm/
rules.py) and answers as today's models do: thinking text omitted unless
asked for, and on the newest models the words written between tool
calls inside thinking blocks.

Covers: on the default model a teammate's words between its tool calls
reach its pane, and its thinking shows (summarised); --thinking-display
omitted asks for no summary; --thinking off works, or is refused before
any request, on every catalog model; a budget is refused before any
request where the model takes none; a compaction whose reply is a tool
call is not taken as the summary.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "fakellm"))
from fakellm_client import (API_KEY, TOP_SRCDIR, FakeLLM, Results,  # noqa: E402
                            run_huddle)
from team_driver import Huddle, call, contains, ev, expect, notes, say  # noqa: E402
import rules  # noqa: E402


def catalog_models():
    with open(os.path.join(TOP_SRCDIR, "data", "models.json")) as f:
        doc = json.load(f)
    return doc["default_model"], [m["id"] for m in doc["models"]
                                  if m.get("provider", "anthropic") ==
                                  "anthropic"]


def texts(h, agent):
    return "".join(e.get("text", "") for e in h.events
                   if e.get("event") == "text" and e.get("agent") == agent)


def thoughts(h, agent):
    return "".join(e.get("text", "") for e in h.events
                   if e.get("event") == "thinking" and e.get("agent") == agent)


def team_with_words(fake):
    fake.reset()
    step = call("alice", "write_file", path="a.txt", content="a\n")
    step["text"] = "First I write a.txt."
    step["thinking"] = "The file comes first; then the check."
    step2 = call("alice", "read_file", path="a.txt")
    step2["text"] = "Now I read it back to check."
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder",
             prompt="Write a.txt and check it."),
        say("lead", "Alice is on it."), *notes("lead"),
        step, step2, say("alice", "a.txt is written and checked."))


def test_words_between_tool_calls(fake):
    default, _ = catalog_models()
    team_with_words(fake)
    with Huddle(fake) as h:
        h.send("go")
        h.wait(ev("status", "alice", status="idle"), timeout=30,
               what="alice idle")
        said = texts(h, "alice")
        for words in ("First I write a.txt.", "Now I read it back to check.",
                      "a.txt is written and checked."):
            expect(words in said, "alice's pane lacks %r; it shows %r"
                   % (words, said))
        expect("The file comes first" in thoughts(h, "alice"),
               "alice's thinking does not show: %r" % thoughts(h, "alice"))
        h.send("/quit")
        h.wait_exit()
    sent = [r["body"] for r in fake.requests() if r.get("agent") == "alice"]
    expect(sent and all(b.get("model") == default for b in sent),
           "alice was not on the default model")
    refused = [r for r in fake.requests() if r["response_status"] == 400]
    expect(not refused, "requests were refused: %r" % [
        r.get("body", {}).get("thinking") for r in refused][:2])


def test_display_omitted(fake):
    team_with_words(fake)
    with Huddle(fake, args=["--thinking-display", "omitted"]) as h:
        h.send("go")
        h.wait(ev("status", "alice", status="idle"), timeout=30,
               what="alice idle")
        expect("a.txt is written and checked." in texts(h, "alice"),
               "alice's last words are missing")
        h.send("/quit")
        h.wait_exit()
    for r in fake.requests():
        thinking = r["body"].get("thinking") or {}
        expect(thinking.get("display") in (None, "omitted"),
               "summaries were asked for: %r" % thinking)


def ask(fake, *extra):
    env = {"ANTHROPIC_API_KEY": API_KEY,
           "ANTHROPIC_BASE_URL": fake.anthropic_url}
    return run_huddle(["--ask", "Say hello"] + list(extra), env)


def test_thinking_off_every_model(fake):
    _, models = catalog_models()
    for model in models:
        fake.reset()
        fake.script({"kind": "text", "text": "Hello."})
        code, out, err, _, _ = ask(fake, "--model", model, "--thinking",
                                   "off")
        sent = fake.requests()
        known = rules.rules_for(model)
        if known is not None and known["off"] is None:
            expect(code != 0 and not sent,
                   "%s: --thinking off was not refused before any "
                   "request (exit %d, %d requests)" % (model, code, len(sent)))
            expect("always thinks" in err, "%s: no clear sentence: %r"
                   % (model, err))
            continue
        expect(code == 0 and "Hello." in out,
               "%s: --thinking off failed: exit %d, %r %r; sent %r" % (
                   model, code, out, err,
                   [r["body"].get("thinking") for r in sent]))
        expect(all(r["response_status"] == 200 for r in sent),
               "%s: a request was refused" % model)
        thinking = sent[0]["body"].get("thinking") or {}
        expect(thinking.get("type") in (None, "disabled", "between_tools"),
               "%s: thinking was not turned off: %r" % (model, thinking))


def test_budget_refused_before_request(fake):
    _, models = catalog_models()
    for model in models:
        known = rules.rules_for(model)
        if known is None or known["budget"]:
            continue
        fake.reset()
        code, out, err, _, _ = ask(fake, "--model", model, "--thinking",
                                   "4096")
        expect(code != 0 and not fake.requests(),
               "%s: a budget was sent to a model that takes none" % model)


def test_compaction_answered_with_a_tool_call(fake):
    fake.reset()
    round12 = call("lead", "bash", command="echo 13")
    round12["text"] = "Round 12."
    again = call("lead", "bash", command="echo 14")
    again["text"] = "Round 13."
    fake.script(say("lead", "Hello, ready."), round12, again,
                say("lead", "Still here."))
    # A model that answers with a text block beside its call.
    with Huddle(fake, args=["--model", "claude-haiku-5-5"]) as h:
        h.send("hi")
        h.wait_text("lead", "Hello, ready.", timeout=20)
        h.wait(ev("status", "lead", status="idle"), what="lead idle")
        mark = len(h.events)
        h.send("/compact")
        h.wait(ev("notice", "lead", message=contains("summary")),
               since=mark, timeout=20, what="the person told")
        expect(not [e for e in h.events[mark:] if e["event"] == "compaction"],
               "a tool call's text was kept as the summary")
        h.send("how are you?")
        h.wait_text("lead", "Still here.", since=mark, timeout=20)
        h.send("/quit")
        h.wait_exit()
    asks = [r["body"] for r in fake.requests()
            if "for your own continuation" in json.dumps(r["body"])]
    expect(len(asks) == 2, "the summary was asked for %d times, not twice"
           % len(asks))
    for body in asks:
        expect(body.get("tool_choice") == {"type": "none"},
               "the summary request does not forbid tools: %r"
               % body.get("tool_choice"))
    last = fake.requests()[-1]["body"]
    expect("Round 12." not in json.dumps(last["messages"][-1]),
           "the tool call's text reached the conversation as a summary")


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("the default model: words between tool calls and thinking "
              "show", test_words_between_tool_calls, fake)
        r.run("--thinking-display omitted", test_display_omitted, fake)
        r.run("--thinking off on every catalog model",
              test_thinking_off_every_model, fake)
        r.run("a budget is refused before any request",
              test_budget_refused_before_request, fake)
        r.run("a compaction answered with a tool call",
              test_compaction_answered_with_a_tool_call, fake)
    r.finish()


if __name__ == "__main__":
    main()
