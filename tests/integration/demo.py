#!/usr/bin/env python3
"""`huddle --headless --demo` as a person would stray from it: a rejected
plan is resubmitted and nothing claims the refactoring was done; a task
given to a scripted teammate is handed back, not an error; bob's diff is
there (worktrees); `--demo --resume` continues the team; nothing is left
in $TMPDIR, and the demo keeps one folder under the state directory.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import HUDDLE  # noqa: E402
from team_driver import Huddle, contains, ev, expect  # noqa: E402


class Demo(Huddle):
    """huddle --headless --demo with its own HOME, state and TMPDIR."""

    def __init__(self, root, resume=False):
        super().__init__(None, workdir=root, resume=resume)
        self.root = root

    def start(self):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "OPENAI_", "HUDDLE_"))}
        env.update({"HOME": os.path.join(self.root, "home"),
                    "XDG_STATE_HOME": os.path.join(self.root, "state"),
                    "TMPDIR": os.path.join(self.root, "tmp")})
        cmd = [self.program, "--headless", "--demo", "--quit-timeout", "5"]
        if self.resume:
            cmd.append("--resume")
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        threading.Thread(target=self._read, daemon=True).start()
        self._err_reader = threading.Thread(target=self._read_err,
                                            daemon=True)
        self._err_reader.start()
        return self


def fresh_root():
    root = tempfile.mkdtemp(prefix="huddle-demo-test-")
    for d in ("home", "state", "tmp"):
        os.mkdir(os.path.join(root, d))
    return root


def plan_pending(e):
    return (e.get("event") == "request" and e.get("type") == "plan" and
            e.get("status") == "pending")


def streamed(h, agent):
    return "".join(e.get("text", "") for e in h.events
                   if e.get("event") == "text" and e.get("agent") == agent)


def quit_and_check(h, root):
    h.send("/quit")
    h.close_input()
    status = h.wait_exit(30)
    expect(status == 0, "exit status %s; stderr %r" % (status, h.stderr))
    left = os.listdir(os.path.join(root, "tmp"))
    expect(left == [], "the demo left %s in $TMPDIR" % left)
    expect(os.listdir(os.path.join(root, "state", "huddle")) == ["demo"],
           "the demo keeps more than its folder: %s"
           % os.listdir(os.path.join(root, "state", "huddle")))


def test_reject_tasks_diff():
    root = fresh_root()
    with Demo(root) as h:
        first = h.wait(plan_pending, 30, "bob's plan")
        h.send("/reject %s use greet_person instead" % first["id"])
        second = h.wait(lambda e: plan_pending(e) and e["id"] != first["id"],
                        30, "bob's plan, submitted again")
        expect("changed nothing" in streamed(h, "bob"),
               "bob does not say he changed nothing: %r" % streamed(h, "bob"))
        for agent in ("bob", "lead"):
            expect("Refactor done" not in streamed(h, agent),
                   "%s claims the refactoring was done" % agent)
        expect(not any(e.get("event") == "tool_call" and e.get("agent") == "bob"
                       and e.get("tool") == "edit_file" for e in h.events),
               "bob tried to edit before his plan was approved")

        # A task the script knows nothing of: handed back, not an error.
        h.wait(ev("message", "lead", type="idle_notification",
                  content=contains("alice is idle")), 30, "alice idle")
        mark = len(h.events)
        h.send("/task add Write unit tests")
        h.send("/task assign t1 alice")
        h.wait(ev("tool_result", "alice", tool="task_update", is_error=False),
               20, "alice gives t1 back", since=mark)
        h.wait(ev("status", "alice", status="idle"), 20, "alice idle again",
               since=mark)
        expect(not any(e.get("event") == "status" and e.get("status") == "error"
                       for e in h.events), "an agent turned to error")

        h.send("/approve %s" % second["id"])
        h.wait(ev("message", "lead", type="idle_notification",
                  content=contains("bob is idle: Refactor done")), 30,
               "bob done after the approval")
        mark = len(h.events)
        h.send("/diff bob")
        d = h.wait(lambda e: e.get("event") == "diff" and e.get("name") == "bob", 20, "bob's diff", since=mark)
        expect("+def greet(" in d["patch"], "no rename in the diff: %r" % d)
        quit_and_check(h, root)
    shutil.rmtree(root)


def test_resume_continues():
    root = fresh_root()
    with Demo(root) as h:
        plan = h.wait(plan_pending, 30, "bob's plan")
        quit_and_check(h, root)
    # --teams lists the demo by its working tree, marked as the demo (it
    # listed its folder as a team of no working tree: "idle - ?").
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(root, "state"),
               HOME=os.path.join(root, "home"))
    teams = subprocess.run([HUDDLE, "--teams"], env=env,
                           capture_output=True, text=True).stdout
    rows = [ln for ln in teams.splitlines()[1:] if ln.strip()]
    expect(len(rows) == 1 and rows[0].startswith("idle") and
           os.path.join("demo", "work") in rows[0] and "the demo" in
           rows[0] and "?" not in rows[0], teams)
    with Demo(root, resume=True) as h:
        h.wait(ev("spawned", "bob"), 20, "bob back")
        h.send("/approve %s" % plan["id"])
        h.wait(ev("message", "lead", type="idle_notification",
                  content=contains("bob is idle: Refactor done")), 30,
               "bob acts on the plan after the resume")
        # The lead answers bob first; a line typed while it does would
        # reach it in the same turn as bob's notice, and the script
        # answers the newest. A person reads the answer, then types.
        h.wait_text("lead", "/merge bob would take it.", 30)
        last = max(i for i, e in enumerate(h.events)
                   if e.get("event") == "text" and e.get("agent") == "lead")
        h.wait(ev("status", "lead", status="idle"), 30, "the lead idle",
               since=last)
        h.send("hello")
        h.wait_text("lead", "scripted lead", 20)
        expect(not any(e.get("event") == "tool_call" and
                       e.get("tool") == "spawn_teammate" for e in h.events),
               "the resumed lead spawned again")
        expect(not any(e.get("event") == "status" and e.get("status") == "error"
                       for e in h.events), "an agent turned to error")
        quit_and_check(h, root)
    shutil.rmtree(root)


def main():
    if not os.path.exists(HUDDLE) or shutil.which("git") is None:
        print("SKIP: no huddle or no git")
        return 77
    failed = 0
    for name, fn in [("a rejected plan, a task and a diff", test_reject_tasks_diff),
                     ("--demo --resume continues", test_resume_continues)]:
        try:
            fn()
            print("ok - %s" % name)
        except AssertionError as e:
            failed += 1
            print("not ok - %s: %s" % (name, e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
