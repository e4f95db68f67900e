#!/usr/bin/env python3
"""Teammates in git worktrees, end to end (headless, real git, real HTTP to
the fake server): two teammates change the same file differently, each
in its own worktree; neither can read or write the main tree or the
other's worktree through its tools; /diff shows each one's change; the
first merges cleanly, the second is a conflict that changes nothing and
loses nothing; a dirty tree is refused; a stopped teammate's unmerged
worktree is kept and a merged one removed; --resume finds a worktree
moved away and says so; bad names and a workdir outside git are refused.
Tasks that name worktrees: autonomous teammates that claim them work
there, one at a time in each, and the person merges the board's
worktrees like a teammate's. A link put where .huddle/worktrees was
leads nowhere.
"""

import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import FakeLLM, Results  # noqa: E402
from gitrepo import git, repo  # noqa: E402
from team_driver import Huddle, call, contains, ev, expect, say  # noqa: E402


def diff_of(who):
    return lambda e: e.get("event") == "diff" and e.get("name") == who


def spawn(*names):
    return {"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "spawn_teammate", "input": {
            "name": n, "role": "coder", "prompt": "Change a.txt."}}
        for n in names]}


PROBES = ("cat ../../../a.txt; cat ../ben/a.txt; ls -la .. ../ben; "
          "echo x > ../../../evil.txt; touch ../../../.git/evil; "
          "echo ok > mine.txt")


# ben points his worktree's .git at a repository of his own whose
# configuration runs a command, and that repository also sits in his
# worktree as a nested one: huddle's git must run neither.
EVIL_GIT = ("git init -q evil && git -C evil -c user.name=b "
            "-c user.email=b@x commit -q --allow-empty -m x && "
            "git -C evil config core.fsmonitor "
            "\"touch $PWD/../../../PWNED\" && "
            "printf 'gitdir: %s/evil/.git\\n' \"$PWD\" > .git")


def test_two_teammates_merge_and_conflict(fake):
    work = repo()
    fake.reset()
    fake.script(spawn("ann", "ben"), *[say("lead", "Noted.")] * 10,
                call("ann", "write_file", path="a.txt",
                     content="one\nann's two\nthree\n"),
                call("ann", "read_file", path="../../../a.txt"),
                call("ann", "bash", command=PROBES),
                say("ann", "Done."),
                call("ben", "bash", command=EVIL_GIT),
                call("ben", "bash",
                     command="printf 'one\\nben two\\nthree\\n' > a.txt"),
                say("ben", "Done."),
                *[say("ann", "Noted.")] * 3, *[say("ben", "Noted.")] * 3)
    with Huddle(fake, workdir=work, args=["--worktrees"]) as h:
        h.send("Change a.txt, both of you.")
        # The probes ask for permission (they reach outside ann's
        # worktree); granted, the operating system still refuses them.
        h.wait(ev("request", type="permission", status="pending"),
               timeout=30)
        h.wait(ev("tool_result", "lead", tool="spawn_teammate",
                  output=contains("spawned ben")), timeout=30)
        h.send("/approve ann")
        h.wait(ev("message", type="idle_notification", **{"from": "ann"}),
               timeout=30)
        h.wait(ev("message", type="idle_notification", **{"from": "ben"}),
               timeout=30)
        # Isolation, through each tool.
        rf = h.wait(ev("tool_result", "ann", tool="read_file"))
        expect(rf["is_error"], "read_file reached the main tree: %r" % rf)
        probe = h.wait(ev("tool_result", "ann", tool="bash"))["output"]
        expect(probe.count("Permission denied") >= 5, probe)
        expect("one\ntwo" not in probe, "bash read the main tree: " + probe)
        expect(not os.path.exists(os.path.join(work, "evil.txt")) and
               not os.path.exists(os.path.join(work, ".git", "evil")),
               "a teammate wrote outside its worktree")
        ann_wt = os.path.join(work, ".huddle", "worktrees", "ann")
        expect(os.path.exists(os.path.join(ann_wt, "mine.txt")),
               "ann could not write her own worktree")
        expect(git(work, "status", "--porcelain") == "",
               "the user's status shows huddle's files")
        # The diffs.
        h.send("/diff ann")
        d = h.wait(diff_of("ann"))
        expect(sorted(f["path"] for f in d["files"]) == ["a.txt",
                                                          "mine.txt"],
               repr(d["files"]))
        expect("-two\n+ann's two\n" in d["patch"], d["patch"])
        h.send("/diff ben")
        d = h.wait(diff_of("ben"))
        expect("+ben two" in d["patch"] and d["added"] == 1, repr(d))
        # A dirty tree of the person's is refused.
        with open(os.path.join(work, "notes.txt"), "w") as f:
            f.write("mine\n")
        h.send("/merge ann")
        e = h.wait(ev("error", command="merge"))
        expect("uncommitted changes" in e["message"] and "notes.txt" in
               e["message"], e["message"])
        os.remove(os.path.join(work, "notes.txt"))
        # ann merges cleanly.
        mark = len(h.events)
        h.send("/merge ann")
        r = h.wait(ev("reply", command="merge"), since=mark)
        expect("merged huddle/ann into main" in r["message"], r["message"])
        with open(os.path.join(work, "a.txt")) as f:
            expect(f.read() == "one\nann's two\nthree\n", "not merged")
        expect("ann's work" in git(work, "log", "-2", "--format=%s%n%b",
                                   "huddle/ann"), "the commit names ann")
        # ben's is a conflict: nothing changes, nothing is lost.
        mark = len(h.events)
        h.send("/merge ben")
        e = h.wait(ev("error", command="merge"), since=mark)
        expect("does not merge cleanly" in e["message"] and "a.txt" in
               e["message"], e["message"])
        expect(git(work, "status", "--porcelain") == "",
               "the conflict left the tree changed")
        with open(os.path.join(work, "a.txt")) as f:
            expect("ann's two" in f.read(), "main changed")
        expect("ben two" in git(work, "show", "huddle/ben:a.txt"),
               "ben's work is lost")
        h.send("/worktrees")
        wts = {w["name"]: w for w in h.wait(ev("worktrees"))["worktrees"]}
        expect(wts["ann"]["merged"] and not wts["ben"]["merged"] and
               wts["ben"]["ahead"] == 1, repr(wts))
        # Shut down: ann's merged worktree goes, ben's stays.
        h.send("/stop ann")
        h.wait(ev("notice", "ann", message=contains("removed")),
               timeout=15)
        h.send("/stop ben")
        h.wait(ev("notice", "ben", message=contains("kept")), timeout=15)
        expect(not os.path.exists(ann_wt), "ann's worktree is still there")
        expect(os.path.exists(os.path.join(work, ".huddle", "worktrees",
                                           "ben", "a.txt")),
               "ben's worktree was removed")
        # Discard asks first.
        h.send("/discard ben")
        e = h.wait(ev("error", command="discard"))
        expect("/discard ben yes" in e["message"] and "NOT merged" in
               e["message"], e["message"])
        h.send("/discard ben yes")
        h.wait(ev("reply", command="discard"))
        # Through all of it (diff, merge, status of a nested repository,
        # the end of ben), huddle's git ran nothing of ben's making.
        expect(not os.path.exists(os.path.join(work, "PWNED")),
               "huddle's git ran a teammate's configuration")
        expect(git(work, "branch", "--list", "huddle/*") == "",
               "a branch was left")
        h.quit()
    shutil.rmtree(work)


def test_resume_and_a_missing_worktree(fake):
    work = repo()
    fake.reset()
    fake.script(spawn("cat"), *[say("lead", "Noted.")] * 6,
                call("cat", "write_file", path="b.txt", content="b\n"),
                *[say("cat", "Noted.")] * 6)
    with Huddle(fake, workdir=work, args=["--worktrees"]) as h:
        h.send("go")
        h.wait(ev("message", type="idle_notification", **{"from": "cat"}),
               timeout=30)
        h.quit()
    # Resumed, cat works in its worktree again.
    fake.reset()
    fake.script(call("cat", "bash", command="pwd; cat b.txt"),
                *[say("cat", "Noted.")] * 6, *[say("lead", "Noted.")] * 6)
    with Huddle(fake, workdir=work, resume=True) as h:
        h.send("/msg cat where are you?")
        out = h.wait(ev("tool_result", "cat", tool="bash"), timeout=30)
        expect(out["output"].startswith(os.path.join(
            work, ".huddle", "worktrees", "cat")) and "b\n" in
            out["output"], out["output"])
        h.quit()
    # Moved away: reported, never made again over it.
    moved = work + "-cat"
    shutil.move(os.path.join(work, ".huddle", "worktrees", "cat"), moved)
    with Huddle(fake, workdir=work, resume=True) as h:
        e = h.wait(ev("error", "cat", message=contains("not started")))
        expect("missing" in e["message"], e["message"])
        h.send("/worktrees")
        w = h.wait(ev("worktrees"))["worktrees"][0]
        expect(w["name"] == "cat" and w["missing"], repr(w))
        expect(not os.path.exists(os.path.join(work, ".huddle",
                                               "worktrees", "cat")),
               "the worktree was made again")
        h.quit()
    shutil.rmtree(moved)
    shutil.rmtree(work)


def test_bad_names_and_no_repository(fake):
    work = repo()
    fake.reset()
    fake.script(call("lead", "spawn_teammate", name="../evil", role="x",
                     prompt="p", isolation="worktree"),
                call("lead", "spawn_teammate", name="dan", role="x",
                     prompt="p", isolation="worktree", base="--help"),
                say("lead", "Noted."))
    with Huddle(fake, workdir=work) as h:
        h.send("go")
        r1 = h.wait(ev("tool_result", "lead", tool="spawn_teammate"))
        expect(r1["is_error"], repr(r1))
        r2 = h.wait(ev("tool_result", "lead", tool="spawn_teammate",
                       id=lambda i: i != r1["id"]))
        expect(r2["is_error"] and "base" in r2["output"], repr(r2))
        expect(not os.path.exists(os.path.join(work, ".huddle")) or
               os.listdir(os.path.join(work, ".huddle", "worktrees")) == [],
               "a worktree was made for a bad spawn")
        # What a huddle killed between making a worktree and recording
        # it leaves: /discard takes it, once confirmed.
        git(work, "worktree", "add", "-q", "-b", "huddle/zed",
            ".huddle/worktrees/zed")
        h.send("/discard zed")
        e = h.wait(ev("error", command="discard"))
        expect("no record" in e["message"] and "/discard zed yes" in
               e["message"], e["message"])
        for verb in ("discard", "diff", "merge"):
            mark = len(h.events)
            h.send("/%s nobody" % verb)
            e = h.wait(ev("error", command=verb), since=mark)
            expect("no worktree is called" in e["message"], e["message"])
        h.send("/discard zed yes")
        r = h.wait(ev("reply", command="discard"))
        expect("unrecorded" in r["message"] and not os.path.exists(
               os.path.join(work, ".huddle", "worktrees", "zed")) and
               "huddle/zed" not in git(work, "branch", "--list"),
               r["message"])
        h.send("/quit")
        h.wait_exit()
    plain = tempfile.mkdtemp(prefix="huddle-nogit-")
    # Wherever the temp dir is (make distcheck puts it inside this
    # project's own clone), git looks no higher than it.
    with Huddle(fake, workdir=plain, args=["--worktrees"], env={
            "GIT_CEILING_DIRECTORIES": os.path.dirname(plain)}) as h:
        status = h.wait_exit()
        expect(status != 0 and b"not in a git repository" in h.stderr,
               "no clear error outside git: %r" % h.stderr)
    shutil.rmtree(work)
    shutil.rmtree(plain)


def board_tasks():
    """t1 and t2 in the worktree parser (t2 after t1), t3 in lexer, t4 in
    parser with nothing to wait for: it must wait for parser's holder."""
    return {"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "task_create", "input": {
            "subject": s, "worktree": w, "blocked_by": b}}
        for s, w, b in [("parse", "parser", []),
                        ("test the parser", "parser", ["t1"]),
                        ("lex", "lexer", []),
                        ("more parsing", "parser", [])]]}


def autonomous(*names):
    return {"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "spawn_teammate", "input": {
            "name": n, "role": "worker", "autonomous": True,
            "prompt": "Take tasks from the board."}} for n in names]}


def read(path):
    with open(path) as f:
        return f.read()


def holders_never_overlap(events, worktree):
    """Ordered by when they committed, the tasks of one worktree are held
    in progress by one teammate at a time."""
    held = {}
    for e in sorted((e for e in events if e["event"] == "task" and
                     e.get("worktree") == worktree),
                    key=lambda e: e["updated_at"]):
        if e["status"] == "in_progress":
            held[e["id"]] = e["owner"]
        else:
            held.pop(e["id"], None)
        expect(len(set(held.values())) <= 1, "%s held by %r at once" %
               (worktree, held))


# A worker in a task's worktree tries the person's tree and the other
# worktree before each task; what it saw lands in its own.
ESCAPE = ("(cat ../../../a.txt; ls ..; "
          "echo x > ../../../escape.txt) > seen.txt 2>&1 || true")


def test_tasks_name_worktrees(fake):
    work = repo()
    fake.reset()
    fake.script(board_tasks(), autonomous("ann", "ben"),
                *[say("lead", "Noted.")] * 12,
                {"kind": "worker", "work_ms": 300, "before": ESCAPE})
    with Huddle(fake, workdir=work) as h:
        h.send("Build it in worktrees.")
        # The probes reach outside: the person grants each, and the
        # operating system still holds them in.
        done = set()

        def progress(e):
            if (e["event"] == "request" and e.get("type") == "permission"
                    and e.get("status") == "pending"):
                h.send("/approve " + e["id"])
            if e["event"] == "task" and e.get("status") == "completed":
                done.add(e["id"])
            return len(done) == 4
        h.wait(progress, timeout=90, what="the four tasks completed")
        # Each task was worked where it names, never in the person's
        # tree; the parser's tasks one after another, in one worktree.
        wt = os.path.join(work, ".huddle", "worktrees")
        expect(read(os.path.join(wt, "parser", "work.log")).split() in
               (["t1", "t2", "t4"], ["t1", "t4", "t2"], ["t4", "t1", "t2"]),
               read(os.path.join(wt, "parser", "work.log")))
        expect(read(os.path.join(wt, "lexer", "work.log")).split() ==
               ["t3"], "lexer: " + read(os.path.join(wt, "lexer",
                                                       "work.log")))
        expect(not os.path.exists(os.path.join(work, "work.log")) and
               not os.path.exists(os.path.join(work, "escape.txt")),
               "a task's work landed in the person's tree")
        for w in ("parser", "lexer"):
            seen = read(os.path.join(wt, w, "seen.txt"))
            expect("one\ntwo" not in seen and
                   seen.count("Permission denied") >= 3, w + ": " + seen)
        holders_never_overlap(h.events, "parser")
        handed = [r for r in fake.requests() if r.get("agent") in
                  ("ann", "ben") and "It is done in the git worktree "
                  "parser" in json.dumps(r["body"]["messages"])]
        expect(handed, "no teammate was told where its task is done")
        # The person's view of them.
        h.send("/worktrees")
        ws = {w["name"]: w for w in h.wait(ev("worktrees"))["worktrees"]}
        expect(sorted(ws) == ["lexer", "parser"] and
               ws["parser"].get("member") is None and
               ws["parser"].get("tasks") is None and
               ws["parser"]["dirty"], repr(ws))
        h.send("/diff parser")
        d = h.wait(diff_of("parser"))
        expect(sorted(f["path"] for f in d["files"]) == ["seen.txt",
                                                          "work.log"] and
               "+t1\n" in d["patch"], repr(d))
        # The workers go; a task of the person's names lexer and waits.
        for who in ("ann", "ben"):
            h.send("/shutdown " + who)
            h.wait(ev("status", who, status="terminated"), timeout=30,
                   what=who + " terminated")
        h.send("/task add more lexing in worktree lexer")
        h.wait(ev("task", id="t5", worktree="lexer"))
        # parser merges, and goes: no open task names it.
        mark = len(h.events)
        h.send("/merge parser")
        r = h.wait(ev("reply", command="merge"), since=mark)
        expect("merged huddle/parser into main" in r["message"] and
               "removed" in r["message"], r["message"])
        expect(read(os.path.join(work, "work.log")).split()[0] in
               ("t1", "t4"), "not merged")
        expect(not os.path.exists(os.path.join(wt, "parser")) and
               "huddle/parser" not in git(work, "branch", "--list"),
               "the merged worktree stayed")
        expect("t1 (completed" in git(work, "log", "-1", "--format=%b",
                                      "main^2"),
               "the commit does not name the tasks")
        # lexer adds the same file: a conflict, nothing lost.
        mark = len(h.events)
        h.send("/merge lexer")
        e = h.wait(ev("error", command="merge"), since=mark)
        expect("conflict" in e["message"] and "work.log" in e["message"],
               e["message"])
        expect(git(work, "status", "--porcelain") == "",
               "the aborted merge left changes")
        expect(os.path.exists(os.path.join(wt, "lexer", "work.log")),
               "the conflict lost lexer's work")
        # t5 still names lexer: discarding says so.
        h.send("/discard lexer")
        r = h.wait(ev("error", command="discard"))
        expect("open tasks name it: t5" in r["message"], r["message"])
        h.send("/discard lexer yes")
        r = h.wait(ev("reply", command="discard"))
        expect(not os.path.exists(os.path.join(wt, "lexer")), r["message"])
        h.quit()
    shutil.rmtree(work)


def test_worktree_made_anew(fake):
    """A board worktree merged and removed is made anew, from the merge,
    for the next task that names it, and its worker follows it there."""
    work = repo()
    wt = os.path.join(work, ".huddle", "worktrees", "parser")
    fake.reset()
    fake.script(call("lead", "task_create", subject="parse",
                     worktree="parser"),
                autonomous("ann"), *[say("lead", "Noted.")] * 8,
                {"kind": "worker"})
    with Huddle(fake, workdir=work) as h:
        h.send("Parse.")
        h.wait(ev("task", id="t1", status="completed"), timeout=30)
        h.send("/merge parser")
        r = h.wait(ev("reply", command="merge"))
        expect("removed" in r["message"] and not os.path.exists(wt),
               r["message"])
        mark = len(h.events)
        h.send("/task add parse again in worktree parser")
        h.wait(ev("task", id="t2", status="completed"), since=mark,
               timeout=30)
        errors = [e for e in h.events[mark:] if e["event"] == "tool_result"
                  and e.get("is_error")]
        expect(not errors, repr(errors))
        expect(read(os.path.join(wt, "work.log")).split() == ["t1", "t2"],
               "not made anew from the merge: " +
               read(os.path.join(wt, "work.log")))
        h.quit()
    shutil.rmtree(work)


def test_no_worktree_where_a_link_leads(fake):
    """The lead puts a link where .huddle/worktrees would be: the board's
    worktree is not made where it leads, and no work is done there nor
    in the person's tree."""
    work = repo()
    out = tempfile.mkdtemp(prefix="huddle-out-")
    fake.reset()
    fake.script(call("lead", "bash", command="mkdir -p .huddle && "
                     "ln -s %s .huddle/worktrees" % out),
                call("lead", "task_create", subject="parse",
                     worktree="parser"),
                autonomous("ann"), *[say("lead", "Noted.")] * 8,
                {"kind": "worker"})
    with Huddle(fake, workdir=work) as h:
        h.send("Parse.")

        def refused(e):
            if (e["event"] == "request" and e.get("type") == "permission"
                    and e.get("status") == "pending"):
                h.send("/approve " + e["id"])
            return (e["event"] == "tool_result" and e.get("agent") == "ann"
                    and e.get("is_error") and "symbolic link" in
                    e.get("output", ""))
        h.wait(refused, timeout=30, what="ann refused the linked worktree")
        expect(os.path.islink(os.path.join(work, ".huddle", "worktrees")),
               "the lead's link was not made")
        expect(os.listdir(out) == [], "made where the link leads: %r"
               % os.listdir(out))
        expect("huddle/parser" not in git(work, "branch", "--list"),
               "a branch was left behind")
        expect(not os.path.exists(os.path.join(work, "work.log")),
               "the task's work landed in the person's tree")
        h.quit()
    shutil.rmtree(work)
    shutil.rmtree(out)


def test_no_merge_while_a_check_runs(fake):
    """The person completes a task whose check runs in its worktree: a
    merge waits for the check."""
    work = repo()
    wt = os.path.join(work, ".huddle", "worktrees", "parser")
    fake.reset()
    fake.script(call("lead", "task_create", subject="parse",
                     worktree="parser", verify="touch checking; sleep 4"),
                say("lead", "Noted."))
    with Huddle(fake, workdir=work) as h:
        h.send("Parse.")
        h.wait(ev("task", id="t1"))
        h.send("/task done t1")
        deadline = time.monotonic() + 20
        while not os.path.exists(os.path.join(wt, "checking")):
            expect(time.monotonic() < deadline, "the check never ran")
            time.sleep(0.05)
        mark = len(h.events)
        h.send("/merge parser")
        e = h.wait(ev("error", command="merge"), since=mark)
        expect("check runs in parser" in e["message"], e["message"])
        h.wait(ev("task", id="t1", status="completed"), timeout=30)
        mark = len(h.events)
        h.send("/merge parser")
        r = h.wait(ev("reply", command="merge"), since=mark)
        expect("merged huddle/parser" in r["message"], r["message"])
        h.quit()
    shutil.rmtree(work)


def test_task_worktree_refused(fake):
    work = repo()
    fake.reset()
    fake.script(call("lead", "task_create", subject="x", worktree="lead"),
                call("lead", "task_create", subject="y", worktree="a/../b"),
                say("lead", "Noted."))
    with Huddle(fake, workdir=work) as h:
        h.send("go")
        r1 = h.wait(ev("tool_result", "lead", tool="task_create"))
        expect(r1["is_error"] and "a member's name" in r1["output"],
               repr(r1))
        r2 = h.wait(ev("tool_result", "lead", tool="task_create",
                       id=lambda i: i != r1["id"]))
        expect(r2["is_error"] and "worktree's name" in r2["output"],
               repr(r2))
        h.send("/quit")
        h.wait_exit()
    shutil.rmtree(work)
    plain = tempfile.mkdtemp(prefix="huddle-nogit-")
    with Huddle(fake, workdir=plain, env={
            "GIT_CEILING_DIRECTORIES": os.path.dirname(plain)}) as h:
        h.send("/task add x in worktree w")
        e = h.wait(ev("error", command="task_add"))
        expect("only in a git repository" in e["message"], e["message"])
        h.send("/quit")
        h.wait_exit()
    shutil.rmtree(plain)


def tests(r, fake):
    r.run("two teammates: isolation, diffs, a clean merge and a conflict",
          test_two_teammates_merge_and_conflict, fake)
    r.run("--resume, and a worktree moved away",
          test_resume_and_a_missing_worktree, fake)
    r.run("bad names and bases; no repository", test_bad_names_and_no_repository,
          fake)
    r.run("tasks name worktrees; autonomous teammates work there",
          test_tasks_name_worktrees, fake)
    r.run("a merged board worktree is made anew for the next task",
          test_worktree_made_anew, fake)
    r.run("a task's worktree: bad names, no repository",
          test_task_worktree_refused, fake)
    r.run("no worktree where a link put in .huddle leads",
          test_no_worktree_where_a_link_leads, fake)
    r.run("no merge while a task's check runs in the worktree",
          test_no_merge_while_a_check_runs, fake)


if __name__ == "__main__":
    r = Results()
    with FakeLLM() as fake:
        tests(r, fake)
    r.finish()
