#!/usr/bin/env python3
"""A model that refuses: Anthropic's stop_reason "refusal", and a
Responses message made of a refusal part. With --ask what the model said
reaches stdout, a sentence saying it refused reaches stderr, and the
status is 3 (never a silent 0). In a team the refusing agent stops on an
error that says so (an event, and the lead's notice), the refused turn
is not carried into its next request, and a message makes it try again.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fakellm_client import API_KEY, FakeLLM, Results, run_huddle  # noqa: E402
from team_driver import (Huddle, call, contains, ev, expect,  # noqa: E402
                         notes, say)

WORDS = "I can't help with that request."


def ask_env(fake, provider):
    if provider == "anthropic":
        return [], {"ANTHROPIC_API_KEY": API_KEY,
                    "ANTHROPIC_BASE_URL": fake.anthropic_url}
    return (["--provider", provider] +
            (["--model", "gpt-5.4"] if provider == "openai" else []),
            {"OPENAI_API_KEY": API_KEY, "OPENAI_BASE_URL": fake.openai_url})


def test_ask_says_it_refused(fake):
    for provider in ("anthropic", "openai", "openai-chat"):
        for stream in ([], ["--no-stream"]):
            fake.reset()
            fake.script({"kind": "text", "text": WORDS,
                         "stop_reason": "refusal"})
            args, env = ask_env(fake, provider)
            code, out, err, _, _ = run_huddle(
                args + stream + ["--ask", "something"], env)
            where = "%s%s" % (provider, " (whole)" if stream else "")
            expect(code == 3, "%s: status %d: %s" % (where, code, err))
            expect(WORDS in out, "%s: stdout %r" % (where, out))
            expect("refused" in err, "%s: stderr %r" % (where, err))


def test_team_agent_stops_on_a_refusal(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="bob", role="writer",
             prompt="Write the notes."),
        *notes("lead", 6),
        {"agent": "bob", "kind": "text", "text": WORDS,
         "stop_reason": "refusal"},
        say("bob", "Notes written."), *notes("bob", 4))
    with Huddle(fake) as h:
        h.send("go")
        err = h.wait(ev("error", "bob", message=contains("refused")),
                     timeout=30, what="bob's refusal")
        expect(WORDS in err["message"], err["message"])
        h.wait(lambda e: e.get("event") == "message" and
               e.get("from") == "bob" and "refused" in e.get("content", ""),
               timeout=30, what="the lead told of it")
        mark = len(fake.requests())
        h.send("/msg bob try again")
        h.wait_text("bob", "Notes written.", timeout=30)
        again = [r for r in fake.requests()[mark:]
                 if r["headers"].get("x-huddle-agent") == "bob"]
        expect(again, "bob was not asked again")
        expect(WORDS not in json.dumps(again[0]["body"]),
               "the refused turn went out again")
        h.quit()


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("--ask says the model refused, on every API",
              test_ask_says_it_refused, fake)
        r.run("a teammate stops on a refusal and tries again",
              test_team_agent_stops_on_a_refusal, fake)
    r.finish()


if __name__ == "__main__":
    main()
