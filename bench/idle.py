#!/usr/bin/env python3
"""bench/idle.py: what an idle team costs (doc/benchmarks.md).

Runs a lead that spawns 8 teammates (script provider); each answers once
and goes idle — first on the full screen in tmux, then with --headless. Once all nine agents are
idle, it measures for SECONDS (default 30) the CPU time of the whole
process (from /proc/PID/task/*/schedstat, in ns) and how often each
thread woke (context switches from /proc/PID/task/*/status).

usage: bench/idle.py [SECONDS] [HUDDLE]   (HUDDLE default: build/src/huddle)
"""

import json
import os
import subprocess
import sys
import tempfile
import time

TEAMMATES = 8


def scenario():
    calls = [{"name": "spawn_teammate",
              "input": {"name": "mate%d" % i, "role": "idler", "prompt": "Say ready."}}
             for i in range(TEAMMATES)]
    return {"agents": {"lead": [{"tools": calls}] + [{"text": "ok"}] * 20,
                       "*": [{"text": "ready"}]}}


def threads(pid):
    """{tid: (cpu_ns, switches, name)} for every thread of pid."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        base = "/proc/%d/task/%s/" % (pid, tid)
        try:
            with open(base + "schedstat") as f:
                cpu = int(f.read().split()[0])
            sw = 0
            with open(base + "status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches",
                                        "nonvoluntary_ctxt_switches")):
                        sw += int(line.split()[1])
            with open(base + "comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        out[int(tid)] = (cpu, sw, name)
    return out


def huddle_pid(workdir):
    """The huddle process working in workdir (not the shell around it)."""
    out = subprocess.run(["pgrep", "-f", "--", "--workdir %s" % workdir],
                         capture_output=True, text=True).stdout.split()
    for pid in out:
        with open("/proc/%s/comm" % pid) as f:
            if f.read().strip() == "huddle":
                return int(pid)
    raise SystemExit("bench: no huddle runs in %s" % workdir)


def measure(pid, seconds):
    """CPU seconds and the busiest thread's wake-ups per second."""
    before = threads(pid)
    time.sleep(seconds)
    after = threads(pid)
    cpu = sum(after[t][0] - before[t][0] for t in after if t in before) / 1e9
    worst = max(((after[t][1] - before[t][1]) / seconds, after[t][2])
                for t in after if t in before)
    return len(after), cpu, worst


def with_screen(huddle, seconds):
    """The same team on the full screen, in tmux."""
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(top, "tests", "screen"))
    from screen_driver import Screen
    work = tempfile.mkdtemp(prefix="huddle-idle-")
    script = os.path.join(work, "scenario.json")
    with open(script, "w") as f:
        json.dump(scenario(), f)
    cmd = [huddle, "--provider", "script", "--script", script, "--workdir", work]
    with Screen(cmd, cols=200, rows=60) as s:
        s.wait_for("lead>", 10)
        s.send_text("go")
        s.send_keys("Enter")
        s.wait_for(lambda t: t.count("· idler · idle") == TEAMMATES and
                   "lead · idle" in t, 30, "an idle team")
        time.sleep(1)
        pid = huddle_pid(work)
        n, cpu, worst = measure(pid, seconds)
        print("P3 idle team: lead + %d idle teammates, full screen (tmux), %.0f s"
              % (TEAMMATES, seconds))
        print("  threads %d  CPU %.4f s in total  busiest thread wakes %.2f/s (%s)"
              % (n, cpu, worst[0], worst[1]))
        s.send_keys("F10")
        s.exit_status(30)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    huddle = sys.argv[2] if len(sys.argv) > 2 else os.path.join(top, "build", "src", "huddle")
    with_screen(huddle, seconds)
    work = tempfile.mkdtemp(prefix="huddle-idle-")
    script = os.path.join(work, "scenario.json")
    with open(script, "w") as f:
        json.dump(scenario(), f)
    proc = subprocess.Popen([huddle, "--headless", "--provider", "script", "--script", script,
                             "--workdir", work], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    proc.stdin.write(b"go\n")
    proc.stdin.flush()
    idle = set()
    deadline = time.monotonic() + 30
    for raw in proc.stdout:
        ev = json.loads(raw)
        if ev.get("event") == "status":
            if ev.get("status") == "idle":
                idle.add(ev["agent"])
            else:
                idle.discard(ev["agent"])
        if len(idle) == TEAMMATES + 1 or time.monotonic() > deadline:
            break
    if len(idle) != TEAMMATES + 1:
        sys.exit("bench/idle.py: the team never went idle")
    time.sleep(1)  # let the last events drain
    n, cpu, worst = measure(proc.pid, seconds)
    proc.stdin.close()
    proc.wait(30)
    print("P3 idle team: lead + %d idle teammates, headless, %.0f s" % (TEAMMATES, seconds))
    print("  threads %d  CPU %.4f s in total  busiest thread wakes %.2f/s (%s)"
          % (n, cpu, worst[0], worst[1]))


if __name__ == "__main__":
    main()
