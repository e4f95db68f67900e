#!/usr/bin/env python3
"""An MCP tool call on the screen, in a real terminal (tmux): a teammate
calls the stdio test server's echo tool; the call shows in its pane, the
permission request in the table with the tool and what it is given; F5
approves it there, and the result shows in the pane. A result with images
shows a line for each, never base64, live and after --resume."""

import json
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import expect, fake_screen, quit_clean, run_main  # noqa: E402

SERVER = os.path.realpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "mcp", "server.py"))
ROW = re.compile(r"(req_[0-9a-f]{8})\s+permission\s+carl → lead\s+\S+\s+"
                 r"(\w+)")


def script(fake):
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": "carl", "role": "tools",
                "prompt": "Use the tools."}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 8,
        {"agent": "carl", "kind": "tool_use", "calls": [
            {"name": "mcp__test__echo", "input": {"text": "hi there"}}]},
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


def register(r, fake):
    r.run("an MCP call: pane, table, F5, result",
          lambda: test_call_on_screen(fake))
    r.run("an MCP result with images: a line each, never base64",
          lambda: test_picture_on_screen(fake))


if __name__ == "__main__":
    run_main(register)
