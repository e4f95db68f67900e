#!/usr/bin/env python3
"""huddle as the client of the MCP conformance suite's client scenarios.

`conformance client --command "mcpclient.py" --scenario NAME` starts the
scenario's MCP server, then runs this program with the server's URL as
its last argument and the scenario's name in MCP_CONFORMANCE_SCENARIO.
This program sets huddle up as a person would and drives the real
binary (the path in $HUDDLE, else src/huddle under $top_builddir):

* a temporary HOME, XDG_CONFIG_HOME, XDG_STATE_HOME, state directory and
  working tree, removed at the end, so that nothing leaks either way;
* the person's settings file, $XDG_CONFIG_HOME/huddle/settings.json,
  with one server, {"type": "http", "url": URL}, named "conformance";
* `huddle --headless --provider script --script FILE`, whose lead calls
  the scenario's tool (mcp__conformance__TOOL) when the person asks.

Then it acts as the person on the headless input: waits until `/mcp`
says the server is ready, asks the lead, approves the tool call's
permission request as it comes (the settings allow no MCP tool: every
call asks, as doc/mcp.md says), approves a question of the server (a
permission request whose body's tool is "elicitation") without feedback,
so that huddle accepts it with the form's defaults, waits for the tool's
result, and quits with `/quit`. Scenarios without a tool of their own
here (initialize, auth/*) only connect and list. Every wait has a
deadline: the whole run takes at most MCPCLIENT_BUDGET seconds (15) and
the quit, well under the 30 s after which the suite kills its client.

Its last line on stdout, which the suite keeps and mcpsuite.py reads,
says whether it got where it meant to: the server ready and, for a
scenario with a tool, the tool's result back and no error (status 0;
else 1, and stderr says what went wrong, with huddle's last events and
the end of its standard error). MCPCLIENT_TOOL=NAME has the lead call
tool NAME instead of the scenario's (mcpsuite.py's self-test).
"""

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SERVER = "conformance"
# The scenario's tool and the arguments the lead gives it.
TOOLS = {
    "tools_call": ("add_numbers", {"a": 2, "b": 3}),
    "sse-retry": ("test_reconnection", {}),
    "elicitation-sep1034-client-defaults":
        ("test_client_elicitation_defaults", {}),
}
# The auth scenarios' server has one tool; once signed in, the lead calls
# it (auth/scope-step-up asks for more scopes on that call).
AUTH_TOOL = ("test-tool", {})
# Auth scenarios where huddle must not get in: the server's start fails,
# with a sentence, and that is the goal.
AUTH_REFUSED = {
    # The server keeps answering insufficient_scope: huddle signs in
    # once and does not ask the person again for the same scopes.
    "auth/scope-retry-limit": "needs scope",
    # The protected resource metadata names another resource.
    "auth/resource-mismatch": "names another resource",
}
# The client ID metadata document huddle is configured with (the person
# would host one; the suite checks the client_id is this URL).
CIMD_URL = "https://conformance-test.local/client-metadata.json"
BROWSER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "browser.py")


def tool_for(scenario):
    """The tool the lead calls in scenario, or None."""
    if scenario.startswith("auth/"):
        return None if scenario in AUTH_REFUSED else AUTH_TOOL
    return TOOLS.get(scenario)
# All of it must end before the suite's timeout (30 s) kills us; a
# scenario that goes well takes about a second.
BUDGET = float(os.environ.get("MCPCLIENT_BUDGET", "15"))
QUIT_WAIT = 8


class Failed(Exception):
    pass


class Refused(Failed):
    """The server failed to start: /mcp's line."""

    def __init__(self, line):
        Failed.__init__(self, "the server did not start: %s" % line)
        self.line = line


def huddle_path():
    path = os.environ.get("HUDDLE")
    if path:
        return path
    top = os.environ.get("top_builddir", ".")
    return os.path.join(top, "src", "huddle")


def script_for(tool):
    """The script provider's scenario: the lead calls the tool when the
    person asks, then says it is done."""
    turns = []
    if tool is not None:
        name, args = tool
        turns = [{"text": "Calling %s." % name,
                  "tools": [{"name": "mcp__%s__%s" % (SERVER, name),
                             "input": args}]},
                 {"text": "Done."}]
    return {"agents": {"lead": turns}}


class Session:
    """One huddle --headless, its events read on a thread."""

    def __init__(self, cmd, env, errpath):
        self.err = open(errpath, "wb")
        self.errpath = errpath
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=self.err)
        self.events = []
        self.signins = 0
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            try:
                self.lines.put(json.loads(raw))
            except ValueError:
                self.lines.put({"event": "garbage",
                                "raw": raw.decode(errors="replace")})
        self.lines.put(None)

    def send(self, line):
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise Failed("huddle stopped reading its input")

    def next(self, deadline):
        """The next event, or None when the deadline passed."""
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            e = self.lines.get(timeout=left)
        except queue.Empty:
            return None
        if e is None:
            raise Failed("huddle exited (status %s)" % self.proc.wait())
        self.events.append(e)
        self.sign_in(e)
        return e

    def sign_in(self, e):
        """The person approves a sign-in request as it comes: $BROWSER
        (browser.py) then goes through the authorization server's page
        back to huddle."""
        if (e.get("event") == "request" and e.get("type") == "permission"
                and e.get("status") == "pending" and
                (e.get("body") or "").startswith("sign in: ")):
            self.signins += 1
            print("mcpclient: approving %s (%s)"
                  % (e["id"], e["body"].splitlines()[0]), file=sys.stderr)
            self.send("/approve %s" % e["id"])

    def mcp_line(self, deadline):
        """What /mcp says of the server: its first line."""
        self.send("/mcp")
        while True:
            e = self.next(deadline)
            if e is None:
                raise Failed("no answer to /mcp in time")
            if e.get("event") == "reply" and e.get("command") == "mcp":
                for line in e.get("message", "").splitlines():
                    if line.startswith(SERVER + " ("):
                        return line
                return e.get("message", "")

    def quit(self):
        """/quit, then the end of the process; killed after QUIT_WAIT."""
        if self.proc.poll() is None:
            try:
                self.send("/quit")
                self.proc.stdin.close()
            except (Failed, OSError):
                pass
            try:
                self.proc.wait(QUIT_WAIT)
            except subprocess.TimeoutExpired:
                print("mcpclient: huddle did not quit within %d s; killed"
                      % QUIT_WAIT, file=sys.stderr)
                self.kill()
        self.err.close()
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def tail(self):
        with open(self.errpath, "rb") as f:
            err = f.read()[-2000:].decode(errors="replace")
        events = "\n".join(json.dumps(e) for e in self.events[-20:])
        return "last events:\n%s\nhuddle's stderr:\n%s" % (events, err)


def wait_ready(s, deadline):
    """Until /mcp says the server is ready (huddle starts servers in the
    background); raises Failed when it failed or stopped."""
    while True:
        line = s.mcp_line(deadline)
        if ": ready" in line:
            return line
        if ": failed" in line or ": stopped" in line:
            raise Refused(line)
        pause = time.monotonic() + 0.1
        while s.next(min(pause, deadline)) is not None:
            pass
        if time.monotonic() >= deadline:
            raise Failed("the server was not ready in time: %s" % line)


def call_tool(s, tool, deadline):
    """Asks the lead to call the tool, approves what the person is asked,
    returns the tool_result event."""
    name = "mcp__%s__%s" % (SERVER, tool)
    s.send("Call %s, please." % name)
    while True:
        e = s.next(deadline)
        if e is None:
            raise Failed("no result of %s in time" % name)
        kind = e.get("event")
        if (kind == "request" and e.get("type") == "permission" and
                e.get("status") == "pending" and
                not (e.get("body") or "").startswith("sign in: ")):
            what = (e.get("permission") or {}).get("tool")
            if what in (name, "elicitation"):
                print("mcpclient: approving %s (%s)" % (e["id"], what),
                      file=sys.stderr)
                s.send("/approve %s" % e["id"])
            else:
                raise Failed("unexpected permission request: %s"
                             % json.dumps(e))
        elif kind == "tool_result" and e.get("tool") == name:
            return e
        elif kind == "error":
            raise Failed("error: %s" % e.get("message"))


def verdict(scenario, ok, what):
    """The last line on stdout, which the suite keeps (stdout.txt) and
    mcpsuite.py reads: whether this side of the scenario went well."""
    print("mcpclient: %s: %s: %s" % (scenario, "ok" if ok else "failed",
                                     what), flush=True)
    return 0 if ok else 1


def run(s, scenario, tool, deadline):
    """Plays the person's part; returns (ok, what happened)."""
    if scenario in AUTH_REFUSED:
        try:
            line = wait_ready(s, deadline)
        except Refused as e:
            ok = AUTH_REFUSED[scenario] in e.line
            print("mcpclient: %s" % e.line, file=sys.stderr)
            return ok, "the server was %srefused as it should: %s" % (
                "" if ok else "not ", e.line)
        return False, "the server became ready: %s" % line
    line = wait_ready(s, deadline)
    print("mcpclient: %s" % line, file=sys.stderr)
    if tool is None:
        return True, "the server is ready"
    res = call_tool(s, tool[0], deadline)
    print("mcpclient: %s gave%s: %s"
          % (res["tool"], " an error" if res.get("is_error") else "",
             res.get("output", "")), file=sys.stderr)
    if res.get("is_error"):
        return False, "%s gave an error" % res["tool"]
    return True, "%s gave its result" % res["tool"]


def main():
    if len(sys.argv) < 2:
        print("usage: MCP_CONFORMANCE_SCENARIO=NAME mcpclient.py URL",
              file=sys.stderr)
        return 2
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    tool = tool_for(scenario)
    # mcpsuite.py's self-test has the lead call another tool.
    if tool is not None and os.environ.get("MCPCLIENT_TOOL"):
        tool = (os.environ["MCPCLIENT_TOOL"], tool[1])
    deadline = time.monotonic() + BUDGET
    top = tempfile.mkdtemp(prefix="huddle-mcpclient-")
    s = None

    def stop(signum, frame):
        if s is not None:
            s.kill()
        shutil.rmtree(top, ignore_errors=True)
        os._exit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    try:
        home = os.path.join(top, "home")
        config = os.path.join(top, "config")
        state = os.path.join(top, "state")
        work = os.path.join(top, "work")
        for d in (home, os.path.join(config, "huddle"), state, work):
            os.makedirs(d)
        entry = {"type": "http", "url": url}
        if scenario.startswith("auth/"):
            # The person's client: a metadata document they host, and
            # the pre-registered credentials the scenario gives.
            oauth = {"clientMetadataUrl": CIMD_URL}
            context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT")
                                 or "{}")
            if context.get("client_id"):
                oauth["clientId"] = context["client_id"]
            if context.get("client_secret"):
                oauth["clientSecret"] = context["client_secret"]
            entry["oauth"] = oauth
        with open(os.path.join(config, "huddle", "settings.json"), "w") as f:
            json.dump({"mcpServers": {SERVER: entry}}, f)
        script = os.path.join(top, "script.json")
        with open(script, "w") as f:
            json.dump(script_for(tool), f)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "OPENAI_", "HUDDLE",
                                    "MCP_CONFORMANCE_", "MCPCLIENT_"))}
        env.update(HOME=home, XDG_CONFIG_HOME=config,
                   XDG_STATE_HOME=state, TMPDIR=top, BROWSER=BROWSER)
        cmd = [huddle_path(), "--headless", "--provider", "script",
               "--script", script, "--workdir", work,
               "--state-dir", os.path.join(state, "huddle"),
               "--quit-timeout", "3"]
        s = Session(cmd, env, os.path.join(top, "stderr"))
        try:
            ok, what = run(s, scenario, tool, deadline)
        except Failed as e:
            print("mcpclient: %s: %s\n%s" % (scenario, e, s.tail()),
                  file=sys.stderr)
            ok, what = False, str(e)
        code = s.quit()
        if code != 0:
            print("mcpclient: huddle exited with status %s\n%s"
                  % (code, s.tail()), file=sys.stderr)
            ok, what = False, "%s; huddle exited with status %s" % (what,
                                                                   code)
        return verdict(scenario, ok, what)
    finally:
        if s is not None:
            s.kill()
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
