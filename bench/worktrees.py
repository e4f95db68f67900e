#!/usr/bin/env python3
"""bench/worktrees.py: teammates in git worktrees, from spawn to merge.

A repository of FILES files (100 lines each, one commit); the lead (the
script provider: no network, no model time) spawns MATES teammates, each
with a worktree of its own, and each changes 100 of the files with one
command. Reports how long the spawns took (a worktree checked out, its
Landlock ruleset built, the teammate started), then, with the teammates
idle, how long `/diff`, `/worktrees` and `/merge` take from the line
written to huddle's input to its answer.

usage: bench/worktrees.py [FILES [MATES]]   (default 2000 and 4; runs
$top_builddir/src/huddle, top_builddir defaulting to build/)
"""

import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("top_builddir", os.path.join(HERE, "..", "build"))
HUDDLE = os.path.join(BUILD, "src", "huddle")
EXTRA = os.environ.get("HUDDLE_BENCH_ARGS", "").split()
# Teammate wN changes line 10*N of f1..f100 (its worktree is named after
# it), so that the merges do not conflict, and adds a file.
CHANGE = ('n=$(basename "$PWD" | tr -dc 0-9); l=$((n * 10)); '
          'for i in $(seq 1 100); do '
          'sed -i "s/^line $l\\$/line $l, changed/" f$i.txt; done; '
          'echo new > new-$n.txt')


def git(repo, *args):
    subprocess.run(["git", "-C", repo] + list(args), check=True,
                   capture_output=True)


def make_repo(path, files):
    os.mkdir(path)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Bench")
    git(path, "config", "user.email", "bench@example.invalid")
    body = "".join("line %d\n" % n for n in range(1, 101))
    for i in range(1, files + 1):
        with open(os.path.join(path, "f%d.txt" % i), "w") as f:
            f.write(body)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "files")


def scenario(mates):
    spawns = [{"name": "spawn_teammate", "input": {
        "name": "w%d" % (n + 1), "role": "coder", "isolation": "worktree",
        "prompt": "Change the files."}} for n in range(mates)]
    return {"agents": {
        "lead": [{"tools": spawns}, {"text": "The team is on it."},
                 {"loop": 1}],
        "*": [{"tools": [{"name": "bash", "input": {"command": CHANGE}}]},
              {"text": "Done."}, {"loop": 1}]}}


class Huddle:
    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(json.loads(raw))
        self.lines.put(None)

    def send(self, line):
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def wait(self, match, timeout=120):
        deadline = time.monotonic() + timeout
        while True:
            try:
                e = self.lines.get(timeout=max(0.01, deadline -
                                               time.monotonic()))
            except queue.Empty:
                sys.exit("timed out")
            if e is None:
                sys.exit("huddle ended")
            if e.get("event") == "error":
                sys.exit("huddle: %s" % e.get("message"))
            if match(e):
                return e

    def timed(self, line, match):
        start = time.monotonic()
        self.send(line)
        e = self.wait(match)
        return (time.monotonic() - start) * 1000.0, e


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main():
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    mates = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    top = tempfile.mkdtemp(prefix="huddle-bench-wt-")
    work = os.path.join(top, "repo")
    make_repo(work, files)
    script = os.path.join(top, "script.json")
    with open(script, "w") as f:
        json.dump(scenario(mates), f)
    h = Huddle([HUDDLE, "--headless", "--provider", "script", "--script",
                script, "--workdir", work, "--state-dir",
                os.path.join(top, "state"), "--quit-timeout", "1"] + EXTRA + [
                "--max-teammates", str(mates)])
    start = time.monotonic()
    h.send("Go.")
    spawned, working, idle = set(), set(), set()

    def progress(e):
        if e.get("event") == "spawned":
            spawned.add(e["agent"])
            if len(spawned) == mates:
                progress.spawns = time.monotonic() - start
        if e.get("event") == "status" and e.get("agent") in spawned:
            if e["status"] == "working":
                working.add(e["agent"])
            elif e["status"] == "idle" and e["agent"] in working:
                idle.add(e["agent"])
        return len(idle) == mates
    progress.spawns = None
    h.wait(progress, timeout=300)
    diffs, lists, merges = [], [], []
    for _ in range(5):
        ms, d = h.timed("/diff w1", lambda e: e.get("event") == "diff")
        diffs.append(ms)
        ms, _ = h.timed("/worktrees",
                        lambda e: e.get("event") == "worktrees")
        lists.append(ms)
    for n in range(mates):
        ms, r = h.timed("/merge w%d" % (n + 1), lambda e: (
            e.get("event") in ("reply", "error") and
            e.get("command") == "merge"))
        merges.append(ms)
    h.send("/quit")
    h.proc.stdin.close()
    h.proc.wait(30)
    shutil.rmtree(top)
    print("repository: %d files; %d teammates with worktrees" % (files,
                                                                  mates))
    print("spawns: %.2f s from the first line to the last teammate "
          "spawned (%.0f ms each)" % (progress.spawns,
                                      progress.spawns * 1000.0 / mates))
    print("/diff (101 files changed): median %.0f ms of 5" % median(diffs))
    print("/worktrees (%d worktrees): median %.0f ms of 5" % (mates,
                                                              median(lists)))
    print("/merge: first %.0f ms, median %.0f ms of %d (later ones "
          "conflict-free merges onto the first)" % (merges[0],
                                                    median(merges), mates))


if __name__ == "__main__":
    main()
