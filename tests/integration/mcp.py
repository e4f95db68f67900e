#!/usr/bin/env python3
"""MCP servers give a team their tools: a teammate calls a tool of the
test server (tests/mcp/server.py) over stdio and over HTTP once the
person approves, and sees its result; the call shows in the events, the
request in the requests. A call the person rejects is not made, a tool
that does not exist is refused, a call can be interrupted (the server is
told), a server that dies is reported and started again at its next use,
and a changed tool list reaches the next request. An image of a result
reaches the model in each API's own shape, and again after --resume; one
of a type the models do not take is a line of text.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import (API_KEY, OPENAI_TEST_MODEL, SLOW,  # noqa: E402
                            FakeLLM, Results, conversation,
                            remote_addresses, team_folder, wait_for)
from team_driver import Huddle, call, contains, ev, expect, notes, say  # noqa: E402

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                      "mcp", "server.py")
SERVER = os.path.realpath(SERVER)


def logged(path):
    """The messages the server logged, in order."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def methods(path):
    return [m.get("method") for m in logged(path)]


def stdio_team(fake, extra_args=(), legacy=False):
    """A Huddle whose config names the stdio test server "test"; its log
    is in the working tree, where the sandboxed server may write."""
    work = tempfile.mkdtemp(prefix="huddle-mcp-")
    log = os.path.join(work, "mcp.log")
    args = [SERVER, "--log", log] + (["--legacy"] if legacy else [])
    cfg = os.path.join(tempfile.mkdtemp(prefix="huddle-mcpcfg-"),
                       "mcp.json")
    with open(cfg, "w") as f:
        json.dump({"mcpServers": {"test": {"command": "python3",
                                           "args": args}}}, f)
    return Huddle(fake, workdir=work,
                  args=["--mcp-config", cfg] + list(extra_args)), log


def mcp_text(h):
    """What /mcp says now."""
    return h.reply("/mcp")["message"]


def server_line(h, name):
    """The first line /mcp shows of server `name`, or ""."""
    return next((line for line in mcp_text(h).splitlines()
                 if line.startswith(name + " (")), "")


def wait_ready(h, name="test", timeout=30):
    """Waits until /mcp shows server `name` ready: servers start in the
    background, and a script that calls a tool at once needs it there."""
    wait_for(lambda: ": ready" in server_line(h, name), timeout,
             "MCP server %s to be ready" % name)


def spawn_carl():
    return [call("lead", "spawn_teammate", name="carl", role="tools",
                 prompt="Use the tools."), *notes("lead")]


def carl_done():
    """Carl's last turns: it says it is done, then agrees to shut down."""
    return [say("carl", "Done."),
            call("carl", "shutdown_response", request_id="{{request_id}}",
                 approve=True)]


def go(h, server="test"):
    """Sends the lead its first message once `server` is ready."""
    wait_ready(h, server)
    h.send("go")


def approve_next(h, tool, since=0):
    req = h.wait(ev("request", type="permission", status="pending",
                    permission=lambda p: isinstance(p, dict) and
                    p.get("tool") == tool), since=since,
                 what="the permission request for %s" % tool)
    h.send("/approve %s" % req["id"])
    return req


def carl_requests(fake):
    return [r for r in fake.requests() if r.get("agent") == "carl"]


def offered(record):
    body = record.get("body") or {}
    names = []
    for t in body.get("tools", []):
        names.append(t.get("name") or (t.get("function") or {}).get("name"))
    return names


def test_stdio_call(fake):
    fake.reset()
    fake.script(
        *spawn_carl(),
        call("carl", "mcp__test__echo", text="hi there"),
        *carl_done())
    h, log = stdio_team(fake)
    with h:
        go(h)
        call_ev = h.wait(ev("tool_call", "carl", tool="mcp__test__echo"),
                         what="the call in carl's pane")
        expect(call_ev["input"] == {"text": "hi there"}, call_ev)
        req = approve_next(h, "mcp__test__echo")
        p = req["permission"]
        expect(p["who"] == "carl" and "hi there" in p["command"] and
               "echo" in p["detail"] and "test" in p["detail"], p)
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__echo"),
                     what="the result")
        expect(res["is_error"] is False and
               res["output"] == "echo: hi there", res)
        # The teammate was offered the server's tools with their schema,
        # all pages of them, and read the result.
        wait_for(lambda: any("echo: hi there" in json.dumps(r["body"])
                             for r in carl_requests(fake)), 10,
                 "carl's model to read the result")
        first = carl_requests(fake)[0]
        names = offered(first)
        for want in ("mcp__test__echo", "mcp__test__add",
                     "mcp__test__slow", "mcp__test__crash",
                     "mcp__test__grow"):
            expect(want in names, "%s not offered: %r" % (want, names))
        # A tool that runs only as an MCP task is not offered, and the
        # person is told.
        expect("mcp__test__research" not in names, names)
        expect(any(e.get("event") == "notice" and "research not offered"
                   in e.get("message", "") for e in h.events),
               "no notice of the task-only tool")
        # The stateless revision: discover, then requests with _meta,
        # no handshake.
        m = methods(log)
        expect(m[0] == "server/discover" and "initialize" not in m, m)
        expect(all((x.get("params") or {}).get("_meta") for x in
                   logged(log) if x.get("method") == "tools/call"), m)
        rep = h.reply("/mcp")
        expect("ready" in rep["message"] and "2026-07-28" in
               rep["message"] and "echo" in rep["message"], rep)
        h.quit()


def http_web(tmp, flags, headers=None):
    """The test server over HTTP (--legacy and flags) and an
    --mcp-config naming it "web": (the process, the config's path)."""
    port_file = os.path.join(tmp, "port")
    srv = subprocess.Popen([sys.executable, SERVER, "--http", "--legacy",
                            "--port-file", port_file] + flags)
    wait_for(lambda: os.path.exists(port_file), 10, "the HTTP server")
    web = {"type": "http",
           "url": "http://127.0.0.1:%d/mcp" % int(open(port_file).read())}
    if headers:
        web["headers"] = headers
    cfg = os.path.join(tmp, "mcp.json")
    with open(cfg, "w") as f:
        json.dump({"mcpServers": {"web": web}}, f)
    return srv, cfg


def carl_adds_over_http(h, timeout=15):
    """Starts the team once the HTTP server "web" is ready, approves
    carl's call of its add, and waits (up to timeout) for the sum."""
    go(h, "web")
    approve_next(h, "mcp__web__add")
    res = h.wait(ev("tool_result", "carl", tool="mcp__web__add"),
                 timeout=timeout, what="the result over HTTP")
    expect(res["is_error"] is False and res["output"] == "42", res)


def test_legacy_http_call(fake):
    fake.reset()
    tmp = tempfile.mkdtemp(prefix="huddle-mcphttp-")
    log = os.path.join(tmp, "mcp.log")
    srv, cfg = http_web(tmp, ["--sse", "--log", log], {"X-Test": "yes"})
    try:
        fake.script(
            *spawn_carl(),
            call("carl", "mcp__web__add", a=2, b=40),
            *carl_done())
        with Huddle(fake, args=["--mcp-config", cfg]) as h:
            carl_adds_over_http(h)
            m = methods(log)
            # discover refused (HTTP 400: no session), then the
            # handshake of a session.
            expect(m[:2] == ["initialize", "notifications/initialized"],
                   m)
            expect("tools/call" in m, m)
            h.quit()
    finally:
        srv.kill()
        srv.wait()


def test_reply_on_the_servers_own_stream(fake):
    """A server that sends a call's reply on the client's own GET
    stream, not on the call's (as the conformance suite's sse-retry
    server may): the reply is the call's all the same, at once."""
    fake.reset()
    tmp = tempfile.mkdtemp(prefix="huddle-mcphttp-")
    srv, cfg = http_web(tmp, ["--reply-on-get"])
    try:
        fake.script(
            *spawn_carl(),
            call("carl", "mcp__web__add", a=2, b=40),
            *carl_done())
        with Huddle(fake, args=["--mcp-config", cfg]) as h:
            carl_adds_over_http(h, timeout=10 * SLOW)
            h.quit()
    finally:
        srv.kill()
        srv.wait()


def test_rejected_and_unknown(fake):
    fake.reset()
    fake.script(
        *spawn_carl(),
        call("carl", "mcp__test__echo", text="nope"),
        call("carl", "mcp__test__missing"),
        *carl_done())
    h, log = stdio_team(fake, legacy=True)
    with h:
        go(h)
        req = h.wait(ev("request", type="permission", status="pending"),
                     what="the permission request")
        h.send("/reject %s not now" % req["id"])
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__echo"),
                     what="the refused call")
        expect(res["is_error"] and "rejected" in res["output"] and
               "not now" in res["output"], res)
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__missing"),
                     what="the unknown tool")
        expect(res["is_error"] and "no tool named" in res["output"], res)
        m = methods(log)
        expect("tools/call" not in m, "a refused call was made: %r" % m)
        # This one knew only the handshake.
        expect(m[:3] == ["server/discover", "initialize",
                         "notifications/initialized"], m)
        h.quit()


def test_interrupt_crash_restart_and_change(fake):
    fake.reset()
    fake.script(
        *spawn_carl(),
        call("carl", "mcp__test__slow", seconds=60),
        # Interrupted, carl waits for the next message without a call.
        call("carl", "mcp__test__crash"),
        call("carl", "mcp__test__grow"),
        call("carl", "mcp__test__extra"),
        *carl_done())
    h, log = stdio_team(fake)
    with h:
        go(h)
        approve_next(h, "mcp__test__slow")
        wait_for(lambda: "tools/call" in methods(log), 15,
                 "the slow call to reach the server")
        h.send("/interrupt carl")
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__slow"),
                     what="the interrupted call")
        expect(res["is_error"] and "cancelled" in res["output"], res)
        wait_for(lambda: "notifications/cancelled" in methods(log), 10,
                 "the server to be told")
        # Carl goes on at the next message.
        mark = len(h.events)
        h.send("/msg carl go on")
        approve_next(h, "mcp__test__crash", since=mark)
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__crash"),
                     since=mark, what="the crash")
        expect(res["is_error"] and "stopped" in res["output"], res)
        h.wait(ev("notice", message=contains("MCP server test stopped")),
               since=mark, what="the notice of the death")
        approve_next(h, "mcp__test__grow", since=mark)
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__grow"),
                     since=mark, what="the call after the restart")
        expect(res["is_error"] is False and res["output"] == "grown", res)
        expect(methods(log).count("server/discover") == 2,
               "not started again: %r" % methods(log))
        # The changed list is read again: the new tool can be called,
        # and /mcp shows it; carl's requests keep the list they began
        # with (its model's thoughts are bound to it) until a
        # compaction.
        approve_next(h, "mcp__test__extra", since=mark)
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__extra"),
                     since=mark, what="the tool that appeared")
        expect(res["is_error"] is False and res["output"] == "extra ran",
               res)
        lists = [offered(r) for r in carl_requests(fake)]
        expect(all(x == lists[0] for x in lists), "carl's tools changed")
        rep = h.reply("/mcp")
        expect("extra" in rep["message"], rep)
        h.quit()


def question(h, since):
    """Waits for a server's question to the person: a pending permission
    request whose body's tool is "elicitation"."""
    return h.wait(ev("request", type="permission", status="pending",
                     permission=lambda p: isinstance(p, dict) and
                     p.get("tool") == "elicitation"), since=since,
                  what="the server's question")


def test_progress_and_questions(fake):
    """A long call's progress shows in the caller's pane and in /mcp; a
    server's question is a request the person answers (values, the
    defaults filling the rest), declines, or answers wrongly (the server
    is told cancel, the person why); the agent never answers it."""
    fake.reset()
    fake.script(
        *spawn_carl(),
        call("carl", "mcp__test__slow", seconds=3),
        call("carl", "mcp__test__ask"),
        call("carl", "mcp__test__ask"),
        call("carl", "mcp__test__ask"),
        *carl_done())
    h, log = stdio_team(fake, legacy=True)
    with h:
        go(h)
        approve_next(h, "mcp__test__slow")
        h.wait(ev("notice", "carl", message=contains(
            "slow on MCP server test: ")), what="the call's progress")
        wait_for(lambda: "running slow: " in mcp_text(h), 10,
                 "/mcp to show the call's progress")
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__slow"),
                     what="the slow call's result")
        expect(res["output"] == "slept", res)
        # carl goes on at once: what follows is looked for from here.
        mark = h.events.index(res) + 1
        expect("running" not in mcp_text(h), "progress kept after the call")
        # A question, answered with a value; the defaults fill the rest.
        approve_next(h, "mcp__test__ask", since=mark)
        q = question(h, mark)
        p = q["permission"]
        expect(p["who"] == "carl" and "MCP server test" in p["reason"] and
               "Who is deploying?" in p["command"] and
               "name (text, required): Your name" in p["command"] and
               "replicas (a whole number, optional; default 2)" in
               p["command"], p)
        h.send("/approve %s name=Ann; region=us" % q["id"])
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__ask"),
                     since=mark, what="the answered question")
        expect(res["output"] == 'answer: {"action": "accept", "content": '
               '{"name": "Ann", "region": "us", "replicas": 2}}', res)
        # Declined.
        mark = h.events.index(res) + 1
        approve_next(h, "mcp__test__ask", since=mark)
        q = question(h, mark)
        h.send("/reject %s" % q["id"])
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__ask"),
                     since=mark, what="the declined question")
        expect(res["output"] == 'answer: {"action": "decline"}', res)
        # An answer that does not fit the form: cancel, and the person
        # is told why.
        mark = h.events.index(res) + 1
        approve_next(h, "mcp__test__ask", since=mark)
        q = question(h, mark)
        h.send("/approve %s name=Bo; replicas=0" % q["id"])
        res = h.wait(ev("tool_result", "carl", tool="mcp__test__ask"),
                     since=mark, what="the wrongly answered question")
        expect(res["output"] == 'answer: {"action": "cancel"}', res)
        h.wait(ev("notice", "carl", message=contains("did not fit the "
                                                      "form")),
               since=mark, what="the notice of the wrong answer")
        h.quit()


def lead_requests(fake):
    return [r for r in fake.requests() if r.get("agent") == "lead"]


def test_resumed_agent_keeps_its_tools(fake):
    """The MCP tools an agent's conversation is bound to come back with
    it at --resume, before (and whether or not) their server is ready
    again: a model's earlier thoughts are bound to the tools, and a
    request offering others is refused."""
    fake.reset()
    fake.script(call("lead", "mcp__test__echo", text="one"),
                say("lead", "Echoed."),
                say("lead", "Still here."))
    work = tempfile.mkdtemp(prefix="huddle-mcp-")
    with team_of(fake, {"test": []}, work=work) as h:
        go(h)
        approve_next(h, "mcp__test__echo")
        h.wait_text("lead", "Echoed.")
        h.quit()
    before = offered(lead_requests(fake)[-1])
    expect("mcp__test__echo" in before, before)
    # The server now never answers: the resumed lead is offered the
    # tools of its conversation all the same.
    mark = len(lead_requests(fake))
    with team_of(fake, {"test": ["--mute"]}, work=work, resume=True) as h:
        h.send("again")
        h.wait_text("lead", "Still here.")
        h.quit()
    after = lead_requests(fake)[mark:]
    expect(after and offered(after[0]) == before,
           "the resumed lead was offered %r, not %r" % (
               offered(after[0]) if after else None, before))


def team_of(fake, servers, work=None, resume=False, extra_args=()):
    """A Huddle whose config names `servers` (name -> test server flags);
    its working tree is `work` (new when None)."""
    work = work or tempfile.mkdtemp(prefix="huddle-mcp-")
    cfg = os.path.join(tempfile.mkdtemp(prefix="huddle-mcpcfg-"),
                       "mcp.json")
    with open(cfg, "w") as f:
        json.dump({"mcpServers": {
            name: {"command": "python3", "args": [SERVER] + list(flags)}
            for name, flags in servers.items()}}, f)
    return Huddle(fake, workdir=work, resume=resume,
                  args=["--mcp-config", cfg] + list(extra_args))


def test_dead_servers_do_not_delay(fake):
    """Two servers that never answer: the lead's first model call comes
    at once (they start in the background, together), /mcp says they are
    starting, and the quit does not wait for them."""
    fake.reset()
    fake.script(say("lead", "Hello."))
    with team_of(fake, {"mute1": ["--mute"], "mute2": ["--mute"],
                        "test": []}) as h:
        t0 = time.monotonic()
        h.send("go")
        h.wait(ev("llm_call", "lead"), what="the lead's first call")
        delay = time.monotonic() - t0
        expect(delay < 1.0, "the first call waited %.1f s" % delay)
        wait_ready(h, "test")
        for name in ("mute1", "mute2"):
            line = server_line(h, name)
            expect(": starting" in line, line)
        t0 = time.monotonic()
        h.quit()
        expect(time.monotonic() - t0 < 10, "the quit waited for them")


def test_failed_start_shows_stderr(fake):
    """A server that exits at start: the notice and /mcp carry the end
    of its stderr (its last 20 lines), without terminal escapes."""
    fake.reset()
    with team_of(fake, {"broken": ["--fail"]}) as h:
        note = h.wait(ev("notice", message=contains(
            "MCP server broken could not start")), timeout=30,
            what="the notice of the failed start")["message"]
        expect("cannot find module 'left-pad'" in note, note)
        expect("\x1b" not in note and "[31m" not in note, note)
        expect("line 29 of its stderr" in note and
               "line 10 of its stderr" not in note and
               "line 11 of its stderr" in note, note)
        text = mcp_text(h)
        expect(": failed" in server_line(h, "broken"), text)
        expect("cannot find module 'left-pad'" in text and
               "\x1b" not in text, text)
        h.quit()


def test_proxy_and_cache(fake):
    """A stdio server gets the proxy's variables and a cache folder of its
    own that it can write, in the team's state (not the working tree),
    and that outlives a restart of huddle; without the network, npm is
    told to work offline."""
    fake.reset()
    work = tempfile.mkdtemp(prefix="huddle-mcp-")
    fake.script(call("lead", "mcp__test__env"), say("lead", "Done."))
    with team_of(fake, {"test": ["--env-tool"]}, work=work) as h:
        wait_ready(h)
        h.send("look")
        approve_next(h, "mcp__test__env")
        res = h.wait(ev("tool_result", "lead", tool="mcp__test__env"),
                     what="the env tool's result")
        expect(res["is_error"] is False, res)
        env = json.loads(res["output"])
        # The lead's turn ends before the quit: a turn resumed in the
        # middle would be sent at once, before the server is ready
        # again, without the tools its thinking is bound to.
        h.wait(ev("status", "lead", status="idle"),
               since=h.events.index(res), what="the end of the turn")
        h.quit()
    expect((env["HTTPS_PROXY"] or "").startswith("http://") and
           "@127.0.0.1:" in env["HTTPS_PROXY"] and env["NO_PROXY"] == "",
           env)
    cache = env["HUDDLE_MCP_CACHE"] or ""
    expect(cache.startswith(os.path.realpath(team_folder(work)) + "/") and
           not cache.startswith(os.path.realpath(work)), cache)
    for name in ("npm_config_cache", "XDG_CACHE_HOME", "UV_CACHE_DIR",
                 "PIP_CACHE_DIR"):
        expect((env[name] or "").startswith(cache + "/"), (name, env))
    expect(env["starts"] == 1 and env["npm_config_offline"] is None, env)
    # huddle again on the same tree: the server finds its cache as it
    # left it (its start counted a second time there). Without the
    # network, npm is told to use its cache alone (npx would otherwise
    # ask the registry at every start and retry for longer than a
    # start may take). (The fake is not reset: it signed the thinking
    # the resumed conversation holds.)
    fake.script(call("lead", "mcp__test__env"), say("lead", "Done."))
    with team_of(fake, {"test": ["--env-tool"]}, work=work,
                 resume=True, extra_args=["--network", "none"]) as h:
        wait_ready(h)
        with open(os.path.join(cache, "starts")) as f:
            expect(len(f.readlines()) == 2, "the cache did not last")
        h.send("look")
        approve_next(h, "mcp__test__env")
        res = h.wait(ev("tool_result", "lead", tool="mcp__test__env"),
                     what="the env tool's result")
        env = json.loads(res["output"])
        expect(env["npm_config_offline"] == "true" and
               env["HTTPS_PROXY"] is None and
               env["HUDDLE_MCP_CACHE"] == cache, env)
        h.quit()


def test_network_asked_in_huddles_name(fake):
    """A stdio server's connection through the proxy asks the person in
    huddle's name (from: system, "for MCP server NAME"), as a project's
    offers do: no agent made it, so no model is woken by it; the
    person's answer reaches the server."""
    fake.reset()
    target = "%s:443" % remote_addresses(1)[0]
    work = tempfile.mkdtemp(prefix="huddle-mcp-")
    log = os.path.join(work, "mcp.log")
    with team_of(fake, {"test": ["--log", log, "--connect", target]},
                 work=work) as h:
        req = h.wait(ev("request", type="permission", status="pending",
                        body=contains("network: " + target)),
                     what="the server's network request")
        expect(req["from"] == "system" and
               "for MCP server test" in req["body"], req)
        h.send("/reject %s not now" % req["id"])
        wait_for(lambda: [m for m in logged(log) if "connect" in m], 10,
                 "the proxy's answer to reach the server")
        answer = [m["connect"] for m in logged(log) if "connect" in m][0]
        expect(answer.startswith("HTTP/1.1 403"), answer)
        wait_ready(h)
        expect(not [e for e in h.events if e.get("event") == "llm_call"],
               "a model was woken: %r" % [e for e in h.events
                                          if e.get("agent") == "lead"])
        h.quit()


def picture_png():
    """The base64 of the PNG the test server's picture tool answers."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("mcp_test_server", SERVER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PICTURE_PNG


PICTURE_LINES = ("a red picture\n"
                 "[image image/png 4x3, passed to the model]\n"
                 "[image image/tiff not passed on: the models take png, "
                 "jpeg, gif or webp]")


def image_seen(api, body, data):
    """Whether a recorded request body carries the picture as `api`
    takes it: the Messages API in the tool_result's content, chat
    completions in a user message after the tool message (which keeps the
    text), Responses in the function_call_output's output."""
    msgs = conversation(body)
    url = "data:image/png;base64," + data
    if api == "anthropic":
        for m in msgs:
            for b in m.get("content") if isinstance(m.get("content"),
                                                     list) else []:
                if b.get("type") != "tool_result" or \
                        not isinstance(b.get("content"), list):
                    continue
                c = b["content"]
                return (c[0] == {"type": "text", "text": PICTURE_LINES} and
                        c[1:] == [{"type": "image", "source": {
                            "type": "base64", "media_type": "image/png",
                            "data": data}}])
        return False
    if api == "openai-chat":
        for i, m in enumerate(msgs[:-1]):
            if m.get("role") != "tool" or m.get("content") != PICTURE_LINES:
                continue
            nxt = msgs[i + 1]
            parts = nxt.get("content")
            return (nxt.get("role") == "user" and isinstance(parts, list)
                    and m["tool_call_id"] in parts[0].get("text", "") and
                    parts[1] == {"type": "image_url",
                                 "image_url": {"url": url}})
        return False
    for item in msgs:
        if item.get("type") == "function_call_output" and \
                isinstance(item.get("output"), list):
            return item["output"] == [
                {"type": "input_text", "text": PICTURE_LINES},
                {"type": "input_image", "image_url": url}]
    return False


def test_image_result(fake, api):
    """The lead calls the picture tool: the PNG reaches its model in the
    API's shape, the TIFF is a line; the events show lines, never base64;
    a resumed team sends the picture again."""
    fake.reset()
    data = picture_png()
    work = tempfile.mkdtemp(prefix="huddle-mcpimg-")
    cfg = os.path.join(tempfile.mkdtemp(prefix="huddle-mcpcfg-"),
                       "mcp.json")
    with open(cfg, "w") as f:
        json.dump({"mcpServers": {"pics": {
            "command": "python3", "args": [SERVER, "--image-tool"]}}}, f)
    args, env = ["--mcp-config", cfg], None
    if api != "anthropic":
        env = {"OPENAI_API_KEY": API_KEY,
               "OPENAI_BASE_URL": fake.openai_url}
        args += (["--provider", "openai", "--model", OPENAI_TEST_MODEL]
                 if api == "openai" else ["--provider", "openai-chat"])

    def lead_requests():
        return [r for r in fake.requests() if r.get("agent") == "lead"]

    fake.script(call("lead", "mcp__pics__picture"), say("lead", "Seen."))
    with Huddle(fake, workdir=work, args=args, env=env) as h:
        wait_ready(h, "pics")
        h.send("look")
        approve_next(h, "mcp__pics__picture")
        res = h.wait(ev("tool_result", "lead", tool="mcp__pics__picture"),
                     what="the picture's result")
        expect(res["is_error"] is False and res["output"] == PICTURE_LINES,
               res)
        h.wait_text("lead", "Seen.")
        expect(not any(data[:40].encode() in line for line in h.raw),
               "base64 in the events")
        wait_for(lambda: any(image_seen(api, r["body"], data)
                             for r in lead_requests()), 10,
                 "the picture in a request")
        h.quit()
    # Resumed, the conversation still holds the picture. (The server
    # must be ready first: the thoughts of the model are bound to the
    # tool list, which holds the server's tools only once it is.)
    fake.reset()
    fake.script(say("lead", "Still seen."))
    with Huddle(fake, workdir=work, args=args, env=env, resume=True) as h:
        wait_ready(h, "pics")
        h.send("again")
        h.wait_text("lead", "Still seen.")
        expect(any(image_seen(api, r["body"], data)
                   for r in lead_requests()),
               "the resumed request lost the picture")
        h.quit()


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("a teammate calls an MCP tool over stdio once approved",
              test_stdio_call, fake)
        r.run("a teammate calls an MCP tool over HTTP (handshake, "
              "session, SSE)", test_legacy_http_call, fake)
        r.run("a call's reply sent on the server's own stream is the "
              "call's", test_reply_on_the_servers_own_stream, fake)
        r.run("a rejected call is not made; an unknown tool is refused",
              test_rejected_and_unknown, fake)
        r.run("an MCP call is interrupted; a dead server restarts; a "
              "changed list is read again", test_interrupt_crash_restart_and_change,
              fake)
        r.run("a call's progress shows; a server's questions go to the "
              "person", test_progress_and_questions, fake)
        r.run("servers that never answer do not delay the lead's first "
              "call", test_dead_servers_do_not_delay, fake)
        r.run("a failed start shows the end of the server's stderr",
              test_failed_start_shows_stderr, fake)
        r.run("a stdio server gets the proxy and a cache that lasts",
              test_proxy_and_cache, fake)
        r.run("a resumed agent keeps the MCP tools of its conversation",
              test_resumed_agent_keeps_its_tools, fake)
        r.run("a server's network request is huddle's: no model is woken",
              test_network_asked_in_huddles_name, fake)
        for api in ("anthropic", "openai-chat", "openai"):
            r.run("an image of a result reaches the model (%s), also "
                  "after --resume" % api, test_image_result, fake, api)
    r.finish()


if __name__ == "__main__":
    main()
