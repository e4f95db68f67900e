#!/usr/bin/env python3
"""An MCP tool call on the screen, in a real terminal (tmux): a teammate
calls the stdio test server's echo tool; the call shows in its pane, the
permission request in the table with the tool and what it is given; F5
approves it there, and the result shows in the pane. A result with images
shows a line for each, never base64, live and after --resume. A server
that asks to sign in: one request in the table, from huddle, whose
detail view shows the sign-in page and where the token goes; F5 signs
in (through $BROWSER) and the teammate's call goes through."""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import expect, fake_screen, quit_clean, run_main  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.realpath(os.path.join(HERE, "..", "mcp", "server.py"))
BROWSER = os.path.realpath(os.path.join(HERE, "..", "conformance",
                                        "browser.py"))
SIGNIN = re.compile(r"(req_[0-9a-f]{8})\s+permission\s+system → lead\s+\S+\s+"
                    r"(\w+)\s+sign in: web")
ROW = re.compile(r"(req_[0-9a-f]{8})\s+permission\s+carl → lead\s+\S+\s+"
                 r"(\w+)")


def script(fake, tool="mcp__test__echo", text="hi there"):
    """The lead spawns carl, who calls tool with text."""
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": "carl", "role": "tools",
                "prompt": "Use the tools."}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 8,
        {"agent": "carl", "kind": "tool_use", "calls": [
            {"name": tool, "input": {"text": text}}]},
        *[{"agent": "carl", "kind": "text", "text": "Echoed."}] * 4)


def rows(text):
    return ROW.findall(text)


def server_ready(s, timeout=20):
    """Asks /mcp until it says the server test is ready."""
    deadline = time.monotonic() + timeout
    while True:
        s.send_text("/mcp")
        s.send_keys("Enter")
        try:
            s.wait_for(lambda t: re.search(r"\btest\b.*\bready\b", t), 2,
                       "the server ready")
            return
        except AssertionError:
            if time.monotonic() >= deadline:
                raise


def test_call_on_screen(fake):
    script(fake)
    cfg = os.path.join(tempfile.mkdtemp(prefix="huddle-mcpcfg-"),
                       "mcp.json")
    with open(cfg, "w") as f:
        json.dump({"mcpServers": {"test": {"command": "python3",
                                           "args": [SERVER]}}}, f)
    with fake_screen(fake, ["--mcp-config", cfg, "--quit-timeout", "2"],
                     cols=140, rows=40) as s:
        s.wait_for("lead>", 10)
        # The servers start in the background: a teammate has the tools
        # of those ready by its first request (doc/mcp.md).
        server_ready(s)
        s.send_text("go")
        s.send_keys("Enter")
        screen = s.wait_for(lambda t: any(st == "pending"
                                          for _, st in rows(t)),
                            20, "carl's MCP call in the table")
        expect("mcp__test__echo" in screen,
               "the pane or the table does not name the tool:\n" + screen)
        expect("hi there" in screen,
               "what the tool is given is not shown:\n" + screen)
        s.send_keys("BTab")      # the table
        s.send_keys("F5")
        s.wait_for(lambda t: any(st == "approved" for _, st in rows(t)),
                   10, "F5 approved the call")
        s.wait_for("echo: hi there", 20, "the result in carl's pane")
        quit_clean(s)


def test_picture_on_screen(fake):
    fake.reset()
    fake.script({"agent": "lead", "kind": "tool_use", "calls": [
                    {"name": "mcp__test__picture", "input": {}}]},
                *[{"agent": "lead", "kind": "text", "text": "Seen."}] * 3)
    cfg = os.path.join(tempfile.mkdtemp(prefix="huddle-mcpcfg-"),
                       "mcp.json")
    with open(cfg, "w") as f:
        json.dump({"mcpServers": {"test": {
            "command": "python3", "args": [SERVER, "--image-tool"]}}}, f)
    work = tempfile.mkdtemp(prefix="huddle-screen-")
    args = ["--mcp-config", cfg, "--quit-timeout", "2"]
    line = "[image image/png 4x3, passed to the model]"
    with fake_screen(fake, args, cols=140, rows=40, workdir=work) as s:
        s.wait_for("lead>", 10)
        server_ready(s)
        s.send_text("look")
        s.send_keys("Enter")
        s.wait_for(re.compile(r"permission\s+lead → lead\s+\S+\s+pending"),
                   20, "the call in the table")
        s.send_keys("F5")        # the hint line's request
        s.wait_for("a red picture", 20, "the result in the pane")
        s.send_keys("C-o")       # the folded lines in full
        screen = s.wait_for(line, 10, "the image's line")
        expect("not passed on: the models take png" in screen, screen)
        expect("iVBOR" not in screen, "base64 on the screen:\n" + screen)
        quit_clean(s)
    # Resumed, the pane shows the stored result the same way.
    fake.reset()
    with fake_screen(fake, args + ["--resume"], cols=140, rows=40,
                     workdir=work) as s:
        s.wait_for("a red picture", 20, "the stored result")
        s.send_keys("C-o")
        screen = s.wait_for(line, 10, "the stored image's line")
        expect("iVBOR" not in screen, "base64 on the screen:\n" + screen)
        quit_clean(s)


def test_sign_in_on_screen(fake):
    script(fake, "mcp__web__echo", "signed")
    tmp = tempfile.mkdtemp(prefix="huddle-signin-")
    port_file = os.path.join(tmp, "port")
    srv = subprocess.Popen([sys.executable, SERVER, "--http", "--legacy",
                            "--oauth", "--oauth-calls", "--port-file",
                            port_file, "--log", os.path.join(tmp, "log")])
    try:
        deadline = time.monotonic() + 10
        while not os.path.exists(port_file):
            expect(time.monotonic() < deadline, "the HTTP server")
            time.sleep(0.05)
        url = "http://127.0.0.1:%d/mcp" % int(open(port_file).read())
        cfg = os.path.join(tmp, "mcp.json")
        with open(cfg, "w") as f:
            json.dump({"mcpServers": {"web": {"type": "http",
                                              "url": url}}}, f)
        with fake_screen(fake, ["--mcp-config", cfg, "--quit-timeout", "2"],
                         cols=160, rows=40,
                         env={"BROWSER": BROWSER,
                              "BROWSER_LOG": os.path.join(tmp, "b.log")}) as s:
            s.wait_for("lead>", 10)
            s.send_text("go")
            s.send_keys("Enter")
            s.wait_for(lambda t: any(st == "pending" for _, st in rows(t)),
                       20, "carl's MCP call in the table")
            s.send_keys("BTab")      # the table
            s.send_keys("F5")
            screen = s.wait_for(lambda t: any(
                st == "pending" for _, st in SIGNIN.findall(t)), 20,
                "the sign-in request in the table")
            expect(len(SIGNIN.findall(screen)) == 1, screen)
            # Its detail view: the sign-in page, where the token goes.
            s.send_text("/sign in")      # the table's filter
            s.send_keys("Enter")
            s.wait_for(lambda t: len(rows(t)) == 0, 10,
                       "the filter to leave the sign-in alone")
            s.send_keys("Enter")
            detail = s.wait_for("system's permission", 10,
                                "the sign-in's detail view")
            expect("sign-in page: %s/authorize" % url[:-len("/mcp")] in
                   detail, detail)
            expect("the token goes to http://127.0.0.1:" in detail, detail)
            expect("state=" not in detail and "/start/" not in detail,
                   detail)
            s.send_keys("F5")            # approves, from the view
            s.wait_for("echo: signed", 30, "the call's result in carl's pane")
            quit_clean(s)
    finally:
        srv.kill()
        srv.wait()


def register(r, fake):
    r.run("an MCP call: pane, table, F5, result",
          lambda: test_call_on_screen(fake))
    r.run("an MCP result with images: a line each, never base64",
          lambda: test_picture_on_screen(fake))
    r.run("a server that asks to sign in: one request, F5, the call",
          lambda: test_sign_in_on_screen(fake))


if __name__ == "__main__":
    run_main(register)
