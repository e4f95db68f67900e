#!/usr/bin/env python3
"""Several teams in one working tree: --new sets the kept team aside under
a name and starts a fresh one; --teams lists both; --resume --team NAME
continues the one set aside and plain --resume the fresh one; --team NAME
starts a named team beside them; the options that do not go together say
so. The real binary in --headless mode against the fake LLM server.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import (API_KEY, HUDDLE, FakeLLM, Results,  # noqa: E402
                            run_huddle, team_folder)
from team_driver import Huddle, ev, expect, say  # noqa: E402

FIRST = "The first team remembers the parser."
SECOND = "The second team starts afresh."


def lead_texts(fake):
    """Every text the lead's last request carries."""
    reqs = [r for r in fake.requests() if r.get("agent") == "lead"]
    expect(reqs, "the lead asked nothing")
    return json.dumps(reqs[-1]["body"]["messages"])


def one_turn(fake, workdir, args, reply, typed):
    """Starts huddle with args, types a line, waits for the reply, quits;
    returns the events."""
    fake.reset()
    fake.script(say("lead", reply))
    with Huddle(fake, workdir=workdir, args=args) as h:
        h.send(typed)
        h.wait_text("lead", reply)
        h.wait(ev("status", "lead", status="idle"), what="the lead idle")
        h.send("/quit")
        expect(h.wait_exit() == 0, "huddle did not quit: %s" % h.stderr)
    return h.events


def plain_start(fake, workdir, *args):
    env = {"ANTHROPIC_API_KEY": API_KEY,
           "ANTHROPIC_BASE_URL": fake.anthropic_url}
    return run_huddle(["--headless", "--workdir", workdir] + list(args),
                      env=env, timeout=20)


def teams_listed():
    out = subprocess.run([HUDDLE, "--teams"], capture_output=True,
                         text=True, timeout=10)
    expect(out.returncode == 0, "--teams: %s" % out.stderr)
    return out.stdout


def test_new_sets_the_kept_team_aside(fake):
    work = tempfile.mkdtemp(prefix="huddle-teams-")
    try:
        one_turn(fake, work, [], FIRST, "remember the parser")
        # Plain huddle where a team is kept: one sentence naming both ways.
        status, _, err, _, _ = plain_start(fake, work)
        expect(status == 1 and "--resume continues it" in err and
               "--new sets it aside" in err, "a plain start said %d %r"
               % (status, err))

        events = one_turn(fake, work, ["--new"], SECOND, "start over")
        notices = [e["message"] for e in events if e["event"] == "notice"
                   and "set aside as" in e.get("message", "")]
        expect(len(notices) == 1, "no notice of the team set aside: %r"
               % [e for e in events if e["event"] == "notice"])
        name = re.search(r"set aside as (\S+):", notices[0]).group(1)
        expect(re.fullmatch(r"\d{8}-\d{4}", name), "the name %r" % name)
        expect("--resume --team %s" % name in notices[0], notices[0])
        expect(FIRST not in lead_texts(fake),
               "the fresh team's lead knows the first team's talk")
        expect(os.path.isdir(team_folder(work) + "." + name),
               "the set-aside team's folder is not where it should be")

        # --teams lists both, the one set aside by name.
        listed = [ln for ln in teams_listed().splitlines()
                  if os.path.realpath(work) in ln]
        expect(len(listed) == 2 and sum("--team %s " % name in ln
                                        for ln in listed) == 1,
               "--teams lists %r" % listed)

        # Each is continued by its own name, with its own history.
        one_turn(fake, work, ["--resume", "--team", name], "Back again.",
                 "where were we")
        expect(FIRST in lead_texts(fake) and SECOND not in
               lead_texts(fake), "--resume --team did not continue the "
               "first team")
        one_turn(fake, work, ["--resume"], "Still here.", "and you?")
        expect(SECOND in lead_texts(fake) and FIRST not in
               lead_texts(fake), "--resume did not continue the fresh team")

        # --new again: a second name, the first one kept.
        events = one_turn(fake, work, ["--new"], "Third.", "again")
        again = [e["message"] for e in events if e["event"] == "notice"
                 and "set aside as" in e.get("message", "")]
        expect(again and re.search(r"set aside as (\S+):", again[0])
               .group(1) != name, "a second --new reused the name: %r"
               % again)
        expect(len([ln for ln in teams_listed().splitlines()
                    if os.path.realpath(work) in ln]) == 3,
               "three teams are not listed")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_named_team_beside(fake):
    work = tempfile.mkdtemp(prefix="huddle-teams-")
    try:
        one_turn(fake, work, [], FIRST, "remember the parser")
        one_turn(fake, work, ["--team", "review"], SECOND, "review it")
        expect(FIRST not in lead_texts(fake), "the named team is not new")
        status, _, err, _, _ = plain_start(fake, work, "--team", "review")
        expect(status == 1 and "--resume --team review continues it" in
               err, "a second --team review said %d %r" % (status, err))
        status, _, err, _, _ = plain_start(fake, work, "--resume", "--team",
                                           "nobody")
        expect(status == 1 and "no team called 'nobody'" in err and
               "--teams" in err, "resuming no such team said %r" % err)
        one_turn(fake, work, ["--resume"], "Plain.", "hello")
        expect(FIRST in lead_texts(fake) and SECOND not in lead_texts(fake),
               "the unnamed team is not the first one")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_a_live_team_is_not_set_aside(fake):
    work = tempfile.mkdtemp(prefix="huddle-teams-")
    try:
        fake.reset()
        fake.script(say("lead", FIRST))
        with Huddle(fake, workdir=work) as h:
            h.send("hello")
            h.wait_text("lead", FIRST)
            status, _, err, _, _ = plain_start(fake, work, "--new")
            expect(status == 1 and "is running this team" in err,
                   "--new beside a live team said %d %r" % (status, err))
            h.send("/quit")
            expect(h.wait_exit() == 0, "huddle did not quit")
        expect(len([ln for ln in teams_listed().splitlines()
                    if os.path.realpath(work) in ln]) == 1,
               "a refused --new moved or made a team")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_options_that_do_not_go_together(fake):
    work = tempfile.mkdtemp(prefix="huddle-teams-")
    try:
        for args, words in (
                (["--new", "--resume"], "give one of them"),
                (["--new", "--team", "x"], "give one of them"),
                (["--team", "a/"], "1 to 32 letters"),
                (["--team", "x" * 33], "1 to 32 letters"),
                (["--demo", "--new"], "the demo starts afresh")):
            status, _, err, _, _ = plain_start(fake, work, *args)
            expect(status == 2 and words in err,
                   "%s said %d %r" % (args, status, err))
        expect(not os.listdir(work), "a refused start left files")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("--new sets the kept team aside; each resumes by name",
              test_new_sets_the_kept_team_aside, fake)
        r.run("--team NAME: a team of its own beside the unnamed one",
              test_named_team_beside, fake)
        r.run("a live team is not set aside",
              test_a_live_team_is_not_set_aside, fake)
        r.run("options that do not go together say so",
              test_options_that_do_not_go_together, fake)
    r.finish()


if __name__ == "__main__":
    main()
