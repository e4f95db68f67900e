#!/usr/bin/env python3
"""The R1 crash campaign: kill -9 a busy scripted team at random moments,
then check the store it leaves behind and go on with --resume.

    crash_loop.py [ROUNDS [SEED]]      ROUNDS defaults to 5; R1 asks for 50

Each round starts `huddle --headless --provider script` on the same working
directory (--resume after the first), keeps the team busy — teammates
spawned, messages, broadcasts, files, commands, plans, permissions,
shutdown requests, the person's input — reads its JSONL events, and kills
it with SIGKILL at a moment drawn from a seeded generator. Then it opens
team.db read-only and checks that:

  1. PRAGMA integrity_check says ok;
  2. no message was lost: every message shown in a "message" event (which
     comes only after the commit) is in the store, as it was shown, and
     every teammate has the prompt it was spawned with;
  3. nothing was delivered twice: no message is recorded twice, and each
     recorded message was delivered, to the member that records it;
  4. delivered => recorded, except an idle_notification to the lead, which
     reaches the lead's model only when the lead waits on that teammate
     (doc/team.md); undelivered => not recorded;
  5. no request is in an impossible state (status, decided_at, live
     parties of a pending request, the plan gate of an approved plan), and
     no decision shown in a "request" event was lost;
  6. transcripts are JSON objects with role user or assistant, and each
     member's seq runs 1..n.

After the last round huddle runs once more with --resume: a message to the
lead must be recorded and answered, and /quit must end it with status 0.

The scenario is made afresh for each round from the roster in the store:
the script provider restarts every agent at its first turn in each process,
so the lead always begins by spawning its teammates (which fails with
"already exists" once they do) and a teammate that has shut down is
replaced by a new name.
"""

import collections
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import HUDDLE, Results, team_folder, wait_for  # noqa: E402

KILL_MIN_S = 0.05
KILL_MAX_S = 1.5
# Under a sanitizer huddle is several times slower; this only bounds waits.
FINAL_DEADLINE_S = 60

# Teammates' names, in the order they are first spawned; a teammate that
# has shut down is replaced by the next free name. Every third one must have
# its plan approved.
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi",
         "ivan", "judy", "ken", "lena", "mallory", "nina", "oscar", "peggy"]
NAMES += ["mate%d" % i for i in range(len(NAMES), 1000)]
LIVE_TEAMMATES = 3

MEMBER_STATUSES = {"starting", "working", "idle", "waiting", "error",
                   "terminated"}
REQ_STATUSES = {"pending", "approved", "rejected", "expired", "cancelled"}
# Store failures an agent reports: they must never happen.
STORE_ERRORS = ("could not store", "could not read the inbox",
                "could not record")
QUIT_REASON = ("the person is quitting huddle; approve to stop now: you will "
               "continue where you are when the team is resumed")


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


# --- the scenario ------------------------------------------------------------


def turn(text, *tools, delay=20):
    """One scripted model turn that streams its text in small timed pieces,
    so each call takes about 60-150 ms."""
    t = {"text": text, "chunk_chars": 6, "chunk_delay_ms": delay}
    if tools:
        t["tools"] = [{"name": n, "input": i} for n, i in tools]
    return t


def lead_turns(team, spawns):
    first = turn("Spawning the team.", *[
        ("spawn_teammate", {"name": n, "role": "worker", "prompt": prompt_of(n),
                            "plan_required": plan_required(n)})
        for n in spawns])
    out = [first]
    for k in range(60):
        who = team[k % len(team)]
        other = team[(k + 1) % len(team)]
        out += [
            turn("Round %d: telling everyone." % k,
                 ("broadcast", {"content": "lead broadcast %d" % k}),
                 ("send_message", {"to": who, "content": "lead to %s: task %d" % (who, k)})),
            turn("Noting progress %d." % k,
                 ("write_file", {"path": "lead_notes.txt", "content": "round %d\n" % k}),
                 ("bash", {"command": "echo lead %d" % k})),
            turn("Reviewing what came in.",
                 ("review_plan", {"request_id": "{{request_id}}", "approve": True,
                                  "feedback": "fine %d" % k}),
                 ("send_message", {"to": other, "content": "lead to %s: more %d" % (other, k)}),
                 ("list_teammates", {})),
            turn("Waiting for the team, %d." % k),
        ]
    return out


def teammate_turns(name, team):
    peers = [n for n in team if n != name] or ["lead"]
    out = []
    for k in range(40):
        peer = peers[k % len(peers)]
        out += [
            turn("%s: working on %d." % (name, k),
                 ("write_file", {"path": "%s.txt" % name, "content": "%s %d\n" % (name, k)}),
                 ("bash", {"command": "echo %s %d" % (name, k)})),
            turn("%s: reporting %d." % (name, k),
                 ("send_message", {"to": "lead", "content": "%s progress %d" % (name, k)}),
                 ("send_message", {"to": peer, "content": "%s to %s: hi %d" % (name, peer, k)})),
            # Answers the newest request in its conversation: a shutdown
            # request when there is one (else the answer is refused).
            turn("%s: answering requests." % name,
                 ("shutdown_response", {"request_id": "{{request_id}}",
                                        "approve": k % 2 == 1,
                                        "reason": "%s answer %d" % (name, k)}),
                 ("read_inbox", {})),
        ]
        if plan_required(name):
            out.append(turn("%s: asking for a plan." % name,
                            ("submit_plan", {"plan": "1. %s step %d" % (name, k)})))
        elif k % 4 == 2:
            # A risky command: it waits for the person's /approve (late in
            # the list, or the teammates would spend most runs waiting).
            out.append(turn("%s: cleaning up." % name,
                            ("bash", {"command": "rm -rf scratch_%s" % name})))
        out.append(turn("%s: done for now, %d." % (name, k)))
    return out


def prompt_of(name):
    return "You are %s. Do your part and report to the lead." % name


def plan_required(name):
    return name in NAMES and NAMES.index(name) % 3 == 2


def roster(db):
    """{name: status} of the members in the store ({} if there is none)."""
    if not os.path.exists(db):
        return {}
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return dict(con.execute("SELECT name, status FROM members"))
    except sqlite3.OperationalError:      # killed before the schema was made
        return {}
    finally:
        con.close()


def has_schema(db):
    """Whether db exists and holds huddle's tables (a kill may come before
    the first migration commits)."""
    if not os.path.exists(db):
        return False
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return con.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'members'"
                           ).fetchone()[0] == 1
    finally:
        con.close()


def make_scenario(members):
    """The scenario for one process: the live teammates, topped up with
    new names to LIVE_TEAMMATES."""
    live = [n for n, s in members.items() if n != "lead" and s != "terminated"]
    live.sort(key=lambda n: NAMES.index(n) if n in NAMES else len(NAMES))
    pool = [n for n in NAMES if n not in members]
    team = live[:]
    while len(team) < LIVE_TEAMMATES and pool:
        team.append(pool.pop(0))
    # The first three are spawned every time, so later runs see "already
    # exists"; replacements are spawned as well.
    spawns = list(dict.fromkeys(["alice", "bob", "carol"] + team))
    agents = {"lead": lead_turns(team, spawns)}
    for n in set(team) | set(members) - {"lead"}:
        agents[n] = teammate_turns(n, team)
    agents["*"] = [turn("Nothing scripted for me.")]
    return {"agents": agents}, team


# --- running huddle ----------------------------------------------------------


class Run:
    """One huddle --headless process; its stdout events are collected by a
    thread."""

    def __init__(self, workdir, script, resume):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "OPENAI_", "HUDDLE_"))}
        cmd = [HUDDLE, "--headless", "--provider", "script", "--script", script,
               "--workdir", workdir, "--quit-timeout", "2"]
        if resume:
            cmd.append("--resume")
        self.events = []
        self.bad_lines = []       # lines that are not JSON
        self.cut = None           # a last line without its newline
        self.cond = threading.Condition()
        self.eof = False
        self.stderr = b""
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.out_thread = threading.Thread(target=self._read, daemon=True)
        self.err_thread = threading.Thread(target=self._read_err, daemon=True)
        self.out_thread.start()
        self.err_thread.start()

    def _read(self):
        for raw in self.proc.stdout:
            ev = None
            if raw.endswith(b"\n"):
                try:
                    ev = json.loads(raw)
                except ValueError:
                    pass
            with self.cond:
                if not raw.endswith(b"\n"):
                    self.cut = raw      # only the last line can lack it
                elif ev is None:
                    self.bad_lines.append(raw)
                else:
                    self.events.append(ev)
                self.cond.notify_all()
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def _read_err(self):
        self.stderr = self.proc.stderr.read()

    def send(self, line):
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def wait_until(self, when, events=None):
        """Waits until monotonic time `when`, the `events`-th event or the
        end of stdout, whichever comes first. Returns whether that event
        has come."""
        with self.cond:
            while not self.eof and (events is None or len(self.events) < events):
                left = when - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            return events is not None and len(self.events) >= events

    def wait_event(self, match, since, deadline, what):
        """Waits for the first event from index `since` that matches;
        returns its index."""
        i = since
        with self.cond:
            while True:
                while i < len(self.events):
                    if match(self.events[i]):
                        return i
                    i += 1
                left = deadline - time.monotonic()
                if self.eof or left <= 0:
                    tail = "\n".join(json.dumps(e) for e in self.events[-10:])
                    raise AssertionError("%s waiting for %s; last events:\n%s%s" % (
                        "huddle ended" if self.eof else "timed out", what, tail,
                        self.stderr_note()))
                self.cond.wait(min(left, 0.5))

    def kill9(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.finish()

    def finish(self):
        self.out_thread.join(10)
        self.err_thread.join(10)
        expect(not self.out_thread.is_alive(), "huddle's stdout stayed open after it ended")
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def stderr_note(self):
        text = self.stderr.decode(errors="replace").strip()
        return "\nstderr:\n" + text[-3000:] if text else ""


# --- checking the store ------------------------------------------------------


def check_store(db, events, quit_done=False):
    """The checks 1-6 on the store left by a process whose events were
    `events`. Returns the number of messages in the store."""
    expect(os.path.exists(db), "%s does not exist" % db)
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return _check_store(con, events, quit_done)
    finally:
        con.close()


def _check_store(con, events, quit_done):
    # 1. The file is sound.
    rows = con.execute("PRAGMA integrity_check").fetchall()
    expect(rows == [("ok",)], "integrity_check: %r" % rows[:10])

    members = {}
    for name, prompt, status, plan_approved in con.execute(
            "SELECT name, prompt, status, plan_approved FROM members"):
        expect(status in MEMBER_STATUSES, "member %s has status %r" % (name, status))
        members[name] = {"prompt": prompt, "status": status,
                         "plan_approved": plan_approved}
    msgs = {}
    for mid, sender, to, typ, content, meta, delivered in con.execute(
            "SELECT id, sender, recipient, type, content, metadata, delivered_at"
            " FROM messages"):
        msgs[mid] = {"from": sender, "to": to, "type": typ, "content": content,
                     "metadata": meta, "delivered": delivered is not None}

    # 2. No message shown as sent is missing or different.
    shown = [e for e in events if e.get("event") == "message"]
    for e in shown:
        m = msgs.get(e["id"])
        expect(m is not None, "message %d (%s from %s to %s) was shown as sent but is "
               "not in the store" % (e["id"], e["type"], e["from"], e["to"]))
        for k in ("from", "to", "type", "content"):
            expect(m[k] == e[k], "message %d: %s is %r in the store, %r in its event"
                   % (e["id"], k, m[k], e[k]))
        expect(json.loads(m["metadata"]) == e["metadata"],
               "message %d: metadata is %s in the store, %s in its event"
               % (e["id"], m["metadata"], json.dumps(e["metadata"])))
    for name, m in members.items():
        if name == "lead":
            continue
        expect(any(x["to"] == name and x["from"] == "lead" and x["type"] == "message"
                   and x["content"] == m["prompt"] for x in msgs.values()),
               "teammate %s is in the roster but the prompt it was spawned with was "
               "never sent to it" % name)

    # 3. Nothing recorded twice; a record is of a message delivered to its member.
    recorded = collections.Counter()
    seqs = collections.defaultdict(list)
    for member, seq, entry, mid in con.execute(
            "SELECT member, seq, entry, message_id FROM transcripts ORDER BY member, seq"):
        seqs[member].append(seq)
        # 6. Entries are JSON objects of a user or the assistant.
        try:
            obj = json.loads(entry)
        except ValueError as exc:
            raise AssertionError("%s's transcript entry %d is not JSON (%s): %.200r"
                                 % (member, seq, exc, entry))
        expect(isinstance(obj, dict) and obj.get("role") in ("user", "assistant"),
               "%s's transcript entry %d has no role user|assistant: %.200r"
               % (member, seq, entry))
        expect("content" in obj, "%s's transcript entry %d has no content" % (member, seq))
        if mid is None:
            continue
        recorded[mid] += 1
        m = msgs.get(mid)
        expect(m is not None, "%s's transcript entry %d records message %d, which does "
               "not exist" % (member, seq, mid))
        expect(m["to"] == member, "%s's transcript entry %d records message %d, which "
               "was sent to %s" % (member, seq, mid, m["to"]))
        expect(m["delivered"], "%s's transcript entry %d records message %d, which is "
               "not marked delivered" % (member, seq, mid))
        expect(obj.get("role") == "user", "message %d is recorded as a %s entry"
               % (mid, obj.get("role")))
    twice = [mid for mid, n in recorded.items() if n > 1]
    expect(not twice, "messages recorded more than once: %s" % twice[:10])
    for member, s in seqs.items():
        expect(s == list(range(1, len(s) + 1)),
               "%s's transcript seq is not 1..%d: %s" % (member, len(s), s[:20]))

    # 4. Delivered => recorded (but for the lead's idle notices, the
    # quit's shutdown request, which a teammate between turns answers
    # without its model, and huddle's own offers to the person, which the
    # lead's model is not told of).
    for mid, m in msgs.items():
        if m["delivered"] and mid not in recorded:
            expect((m["type"] == "idle_notification" and m["to"] == "lead") or
                   (m["type"] in ("shutdown_request", "permission_request")
                    and m["from"] == "system"),
                   "message %d (%s from %s to %s) is marked delivered but %s's "
                   "transcript does not record it" % (mid, m["type"], m["from"],
                                                      m["to"], m["to"]))

    # 5. Requests.
    reqs = {}
    for rid, typ, sender, target, status, body, decided_at in con.execute(
            "SELECT id, type, sender, target, status, body, decided_at FROM requests"):
        reqs[rid] = status
        what = "request %s (%s, %s -> %s)" % (rid, typ, sender, target)
        expect(status in REQ_STATUSES, "%s has status %r" % (what, status))
        expect(typ in ("shutdown", "plan", "permission"), "%s has type %r" % (what, typ))
        if status == "pending":
            expect(decided_at is None, "%s is pending but has decided_at" % what)
            for who in (target, sender):
                if who == "user":
                    continue
                expect(who in members, "%s is pending but %s is not a member" % (what, who))
                expect(members[who]["status"] != "terminated",
                       "%s is pending but %s has terminated" % (what, who))
            # Quitting withdraws the requests it made that no one answered.
            expect(not quit_done or body != QUIT_REASON,
                   "%s, made by quitting, is still pending after the quit" % what)
        else:
            expect(decided_at is not None, "%s is %s but has no decided_at" % (what, status))
        if typ == "plan" and status == "approved":
            expect(sender in members and members[sender]["plan_approved"] == 1,
                   "%s is approved but %s's plan_approved is not set" % (what, sender))
    for e in events:
        if e.get("event") != "request":
            continue
        expect(e["id"] in reqs, "request %s was shown but is not in the store" % e["id"])
        if e["status"] != "pending":
            expect(reqs[e["id"]] == e["status"],
                   "request %s was shown %s but the store says %s"
                   % (e["id"], e["status"], reqs[e["id"]]))
    return len(msgs)


def check_events(run, killed):
    """What the process itself said: JSON lines (the last one may be cut by
    a kill), no store failure, nothing on stderr (huddle writes there only
    when it fails, and so do the sanitizers)."""
    expect(not run.bad_lines, "lines of stdout that are not JSON: %r" % run.bad_lines[:3])
    expect(killed or run.cut is None, "the last line of stdout is cut: %r" % run.cut)
    for e in run.events:
        if e.get("event") == "error" and any(s in e.get("message", "") for s in STORE_ERRORS):
            raise AssertionError("%s reported a store failure: %s"
                                 % (e.get("agent"), e["message"]))
    expect(not run.stderr.strip(), "huddle wrote to stderr:%s" % run.stderr_note())


def approved_but_live(db):
    """{teammate: request id} for the teammates that approved a shutdown
    but are not marked terminated: the kill came between the approval and
    the end of the teammate's thread."""
    if not os.path.exists(db):
        return {}
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return dict(con.execute(
            "SELECT r.target, r.id FROM requests r JOIN members m ON m.name = r.target"
            " WHERE r.type = 'shutdown' AND r.status = 'approved'"
            " AND m.status != 'terminated' AND r.sender != 'system'"))
    except sqlite3.OperationalError:
        return {}
    finally:
        con.close()


def check_no_revenant(revenants, events):
    """A teammate that approved its shutdown must not work again after
    --resume: the approval was the last word of its thread."""
    for e in events:
        name = e.get("agent")
        if e.get("event") == "llm_call" and name in revenants:
            raise AssertionError(
                "%s approved shutdown %s and was killed before it was marked "
                "terminated; after --resume it works again (a model call at %d ms)"
                % (name, revenants[name], e["t"]))


# --- the campaign ------------------------------------------------------------


def write_scenario(workdir, db, path):
    members = roster(db)
    scenario, team = make_scenario(members)
    with open(path, "w") as f:
        json.dump(scenario, f)
    return members, team


def person_lines(rng, team, kill_after, round_no):
    """The person's input: (seconds after start, line), first a message that
    gives the lead work, then now and then a message, /msg, /approve or
    /shutdown."""
    lines = [(0.0, "person: kick-off of run %d" % round_no)]
    for i in range(rng.randint(1, 6)):
        at = rng.uniform(0, kill_after)
        roll = rng.random()
        if roll < 0.45:
            line = "person: note %d of run %d" % (i, round_no)
        elif roll < 0.6:
            line = "/msg %s person to %s, run %d" % (rng.choice(team), "you", round_no)
        elif roll < 0.85:
            line = "/approve"
        elif roll < 0.95:
            line = "/shutdown %s" % rng.choice(team)
        else:
            line = rng.choice(["/requests", "/team"])
        lines.append((at, line))
    lines.sort()
    return lines


def crash_round(state, workdir, script, round_no, seed):
    """One round: run, kill, check. state["team"] says whether an earlier
    round left a team in the store."""
    db = os.path.join(team_folder(workdir), "team.db")
    rng = random.Random(seed)
    members, team = write_scenario(workdir, db, script)
    resume = "lead" in members
    # The kill comes at a random moment or, one time in three, right after
    # a random number of events (if that comes first).
    kill_after = rng.uniform(KILL_MIN_S, KILL_MAX_S)
    kill_events = rng.randint(1, 500) if rng.random() < 1 / 3 else None
    inputs = person_lines(rng, team, kill_after, round_no)
    revenants = approved_but_live(db)
    run = Run(workdir, script, resume)
    start = run.started
    hit = False
    try:
        for at, line in inputs:
            if at >= kill_after:
                break
            hit = run.wait_until(start + at, kill_events)
            if run.eof or hit:
                break
            run.send(line)
        if not hit:
            hit = run.wait_until(start + kill_after, kill_events)
        died = run.proc.poll()
    finally:
        run.kill9()
    killed_at = time.monotonic() - start
    expect(died is None, "huddle ended by itself (status %s) before the kill%s"
           % (died, run.stderr_note()))
    expect(resume or not state["team"], "no team to resume: the store lost its roster")
    state["team"] = "lead" in roster(db)
    check_events(run, killed=True)
    if not state["team"] and not has_schema(db):
        # Killed before huddle made its store: nothing can have been sent.
        expect(not any(e.get("event") == "message" for e in run.events),
               "messages were shown but there is no store")
        return "seed %d, killed at %.3f s before the store was made" % (
            seed, time.monotonic() - start)
    n = check_store(db, run.events)
    check_no_revenant(revenants, run.events)
    shown = sum(e.get("event") == "message" for e in run.events)
    calls = sum(e.get("event") == "llm_call" for e in run.events)
    when = "after event %d" % kill_events if hit else "at %.3f s" % kill_after
    return ("seed %d, %s, killed %s (%.3f s) after %d events: %d model calls, "
            "%d messages shown, %d in the store" % (
                seed, "resumed" if resume else "fresh", when, killed_at,
                len(run.events), calls, shown, n))


def lead_answer(db, msg_id):
    """(seq of message msg_id in the lead's transcript, whether an assistant
    entry follows it), or None while it is not recorded."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        row = con.execute("SELECT member, seq FROM transcripts WHERE message_id = ?",
                          (msg_id,)).fetchone()
        if row is None:
            return None
        expect(row[0] == "lead", "the person's message %d is in %s's transcript"
               % (msg_id, row[0]))
        later = [json.loads(e)["role"] for (e,) in con.execute(
            "SELECT entry FROM transcripts WHERE member = 'lead' AND seq > ?", (row[1],))]
        return row[1], "assistant" in later
    finally:
        con.close()


def final_round(state, workdir, script):
    """--resume once more: the lead answers the person, and /quit ends
    huddle with status 0."""
    db = os.path.join(team_folder(workdir), "team.db")
    members, team = write_scenario(workdir, db, script)
    # Every kill may have come before the team was stored.
    resume = "lead" in members
    expect(resume or not state["team"], "no team to resume: the store lost its roster")
    revenants = approved_but_live(db)
    run = Run(workdir, script, resume)
    try:
        text = "person: are you still there after all those crashes?"
        run.send(text)
        deadline = time.monotonic() + FINAL_DEADLINE_S
        i = run.wait_event(lambda e: e.get("event") == "message" and e.get("from") == "user"
                           and e.get("content") == text, 0, deadline, "the person's message")
        msg_id = run.events[i]["id"]
        # Events of different threads may come in either order, so the
        # store says when the message has been recorded and answered.
        wait_for(lambda: (lead_answer(db, msg_id) or (0, False))[1],
                 deadline - time.monotonic(), "the lead to answer the person's message")
        i = run.wait_event(lambda e: e.get("event") == "llm_call" and e.get("agent") == "lead",
                           0, deadline, "a model call of the lead")
        run.wait_event(lambda e: e.get("event") == "text" and e.get("agent") == "lead",
                       i, deadline, "text from the lead")
        run.send("/quit")
        try:
            status = run.proc.wait(max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise AssertionError("huddle did not exit within %d s of /quit%s"
                                 % (FINAL_DEADLINE_S, run.stderr_note()))
        run.finish()
    finally:
        if run.proc.poll() is None:
            run.kill9()
    expect(status == 0, "exit status %s%s" % (status, run.stderr_note()))
    expect(run.events and run.events[-1].get("event") == "exit",
           "the last event is not exit: %r" % (run.events[-1:],))
    check_events(run, killed=False)
    n = check_store(db, run.events, quit_done=True)
    check_no_revenant(revenants, run.events)
    return ("the lead answered message %d, /quit gave status 0 after %d events\n  %s"
            % (msg_id, len(run.events), store_summary(db)))


def store_summary(db):
    """What the campaign left in the store, to show what it went through."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        q = lambda sql: con.execute(sql).fetchall()   # noqa: E731
        members = q("SELECT status, COUNT(*) FROM members GROUP BY status")
        reqs = q("SELECT type || ' ' || status, COUNT(*) FROM requests GROUP BY 1")
        msgs = q("SELECT COUNT(*), COUNT(delivered_at) FROM messages")[0]
        entries = q("SELECT COUNT(*) FROM transcripts")[0][0]
        cut = q("SELECT COUNT(*) FROM transcripts"
                " WHERE entry LIKE '%interrupted: huddle stopped%'")
    finally:
        con.close()
    return ("the store: members %s; requests %s; %d messages (%d delivered); %d transcript "
            "entries, %d of them tool results cut by a kill" % (
                dict(members), dict(reqs), msgs[0], msgs[1], entries, cut[0][0]))


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.SystemRandom().randrange(1 << 31)
    print("crash campaign: %d rounds, seed %d (crash_loop.py %d %d repeats it)"
          % (rounds, seed, rounds, seed))
    sys.stdout.flush()
    tmp = tempfile.mkdtemp(prefix="huddle-crash-")
    workdir = os.path.join(tmp, "team")
    script = os.path.join(tmp, "scenario.json")
    os.mkdir(workdir)
    r = Results()
    seeds = random.Random(seed)
    state = {"team": False}
    started = time.monotonic()
    # A failed round leaves the store as the check found it, and stops the
    # campaign: the rounds after it would only trip over the same damage.
    for i in range(rounds + 1):
        name = "round %d" % (i + 1) if i < rounds else "resume after the last round"
        try:
            if i < rounds:
                summary = crash_round(state, workdir, script, i + 1, seeds.randrange(1 << 31))
            else:
                summary = final_round(state, workdir, script)
        except Exception as exc:     # a failed check of any kind
            r.failed += 1
            print("FAIL: %s: %s" % (name, exc))
            print("(the team and the scenario are kept in %s)" % tmp)
            break
        r.passed += 1
        print("ok: %s: %s" % (name, summary))
        sys.stdout.flush()
    print("%.1f s in all" % (time.monotonic() - started))
    if r.failed == 0:
        shutil.rmtree(tmp, ignore_errors=True)
    r.finish()


if __name__ == "__main__":
    main()
