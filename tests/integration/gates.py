#!/usr/bin/env python3
"""The gates every agent passes, end to end (headless, real HTTP to the
fake server): a task's check written by the lead goes through the same
policy and permission request as bash, the lead's own bash too, and a
check the person refuses is not run while its task stays open; the
person's /task done asks in the person's name; reserved names are never a
teammate's; a team database found in the working tree is named and left
alone; messages are capped at 64 KiB; and the team's state has a ceiling
that gives a clear error while the team goes on (reads, quit, resume).
"""

import hashlib
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import SLOW, FakeLLM, Results, team_folder  # noqa: E402
from team_driver import Huddle, call, contains, ev, expect, notes, say  # noqa: E402

MIB = 1024 * 1024


def pending_permission(h, since=0, what="a permission request", **fields):
    return h.wait(ev("request", type="permission", status="pending",
                     **fields), since=since, what=what)


def answer(h, line):
    """Types a command line; returns its reply (or error) event."""
    mark = len(h.events)
    h.send(line)
    return h.wait(lambda e: e["event"] in ("reply", "error"), since=mark,
                  what="the answer to " + line)


def test_lead_check_asks(fake):
    """The lead's check `rm -rf junk3; …` asks, naming the task and its
    writer; refused, it does not run and the task stays open; approved,
    it runs and the task is completed."""
    fake.reset()
    check = "rm -rf junk3; true"
    fake.script(call("lead", "task_create", subject="tidy", verify=check),
                call("lead", "task_update", id="t1", status="completed"),
                call("lead", "task_update", id="t1", status="completed"),
                *notes("lead", 4))
    with Huddle(fake) as h:
        junk = os.path.join(h.workdir, "junk3")
        os.mkdir(junk)
        h.send("go")
        made = h.wait(ev("tool_result", "lead", tool="task_create"),
                      what="the task made")
        expect("waits for the person's permission" in made["output"] and
               "rm -r" in made["output"], made["output"])
        req = pending_permission(h)
        perm = req["permission"]
        expect(req["from"] == "lead" and perm["who"] == "lead" and
               perm["tool"] == "t1's check, written by lead" and
               perm["command"] == check and perm["reason"] == "rm -r",
               repr(req))
        expect(os.path.isdir(junk), "the check ran before permission")
        answer(h, "/reject %s not now" % req["id"])
        res = h.wait(ev("tool_result", "lead", tool="task_update"),
                     what="the refused completion")
        expect("was not run" in res["output"] and "rejected" in
               res["output"] and "not now" in res["output"], res["output"])
        expect(os.path.isdir(junk), "a refused check ran")
        mark = len(h.events)
        h.send("/tasks")
        tasks = h.wait(ev("tasks"), since=mark, what="/tasks")["tasks"]
        expect(tasks[0]["status"] != "completed" and
               tasks[0]["checked"] == "failed" and "not run" in
               tasks[0].get("check_output", ""), repr(tasks[0]))
        # Again, approved.
        req = pending_permission(h, since=mark, what="the second request")
        answer(h, "/approve " + req["id"])
        res = h.wait(ev("tool_result", "lead", tool="task_update",
                        output=contains("passed")), what="the completion")
        expect(not os.path.exists(junk), "the approved check did not run")
        h.quit()


def test_lead_bash_asks(fake):
    """The lead's own bash passes the same policy."""
    fake.reset()
    fake.script(call("lead", "bash", command="rm -rf junk2"),
                *notes("lead", 4))
    with Huddle(fake) as h:
        junk = os.path.join(h.workdir, "junk2")
        os.mkdir(junk)
        h.send("go")
        req = pending_permission(h)
        perm = req["permission"]
        expect(req["from"] == "lead" and perm["tool"] == "bash" and
               perm["command"] == "rm -rf junk2" and perm["who"] == "lead",
               repr(req))
        answer(h, "/reject " + req["id"])
        res = h.wait(ev("tool_result", "lead", tool="bash"), what="bash")
        expect(res.get("is_error") and "not run" in res["output"],
               repr(res))
        expect(os.path.isdir(junk), "the refused command ran")
        h.quit()


def test_person_task_done_asks(fake):
    """The person's /task done of a task whose check a model wrote asks
    in the person's name, and runs the check once approved; the person's
    own --verify never asks."""
    fake.reset()
    fake.script(call("lead", "task_create", subject="tidy",
                     verify="rm -rf junk4"),
                call("lead", "task_create", subject="plain"),
                *notes("lead", 4))
    with Huddle(fake, args=["--verify", "rm -rf junk5"]) as h:
        for d in ("junk4", "junk5"):
            os.mkdir(os.path.join(h.workdir, d))
        h.send("go")
        h.wait(ev("tool_result", "lead", tool="task_create",
                  output=contains("t2")), what="the tasks")
        mark = len(h.events)
        h.send("/task done t1")
        req = pending_permission(h, since=mark)
        perm = req["permission"]
        expect(req["from"] == "user" and perm["who"] == "user" and
               perm["tool"] == "t1's check, written by lead" and
               perm["command"] == "rm -rf junk4", repr(req))
        expect(os.path.isdir(os.path.join(h.workdir, "junk4")),
               "ran before permission")
        answer(h, "/approve " + req["id"])
        h.wait(ev("notice", message=contains("t1 completed")),
               what="t1 completed")
        expect(not os.path.exists(os.path.join(h.workdir, "junk4")),
               "the approved check did not run")
        # The person's --verify: the person's own, not asked about.
        mark = len(h.events)
        h.send("/task done t2")
        h.wait(ev("notice", message=contains("t2 completed")), since=mark,
               what="t2 completed")
        expect(not any(e["event"] == "request" for e in h.events[mark:]),
               "the person's --verify asked")
        h.quit()


def test_person_check_after_kill9(fake):
    """A check of the person's /task done still waiting when huddle is
    killed: on --resume its request is cancelled, nothing ran, and the
    task is still open."""
    fake.reset()
    fake.script(call("lead", "task_create", subject="tidy",
                     verify="rm -rf junk6"), *notes("lead", 4))
    with Huddle(fake) as h:
        os.mkdir(os.path.join(h.workdir, "junk6"))
        h.send("go")
        h.wait(ev("tool_result", "lead", tool="task_create"),
               what="the task")
        h.send("/task done t1")
        req = pending_permission(h)
        h.kill9()
    fake.script(*notes("lead", 4))
    with Huddle(fake, workdir=h.workdir, resume=True) as again:
        again.wait(ev("request", id=req["id"], status="cancelled"),
                   what="the stale request cancelled")
        mark = len(again.events)
        again.send("/tasks")
        tasks = again.wait(ev("tasks"), since=mark, what="/tasks")["tasks"]
        expect(tasks[0]["status"] == "pending", repr(tasks[0]))
        expect(os.path.isdir(os.path.join(h.workdir, "junk6")),
               "the check ran")
        again.quit()


def test_reserved_names(fake):
    fake.reset()
    names = ["person", "user", "human", "operator", "system", "huddle",
             "lead", "all", "team"]
    fake.script({"agent": "lead", "kind": "tool_use", "calls": [
        {"name": "spawn_teammate", "input": {
            "name": n, "role": "x", "prompt": "hi"}} for n in names]},
        *notes("lead", 4))
    with Huddle(fake) as h:
        h.send("go")
        for n in names:
            res = h.wait(ev("tool_result", "lead", tool="spawn_teammate",
                            output=contains("'%s' is reserved" % n)),
                         what="%s refused" % n)
            expect(res.get("is_error") and "choose another" in
                   res["output"], repr(res))
        expect(not any(e["event"] == "spawned" for e in h.events),
               "a reserved name was spawned")
        h.quit()


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_stray_database_left_alone(fake):
    """A .huddle/team.db a cloned repository carries: named in a notice,
    neither moved, opened nor deleted."""
    fake.reset()
    fake.script(*notes("lead", 4))
    import tempfile
    work = tempfile.mkdtemp(prefix="huddle-stray-")
    os.mkdir(os.path.join(work, ".huddle"))
    db = os.path.join(work, ".huddle", "team.db")
    c = sqlite3.connect(db)
    c.execute("CREATE TABLE members (name TEXT)")
    c.execute("INSERT INTO members VALUES ('planted')")
    c.commit()
    c.close()
    before = (digest(db), os.stat(db).st_mtime_ns,
              sorted(os.listdir(os.path.join(work, ".huddle"))))
    with Huddle(fake, workdir=work) as h:
        note = h.wait(ev("notice", message=contains(db)),
                      what="the notice")
        expect("ignores it" in note["message"], note["message"])
        h.send("hello")
        h.wait(ev("status", "lead", status="idle"), what="the lead")
        h.quit()
    after = (digest(db), os.stat(db).st_mtime_ns,
             sorted(os.listdir(os.path.join(work, ".huddle"))))
    expect(before == after, "the working tree changed: %r -> %r"
           % (before, after))


def state_size(workdir):
    """The bytes of the team's database, its WAL included."""
    folder = team_folder(workdir)
    return sum(os.path.getsize(os.path.join(folder, f))
               for f in ("team.db", "team.db-wal")
               if os.path.exists(os.path.join(folder, f)))


def sends(n, size, per_turn=10):
    """The lead's turns that send bob n messages of size bytes each."""
    turns = []
    for first in range(0, n, per_turn):
        turns.append({"agent": "lead", "kind": "tool_use",
                      "json_chars": 256 * 1024, "calls": [
                          {"name": "send_message", "input": {
                              "to": "bob",
                              "content": ("%03d" % i) + "m" * (size - 3)}}
                          for i in range(first, min(n, first + per_turn))]})
    return turns


def test_long_messages_are_cut(fake):
    """40 sends of 1 MiB no longer grow the state by four copies of
    each: each message is cut to 64 KiB in bob's inbox and transcript,
    and the sender hears so. What the lead's model wrote stays in its
    own history as written (a history is append-only: a reply goes
    back to the model exactly as it came), so the state holds that
    once."""
    fake.reset()
    fake.script(call("lead", "spawn_teammate", name="bob", role="reader",
                     prompt="Read."),
                *sends(40, MIB), say("lead", "Sent."), *notes("lead", 4),
                *notes("bob", 50))
    with Huddle(fake) as h:
        h.send("go")
        # 40 MiB through the model's replies, the inboxes and the
        # store: heavy work, slower still under a sanitizer.
        h.wait_text("lead", "Sent.", timeout=90 * SLOW)
        results = [e for e in h.events if e["event"] == "tool_result" and
                   e.get("tool") == "send_message"]
        expect(len(results) == 40, "%d results" % len(results))
        for r in results:
            expect(not r.get("is_error") and "cut to its first 64 KiB" in
                   r["output"] and "bytes were left out" in r["output"],
                   r["output"][:300])
        got = [e for e in h.events if e["event"] == "message" and
               e.get("agent") == "bob" and e["content"].startswith("0")]
        expect(len(got) == 40, "bob got %d messages" % len(got))
        for m in got:
            expect(len(m["content"]) < 64 * 1024 + 200 and "bytes cut" in
                   m["content"], "bob got %d bytes" % len(m["content"]))
        h.quit()
    size = state_size(h.workdir)
    print("  (the state after 40 MiB sent: %.1f MiB)" % (size / MIB))
    expect(size < 56 * MIB, "the state grew to %d bytes" % size)


def test_state_ceiling(fake):
    """With a 2 MiB ceiling, sends are refused with a clear error and a
    notice to the person once it is reached; the team still reads,
    quits and resumes, and the state stays within its ceiling."""
    fake.reset()
    env = {"HUDDLE_STATE_MAX": "2M"}
    fake.script(call("lead", "spawn_teammate", name="bob", role="reader",
                     prompt="Read."),
                *sends(60, 60 * 1024, per_turn=1), *notes("lead", 4),
                *notes("bob", 80))
    with Huddle(fake, env=env) as h:
        h.send("go")
        refused = h.wait(ev("tool_result", "lead", tool="send_message",
                            output=contains("ceiling")), timeout=90,
                         what="a refused send")
        expect(refused.get("is_error") and "not sent: the team's state "
               "reached its ceiling of 2 MiB" in refused["output"],
               refused["output"])
        note = h.wait(ev("notice", message=contains("ceiling of 2 MiB")),
                      what="the person's notice")
        expect("HUDDLE_STATE_MAX" in note["message"], note["message"])
        mark = len(h.events)
        h.send("/tasks")
        h.wait(ev("tasks"), since=mark, what="a read")
        h.send("/quit")
        expect(h.wait_exit() == 0, "huddle did not quit at the ceiling")
    expect(state_size(h.workdir) <= 2 * MIB + 4 * MIB,
           "the state grew to %d bytes" % state_size(h.workdir))
    db = os.path.join(team_folder(h.workdir), "team.db")
    expect(os.path.getsize(db) <= 2 * MIB, "team.db has %d bytes"
           % os.path.getsize(db))
    fake.script(*notes("lead", 4), *notes("bob", 4))
    with Huddle(fake, workdir=h.workdir, resume=True, env=env) as again:
        mark = len(again.events)
        again.send("/team")
        again.wait(ev("team"), since=mark, what="the resumed team")
        again.send("/quit")
        expect(again.wait_exit() == 0, "the full team did not resume")


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("the lead's task check asks; refused, it does not run",
              test_lead_check_asks, fake)
        r.run("the lead's bash asks", test_lead_bash_asks, fake)
        r.run("the person's /task done asks in the person's name",
              test_person_task_done_asks, fake)
        r.run("a check waiting at kill -9 is cancelled on --resume",
              test_person_check_after_kill9, fake)
        r.run("reserved names are never a teammate's", test_reserved_names,
              fake)
        r.run("a team database in the working tree is left alone",
              test_stray_database_left_alone, fake)
        r.run("40 sends of 1 MiB leave the state small",
              test_long_messages_are_cut, fake)
        r.run("the state's ceiling: a clear error, and the team goes on",
              test_state_ceiling, fake)
    r.finish()


if __name__ == "__main__":
    main()
