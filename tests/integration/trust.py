#!/usr/bin/env python3
"""The person's trust, end to end: what a hostile teammate's bash can
reach. The real binary in --headless mode against the fake LLM server,
with a sentinel API key that must never show up where a tool can read it.

Covers: the key is not in huddle's /proc/PID/environ nor in a tool's
environment, secret-looking variables (and URLs with passwords) are
kept from tools unless --pass-env lets one through, the debug log is
0600 and never holds the key, and one team runs in one huddle at a time.
"""

import os
import stat
import subprocess
import sys
import tempfile

SENTINEL = "sk-ant-SENTINEL-7f3a9c"
os.environ["HUDDLE_TEST_KEY"] = SENTINEL

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import HUDDLE, FakeLLM, Results  # noqa: E402
from team_driver import Huddle, call, ev, expect, notes  # noqa: E402


def run_bash(fake, command, args=(), env=None):
    """The lead runs one bash command; returns its output."""
    fake.reset()
    fake.script(call("lead", "bash", command=command), *notes("lead", 4))
    with Huddle(fake, args=list(args), env=env) as h:
        h.send("go")
        res = h.wait(ev("tool_result", "lead", tool="bash"), what="bash")
        h.send("/quit")
        expect(h.wait_exit() == 0, "huddle did not quit cleanly")
    return res["output"]


def test_key_not_in_environ(fake):
    # bash's parent is huddle: its environment block is what a hostile
    # command would read to find the key.
    out = run_bash(fake, "tr '\\0' '\\n' < /proc/$PPID/environ; "
                         "echo; env; echo done")
    expect("done" in out, out)
    expect(SENTINEL not in out, "the key is readable: " + out)
    expect("ANTHROPIC_API_KEY=sk" not in out, out)


def test_secret_variables_are_kept_from_tools(fake):
    env = {"OPENAI_KEY": "leak-1", "MY_APIKEY": "leak-2",
           "DATABASE_URL": "postgres://app:leak-3@db/x",
           "SESSION_COOKIE": "leak-4", "EDITOR": "visible-editor",
           "PASSME_TOKEN": "passed-through"}
    out = run_bash(fake, "env", args=["--pass-env", "PASSME_TOKEN"], env=env)
    for value in ("leak-1", "leak-2", "leak-3", "leak-4"):
        expect(value not in out, "%s reached a tool: %s" % (value, out))
    expect("EDITOR=visible-editor" in out, out)
    expect("PASSME_TOKEN=passed-through" in out, "--pass-env did not pass")


def test_log_is_private_and_keyless(fake):
    log = os.path.join(tempfile.mkdtemp(prefix="huddle-log-"), "debug.log")
    run_bash(fake, "echo hello", args=["--log", log])
    mode = stat.S_IMODE(os.stat(log).st_mode)
    expect(mode == 0o600, "the log is %o" % mode)
    with open(log, errors="replace") as f:
        text = f.read()
    expect(text, "the log is empty")
    expect(SENTINEL not in text, "the log holds the key")


def test_one_huddle_per_team(fake):
    fake.reset()
    fake.script(*notes("lead", 4))
    with Huddle(fake) as h:
        h.send("hello")
        h.wait(ev("status", "lead", status="idle"), what="the first huddle")
        script = os.path.join(h.workdir, "none.json")
        with open(script, "w") as f:
            f.write('{"agents": {}}')
        second = subprocess.run(
            [HUDDLE, "--headless", "--resume", "--workdir", h.workdir,
             "--provider", "script", "--script", script],
            stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=20)
        expect(second.returncode == 1, "a second huddle ran: status %d, %s"
               % (second.returncode, second.stderr))
        expect("(PID %d)" % h.proc.pid in second.stderr, second.stderr)
        # --teams shows it live, with its workdir, out of the workdir.
        teams = subprocess.run([HUDDLE, "--teams"], capture_output=True,
                               text=True, timeout=10).stdout
        row = [line for line in teams.splitlines() if h.workdir in line]
        expect(row and row[0].startswith("live") and
               "PID %d" % h.proc.pid in row[0], teams)
        expect(not os.path.exists(os.path.join(h.workdir, ".huddle")),
               "state was kept in the workdir")
        h.send("/quit")
        expect(h.wait_exit() == 0, "the first huddle did not quit cleanly")
    # Once it is gone the team can be resumed.
    fake.script(*notes("lead", 4))
    with Huddle(fake, workdir=h.workdir, resume=True) as again:
        again.send("/quit")
        expect(again.wait_exit() == 0, "the team could not be resumed")
    teams = subprocess.run([HUDDLE, "--teams"], capture_output=True,
                           text=True, timeout=10).stdout
    row = [line for line in teams.splitlines() if h.workdir in line]
    expect(row and row[0].startswith("idle"), teams)


def test_sandbox_keeps_bash_in_its_place(fake):
    from fakellm_client import team_folder
    fake.reset()
    extra = tempfile.mkdtemp(prefix="huddle-extra-")
    outside = tempfile.mkdtemp(prefix="huddle-outside-")
    with Huddle(fake, args=["--writable", extra]) as h:
        db = os.path.join(team_folder(h.workdir), "team.db")
        attack = (
            "python3 -c \"import sqlite3; c = sqlite3.connect('%s'); "
            "c.execute('UPDATE requests SET status = 1'); c.commit()\"; "
            "echo sqlite=$?; touch %s/planted; echo state=$?; "
            "touch %s/escape; echo outside=$?; "
            "head -c 1 /proc/$PPID/mem >/dev/null; echo mem=$?; "
            "touch in-workdir %s/allowed $TMPDIR/scratch; echo ok=$?; "
            "touch %s/last" % (db, os.path.dirname(db), outside, extra,
                               outside))
        fake.script(call("lead", "bash", command=attack), *notes("lead", 4))
        h.send("go")
        out = h.wait(ev("tool_result", "lead", tool="bash"),
                     what="bash")["output"]
        for probe in ("sqlite", "state", "outside", "mem"):
            expect("%s=0" % probe not in out, "%s got through: %s"
                   % (probe, out))
        expect("ok=0" in out, "the allowed writes failed: " + out)
        expect("--writable" in out, "no hint about the sandbox: " + out)
        expect(os.path.exists(os.path.join(h.workdir, "in-workdir")) and
               os.path.exists(os.path.join(extra, "allowed")), out)
        expect(not os.path.exists(os.path.join(outside, "escape")), out)
        mark = len(h.events)
        h.send("/team")
        team = h.wait(ev("team"), since=mark, what="the team")
        expect("Landlock" in team["sandbox"], team["sandbox"])
        h.send("/quit")
        expect(h.wait_exit() == 0, "huddle did not quit cleanly")


def test_no_network(fake):
    fake.reset()
    probe = ("python3 -c \"import socket; "
             "socket.create_connection(('127.0.0.1', %d), 2)\"; "
             "echo net=$?" % fake.port)
    fake.script(call("lead", "bash", command=probe), *notes("lead", 4))
    with Huddle(fake, args=["--no-network"]) as h:
        h.send("go")
        out = h.wait(ev("tool_result", "lead", tool="bash"),
                     what="bash")["output"]
        mark = len(h.events)
        h.send("/team")
        team = h.wait(ev("team"), since=mark, what="the team")
        h.send("/quit")
        expect(h.wait_exit() == 0, "huddle did not quit cleanly")
    if "network denied" in team["sandbox"]:
        expect("net=0" not in out, "a command connected: " + out)
    else:
        print("  (this kernel cannot deny the network: %s)" % team["sandbox"])


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("the key is not in huddle's environment block",
              test_key_not_in_environ, fake)
        r.run("secret-looking variables are kept from tools",
              test_secret_variables_are_kept_from_tools, fake)
        r.run("the log is 0600 and never holds the key",
              test_log_is_private_and_keyless, fake)
        r.run("one huddle per team", test_one_huddle_per_team, fake)
        r.run("the sandbox keeps bash out of the state, outside the "
              "workdir and out of huddle's memory",
              test_sandbox_keeps_bash_in_its_place, fake)
        r.run("--no-network", test_no_network, fake)
    r.finish()


if __name__ == "__main__":
    main()
