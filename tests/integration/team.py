#!/usr/bin/env python3
"""The team, end to end: the real binary in --headless mode, real HTTP to
the fake LLM server, each agent scripted through its own queue.

Covers the seed scenario (spawn, a write, a plan gated until approved, a
shutdown handshake), plan review by the lead, rejection and resubmission,
a refused shutdown, an expired one ended by force, messages that arrive
while a teammate goes idle, permission for risky commands, kill -9 in the
middle of a turn followed by --resume (what the lead waits for survives
it), and a failed model call the lead's model is told about.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import FakeLLM, Results, conversation, wait_for  # noqa: E402
import eventdoc  # noqa: E402
from team_driver import Huddle, call, contains, ev, expect, notes, say  # noqa: E402


def requests_of(fake, agent):
    return [r for r in fake.requests() if r.get("agent") == agent
            or r["headers"].get("x-huddle-agent") == agent]


def quit_cleanly(h):
    h.send("/quit")
    status = h.wait_exit()
    expect(status == 0, "exit status %s; stderr %s" % (status, h.stderr))
    expect(any(e["event"] == "exit" for e in h.events), "no exit event")
    wrong = eventdoc.problems(h.events)
    expect(not wrong, "events not as doc/headless.md says:\n" +
           "\n".join(wrong[:10]))


def test_seed_scenario(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder",
             prompt="Write hello.txt saying hi."),
        call("lead", "spawn_teammate", name="bob", role="refactorer",
             prompt="Refactor the code.", plan_required=True),
        say("lead", "Both are on it."), *notes("lead"),
        call("alice", "write_file", path="hello.txt", content="hi\n"),
        say("alice", "Wrote hello.txt."),
        call("alice", "shutdown_response", request_id="{{request_id}}",
             approve=True, reason="all done"),
        call("bob", "write_file", path="refactored.txt", content="early"),
        call("bob", "submit_plan", plan="1. rename foo to bar"),
        call("bob", "write_file", path="refactored.txt", content="bar\n"),
        say("bob", "Refactor done."),
        call("bob", "shutdown_response", request_id="{{request_id}}", approve=True))
    with Huddle(fake) as h:
        h.send("go")
        h.wait(ev("tool_result", "alice", tool="write_file", is_error=False),
               what="alice's write")
        expect(open(os.path.join(h.workdir, "hello.txt")).read() == "hi\n",
               "hello.txt is wrong")
        h.wait(ev("status", "alice", status="idle"), what="alice idle")
        refused = h.wait(ev("tool_result", "bob", tool="write_file", is_error=True),
                         what="bob refused a write before approval")
        expect("plan not approved" in refused["output"], refused["output"])
        expect(not os.path.exists(os.path.join(h.workdir, "refactored.txt")),
               "the gate let a write through")
        plan = h.wait(ev("request", type="plan", status="pending", **{"from": "bob"}),
                      what="bob's plan request")
        h.wait(ev("status", "bob", status="waiting"), what="bob waiting")
        h.send("/approve")
        h.wait(ev("request", id=plan["id"], status="approved", decided_by="user"),
               what="plan approved")
        h.wait(ev("tool_result", "bob", tool="write_file", is_error=False),
               what="bob's write after approval")
        expect(open(os.path.join(h.workdir, "refactored.txt")).read() == "bar\n",
               "refactored.txt is wrong")

        mark = len(h.events)
        h.send("/shutdown alice")
        req = h.wait(ev("request", type="shutdown", to="alice", status="pending"),
                     since=mark, what="the shutdown request")
        answer = h.wait(ev("tool_call", "alice", tool="shutdown_response"), since=mark,
                        what="alice's answer")
        expect(answer["input"]["request_id"] == req["id"],
               "alice answered %s, asked %s" % (answer["input"]["request_id"], req["id"]))
        h.wait(ev("request", id=req["id"], status="approved", decided_by="alice"),
               since=mark, what="shutdown approved")
        h.wait(ev("status", "alice", status="terminated"), since=mark,
               what="alice terminated")
        h.wait(ev("message", type="teammate_terminated", **{"from": "alice"}),
               since=mark, what="teammate_terminated to the lead")
        h.send("/msg alice are you there?")
        h.wait(ev("error", command="msg", message=contains("terminated")), since=mark,
               what="a message to a terminated teammate is refused")
        quit_cleanly(h)


def test_lead_reviews_plan(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="bob", role="refactorer",
             prompt="Refactor.", plan_required=True),
        say("lead", "Spawned bob."),
        call("lead", "review_plan", request_id="{{request_id}}", approve=True,
             feedback="go ahead"),
        *notes("lead"),
        # Late enough that the lead has ended its turn: its next turn is
        # then the review.
        dict(call("bob", "submit_plan", plan="1. do it"), delay_ms=2000),
        call("bob", "write_file", path="done.txt", content="ok"),
        say("bob", "Done."),
        call("bob", "shutdown_response", request_id="{{request_id}}", approve=True))
    with Huddle(fake) as h:
        h.send("go")
        plan = h.wait(ev("request", type="plan", status="pending"), what="plan request")
        h.wait(ev("request", id=plan["id"], status="approved", decided_by="lead",
                  response="go ahead"), what="the lead's approval")
        res = h.wait(ev("tool_result", "bob", tool="submit_plan"), what="bob hears")
        expect("approved by lead: go ahead" in res["output"], res["output"])
        h.wait(ev("tool_result", "bob", tool="write_file", is_error=False),
               what="bob acts")
        quit_cleanly(h)


def test_rejected_plan_is_revised(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="bob", role="refactorer",
             prompt="Refactor.", plan_required=True),
        *notes("lead"),
        call("bob", "submit_plan", plan="1. delete everything"),
        call("bob", "submit_plan", plan="1. write tests 2. rename"),
        call("bob", "write_file", path="done.txt", content="ok"),
        say("bob", "Done."),
        call("bob", "shutdown_response", request_id="{{request_id}}", approve=True))
    with Huddle(fake, args=["--plan-review", "human"]) as h:
        h.send("go")
        first = h.wait(ev("request", type="plan", status="pending"), what="first plan")
        h.send("/reject bob add tests first")
        h.wait(ev("request", id=first["id"], status="rejected",
                  response="add tests first"), what="rejection")
        res = h.wait(ev("tool_result", "bob", tool="submit_plan"), what="bob told")
        expect("rejected" in res["output"] and "add tests first" in res["output"],
               res["output"])
        second = h.wait(ev("request", type="plan", status="pending",
                           body=contains("write tests")), what="revised plan")
        expect(second["id"] != first["id"], "same id twice")
        # The lead may not answer when only the person reviews.
        h.send("/approve %s fine" % second["id"])
        h.wait(ev("tool_result", "bob", tool="write_file", is_error=False),
               what="bob acts after the revised plan")
        quit_cleanly(h)


def test_refused_shutdown_keeps_working(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder", prompt="Wait."),
        *notes("lead"),
        say("alice", "Ready."),
        call("alice", "shutdown_response", request_id="{{request_id}}",
             approve=False, reason="still busy"),
        say("alice", "Still here."),
        say("alice", "Got your message."),
        call("alice", "shutdown_response", request_id="{{request_id}}", approve=True))
    with Huddle(fake) as h:
        h.send("go")
        h.wait(ev("status", "alice", status="idle"), what="alice idle")
        h.send("/shutdown alice")
        req = h.wait(ev("request", type="shutdown", status="pending"), what="request")
        h.wait(ev("request", id=req["id"], status="rejected", response="still busy"),
               what="refusal with its reason")
        # She finishes the turn that refused, then waits for work again.
        h.wait_text("alice", "Still here.")
        h.wait(ev("status", "alice", status="idle"),
               since=len(h.events) - 1, what="alice idle again")
        mark = len(h.events)
        h.send("/msg alice one more thing")
        h.wait_text("alice", "Got your message", since=mark)
        team_mark = len(h.events)
        h.send("/team")
        team = h.wait(ev("team"), since=team_mark, what="team listing")
        alice = [m for m in team["members"] if m["name"] == "alice"][0]
        expect(alice["status"] != "terminated", "alice terminated")
        quit_cleanly(h)


def test_expired_shutdown_then_forced_stop(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder", prompt="Loop."),
        *notes("lead"),
        say("alice", "Ready."),
        say("alice", "I will ignore that."))
    with Huddle(fake, args=["--shutdown-timeout", "1"]) as h:
        h.send("go")
        h.wait(ev("status", "alice", status="idle"), what="alice idle")
        h.send("/shutdown alice")
        req = h.wait(ev("request", type="shutdown", status="pending"), what="request")
        h.wait(ev("request", id=req["id"], status="expired"), timeout=10,
               what="expiry")
        h.send("/stop alice")
        h.wait(ev("status", "alice", status="terminated"), what="forced stop")
        h.wait(ev("message", type="teammate_terminated", **{"from": "alice"}),
               what="the lead hears of it")
        quit_cleanly(h)


def test_message_while_going_idle(fake):
    fake.reset()
    rounds = 12
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder", prompt="Echo."),
        *notes("lead", 3 * rounds),
        say("alice", "Ready."),
        *[say("alice", "ok %d" % i, delay_ms=30) for i in range(rounds)],
        call("alice", "shutdown_response", request_id="{{request_id}}", approve=True))
    with Huddle(fake) as h:
        h.send("go")
        h.wait(ev("status", "alice", status="idle"), what="alice idle")
        for i in range(rounds):
            mark = len(h.events)
            h.send("/msg alice ping %d" % i)
            # Send the next one while this reply is still being written,
            # so it lands as alice finishes her turn.
            h.wait(ev("llm_call", "alice"), since=mark, what="alice's call %d" % i)
        h.wait_text("alice", "ok %d" % (rounds - 1), timeout=20)
        h.wait(ev("status", "alice", status="idle"), since=len(h.events) - 1)
        bodies = json.dumps([r["body"] for r in requests_of(fake, "alice")])
        for i in range(rounds):
            expect("ping %d" % i in bodies, "ping %d never reached alice's model" % i)
        quit_cleanly(h)


def test_permission_for_risky_commands(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="carl", role="ops", prompt="Clean up."),
        *notes("lead"),
        call("carl", "bash", command="rm -rf build"),
        call("carl", "bash", command="sudo true"),
        say("carl", "Done."),
        call("carl", "shutdown_response", request_id="{{request_id}}", approve=True))
    with Huddle(fake) as h:
        os.makedirs(os.path.join(h.workdir, "build", "obj"))
        h.send("go")
        req = h.wait(ev("request", type="permission", status="pending",
                        body=contains("rm -rf build")), what="permission request")
        h.wait(ev("status", "carl", status="waiting"), what="carl waits")
        time.sleep(0.3)  # give a wrongly ungated command time to run
        expect(os.path.isdir(os.path.join(h.workdir, "build")),
               "the command ran before permission")
        h.send("/approve")
        h.wait(ev("tool_result", "carl", tool="bash", is_error=False), what="rm ran")
        expect(not os.path.exists(os.path.join(h.workdir, "build")), "build remains")
        second = h.wait(ev("request", type="permission", status="pending",
                           body=contains("sudo")), what="sudo request")
        expect(second["id"] != req["id"], "one request for two commands")
        h.send("/reject carl no sudo here")
        res = h.wait(ev("tool_result", "carl", tool="bash", is_error=True),
                     what="sudo refused")
        expect("rejected" in res["output"] and "no sudo here" in res["output"],
               res["output"])
        quit_cleanly(h)


def test_approve_names_one_request_or_none(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="bob", role="writer",
             prompt="Plan.", plan_required=True),
        call("lead", "spawn_teammate", name="carl", role="ops",
             prompt="Clean up."),
        *notes("lead"),
        call("bob", "submit_plan", plan="1. write"),
        say("bob", "Planned."), *notes("bob", 4),
        call("carl", "bash", command="rm -rf junkdir"),
        say("carl", "Cleaned."), *notes("carl", 4))
    with Huddle(fake, args=["--plan-review", "human"]) as h:
        h.send("go")
        plan = h.wait(ev("request", type="plan", status="pending"),
                      what="bob's plan")
        perm = h.wait(ev("request", type="permission", status="pending"),
                      what="carl's command")

        def answer(line, kind):
            mark = len(h.events)
            h.send(line)
            return h.wait(ev(kind), since=mark, what="the answer to " + line)

        def pending():
            mark = len(h.events)
            h.send("/requests")
            rows = h.wait(ev("requests"), since=mark,
                          what="the table")["requests"]
            return {r["id"] for r in rows if r["status"] == "pending"}

        # Nothing that names no single request decides anything.
        for line in ("/approve nonsense", "/reject zz9 no", "/approve req_",
                     "/approve lead"):
            err = answer(line, "error")
            expect(err["message"].startswith("nothing was decided"),
                   err["message"])
            expect(pending() == {plan["id"], perm["id"]},
                   "%s decided something" % line)
        # A name, an id's start (with or without req_), a whole id.
        ok = answer("/reject carl not here", "reply")
        expect("rejected carl's permission (%s)" % perm["id"] in ok["message"],
               ok["message"])
        ok = answer("/approve %s" % plan["id"][4:9], "reply")
        expect("approved bob's plan (%s)" % plan["id"] in ok["message"],
               ok["message"])
        expect(pending() == set(), "requests left pending")
        err = answer("/approve %s" % plan["id"], "error")
        expect("approved" in err["message"], err["message"])
        quit_cleanly(h)


def test_kill9_mid_turn_then_resume(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder",
             prompt="Write a.txt"),
        say("lead", "On it."),
        # A slow model: huddle is killed while this call is in flight.
        say("alice", "never seen", delay_ms=30000))
    with Huddle(fake) as h:
        workdir = h.workdir
        h.send("go")
        h.wait(ev("llm_call", "alice"), what="alice's slow call")
        h.wait_text("lead", "On it")
        # The call event comes just before the request goes out.
        wait_for(lambda: requests_of(fake, "alice"), 10, "alice's request to arrive")
        before = conversation(requests_of(fake, "alice")[-1]["body"])
        h.kill9()

    fake.reset()
    fake.script(
        call("alice", "write_file", path="a.txt", content="a"),
        say("alice", "Done."),
        *notes("lead"),
        call("alice", "shutdown_response", request_id="{{request_id}}", approve=True))
    with Huddle(fake, workdir=workdir, resume=True) as h:
        h.wait(ev("tool_result", "alice", tool="write_file", is_error=False),
               what="alice continues after --resume")
        first = conversation(requests_of(fake, "alice")[0]["body"])
        expect(first == before, "the resumed call differs from the interrupted "
               "one:\n%s\n%s" % (before, first))
        # The lead waited for alice before the crash, and still does: her
        # idle notice reaches its model.
        wait_for(lambda: any("alice is idle: Done." in json.dumps(r["body"])
                             for r in requests_of(fake, "lead")), 10,
                 "alice's idle notice to reach the lead's model after --resume")
        quit_cleanly(h)
        for req in requests_of(fake, "lead"):
            expect(json.dumps(req["body"]).count("[message from user] go") <= 1,
                   "the person's message was delivered twice")


def test_model_error_then_recovery(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder", prompt="Start."),
        *notes("lead"),
        {"agent": "alice", "kind": "error", "status": 400,
         "type": "invalid_request_error",
         "message": "messages.1.content.0: tool_use ids must be unique"},
        say("alice", "Back again."),
        call("alice", "shutdown_response", request_id="{{request_id}}", approve=True))
    with Huddle(fake) as h:
        h.send("go")
        err = h.wait(ev("error", "alice", message=contains("tool_use ids must be unique")),
                     what="the API's message in alice's error")
        expect("invalid_request_error" in err["message"] and "HTTP 400" in err["message"],
               err["message"])
        h.wait(ev("status", "alice", status="error"), what="alice in error")
        # The lead waits for alice (it spawned her), so its model hears why
        # she stopped.
        wait_for(lambda: any("alice stopped on an error" in json.dumps(r["body"])
                             and "tool_use ids must be unique" in json.dumps(r["body"])
                             for r in requests_of(fake, "lead")), 10,
                 "alice's error to reach the lead's model")
        mark = len(h.events)
        h.send("/msg alice try again")
        h.wait_text("alice", "Back again.", since=mark)
        h.wait(ev("status", "alice", status="idle"), since=mark, what="alice recovers")
        quit_cleanly(h)


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("seed scenario: spawn, gate, /approve, shutdown", test_seed_scenario, fake)
        r.run("the lead reviews a plan", test_lead_reviews_plan, fake)
        r.run("a rejected plan is revised and resubmitted",
              test_rejected_plan_is_revised, fake)
        r.run("a refused shutdown keeps the teammate working",
              test_refused_shutdown_keeps_working, fake)
        r.run("an expired shutdown, then a forced stop",
              test_expired_shutdown_then_forced_stop, fake)
        r.run("messages sent while a teammate goes idle are processed",
              test_message_while_going_idle, fake)
        r.run("permission blocks risky commands", test_permission_for_risky_commands,
              fake)
        r.run("/approve and /reject name one request or decide nothing",
              test_approve_names_one_request_or_none, fake)
        r.run("kill -9 mid-turn, then --resume", test_kill9_mid_turn_then_resume, fake)
        r.run("a failed model call shows the error and recovers on a message",
              test_model_error_then_recovery, fake)
    r.finish()


if __name__ == "__main__":
    main()
