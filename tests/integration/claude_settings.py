#!/usr/bin/env python3
"""Claude Code's settings files in a project, through the real binary: a
.claude/settings.json that denies Bash(curl:*) and Read(./.env) has the
lead's `curl …` and `echo x && curl …` refused naming the rule and its
file, and read_file of .env refused; an unrelated command runs; an ask
rule of .claude/settings.local.json turns a harmless command into a
permission request; the file's "model" is the lead's; its hooks never
run; and the start's notice names what was read and what was not.
"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import (FakeLLM, Results, TEST_API,  # noqa: E402
                            TOP_SRCDIR)
from team_driver import (Huddle, call, contains, ev, expect,  # noqa: E402
                         notes, say)

RULE_CURL = "Bash(curl:*) of .claude/settings.json"
RULE_ENV = "Read(./.env) of .claude/settings.json"


def project():
    """A person with no settings of their own, and a project with both of
    Claude Code's files."""
    root = tempfile.mkdtemp(prefix="huddle-claude-")
    work = os.path.join(root, "project")
    os.makedirs(os.path.join(work, ".claude"))
    with open(os.path.join(work, ".claude", "settings.json"), "w") as f:
        json.dump({"model": "haiku",
                   "permissions": {"deny": ["Bash(curl:*)", "Read(./.env)",
                                            "WebFetch"],
                                   "allow": ["Bash(rm:*)"]},
                   "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                       {"type": "command", "command": "touch hooked"}]}]},
                   "env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}}, f)
    with open(os.path.join(work, ".claude", "settings.local.json"),
              "w") as f:
        json.dump({"permissions": {"ask": ["Bash(touch:*)",
                                           "Read(notes/**)"]}}, f)
    with open(os.path.join(work, ".env"), "w") as f:
        f.write("SECRET=never-shown\n")
    os.makedirs(os.path.join(work, "notes"))
    with open(os.path.join(work, "notes", "plan.txt"), "w") as f:
        f.write("PLAN-TEXT\n")
    env = {"XDG_CONFIG_HOME": os.path.join(root, "config"),
           "XDG_STATE_HOME": os.path.join(root, "state")}
    return work, env


def test_deny_ask_and_notice(fake):
    work, env = project()
    fake.reset()
    fake.script(call("lead", "bash", command="curl -s http://127.0.0.1:9/"),
                call("lead", "bash",
                     command="echo x && curl -s http://127.0.0.1:9/"),
                call("lead", "read_file", path=".env"),
                call("lead", "bash", command="echo unrelated-ran"),
                call("lead", "bash", command="touch asked-file"),
                call("lead", "read_file", path="notes/plan.txt"),
                call("lead", "read_file", path="notes/plan.txt"),
                say("lead", "Done."), *notes("lead"))
    with Huddle(fake, workdir=work, env=env) as h:
        note = h.wait(ev("notice", message=contains(
            "read .claude/settings.json")), what="the settings.json notice")
        msg = note["message"]
        expect("deny (2 rules)" in msg and "model" in msg, msg)
        expect("not read: " in msg and "hooks" in msg and
               "permissions.allow" in msg and "env" in msg, msg)
        expect("WebFetch" in msg, "the rule with no huddle tool: " + msg)
        h.wait(ev("notice", message=contains(
            "read .claude/settings.local.json: ask (2 rules)")),
            what="the settings.local.json notice")
        h.send("go")
        first = h.wait(ev("tool_result", "lead", tool="bash"),
                       what="curl refused")
        expect(first["is_error"] and RULE_CURL in first["output"] and
               "refused by the deny rule" in first["output"], first)
        mark = h.events.index(first) + 1
        chain = h.wait(ev("tool_result", "lead", tool="bash"), since=mark,
                       what="the chain refused")
        expect(chain["is_error"] and RULE_CURL in chain["output"] and
               "x\n" not in chain["output"], chain)
        read = h.wait(ev("tool_result", "lead", tool="read_file"),
                      what=".env refused")
        expect(read["is_error"] and RULE_ENV in read["output"] and
               "never-shown" not in read["output"], read)
        mark = h.events.index(chain) + 1
        ran = h.wait(ev("tool_result", "lead", tool="bash",
                        output=contains("unrelated-ran")), since=mark,
                     what="an unrelated command runs")
        expect(not ran["is_error"], ran)
        req = h.wait(ev("request", type="permission", status="pending"),
                     what="the ask rule's permission request")
        p = req.get("permission", {})
        expect(p.get("command") == "touch asked-file" and
               p.get("reason") == "ask rule" and
               "Bash(touch:*) of .claude/settings.local.json" in
               p.get("detail", ""), p)
        expect(not os.path.exists(os.path.join(work, "asked-file")),
               "ran before the person answered")
        h.send("/approve %s" % req["id"])
        h.wait(ev("tool_result", "lead", tool="bash", is_error=False,
                  output=contains("exit status 0")),
               since=h.events.index(ran) + 1, what="touch ran once approved")
        # An ask rule on a file tool: asked, refused, then allowed.
        for answer in ("reject", "approve"):
            mark = len(h.events)
            req = h.wait(ev("request", type="permission", status="pending",
                            permission=lambda p: isinstance(p, dict) and
                            p.get("tool") == "read_file"), since=mark,
                         what="the file ask rule's request")
            p = req["permission"]
            expect(p["command"] == "notes/plan.txt" and
                   p["reason"] == "ask rule" and "Read(notes/**) of "
                   ".claude/settings.local.json" in p["detail"], p)
            h.send("/%s %s" % (answer, req["id"]))
            res = h.wait(ev("tool_result", "lead", tool="read_file"),
                         since=mark, what="the asked read")
            if answer == "reject":
                expect(res["is_error"] and "PLAN-TEXT" not in
                       res["output"] and "rejected" in res["output"], res)
            else:
                expect(not res["is_error"] and "PLAN-TEXT" in
                       res["output"], res)
        h.wait_text("lead", "Done.")
        h.quit()
    expect(os.path.exists(os.path.join(work, "asked-file")), "no asked-file")
    expect(not os.path.exists(os.path.join(work, "hooked")),
           "a hook of the project's file ran")
    bodies = [json.dumps(r["body"]) for r in fake.requests()]
    expect(not any("never-shown" in b for b in bodies),
           "the denied .env reached the model")
    if TEST_API == "anthropic":
        with open(os.path.join(TOP_SRCDIR, "data", "models.json")) as f:
            cat = json.load(f)["models"]
        haiku = next(m["id"] for m in cat if "-haiku-" in m["id"] and
                     m.get("status") == "current")
        expect(fake.requests()[0]["body"]["model"] == haiku,
               "the model: %r" % fake.requests()[0]["body"]["model"])


def test_link_out_refused(fake):
    """.claude/settings.json as a link out of the tree is not read: the
    start stops with a sentence, rather than drop its deny rules."""
    work, env = project()
    outside = tempfile.mkdtemp(prefix="huddle-claude-out-")
    with open(os.path.join(outside, "s.json"), "w") as f:
        f.write("{}")
    path = os.path.join(work, ".claude", "settings.json")
    os.unlink(path)
    os.symlink(os.path.join(outside, "s.json"), path)
    h = Huddle(fake, workdir=work, env=env).start()
    status = h.wait_exit()
    err = h.stderr.decode() if isinstance(h.stderr, bytes) else h.stderr
    expect(status != 0 and ".claude/settings.json" in err and
           "not read" in err, "status %s: %r" % (status, err))


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("Claude Code's deny and ask rules hold, and are named",
              test_deny_ask_and_notice, fake)
        r.run("a link out of the tree is never read",
              test_link_out_refused, fake)
    r.finish()


if __name__ == "__main__":
    main()
