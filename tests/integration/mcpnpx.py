#!/usr/bin/env python3
"""The MCP reference servers from npm, run the way a person configures
them: `npx -y @modelcontextprotocol/server-NAME@VERSION` in the person's
settings, in huddle's default sandbox, fetched from the real npm
registry through huddle's proxy.

1. memory, everything (stdio) and filesystem start together from empty
   caches; each one's npx asks for registry.npmjs.org:443, in huddle's
   name (no model is woken), and the person, once all three wait, allows
   it for the team on one request: the other two are withdrawn, nobody
   is asked again, all three become ready. The lead calls memory's
   create_entities, then read_graph, which holds the entity.
2. everything over stdio: echo, and an error result (an echo without
   its message, which the server's input validation refuses). everything
   over Streamable HTTP, started by this test outside huddle
   (`streamableHttp`, on the port its PORT variable names), configured
   as {"type": "http", "url": ...}: echo.
3. filesystem, given a folder outside the working tree as its argument,
   as its README shows: huddle declares roots (the working tree), and
   the server replaces the folders of its arguments with the client's
   roots, so list_allowed_directories names the working tree alone, the
   argument's folder is refused by the server itself, and a file in the
   working tree is listed, read and written.
4. A second start of the team (--resume), default sandbox: nobody is
   asked (the team's answer holds), every server is ready from its
   cache, and npm's log there shows no package downloaded again (npx
   still fetches the package's metadata from the registry at each
   start: the test prints what it fetched). A third with --network
   none: every server starts from its cache alone. memory's graph
   (kept beside the package in its cache) holds the entity in both, and
   nothing was ever written in the person's ~/.npm (HOME is a folder of
   the test's own, checked to hold only the test's files).

Without node and npx, or without the registry, the test is skipped (77)
with a sentence; once the registry answers, a server that does not
become ready fails the test with /mcp's text (the end of its stderr).
The servers in huddle download anew at every run (their caches are the
team's, in the test's TMPDIR): the download through the proxy is what
case 1 tests. The HTTP server, outside huddle, keeps its npx cache under
the build tree (tests/integration/npx-cache) between runs.
"""

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import (SLOW, TOP_BUILDDIR, FakeLLM, Results,  # noqa: E402
                            team_folder, wait_for)
from team_driver import Huddle, call, contains, ev, expect, say  # noqa: E402

# The servers' versions, pinned: the one place they are named.
VERSIONS = {
    "memory": "2026.8.31",
    "everything": "2026.8.31",
    "filesystem": "2026.8.31",
}
REGISTRY = "registry.npmjs.org:443"
# The first download of a server through the proxy may take a while.
READY_TIMEOUT = 120 * SLOW
# The npx cache of the HTTP server this test starts outside huddle.
HTTP_CACHE = os.path.abspath(os.path.join(TOP_BUILDDIR, "tests",
                                          "integration", "npx-cache"))
STDIO = ("memory", "everything", "filesystem")


def package(name):
    return "@modelcontextprotocol/server-%s@%s" % (name, VERSIONS[name])


def quiet_npm_env(home, cache):
    """The environment of the test's own npm: the test's HOME and a cache
    of its own (nothing lands in the person's ~/.npm)."""
    env = dict(os.environ, HOME=home, npm_config_cache=cache,
               npm_config_update_notifier="false")
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        env.pop(k, None)
    return env


def skip(why):
    print("mcpnpx: skipped: %s" % why)
    sys.exit(77)


def check_registry(home):
    """Skips the test unless node, npx and the registry are there; a
    pinned version the registry does not have fails it."""
    for tool in ("node", "npm", "npx"):
        if shutil.which(tool) is None:
            skip("no %s (install nodejs and npm to run the MCP reference "
                 "servers from npm)" % tool)
    cache = tempfile.mkdtemp(prefix="huddle-npmprobe-")
    try:
        # One try: npm would otherwise retry an unreachable registry
        # for about 70 s.
        r = subprocess.run(["npm", "view", "--fetch-retries=0",
                            package("memory"), "version"],
                           env=quiet_npm_env(home, cache),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=90)
    except subprocess.TimeoutExpired:
        skip("the npm registry did not answer `npm view %s` in 90 s"
             % package("memory"))
    out = r.stdout.decode(errors="replace")
    if r.returncode == 0 and out.strip() == VERSIONS["memory"]:
        return
    if "E404" in out:
        print("mcpnpx: the registry answers but has no %s:\n%s"
              % (package("memory"), out[-2000:]))
        sys.exit(1)
    said = [line for line in out.splitlines() if line.startswith(
        ("npm error code", "npm error request to", "npm ERR! code",
         "npm ERR! request to"))] or out.strip().splitlines()[-1:]
    skip("the npm registry cannot be reached (`npm view %s` said: %s)"
         % (package("memory"), "; ".join(said)[:400]))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class HttpEverything:
    """`npx -y server-everything streamableHttp` as the test's own child,
    in a process group of its own (npx starts the server as its child):
    its port from PORT, its output in a log."""

    def __init__(self, home):
        self.port = free_port()
        here = tempfile.mkdtemp(prefix="huddle-npxhttp-")
        self.log_path = os.path.join(here, "log")
        os.makedirs(HTTP_CACHE, exist_ok=True)
        env = quiet_npm_env(home, HTTP_CACHE)
        env["PORT"] = str(self.port)
        self.proc = subprocess.Popen(
            ["npx", "-y", package("everything"), "streamableHttp"],
            env=env, cwd=here, stdin=subprocess.DEVNULL,
            stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT,
            start_new_session=True)

    @property
    def url(self):
        return "http://127.0.0.1:%d/mcp" % self.port

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()[-3000:]

    def listening(self):
        if self.proc.poll() is not None:
            raise AssertionError("the HTTP server exited (%s):\n%s"
                                 % (self.proc.returncode, self.log()))
        try:
            socket.create_connection(("127.0.0.1", self.port), 1).close()
            return True
        except OSError:
            return False

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def mcp_text(h):
    """What /mcp says now."""
    return h.reply("/mcp")["message"]


def server_states(h):
    """Each server's state as /mcp gives it, and the whole text."""
    text = mcp_text(h)
    states = {}
    for line in text.splitlines():
        if not line.startswith(" ") and " (" in line and "): " in line:
            name = line.split(" (", 1)[0]
            states[name] = line.split("): ", 1)[1].split(",")[0].split()[0]
    return states, text


def wait_ready(h, names, timeout):
    """Waits until /mcp says every server of names is ready; fails at
    once, with /mcp's text, when one failed."""
    deadline = time.monotonic() + timeout
    while True:
        states, text = server_states(h)
        if all(states.get(n) == "ready" for n in names):
            return
        bad = [n for n in names if states.get(n) == "failed"]
        expect(not bad, "MCP server %s failed; /mcp says:\n%s"
               % (", ".join(bad), text))
        expect(time.monotonic() < deadline, "not ready in %d s; /mcp "
               "says:\n%s" % (timeout, text))
        h._pump(0.5)


def wait_until(h, condition, timeout, what):
    """Reads huddle's events until condition() holds, for at most
    timeout seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        expect(time.monotonic() < deadline, "timed out after %d s waiting "
               "for %s" % (timeout, what))
        h._pump(0.2)


def network_requests(h, since=0, status=None):
    return [e for e in h.events[since:] if e.get("event") == "request" and
            e.get("body", "").startswith("network: ") and
            (status is None or e.get("status") == status)]


def approve_call(h, tool, since=0):
    """Approves the permission request of MCP tool `tool` (its full name);
    returns the call's result."""
    req = h.wait(ev("request", type="permission", status="pending",
                    permission=lambda p: isinstance(p, dict) and
                    p.get("tool") == tool), since=since, timeout=30,
                 what="the permission request for %s" % tool)
    h.send("/approve %s" % req["id"])
    return h.wait(ev("tool_result", "lead", tool=tool), since=since,
                  timeout=60, what="the result of %s" % tool)


def settings_home(home, servers):
    """The person's settings (in HOME/.config) naming servers."""
    conf = os.path.join(home, ".config")
    os.makedirs(os.path.join(conf, "huddle"), exist_ok=True)
    with open(os.path.join(conf, "huddle", "settings.json"), "w") as f:
        json.dump({"mcpServers": servers}, f, indent=2)
    return {"HOME": home, "XDG_CONFIG_HOME": conf}


class Run:
    """What the cases share: the person's HOME, the working tree, the
    folders the filesystem server is given, the HTTP server, huddle."""

    def __init__(self, fake):
        self.fake = fake
        self.home = tempfile.mkdtemp(prefix="huddle-npxhome-")
        self.work = tempfile.mkdtemp(prefix="huddle-npxwork-")
        self.outside = tempfile.mkdtemp(prefix="huddle-npxfiles-")
        for folder in (self.outside, self.work):
            with open(os.path.join(folder, "notes.txt"), "w") as f:
                f.write("written by the test\n")
        self.http = None
        self.h = None

    def servers(self):
        return {
            # As server-memory's README writes it, version pinned.
            "memory": {"command": "npx", "args": ["-y", package("memory")]},
            "everything": {"command": "npx",
                           "args": ["-y", package("everything")]},
            "filesystem": {"command": "npx",
                           "args": ["-y", package("filesystem"),
                                    self.outside]},
            "web": {"type": "http", "url": self.http.url},
        }

    def home_files(self):
        """What is in HOME besides the test's own files."""
        found = []
        for root, dirs, files in os.walk(self.home):
            for name in dirs + files:
                rel = os.path.relpath(os.path.join(root, name), self.home)
                if rel not in (".config", ".config/huddle",
                               ".config/huddle/settings.json"):
                    found.append(rel)
        return found


def case_first_start(run):
    """Case 1: three npx servers from empty caches; one answer for the
    team; memory's create_entities and read_graph."""
    fake = run.fake
    fake.reset()
    fake.script(
        call("lead", "mcp__memory__create_entities", entities=[{
            "name": "huddle_test", "entityType": "project",
            "observations": ["runs the MCP reference servers"]}]),
        call("lead", "mcp__memory__read_graph"),
        call("lead", "mcp__everything__echo", message="hello over stdio"),
        call("lead", "mcp__everything__echo"),
        call("lead", "mcp__web__echo", message="hello over HTTP"),
        call("lead", "mcp__filesystem__list_allowed_directories"),
        call("lead", "mcp__filesystem__list_directory", path=run.outside),
        call("lead", "mcp__filesystem__list_directory", path=run.work),
        call("lead", "mcp__filesystem__read_text_file",
             path=os.path.join(run.work, "notes.txt")),
        call("lead", "mcp__filesystem__write_file",
             path=os.path.join(run.work, "new.txt"), content="yes\n"),
        say("lead", "Done."))
    # The HTTP server listens before huddle starts: a server that cannot
    # be reached at the start is not tried again by itself.
    run.http = HttpEverything(run.home)
    t0 = time.monotonic()
    wait_for(lambda: run.http.listening(), READY_TIMEOUT,
             "the HTTP server to listen")
    print("mcpnpx: the HTTP server (outside huddle) listened after %.1f s"
          % (time.monotonic() - t0))
    t0 = time.monotonic()
    run.h = h = Huddle(fake, workdir=run.work,
                       env=settings_home(run.home, run.servers())).start()
    # Each stdio server's npx asks for the registry; the person answers
    # once all three wait, as one reading the table would find them.
    wait_until(h, lambda: len(network_requests(h, status="pending")) >= 3,
               60 * SLOW, "each server's request for the registry")
    asked = network_requests(h, status="pending")
    for req in asked:
        expect(req["body"].startswith("network: " + REGISTRY) and
               req["from"] == "system", req)
    by_server = {req["body"].split("for MCP server ")[1].split(" ")[0]: req
                 for req in asked}
    expect(sorted(by_server) == sorted(STDIO), by_server)
    h.send("/approve %s team" % by_server["memory"]["id"])
    wait_ready(h, STDIO, READY_TIMEOUT)
    first = time.monotonic() - t0
    # The other two were withdrawn, saying why; nothing else was asked.
    # (The withdrawal is made on huddle's next tick, after the servers
    # went on: it is waited for.)
    for name in ("everything", "filesystem"):
        rid = by_server[name]["id"]

        def last_of(rid=rid):
            return [e for e in h.events if e.get("event") == "request" and
                    e.get("id") == rid][-1]
        wait_until(h, lambda: last_of()["status"] != "pending", 10 * SLOW,
                   "%s's request to be withdrawn" % name)
        last = last_of()
        expect(last["status"] == "cancelled" and "allowed for the whole "
               "team (%s)" % by_server["memory"]["id"] in last["response"],
               last)
    expect(len(network_requests(h, status="pending")) == 3,
           "asked again: %r" % network_requests(h, status="pending"))
    print("mcpnpx: the three servers were ready %.1f s after huddle "
          "started" % first)
    # The cache of each is the team's, not HOME's.
    npx = os.path.join(os.path.realpath(team_folder(run.work)), "mcp")
    for name in STDIO:
        dirs = [d for d in os.listdir(npx) if d.startswith(name + "-")]
        expect(len(dirs) == 1 and os.path.isdir(os.path.join(
            npx, dirs[0], "npm", "_npx")), (name, os.listdir(npx)))
    wait_ready(h, ("web",), 30 * SLOW)
    # The requests were huddle's: no model was woken by them.
    expect(not [e for e in h.events if e.get("event") == "llm_call"],
           "a model call before the person said anything")
    h.send("remember this project")
    res = approve_call(h, "mcp__memory__create_entities")
    expect(res["is_error"] is False and "huddle_test" in res["output"], res)
    res = approve_call(h, "mcp__memory__read_graph")
    expect(res["is_error"] is False, res)
    graph = json.loads(res["output"])
    expect([e["name"] for e in graph["entities"]] == ["huddle_test"] and
           graph["entities"][0]["observations"] ==
           ["runs the MCP reference servers"], graph)
    # The graph is kept beside the package (the server's default
    # MEMORY_FILE_PATH), so in the server's cache in the team's state.
    kept = glob.glob(os.path.join(
        os.path.realpath(team_folder(run.work)), "mcp", "memory-*", "npm",
        "_npx", "*", "node_modules", "@modelcontextprotocol",
        "server-memory", "dist", "memory.jsonl"))
    expect(len(kept) == 1 and "huddle_test" in open(kept[0]).read(), kept)


def case_everything(run):
    """Case 2: everything's echo over stdio, its error result, and echo
    over Streamable HTTP."""
    h = run.h
    res = approve_call(h, "mcp__everything__echo")
    expect(res["is_error"] is False and
           res["output"] == "Echo: hello over stdio", res)
    mark = len(h.events)
    res = approve_call(h, "mcp__everything__echo", since=mark)
    # The SDK's input validation, as a result the server marks isError.
    expect(res["is_error"] is True and "Input validation error" in
           res["output"] and "message" in res["output"], res)
    print("mcpnpx: everything's echo without a message: %s"
          % " ".join(res["output"].split())[:300])
    res = approve_call(h, "mcp__web__echo")
    expect(res["is_error"] is False and
           res["output"] == "Echo: hello over HTTP", res)
    states, text = server_states(h)
    expect(states.get("web") == "ready" and
           "web (http http://127.0.0.1:%d)" % run.http.port in text, text)


def case_filesystem(run):
    """Case 3: the filesystem server, given a folder outside the working
    tree, serves huddle's root instead: the working tree."""
    h = run.h
    work = os.path.realpath(run.work)
    res = approve_call(h, "mcp__filesystem__list_allowed_directories")
    expect(res["is_error"] is False and work in res["output"] and
           os.path.realpath(run.outside) not in res["output"], res)
    mark = len(h.events)
    res = approve_call(h, "mcp__filesystem__list_directory", since=mark)
    expect(res["is_error"] is True and "outside allowed directories" in
           res["output"], res)
    mark = len(h.events)
    res = approve_call(h, "mcp__filesystem__list_directory", since=mark)
    expect(res["is_error"] is False and "[FILE] notes.txt" in
           res["output"], res)
    res = approve_call(h, "mcp__filesystem__read_text_file")
    expect(res["is_error"] is False and
           res["output"] == "written by the test\n", res)
    res = approve_call(h, "mcp__filesystem__write_file")
    expect(res["is_error"] is False, res)
    with open(os.path.join(run.work, "new.txt")) as f:
        expect(f.read() == "yes\n", "not written")
    # The turn ends before the quit (a turn resumed in the middle would
    # be sent before the servers are ready again).
    h.wait(ev("status", "lead", status="idle"), since=h.events.index(res),
           timeout=30, what="the end of the lead's turn")
    h.quit()


def npm_fetches(run, name, since):
    """The registry fetches npm logged in server `name`'s cache since
    `since` (its debug logs there newer than that time)."""
    npx = os.path.join(os.path.realpath(team_folder(run.work)), "mcp")
    logs = [os.path.join(npx, d, "npm", "_logs") for d in os.listdir(npx)
            if d.startswith(name + "-")][0]
    lines = []
    for f in sorted(os.listdir(logs)):
        path = os.path.join(logs, f)
        if os.path.getmtime(path) >= since:
            with open(path, errors="replace") as fh:
                lines += [line.split(" ", 1)[1].strip() for line in fh
                          if " http fetch " in line]
    return lines


def resumed(run, args, name):
    """huddle again on the team (--resume, with args): every server
    ready (within `name`'s deadline), the lead reads memory's graph;
    returns the network requests asked and the seconds to ready."""
    fake = run.fake
    # Not reset: the fake signed the thinking the resumed lead holds.
    fake.script(call("lead", "mcp__memory__read_graph"),
                say("lead", "Done."))
    t0 = time.monotonic()
    with Huddle(fake, workdir=run.work, resume=True, args=args,
                env=settings_home(run.home, run.servers())) as h:
        # Ready before the lead's first request, which takes the tools
        # its earlier thinking is bound to.
        wait_ready(h, STDIO + ("web",), 60 * SLOW)
        took = time.monotonic() - t0
        print("mcpnpx: %s: the servers were ready %.1f s after huddle "
              "started" % (name, took))
        mark = len(h.events)
        h.send("what do you remember?")
        res = approve_call(h, "mcp__memory__read_graph", since=mark)
        graph = json.loads(res["output"])
        expect([e["name"] for e in graph["entities"]] == ["huddle_test"],
               graph)
        h.wait(ev("status", "lead", status="idle"),
               since=h.events.index(res), timeout=30,
               what="the end of the lead's turn")
        asked = network_requests(h)
        h.quit()
    return asked, took


def case_second_start(run):
    """Case 4: --resume in the default sandbox: nobody asked (the team's
    answer holds), no package downloaded again (npx only asks the
    registry for the package's metadata); then with --network none:
    every server from its cache alone. memory's graph kept; nothing in
    ~/.npm."""
    if run.h is not None and run.h.proc.poll() is None:
        run.h.proc.kill()
        run.h.proc.wait()
    since = time.time()
    asked, _ = resumed(run, [], "a second start")
    expect(asked == [], "asked again: %r" % asked)
    fetched = npm_fetches(run, "memory", since)
    print("mcpnpx: what npx fetched at the second start of memory:\n  %s"
          % "\n  ".join(fetched or ["nothing"]))
    expect(not any(".tgz" in line for line in fetched),
           "a package was downloaded again: %r" % fetched)
    asked, took = resumed(run, ["--network", "none"], "without network")
    expect(asked == [], "asked: %r" % asked)
    expect(run.home_files() == [], "written in HOME: %r"
           % run.home_files())


def main():
    home = tempfile.mkdtemp(prefix="huddle-npxprobe-")
    check_registry(home)
    r = Results()
    with FakeLLM() as fake:
        run = Run(fake)
        try:
            r.run("memory, everything and filesystem by npx -y in the "
                  "default sandbox: one answer for the registry, ready, "
                  "create_entities then read_graph", case_first_start, run)
            r.run("everything: echo and an error result over stdio, echo "
                  "over Streamable HTTP", case_everything, run)
            r.run("filesystem: huddle's root (the working tree) replaces "
                  "the folder of its argument; listed, read, written there",
                  case_filesystem, run)
            r.run("a second start asks nobody and downloads nothing; "
                  "without the network every server starts from its "
                  "cache; memory's graph kept, nothing in ~/.npm",
                  case_second_start, run)
        finally:
            if run.h is not None and run.h.proc.poll() is None:
                run.h.proc.kill()
                run.h.proc.wait()
            if run.http is not None:
                run.http.stop()
    r.finish()


if __name__ == "__main__":
    main()
