#!/usr/bin/env python3
"""An MCP server that asks to sign in: the person signs in, never an
agent, and no token reaches anything but the server and the person's
store.

The test server (tests/mcp/server.py --http --oauth --oauth-calls) lists
its tools to anyone but answers a tool's call with 401 until the call
carries its token, and is its own authorization server. huddle runs
headless with the real binary; $BROWSER is the conformance tests'
browser.py, which follows the redirects as a browser would. The test:

* a teammate's call to the server, approved, meets the 401: one sign-in
  request in the person's table ("sign in: web (…)"), from huddle, and
  the call waits for it; once the person approves, the browser comes
  back to huddle and the call goes through; no second sign-in request
  comes;
* the token is kept in the person's state (mcp-auth.json, 0600), /mcp
  says who is signed in, /mcp logout forgets it;
* the access token, the refresh token and the authorization code appear
  in no model request the fake LLM received, no event huddle printed,
  nothing it wrote to its standard error or its log (--log), no file
  of the team's state
  (its store, its log) but the store of sign-ins, and not in the
  environment of a teammate's command (`env`, run through bash).
"""

import json
import os
import secrets
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import (STATE_HOME, FakeLLM, Results,  # noqa: E402
                            team_folder, wait_for)
from team_driver import Huddle, call, ev, expect, say  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.realpath(os.path.join(HERE, "..", "mcp", "server.py"))
BROWSER = os.path.realpath(os.path.join(HERE, "..", "conformance",
                                        "browser.py"))


def logged(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def mcp_text(h):
    mark = len(h.events)
    h.send("/mcp")
    return h.wait(ev("reply", command="mcp"), since=mark,
                  what="/mcp")["message"]


def pending_signins(h):
    """The sign-in requests huddle printed, by id: their last state."""
    out = {}
    for e in h.events:
        if (e.get("event") == "request" and
                (e.get("body") or "").startswith("sign in: ")):
            out[e["id"]] = e
    return out


def files_under(top):
    for root, _, names in os.walk(top):
        for n in names:
            yield os.path.join(root, n)


def test_sign_in(fake):
    fake.reset()
    tmp = tempfile.mkdtemp(prefix="huddle-oauth-")
    token = "at-" + secrets.token_hex(16)
    code = "code-" + secrets.token_hex(12)
    secrets_ = (token, token + "-refresh", code)
    log = os.path.join(tmp, "server.log")
    port_file = os.path.join(tmp, "port")
    srv = subprocess.Popen([sys.executable, SERVER, "--http", "--legacy",
                            "--oauth", "--oauth-calls",
                            "--oauth-token", token,
                            "--oauth-code", code, "--port-file", port_file,
                            "--log", log])
    try:
        wait_for(lambda: os.path.exists(port_file), 10, "the HTTP server")
        url = "http://127.0.0.1:%d/mcp" % int(open(port_file).read())
        cfg = os.path.join(tmp, "mcp.json")
        with open(cfg, "w") as f:
            json.dump({"mcpServers": {"web": {"type": "http",
                                              "url": url}}}, f)
        fake.script(
            call("lead", "spawn_teammate", name="carl", role="notes",
                 prompt="Echo, then look at your environment."),
            say("lead", "Spawned."),
            call("carl", "mcp__web__echo", text="hi"),
            call("carl", "bash", command="env"),
            say("carl", "Done."),
            call("carl", "shutdown_response", request_id="{{request_id}}",
                 approve=True))
        blog = os.path.join(tmp, "browser.log")
        hlog = os.path.join(tmp, "huddle.log")
        h = Huddle(fake, args=["--mcp-config", cfg, "--log", hlog],
                   env={"BROWSER": BROWSER, "BROWSER_LOG": blog})
        with h:
            wait_for(lambda: ": ready" in mcp_text(h), 20,
                     "the server to be ready")
            expect("sign-in" not in mcp_text(h), mcp_text(h))
            # A teammate's call, approved, meets the 401.
            h.send("go")
            req = h.wait(ev("request", type="permission", status="pending",
                            permission=lambda p: isinstance(p, dict) and
                            p.get("tool") == "mcp__web__echo"),
                         timeout=20, what="carl's call's request")
            h.send("/approve %s" % req["id"])
            signin = h.wait(lambda e: e.get("event") == "request" and
                            e.get("status") == "pending" and
                            (e.get("body") or "").startswith(
                                "sign in: web (notes:read)"),
                            timeout=20, what="the sign-in request")
            expect(signin.get("from") == "system", signin)
            first = signin["body"].splitlines()[0]
            # Its first line: what for, and where the token goes.
            expect(first.startswith("sign in: web (notes:read) for %s — "
                                    "the token goes to %s;" % (
                                        url, url[:-len("/mcp")])), first)
            # What the person is shown: the authorization server's page,
            # no state, and not huddle's start page (the request is in
            # every event and the store: whoever read it could be there
            # first); nothing listens on huddle's port before approval.
            expect("/authorize" in signin["body"] and "state=" not in
                   signin["body"] and "/start/" not in signin["body"],
                   signin["body"])
            expect("waiting for the person to sign in" in mcp_text(h),
                   mcp_text(h))
            # The call waits for the person.
            time.sleep(1.5)
            expect(not any(e.get("event") == "tool_result" and
                           e.get("tool") == "mcp__web__echo"
                           for e in h.events),
                   "the call went through before the sign-in")
            h.send("/approve %s" % signin["id"])
            res = h.wait(ev("tool_result", "carl", tool="mcp__web__echo"),
                         timeout=30, what="the call's result")
            expect(res["is_error"] is False and res["output"] ==
                   "echo: hi", res)
            h.wait(ev("tool_result", "carl", tool="bash"), timeout=30,
                   what="carl's env")
            expect(len(pending_signins(h)) == 1,
                   "more than one sign-in request: %r"
                   % list(pending_signins(h)))
            with open(blog) as f:
                btext = f.read()
            expect("browser: 200 at http://127.0.0.1:" in btext,
                   "the browser did not come back to huddle")
            # Started as from the person's shell: no signal blocked, in
            # a session of its own (huddle's sweep spares it).
            started = [ln for ln in btext.splitlines()
                       if ln.startswith("started: ")]
            expect(len(started) == 1, btext)
            expect("blocked=0000000000000000 " in started[0], started)
            sid = int(started[0].rsplit("sid=", 1)[1])
            expect(sid != os.getsid(h.proc.pid), (sid, h.proc.pid))
            entries = logged(log)
            expect({"token": "authorization_code", "pkce": True} in
                   entries, entries)
            # The store: the person's, 0600, with the token in it.
            store = os.path.join(STATE_HOME, "huddle", "mcp-auth.json")
            st = os.stat(store)
            expect(stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode))
            with open(store) as f:
                expect(token in f.read(), "the token is not in the store")
            text = mcp_text(h)
            expect("sign-in: signed in (notes:read)" in text, text)
            mark = len(h.events)
            h.send("/mcp logout web")
            rep = h.wait(ev("reply", command="mcp"), since=mark,
                         what="/mcp logout")
            expect("forgotten" in rep["message"], rep)
            with open(store) as f:
                expect(token not in f.read(), "logout left the token")
            h.send("/quit")
            expect(h.wait_exit() == 0, "no clean exit: %s" % h.stderr)

        # Where no token may be: every model request, every event, the
        # standard error, the team's state (its store and log), and
        # carl's command's environment (in his request and events).
        seen = json.dumps(fake.requests())
        expect("PATH=" in seen, "carl's env did not reach his model")
        with open(hlog, "rb") as f:
            logtext = f.read().decode(errors="replace")
        expect("signed in" in logtext, "huddle's log does not tell of the "
               "sign-in")
        places = {"the model requests": seen, "huddle's log": logtext,
                  "the events": b"".join(h.raw).decode(errors="replace"),
                  "huddle's stderr": h.stderr.decode(errors="replace")}
        for path in files_under(team_folder(h.workdir)):
            with open(path, "rb") as f:
                places[path] = f.read().decode(errors="replace")
        for path in files_under(os.path.join(STATE_HOME, "huddle")):
            if os.path.basename(path).startswith("mcp-auth.json"):
                continue
            with open(path, "rb") as f:
                places[path] = f.read().decode(errors="replace")
        for where, text in places.items():
            for s in secrets_:
                expect(s not in text, "a secret of the sign-in is in %s"
                       % where)
    finally:
        srv.kill()
        srv.wait()


def test_own_header(fake):
    """A server given an Authorization header in the person's settings:
    its 401 is an error of that header's, never a sign-in."""
    fake.reset()
    tmp = tempfile.mkdtemp(prefix="huddle-oauth-")
    log = os.path.join(tmp, "server.log")
    port_file = os.path.join(tmp, "port")
    srv = subprocess.Popen([sys.executable, SERVER, "--http", "--legacy",
                            "--oauth", "--oauth-calls",
                            "--port-file", port_file, "--log", log])
    try:
        wait_for(lambda: os.path.exists(port_file), 10, "the HTTP server")
        url = "http://127.0.0.1:%d/mcp" % int(open(port_file).read())
        cfg = os.path.join(tmp, "mcp.json")
        with open(cfg, "w") as f:
            json.dump({"mcpServers": {"web": {
                "type": "http", "url": url,
                "headers": {"Authorization": "Bearer the-persons-own"}}}},
                f)
        fake.script(
            call("lead", "mcp__web__echo", text="hi"),
            say("lead", "Done."))
        h = Huddle(fake, args=["--mcp-config", cfg],
                   env={"BROWSER": BROWSER})
        with h:
            wait_for(lambda: ": ready" in mcp_text(h), 20,
                     "the server to be ready")
            h.send("go")
            req = h.wait(ev("request", type="permission", status="pending",
                            permission=lambda p: isinstance(p, dict) and
                            p.get("tool") == "mcp__web__echo"),
                         timeout=20, what="the call's request")
            h.send("/approve %s" % req["id"])
            res = h.wait(ev("tool_result", "lead", tool="mcp__web__echo"),
                         timeout=30, what="the call's result")
            expect(res["is_error"] is True and "refused the Authorization "
                   "header your settings give it" in res["output"], res)
            expect(not pending_signins(h), "a sign-in was asked for")
            expect("sign-in" not in mcp_text(h), mcp_text(h))
            h.send("/quit")
            expect(h.wait_exit() == 0, "no clean exit: %s" % h.stderr)
    finally:
        srv.kill()
        srv.wait()


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("a server that asks to sign in: the person signs in, the "
              "call goes through, no token leaks", test_sign_in, fake)
        r.run("a server given its Authorization header: no sign-in",
              test_own_header, fake)
    r.finish()


if __name__ == "__main__":
    main()
