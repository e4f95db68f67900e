#!/usr/bin/env python3
"""The settings files, through the real binary: `huddle --settings` shows
each value and where it came from (built in, the person's file, the
project's, the environment, the command line) without a key; a project
file that turns the sandbox off or opens the network is refused with a
sentence naming the file and the key, before anything starts; mistakes
are named with the file and line; and a person's "max-teammates" holds a
real team to it.
"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import (FakeLLM, Results, TOP_SRCDIR,  # noqa: E402
                            run_huddle)
from team_driver import Huddle, call, contains, ev, expect, notes, say  # noqa: E402


def places():
    """A person's configuration folder and a project, both fresh."""
    root = tempfile.mkdtemp(prefix="huddle-settings-")
    config = os.path.join(root, "config")
    project = os.path.join(root, "project")
    os.makedirs(os.path.join(config, "huddle"))
    os.makedirs(os.path.join(project, ".huddle"))
    env = {"XDG_CONFIG_HOME": config, "HOME": root,
           "XDG_STATE_HOME": os.path.join(root, "state")}
    return (env, os.path.join(config, "huddle", "settings.json"),
            os.path.join(project, ".huddle", "settings.json"), project)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def shown(out):
    """--settings' table: key -> (value, source)."""
    rows = {}
    for line in out.splitlines()[1:]:
        parts = line.split(None, 2)
        rows[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    return rows


def test_where_each_value_came_from():
    env, person, project, work = places()
    write(person, json.dumps({"max-teammates": 3, "model": "from-person",
                              "teammate-model": "mate-person",
                              "compact-at": 50, "network": "none"}))
    write(project, json.dumps({"teammate-model": "mate-project",
                               "model": "from-project"}))
    env["HUDDLE_MODEL"] = "from-env"
    status, out, err, _, _ = run_huddle(
        ["--settings", "--workdir", work, "--compact-at", "90"], env=env)
    expect(status == 0, "status %s: %s" % (status, err))
    rows = shown(out)
    expect(rows["max-teammates"] == ("3", "your settings " + person),
           repr(rows["max-teammates"]))
    expect(rows["teammate-model"] == ("mate-project",
                                      "project settings " + project),
           repr(rows["teammate-model"]))
    expect(rows["model"] == ("from-env", "environment HUDDLE_MODEL"),
           repr(rows["model"]))
    expect(rows["compact-at"] == ("90", "command line"),
           repr(rows["compact-at"]))
    expect(rows["network"][0] == "none", repr(rows["network"]))
    expect(rows["max-procs"] == ("512", "built-in"), repr(rows["max-procs"]))
    # No key was needed, and every settings key is there.
    for key in ("mcpServers", "permissions", "roles", "instructions",
                "no-sandbox", "max-cost"):
        expect(key in rows, "--settings lacks " + key)
    # --mcp-config's servers replace the person's mcpServers.
    write(person, json.dumps({"mcpServers": {"mine": {"command": "a"}},
                              "permissions": {"allow": ["mcp__mine__*"]}}))
    mcp = os.path.join(work, "mcp.json")
    write(mcp, json.dumps({"mcpServers": {"other": {"command": "b"}}}))
    status, out, err, _, _ = run_huddle(["--settings", "--workdir", work],
                                        env=env)
    rows = shown(out)
    expect(status == 0 and '"mine"' in rows["mcpServers"][0] and
           rows["permissions"][1] == "your settings " + person,
           repr((status, err, rows.get("mcpServers"))))
    status, out, err, _, _ = run_huddle(
        ["--settings", "--workdir", work, "--mcp-config", mcp], env=env)
    rows = shown(out)
    expect(status == 0 and rows["mcpServers"] == (
        '{"other":{"command":"b"}}', "command line " + mcp),
        repr((status, err, rows.get("mcpServers"))))


def test_project_gates_refused(fake):
    for text, key in (('{"model": "m",\n "no-sandbox": true}', "no-sandbox"),
                      ('{"network": "open"}', "network"),
                      ('{"max-cost": 1000}', "max-cost"),
                      ('{"writable": ["/"]}', "writable")):
        env, person, project, work = places()
        write(project, text)
        env.update({"ANTHROPIC_API_KEY": "test-key",
                    "ANTHROPIC_BASE_URL": fake.anthropic_url})
        status, out, err, _, _ = run_huddle(
            ["--headless", "--workdir", work], env=env, timeout=20)
        expect(status == 2, "%s: status %s" % (key, status))
        line = [ln for ln in err.splitlines() if ln.strip()]
        expect(len(line) == 1 and
               line[0].startswith("huddle: %s:" % project) and
               ('may not set "%s"' % key) in line[0] and
               "can never open a gate" in line[0], repr(err))
        # Before anything started: no event, no team.
        expect(out == "", "%s: output %r" % (key, out))
        expect(not os.path.exists(env["XDG_STATE_HOME"]),
               "%s: a state folder was made" % key)
    # The person's file may open the same gate.
    env, person, project, work = places()
    write(person, '{"network": "open", "no-sandbox": true}')
    status, out, err, _, _ = run_huddle(["--settings", "--workdir", work],
                                        env=env)
    rows = shown(out)
    expect(status == 0 and rows["network"][0] == "open" and
           rows["no-sandbox"][0] == "true", repr((status, err)))


def test_mistakes_named_with_file_and_line():
    cases = (('{\n  "model": "m",\n  "max-teamates": 3\n}',
              ':3: unknown setting "max-teamates"'),
             ('{\n  "max-teammates": 65\n}',
              ':2: "max-teammates" takes a number from 1 to 64'),
             ('{\n  "model": "m"\n  "network": "open"\n}', ':3: '),
             ('{"resume": true}', '"resume" is a command-line option only'))
    for text, want in cases:
        env, person, project, work = places()
        write(person, text)
        status, out, err, _, _ = run_huddle(
            ["--settings", "--workdir", work], env=env)
        expect(status == 2 and ("huddle: " + person + want) in err
               if want.startswith(":") else
               status == 2 and person in err and want in err,
               "%r: status %s, %r" % (text, status, err))


def test_planted_fifo_does_not_hang():
    """A FIFO where the project's file goes (a teammate can make one) is
    refused at once, not waited on."""
    env, person, project, work = places()
    os.mkfifo(project)
    status, out, err, took, _ = run_huddle(
        ["--settings", "--workdir", work], env=env, timeout=10)
    expect(status == 2 and "not a regular file" in err and took < 5,
           "status %s after %.1f s: %r" % (status, took, err))


def test_person_max_teammates_holds(fake):
    env, person, project, work = places()
    write(person, '{"max-teammates": 1}')
    fake.reset()
    fake.script(call("lead", "spawn_teammate", name="alice", role="coder",
                     prompt="Wait."),
                call("lead", "spawn_teammate", name="bob", role="coder",
                     prompt="Wait."),
                say("lead", "One only."), *notes("lead"),
                *notes("alice"))
    with Huddle(fake, env=env) as h:
        h.send("go")
        h.wait(ev("tool_result", "lead", tool="spawn_teammate",
                  is_error=False), what="alice spawned")
        full = h.wait(ev("tool_result", "lead", tool="spawn_teammate",
                         is_error=True), what="bob refused")
        expect("the team is full (1 teammates)" in full["output"],
               full["output"])
        h.send("/quit")
        h.wait_exit()


def test_family_words_name_the_catalogs_model(fake):
    """"model": "opus" in settings, "sonnet" asked by the lead at spawn
    and "haiku" in a teammate's role all go to the API as the catalog's
    current model of that family, never as the word."""
    with open(os.path.join(TOP_SRCDIR, "data", "models.json")) as f:
        cat = json.load(f)["models"]

    def current(family):
        return next(m["id"] for m in cat if "-%s-" % family in m["id"]
                    and m.get("status") == "current")
    env, person, project, work = places()
    write(person, json.dumps({"model": "opus"}))
    os.makedirs(os.path.join(work, ".claude", "agents"))
    write(os.path.join(work, ".claude", "agents", "quick.md"),
          "---\nname: quick\nmodel: haiku\n---\nBe quick.\n")
    fake.reset()
    fake.script(call("lead", "spawn_teammate", name="sam", role="coder",
                     prompt="Hi.", model="sonnet"),
                call("lead", "spawn_teammate", name="quinn", role="quick",
                     prompt="Hi."),
                *notes("lead"), *notes("sam"), *notes("quinn"))
    with Huddle(fake, env=env, workdir=work) as h:
        h.send("go")
        h.wait(ev("spawned", "quinn"), what="quinn spawned")
        h.wait(lambda e: e.get("event") == "usage" and
               e.get("agent") == "quinn", what="quinn's first call")
        h.wait(lambda e: e.get("event") == "usage" and
               e.get("agent") == "sam", what="sam's first call")
        h.send("/quit")
        h.wait_exit()
    sent = {}
    for r in fake.requests():
        sent.setdefault(r.get("agent"), r["body"]["model"])
    expect(sent.get("lead") == current("opus"), sent)
    expect(sent.get("sam") == current("sonnet"), sent)
    expect(sent.get("quinn") == current("haiku"), sent)


def test_mcp_names_and_cwd_checked():
    """A server name beyond [A-Za-z0-9_-]{1,32}, or a relative cwd (it
    would start in the working tree, which teammates write), is refused
    with the server named."""
    for servers, want in (({"my.srv": {"command": "a"}},
                           "MCP server name \"my.srv\""),
                          ({"mine": {"command": "a", "cwd": "tools"}},
                           "MCP server \"mine\" needs an absolute")):
        env, person, project, work = places()
        write(person, json.dumps({"mcpServers": servers}))
        status, out, err, _, _ = run_huddle(
            ["--settings", "--workdir", work], env=env)
        expect(status != 0 and want in err and person in err,
               repr((status, err)))


def main():
    r = Results()
    r.run("MCP server names and cwd are checked",
          test_mcp_names_and_cwd_checked)
    r.run("--settings: each value and where it came from",
          test_where_each_value_came_from)
    r.run("mistakes are named with the file and the line",
          test_mistakes_named_with_file_and_line)
    r.run("a FIFO planted as the project's file does not hang the start",
          test_planted_fifo_does_not_hang)
    with FakeLLM() as fake:
        r.run("a project's file opens no gate", test_project_gates_refused,
              fake)
        r.run("the person's max-teammates holds the team to it",
              test_person_max_teammates_holds, fake)
        r.run("opus, sonnet and haiku name the catalog's models everywhere",
              test_family_words_name_the_catalogs_model, fake)
    r.finish()


if __name__ == "__main__":
    main()
