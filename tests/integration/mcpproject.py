#!/usr/bin/env python3
"""A project's .mcp.json: each of its stdio servers is offered to the
person once, as a permission request from huddle that shows what would
run and where it comes from. Approved, the server's tools reach a
teammate spawned after, and --resume does not ask again; rejected, it is
not asked again either; an edited entry is asked again. Its tools ask
before every call, whatever the person allows by name. A .mcp.json that
links out of the working tree is refused, and so are a project server
the person's own configuration names and a project HTTP server.
"""

import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import FakeLLM, Results  # noqa: E402
from team_driver import Huddle, call, contains, ev, expect, notes, say  # noqa: E402

SERVER = os.path.realpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "mcp", "server.py"))
TOOL = "MCP server proj"


def project(servers):
    """A fresh working tree whose .mcp.json holds servers."""
    work = tempfile.mkdtemp(prefix="huddle-mcpproj-")
    write(work, servers)
    return work


def write(work, servers):
    with open(os.path.join(work, ".mcp.json"), "w") as f:
        json.dump({"mcpServers": servers}, f, indent=2)


def proj(work, *extra):
    return {"command": "python3",
            "args": [SERVER, "--log", os.path.join(work, "mcp.log")] +
            list(extra)}


def is_offer(p):
    return isinstance(p, dict) and p.get("tool") == TOOL


def offers(h, since=0):
    return [e for e in h.events[since:] if e.get("event") == "request" and
            e.get("status") == "pending" and is_offer(e.get("permission"))]


def mcp_reply(h):
    return h.reply("/mcp")["message"]


def wait_ready(h, name="proj", timeout=30):
    """Waits until /mcp shows server `name` ready."""
    deadline = time.monotonic() + timeout
    while not any(line.startswith(name + " (") and ": ready" in line
                  for line in mcp_reply(h).splitlines()):
        expect(time.monotonic() < deadline, "MCP server %s not ready in "
               "%d s: %s" % (name, timeout, mcp_reply(h)))
        time.sleep(0.1)


def offered(record):
    body = record.get("body") or {}
    return [t.get("name") or (t.get("function") or {}).get("name")
            for t in body.get("tools", [])]


def test_approved(fake):
    fake.reset()
    work = project({})
    write(work, {"proj": proj(work, "--cwd-tool")})
    fake.script(
        call("lead", "spawn_teammate", name="carl", role="tools",
             prompt="Use the tools."), *notes("lead"),
        call("carl", "mcp__proj__echo", text="from the project"),
        call("carl", "mcp__proj__cwd"),
        say("carl", "Done."),
        call("carl", "shutdown_response", request_id="{{request_id}}",
             approve=True))
    # The person allows every tool of a server "proj" of their own: that
    # does not reach the project's server of that name.
    conf = tempfile.mkdtemp(prefix="huddle-conf-")
    os.makedirs(os.path.join(conf, "huddle"))
    with open(os.path.join(conf, "huddle", "settings.json"), "w") as f:
        json.dump({"permissions": {"allow": ["mcp__proj__*"]}}, f)
    with Huddle(fake, workdir=work, env={"XDG_CONFIG_HOME": conf}) as h:
        req = h.wait(ev("request", type="permission", status="pending",
                        permission=is_offer), what="the offer")
        p = req["permission"]
        expect(req["from"] == "system" and SERVER in p["command"] and
               p["command"].startswith("python3 ") and
               ".mcp.json" in p["detail"] and "teammate" in p["detail"] and
               p["directory"] == os.path.realpath(work), req)
        h.send("/approve %s" % req["id"])
        h.wait(ev("request", id=req["id"], status="approved"),
               what="the approval")
        # It starts in the background: carl gets the tools of servers
        # ready by his first request.
        wait_ready(h)
        h.send("go")
        call_req = h.wait(ev("request", type="permission", status="pending",
                             permission=lambda q: isinstance(q, dict) and
                             q.get("tool") == "mcp__proj__echo"),
                          what="the call's permission")
        h.send("/approve %s" % call_req["id"])
        res = h.wait(ev("tool_result", "carl", tool="mcp__proj__echo"),
                     what="the call's result")
        expect(res["is_error"] is False and
               res["output"] == "echo: from the project", res)
        # It runs where its offer said: the working tree.
        call_req = h.wait(ev("request", type="permission", status="pending",
                             permission=lambda q: isinstance(q, dict) and
                             q.get("tool") == "mcp__proj__cwd"),
                          what="the cwd call's permission")
        h.send("/approve %s" % call_req["id"])
        res = h.wait(ev("tool_result", "carl", tool="mcp__proj__cwd"),
                     what="the cwd call's result")
        expect(res["output"] == p["directory"], (res, p["directory"]))
        first = [r for r in fake.requests() if r.get("agent") == "carl"][0]
        expect("mcp__proj__echo" in offered(first), offered(first))
        text = mcp_reply(h)
        expect("proj" in text and "from: .mcp.json" in text, text)
        expect(len(offers(h)) == 1, "asked more than once")
        h.quit()
    # Approved for this team: not asked again.
    with Huddle(fake, workdir=work, resume=True) as h:
        text = mcp_reply(h)
        expect("from: .mcp.json" in text, text)
        expect(offers(h) == [], "asked again after approval")
        h.quit()


def test_rejected_then_edited(fake):
    fake.reset()
    work = project({})
    write(work, {"proj": proj(work)})
    with Huddle(fake, workdir=work) as h:
        req = h.wait(ev("request", type="permission", status="pending",
                        permission=is_offer), what="the offer")
        h.send("/reject %s no thanks" % req["id"])
        h.wait(ev("request", id=req["id"], status="rejected"),
               what="the rejection")
        text = mcp_reply(h)
        expect("rejected" in text, text)
        h.quit()
    with Huddle(fake, workdir=work, resume=True) as h:
        text = mcp_reply(h)
        expect("rejected" in text, text)
        expect(offers(h) == [], "a rejected server was offered again")
        h.quit()
    # A teammate edits the entry: a new question, with the new command.
    write(work, {"proj": proj(work, "--legacy")})
    with Huddle(fake, workdir=work, resume=True) as h:
        req = h.wait(ev("request", type="permission", status="pending",
                        permission=is_offer), what="the edited offer")
        expect("--legacy" in req["permission"]["command"], req)
        h.quit()
    # Left pending at the quit: asked again.
    with Huddle(fake, workdir=work, resume=True) as h:
        h.wait(ev("request", type="permission", status="pending",
                  permission=is_offer), what="the pending offer again")
        h.quit()


def test_refused(fake):
    fake.reset()
    # A .mcp.json that links out of the working tree is not read.
    outside = project({})
    write(outside, {"proj": proj(outside)})
    work = tempfile.mkdtemp(prefix="huddle-mcpproj-")
    os.symlink(os.path.join(outside, ".mcp.json"),
               os.path.join(work, ".mcp.json"))
    with Huddle(fake, workdir=work) as h:
        h.wait(ev("notice", message=contains(".mcp.json was not read")),
               what="the refusal of the link")
        text = mcp_reply(h)
        expect(offers(h) == [] and "proj" not in text, text)
        h.quit()
    # The person's own "test" wins; an HTTP server is not offered.
    work = project({})
    rel = proj(work)
    rel["cwd"] = "sub"
    write(work, {"test": proj(work, "--legacy"),
                 "web": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
                 # What the server code refuses is not offered either: a
                 # relative cwd (in the tree teammates write), a bad name.
                 "here": rel, "bad.name": proj(work)})
    cfg = os.path.join(tempfile.mkdtemp(prefix="huddle-mcpcfg-"),
                       "mcp.json")
    with open(cfg, "w") as f:
        json.dump({"mcpServers": {"test": {
            "command": "python3", "args": [SERVER]}}}, f)
    with Huddle(fake, workdir=work, args=["--mcp-config", cfg]) as h:
        h.wait(ev("notice", message=contains("the project's entry is "
                                             "ignored")),
               what="the notice of the shadowed server")
        h.wait(ev("notice", message=contains("not a stdio server")),
               what="the notice of the HTTP server")
        h.wait(ev("notice", message=contains("must be an absolute path")),
               what="the notice of the relative cwd")
        h.wait(ev("notice", message=contains("bad.name")),
               what="the notice of the bad name")
        text = mcp_reply(h)
        expect("from: --mcp-config" in text and "web" not in text and
               "--legacy" not in text and "here" not in text and
               "bad.name" not in text, text)
        expect([e for e in h.events if e.get("event") == "request"] == [],
               "something was offered")
        h.quit()


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("a project's MCP server, approved once, serves a teammate",
              test_approved, fake)
        r.run("a rejected project server is not asked again; an edited "
              "one is", test_rejected_then_edited, fake)
        r.run("a linked .mcp.json, a shadowed and an HTTP project server "
              "are refused", test_refused, fake)
    r.finish()


if __name__ == "__main__":
    main()
