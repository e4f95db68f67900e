#!/usr/bin/env python3
"""bench/screen.py: the screen's figures (doc/benchmarks.md).

P7  launch -> first frame of `huddle --demo`, and of `huddle --resume` of a
    team with 1,000 messages, measured from the terminal's side: the time
    until the whole first frame (its key bar) has been written to a pty.
P5  RSS of the real binary on a real terminal (tmux) with the lead and 2
    idle teammates. (bench/screen redraw measures 32 teammates with 5,000
    lines each, and the time of a full redraw.)
P4  8 teammates each streaming 2,000 chars/s for 20 s through the fake
    LLM server, in tmux: huddle's CPU as a share of one core, and whether
    each pane shows the end of its stream when it is over.

usage: bench/screen.py [BUILD_DIR]   (default: build)
"""

import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
sys.path.insert(0, os.path.join(TOP, "tests", "screen"))
sys.path.insert(0, os.path.join(TOP, "bench"))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "build"))
HUDDLE = os.path.join(BUILD, "src", "huddle")
os.environ["top_srcdir"] = TOP
os.environ["top_builddir"] = BUILD

from fakellm_client import API_KEY, FakeLLM  # noqa: E402
from screen_driver import Screen  # noqa: E402
from idle import huddle_pid  # noqa: E402

ENV = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def first_frame(args, cwd=None):
    """Seconds from exec to the first complete frame on a 120x40 pty."""
    pid, fd = pty.fork()
    if pid == 0:
        env = dict(os.environ)
        env.update(ENV)
        os.execve(HUDDLE, [HUDDLE] + args, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    start = time.monotonic()
    seen = b""
    took = None
    while time.monotonic() - start < 10:
        r, _, _ = select.select([fd], [], [], 0.05)
        if fd in r:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
            if b"Quit" in seen:
                took = time.monotonic() - start
                break
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.read(fd, 65536)
        except OSError:
            pass
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            break
        time.sleep(0.02)
    os.close(fd)
    return took


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    return xs[len(xs) // 2] if xs else float("nan")


def p7():
    demo = [first_frame(["--demo"]) for _ in range(10)]
    print("P7 launch -> first frame, --demo (10 runs): median %.1f ms, max %.1f ms"
          % (median(demo) * 1000, max(demo) * 1000))
    times = []
    for _ in range(5):
        work = tempfile.mkdtemp(prefix="huddle-resume-")
        subprocess.run([os.path.join(BUILD, "bench", "screen"), "make-team", work, "1000"],
                       check=True)
        script = os.path.join(work, "script.json")
        with open(script, "w") as f:
            json.dump({"agents": {}}, f)
        times.append(first_frame(["--resume", "--provider", "script", "--script", script,
                                  "--workdir", work, "--quit-timeout", "0"]))
    print("P7 --resume of a team with 1,000 messages -> first frame (5 runs): "
          "median %.1f ms, max %.1f ms" % (median(times) * 1000, max(times) * 1000))


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def p5():
    work = tempfile.mkdtemp(prefix="huddle-rss-")
    script = os.path.join(work, "script.json")
    spawn = [{"name": "spawn_teammate", "input": {"name": n, "role": "idler", "prompt": "hi"}}
             for n in ("alice", "bob")]
    with open(script, "w") as f:
        json.dump({"agents": {"lead": [{"tools": spawn}] + [{"text": "ok"}] * 10,
                              "*": [{"text": "ready"}]}}, f)
    cmd = "%s --provider script --script %s --workdir %s" % (HUDDLE, script, work)
    with Screen(cmd, env=ENV, cols=120, rows=40) as s:
        s.wait_for("lead>", 10)
        s.send_text("go")
        s.send_keys("Enter")
        s.wait_for(lambda t: "alice · idler · idle" in t and "bob · idler · idle" in t, 15,
                   "both teammates idle")
        time.sleep(1)
        print("P5 RSS, lead + 2 idle teammates on a 120x40 screen: %.1f MiB"
              % rss_mib(huddle_pid(work)))
        s.send_keys("F10")
        s.exit_status(20)


def p4(seconds=20, rate=2000, mates=8):
    chars = seconds * rate
    with FakeLLM() as fake:
        items = [{"agent": "lead", "kind": "tool_use",
                  "calls": [{"name": "spawn_teammate",
                             "input": {"name": "mate%d" % i, "role": "writer",
                                       "prompt": "Write."}} for i in range(mates)]}]
        items += [{"agent": "lead", "kind": "text", "text": "ok"}] * (mates * 3)
        for i in range(mates):
            body = ("mate%d writes " % i + "lorem ipsum dolor sit amet " * chars)[:chars - 12]
            items.append({"agent": "mate%d" % i, "kind": "text",
                          "text": body + " END-mate%d" % i,
                          "delta_chars": 20, "chunk_delay_ms": 10})
        fake.script(*items)
        work = tempfile.mkdtemp(prefix="huddle-stream-")
        env = dict(ENV)
        env.update({"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.anthropic_url})
        cmd = "%s --workdir %s" % (HUDDLE, work)
        with Screen(cmd, env=env, cols=200, rows=60) as s:
            s.wait_for("lead>", 10)
            pid = huddle_pid(work)
            s.send_text("go")
            s.send_keys("Enter")
            s.wait_for(lambda t: t.count("· writer ·") == mates, 15, "all panes")
            c0, t0 = cpu_seconds(pid), time.monotonic()
            s.wait_for(lambda t: all("END-mate%d" % i in t for i in range(mates)),
                       seconds * 3 + 30, "the end of every stream on screen")
            c1, t1 = cpu_seconds(pid), time.monotonic()
            print("P4 %d teammates streaming %d chars/s each: %.1f s, huddle used %.1f%% "
                  "of one core; every pane shows its stream's end"
                  % (mates, rate, t1 - t0, 100.0 * (c1 - c0) / (t1 - t0)))
            s.send_keys("F10")
            s.exit_status(30)


def main():
    p7()
    p5()
    p4()


if __name__ == "__main__":
    main()
