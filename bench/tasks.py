#!/usr/bin/env python3
"""bench/tasks.py: autonomous teammates draining a task board.

The lead (the script provider: no network, no model time) creates a
graph of TASKS tasks in layers of WORKERS, each task waiting for two of
the layer before, and spawns WORKERS autonomous teammates, which complete
one task a model call. Reports the claim latency — from the moment a task
became ready (its last blocker completed) to its claim — at p50 and p99, the claims per second, and the total time from the first task
made to the last completed; and checks that each task was completed once
and claimed only after everything it waits for.

usage: bench/tasks.py [TASKS [WORKERS]]   (default 200 and 8; runs
$top_builddir/src/huddle, top_builddir defaulting to build/)
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("top_builddir", os.path.join(HERE, "..", "build"))
HUDDLE = os.path.join(BUILD, "src", "huddle")


def graph(tasks, workers):
    rng = random.Random(11)
    deps = []
    for i in range(tasks):
        layer = i // workers
        if layer == 0:
            deps.append([])
            continue
        prev = range((layer - 1) * workers, layer * workers)
        deps.append(["t%d" % (n + 1) for n in rng.sample(prev, min(2, len(prev)))])
    return deps


def scenario(deps, workers):
    creates = [{"name": "task_create", "input": {
        "subject": "step %d" % (i + 1), "blocked_by": d}}
        for i, d in enumerate(deps)]
    spawns = [{"name": "spawn_teammate", "input": {
        "name": "w%d" % (n + 1), "role": "worker", "autonomous": True,
        "prompt": "Take tasks from the board."}} for n in range(workers)]
    return {"agents": {
        "lead": [{"tools": creates}, {"tools": spawns},
                 {"text": "The team is on it."}, {"text": "All done."},
                 {"loop": 3}],
        "*": [{"text": "Ready."},
              {"tools": [{"name": "task_update", "input": {
                  "id": "{{task_id}}", "status": "completed",
                  "result": "done"}}]},
              {"text": "Done."}, {"loop": 1}]}}


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def main():
    tasks = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    deps = graph(tasks, workers)
    work = tempfile.mkdtemp(prefix="huddle-bench-tasks-")
    script = os.path.join(work, "script.json")
    with open(script, "w") as f:
        json.dump(scenario(deps, workers), f)
    os.mkdir(os.path.join(work, "w"))
    cmd = [HUDDLE, "--headless", "--provider", "script", "--script", script,
           "--workdir", os.path.join(work, "w"), "--state-dir",
           os.path.join(work, "state"), "--quit-timeout", "1",
           "--max-teammates", str(workers)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    proc.stdin.write(b"Go.\n")
    proc.stdin.flush()
    made, claimed, done = {}, {}, {}
    start = time.monotonic()
    for raw in proc.stdout:
        e = json.loads(raw)
        if e.get("event") != "task":
            continue
        tid, status = e["id"], e["status"]
        # updated_at: when the change committed (the board orders them).
        if status == "pending":
            made.setdefault(tid, e["created_at"])
        elif status == "in_progress":
            if tid in claimed:
                sys.exit("%s claimed twice" % tid)
            claimed[tid] = e["updated_at"]
        elif status == "completed":
            if tid in done:
                sys.exit("%s completed twice" % tid)
            done[tid] = e["updated_at"]
            if len(done) == tasks:
                break
        if time.monotonic() - start > 600:
            sys.exit("timed out with %d of %d done" % (len(done), tasks))
    proc.stdin.close()
    proc.stdout.read()      # what the quit says, so it is not blocked
    proc.wait(30)
    # The tasks of the first layer are ready before the teammates exist;
    # the latency is that of the others, made ready by a completion.
    latency = []
    for i, d in enumerate(deps):
        tid = "t%d" % (i + 1)
        if any(done[b] > claimed[tid] for b in d):
            sys.exit("%s was claimed before what it waits for was done"
                     % tid)
        if d:
            latency.append(claimed[tid] - max(done[b] for b in d))
    total = max(done.values()) - min(made.values())
    print("tasks: %d, workers: %d, each completed once, in dependency "
          "order" % (tasks, workers))
    print("claim latency: p50 %d ms, p99 %d ms (ready to claimed)"
          % (pct(latency, 50), pct(latency, 99)))
    print("total: %.2f s from the first task made to the last completed, "
          "%.0f tasks/s" % (total / 1000.0, tasks * 1000.0 / max(total, 1)))


if __name__ == "__main__":
    main()
