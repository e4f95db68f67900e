#!/usr/bin/env python3
"""Teammate roles, end to end: the real binary in --headless mode against
the fake LLM server.

Role files in the person's $XDG_CONFIG_HOME/huddle/agents/, the
project's .huddle/agents/ and Claude Code's .claude/agents/: the lead's
spawn_teammate lists them; a teammate spawned with a role runs on its
model, with only its tools (a call of another is refused), its prompt in
its system prompt and its plan gate; the person's role wins over the
project's of the same name; /roles shows them and where each came from.
"""

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fakellm_client import TEST_API, FakeLLM, Results  # noqa: E402
from team_driver import Huddle, call, contains, ev, expect, notes, say  # noqa: E402

PRICES = {"input": 3.0, "output": 15.0, "cache_write_5m": 3.75,
          "cache_write_1h": 3.75, "cache_read": 0.3}


def catalog_file():
    """A catalog of two models."""
    def model(mid):
        return {"id": mid, "name": mid, "provider": "anthropic",
                "status": "current", "context_window": 200000,
                "max_output": 16000, "thinking": "adaptive",
                "sampling_params": False, "compaction": False,
                "cache_min_tokens": 1024, "prices": PRICES}
    path = os.path.join(tempfile.mkdtemp(prefix="huddle-catalog-"),
                        "models.json")
    with open(path, "w") as f:
        json.dump({"default_model": "test-main",
                   "models": [model("test-main"), model("test-cheap")]}, f)
    return path


NOT_AUTHORITY = "comes from a file in the working tree"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def setup():
    """A person's folder and a working tree with roles; returns (env,
    workdir)."""
    xdg = tempfile.mkdtemp(prefix="huddle-xdg-")
    write(os.path.join(xdg, "huddle", "agents", "reviewer.md"),
          "---\nname: reviewer\ndescription: Reviews code for bugs\n"
          "model: test-cheap\ntools: [read_file]\n---\n"
          "You review code. REVIEWER-PROMPT-MARK\n")
    work = tempfile.mkdtemp(prefix="huddle-team-")
    # The project's reviewer would widen the person's: it is left out.
    write(os.path.join(work, ".huddle", "agents", "reviewer.md"),
          "---\nname: reviewer\ntools: [bash, write_file]\nmodel: test-main\n"
          "---\nPROJECT-REVIEWER-MARK\n")
    write(os.path.join(work, ".huddle", "agents", "tester.md"),
          "---\ndescription: Runs the tests\ntools: bash, read_file\n"
          "plan_required: true\nautonomous: true\n---\nYou test.\n")
    write(os.path.join(work, ".claude", "agents", "writer.md"),
          "---\nname: writer\ndescription: Writes docs\n"
          "tools: Read, Write, Grep\nmodel: inherit\ncolor: green\n---\n"
          "You write docs.\n")
    write(os.path.join(work, ".huddle", "agents", "broken.md"),
          "---\nplan_required: maybe\n---\n")
    write(os.path.join(work, "notes.txt"), "some notes\n")
    return {"XDG_CONFIG_HOME": xdg}, work


def tool_names(body):
    names = []
    for t in body.get("tools", []):
        names.append(t.get("name") or t.get("function", {}).get("name"))
    return set(names)


def spawn_description(body):
    for t in body.get("tools", []):
        if (t.get("name") or t.get("function", {}).get("name")) == \
                "spawn_teammate":
            return t.get("description") or t["function"]["description"]
    return ""


def leave(agent):
    return call(agent, "shutdown_response", request_id="{{request_id}}",
                approve=True)


def test_a_teammate_with_a_role(fake):
    fake.reset()
    fake.script(
        # broken.md was left out: its role spawns nothing, least of all
        # a free word with every tool.
        call("lead", "spawn_teammate", name="bert", role="broken",
             prompt="Break things."),
        call("lead", "spawn_teammate", name="rita", role="reviewer",
             prompt="Review notes.txt."),
        *notes("lead", 6),
        call("rita", "bash", command="cat notes.txt"),
        call("rita", "read_file", path="notes.txt"),
        say("rita", "Reviewed."),
        leave("rita"))
    env, work = setup()
    with Huddle(fake, workdir=work, env=env,
                args=["--catalog", catalog_file()]) as h:
        h.send("go")
        bert = h.wait(ev("tool_result", "lead", tool="spawn_teammate"),
                      what="bert's spawn")
        expect(bert["is_error"] and "could not be used" in bert["output"]
               and "plan_required is true or false" in bert["output"],
               bert)
        spawned = h.wait(ev("spawned", "rita"), what="rita spawned")
        expect(spawned["model"] == "test-cheap", spawned)
        refused = h.wait(ev("tool_result", "rita", tool="bash"),
                         what="rita's bash call")
        expect(refused["is_error"] and "no tool named" in refused["output"],
               refused)
        read = h.wait(ev("tool_result", "rita", tool="read_file"),
                      what="rita's read_file call")
        expect(not read["is_error"] and "some notes" in read["output"], read)
        h.wait(ev("message", "lead", type="idle_notification"),
               what="rita's idle notice")
        mark = len(h.events)
        h.send("/roles")
        roles = h.wait(ev("roles"), since=mark, what="the /roles report")
        by = {r["name"]: r for r in roles["roles"]}
        expect(set(by) == {"reviewer", "tester", "writer"}, list(by))
        expect(by["reviewer"]["origin"] == "the person's" and
               by["reviewer"]["tools"] == ["read_file"] and
               by["reviewer"]["model"] == "test-cheap", by["reviewer"])
        expect(by["tester"]["origin"] == "the project's" and
               by["tester"]["plan_required"] and
               not by["tester"]["autonomous"] and
               "autonomous left out" in by["tester"]["note"], by["tester"])
        expect(by["writer"]["origin"] == "Claude Code's" and
               by["writer"]["tools"] == ["read_file", "write_file"] and
               by["writer"]["path"] == ".claude/agents/writer.md",
               by["writer"])
        notices = " | ".join(roles["notices"])
        expect("the person's role reviewer" in notices and
               "broken.md:2: plan_required is true or false" in notices,
               notices)
        h.quit()
    lead = [r["body"] for r in fake.requests() if r.get("agent") == "lead"]
    desc = spawn_description(lead[0])
    expect("- reviewer: Reviews code for bugs [model test-cheap] "
           "[tools: read_file]" in desc, desc)
    expect("- tester: Runs the tests [tools: bash, read_file] "
           "[plan required]" in desc, desc)
    rita = [r["body"] for r in fake.requests() if r.get("agent") == "rita"]
    expect(rita, "rita made no request")
    for body in rita:
        if TEST_API == "anthropic":
            expect(body["model"] == "test-cheap", body["model"])
        names = tool_names(body)
        expect("read_file" in names and not names & {"bash", "write_file",
                                                     "edit_file"},
               "rita's tools: %s" % sorted(names))
        expect("send_message" in names and "shutdown_response" in names,
               "rita lacks the team's tools: %s" % sorted(names))
        system = json.dumps(body.get("system", body.get("instructions")))
        expect("REVIEWER-PROMPT-MARK" in system and
               "PROJECT-REVIEWER-MARK" not in system, "rita's prompt")
        expect(NOT_AUTHORITY not in system,
               "the person's own role is framed as the project's")


def test_a_role_requires_a_plan(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="tess", role="tester",
             prompt="Run the tests."),
        *notes("lead", 6),
        call("tess", "bash", command="true"),
        say("tess", "Blocked until my plan is approved."),
        leave("tess"))
    env, work = setup()
    with Huddle(fake, workdir=work, env=env) as h:
        h.send("go")
        spawned = h.wait(ev("spawned", "tess"), what="tess spawned")
        expect(spawned["plan_required"] and not spawned["autonomous"],
               spawned)
        res = h.wait(ev("tool_result", "tess", tool="bash"),
                     what="tess's bash call")
        expect(res["is_error"] and "plan not approved" in res["output"], res)
        # A project's role prompt comes framed as guidance only.
        tess = [r["body"] for r in fake.requests() if r.get("agent") == "tess"]
        system = json.dumps(tess[0].get("system", tess[0].get("instructions")))
        expect("You test." in system and NOT_AUTHORITY in system,
               "tess's project role is not framed: %s" % system[:400])
        h.wait(ev("message", "lead", type="idle_notification"),
               what="tess's idle notice")
        h.quit()


def test_a_wrong_person_role_stops_the_start(fake):
    env, work = setup()
    write(os.path.join(env["XDG_CONFIG_HOME"], "huddle", "agents", "bad.md"),
          "---\nname: bad\nplan_required: sometimes\n---\n")
    h = Huddle(fake, workdir=work, env=env).start()
    code = h.wait_exit()
    expect(code != 0, "huddle started with a wrong role file")
    expect(b"bad.md:3: plan_required is true or false" in h.stderr,
           h.stderr)


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("a teammate with a role: its model, tools and prompt; /roles",
              test_a_teammate_with_a_role, fake)
        r.run("a project role requires a plan, and is never autonomous",
              test_a_role_requires_a_plan, fake)
        r.run("a person's role file that is wrong is named",
              test_a_wrong_person_role_stops_the_start, fake)
    r.finish()


if __name__ == "__main__":
    main()
