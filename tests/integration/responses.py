#!/usr/bin/env python3
"""OpenAI's own API: --provider openai speaks the Responses API, stateless.

The real binary against the fake server: the request's shape (store false,
encrypted reasoning asked for of a model that reasons and of no other,
function tools not strict, max_output_tokens, reasoning summary,
instructions, flat function tools), reasoning items sent back unchanged in
a tool loop and after --resume (the fake refuses a function call without
its reasoning item, and altered encrypted content), the summary shown as
thinking, cached tokens counted, --thinking off as effort none (or refused
before any request where the model always reasons), and chat completions
(--provider openai-chat) sending max_completion_tokens to a reasoning
model, which refuses max_tokens.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fakellm_client import (API_KEY, TOP_SRCDIR, FakeLLM, Results,  # noqa: E402
                            conversation, run_huddle)
from team_driver import Huddle, call, ev, expect, notes, say  # noqa: E402

MODEL = "gpt-5.4"


def openai_env(fake):
    return {"OPENAI_API_KEY": API_KEY, "OPENAI_BASE_URL": fake.openai_url}


def start(fake, workdir=None, resume=False, model=MODEL):
    return Huddle(fake, workdir=workdir, resume=resume, env=openai_env(fake),
                  args=["--provider", "openai", "--model", model])


def lead_requests(fake):
    return [r for r in fake.requests()
            if r["headers"].get("x-huddle-agent") == "lead"]


def items_of(body, kind):
    return [i for i in conversation(body) if isinstance(i, dict)
            and i.get("type") == kind]


def test_tool_loop(fake, state):
    fake.reset()
    fake.script(
        dict(call("lead", "write_file", path="a.txt", content="a\n"),
             text="Writing a.txt now."),
        say("lead", "Wrote it."), *notes("lead"))
    with start(fake) as h:
        state["workdir"] = h.workdir
        h.send("write a.txt")
        h.wait(ev("tool_result", "lead", tool="write_file", is_error=False),
               what="the lead's write")
        h.wait_text("lead", "Wrote it.")
        thinking = "".join(e.get("text", "") for e in h.events
                           if e.get("event") == "thinking")
        expect("deciding what to do next" in thinking,
               "the reasoning summary was not shown as thinking: %r"
               % thinking)
        h.wait_text("lead", "Writing a.txt now.")
        reqs = lead_requests(fake)
        expect(len(reqs) >= 2, "%d requests" % len(reqs))
        for r in reqs:
            expect(r["path"] == "/v1/responses", "sent to %s" % r["path"])
            expect(r["response_status"] == 200, "refused: status %s, %s"
                   % (r["response_status"], json.dumps(r["body"])[:300]))
        first, second = reqs[0]["body"], reqs[1]["body"]
        expect(first.get("store") is False, "store is %r" % first.get("store"))
        expect("reasoning.encrypted_content" in first.get("include", []),
               "include is %r" % first.get("include"))
        expect(isinstance(first.get("max_output_tokens"), int) and
               first["max_output_tokens"] >= 16,
               "max_output_tokens is %r" % first.get("max_output_tokens"))
        for key in ("max_tokens", "messages", "max_completion_tokens"):
            expect(key not in first, "the request has %s" % key)
        expect((first.get("reasoning") or {}).get("summary") == "auto",
               "reasoning is %r" % first.get("reasoning"))
        expect(isinstance(first.get("instructions"), str) and
               first["instructions"], "no instructions")
        tools = first.get("tools") or []
        expect(tools and all(t.get("type") == "function" and t.get("name")
                             and "function" not in t for t in tools),
               "tools are not Responses function tools: %r" % tools[:1])
        # The reply's reasoning item comes back whole, before its call.
        reasoning = items_of(second, "reasoning")
        expect(reasoning and reasoning[0].get("encrypted_content"),
               "no reasoning item came back: %r" % conversation(second))
        order = [i.get("type") for i in conversation(second)]
        at = order.index("reasoning")
        expect(order[at + 1:at + 3] == ["message", "function_call"] and
               order[at + 3] == "function_call_output",
               "items out of order: %r" % order)
        calls = items_of(second, "function_call")
        expect(calls[0].get("id", "").startswith("fc_") and
               calls[0].get("call_id"), "the call lost its ids: %r" % calls)
        # Cached tokens are read from usage and counted.
        h.wait(lambda e: e.get("event") == "usage" and
               e.get("agent") == "lead" and
               e.get("cache_read_tokens", 0) > 0,
               what="cached tokens in the lead's usage")
        h.quit()


def test_resume_keeps_reasoning(fake, state):
    fake.reset()
    fake.script(say("lead", "Still here."), *notes("lead"))
    with start(fake, workdir=state["workdir"], resume=True) as h:
        h.send("are you there?")
        h.wait_text("lead", "Still here.")
        body = lead_requests(fake)[0]["body"]
        expect(lead_requests(fake)[0]["response_status"] == 200,
               "the resumed request was refused")
        expect(len(items_of(body, "reasoning")) >= 2,
               "the earlier reasoning items did not survive the resume: %r"
               % [i.get("type") for i in conversation(body)])
        h.quit()


def ask(fake, args, text="hello"):
    return run_huddle(args + ["--ask", text], env=openai_env(fake))


def test_thinking_off(fake, state):
    fake.reset()
    fake.script({"text": "Quick."})
    status, out, err, _, _ = ask(fake, ["--provider", "openai", "--model",
                                        MODEL, "--thinking", "off"])
    expect(status == 0 and "Quick." in out, "status %d: %s" % (status, err))
    body = fake.requests()[-1]["body"]
    expect((body.get("reasoning") or {}).get("effort") == "none",
           "reasoning is %r" % body.get("reasoning"))
    fake.reset()
    status, out, err, _, _ = ask(fake, ["--provider", "openai", "--model",
                                        "gpt-6.2-sol", "--thinking", "off"])
    expect(status != 0 and "gpt-6.2-sol" in err,
           "status %d: %s" % (status, err))
    expect(fake.requests() == [], "a request went out")


def test_whole_reply(fake, state):
    fake.reset()
    fake.script({"text": "Whole."})
    status, out, err, _, _ = ask(fake, ["--provider", "openai", "--model",
                                        MODEL, "--no-stream"])
    expect(status == 0 and "Whole." in out, "status %d: %s" % (status, err))
    expect(fake.requests()[-1]["body"].get("stream") is False,
           "it streamed")


def test_default_model_is_current(fake, state):
    fake.reset()
    fake.script({"text": "Hi."})
    status, out, err, _, _ = ask(fake, ["--provider", "openai"])
    expect(status == 0, "status %d: %s" % (status, err))
    model = fake.requests()[-1]["body"]["model"]
    with open(os.path.join(TOP_SRCDIR, "data", "models.json")) as f:
        catalog = {m["id"]: m for m in json.load(f)["models"]}
    expect(model in catalog and catalog[model]["provider"] == "openai" and
           catalog[model]["status"] == "current",
           "the default OpenAI model %s is not a current catalog model"
           % model)


def test_models_that_do_not_reason(fake, state):
    """gpt-4.1 and a chat snapshot do not reason: asked for encrypted
    reasoning they refuse every call, so none is asked for, and a team
    with tools works (each tool said to be not strict)."""
    for model in ("gpt-4.1", "gpt-5-chat-latest"):
        fake.reset()
        fake.script(dict(call("lead", "write_file", path="b.txt",
                              content="b\n")),
                    say("lead", "Done."), *notes("lead"))
        with start(fake, model=model) as h:
            h.send("write b.txt")
            h.wait(ev("tool_result", "lead", tool="write_file",
                      is_error=False), what="%s's write" % model)
            h.wait_text("lead", "Done.")
            for r in lead_requests(fake):
                expect(r["response_status"] == 200, "%s refused: %s" % (
                    model, r.get("response_body", "")))
                expect("include" not in r["body"] and "reasoning" not in
                       r["body"], "%s was asked to reason: %r" % (
                           model, {k: r["body"].get(k) for k in (
                               "include", "reasoning")}))
                tools = r["body"].get("tools") or []
                expect(tools and all(t.get("strict") is False
                                     for t in tools),
                       "tools without strict: false: %r" % tools[:1])
            h.quit()


def test_chat_completions_reasoning_model(fake, state):
    fake.reset()
    fake.script({"text": "Chat."}, {"text": "Local."})
    status, out, err, _, _ = ask(fake, ["--provider", "openai-chat",
                                        "--model", MODEL])
    expect(status == 0 and "Chat." in out, "status %d: %s" % (status, err))
    r = fake.requests()[-1]
    expect(r["path"] == "/v1/chat/completions", "sent to %s" % r["path"])
    expect("max_completion_tokens" in r["body"] and
           "max_tokens" not in r["body"], "limits: %r" %
           {k: v for k, v in r["body"].items() if k.startswith("max")})
    # A local model keeps max_tokens, which every compatible server reads.
    status, out, err, _, _ = ask(fake, ["--provider", "openai-chat",
                                        "--model", "llama3.3"])
    expect(status == 0 and "Local." in out, "status %d: %s" % (status, err))
    expect("max_tokens" in fake.requests()[-1]["body"], "no max_tokens")


def main():
    r = Results()
    state = {}
    with FakeLLM() as fake:
        r.run("a tool loop on the Responses API passes reasoning back",
              test_tool_loop, fake, state)
        if "workdir" in state:
            r.run("reasoning items survive --resume",
                  test_resume_keeps_reasoning, fake, state)
        r.run("--thinking off is effort none, or refused before a request",
              test_thinking_off, fake, state)
        r.run("a whole (unstreamed) reply", test_whole_reply, fake, state)
        r.run("the default OpenAI model is a current one",
              test_default_model_is_current, fake, state)
        r.run("models that do not reason are asked for no reasoning",
              test_models_that_do_not_reason, fake, state)
        r.run("chat completions sends max_completion_tokens to a reasoning "
              "model", test_chat_completions_reasoning_model, fake, state)
    r.finish()


if __name__ == "__main__":
    main()
