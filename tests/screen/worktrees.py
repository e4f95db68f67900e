#!/usr/bin/env python3
"""Worktrees on the screen, in a real terminal (tmux): two teammates
change the same file differently in their worktrees; F7 on the first
one's pane shows its diff (file list, counts, hunks), Esc closes it;
/diff on the second shows its; /merge merges the first into the
person's branch, and /merge on the second reports the conflict and its
file, with nothing changed and nothing lost. A task that names a
worktree shows it on the board and in its holder's pane title, and F7
on the holder's pane shows that worktree's changes.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from huddle_screen import (expect, fake_screen, quit_clean, run_main,  # noqa: E402
                           say_to_lead)
from gitrepo import git, repo  # noqa: E402


def test_review_and_merge(fake):
    work = repo("huddle-screen-wt-")
    fake.reset()
    say = [{"agent": a, "kind": "text", "text": "Noted."}
           for a in ("lead", "ann", "ben") for _ in range(6)]
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "spawn_teammate", "input": {
                "name": n, "role": "coder", "prompt": "Change a.txt."}}
            for n in ("ann", "ben")]},
        {"agent": "ann", "kind": "tool_use", "calls": [
            {"name": "write_file", "input": {
                "path": "a.txt", "content": "one\nann's two\nthree\n"}}]},
        {"agent": "ben", "kind": "tool_use", "calls": [
            {"name": "write_file", "input": {
                "path": "a.txt", "content": "one\nben's two\nthree\n"}}]},
        *say)
    with fake_screen(fake, ["--quit-timeout", "2", "--worktrees"], 120, 40,
                     workdir=work) as s:
        say_to_lead(s, "Change a.txt, both of you.")
        s.wait_for(lambda t: t.count("wrote 20 bytes to a.txt") +
                   t.count("wrote 21 bytes") >= 2 or
                   t.count("wrote ") >= 2, 30, "both wrote a.txt")
        # F7 on ann's pane: her diff.
        s.send_keys("Tab")
        s.wait_for("ann>", 5, "ann's pane focused")
        s.send_keys("F7")
        screen = s.wait_for("huddle/ann since", 10, "ann's diff")
        expect("1 file · +1 −1" in screen and "a.txt  +1 −1" in screen and
               "+ann's two" in screen and "-two" in screen,
               "the diff view:\n" + screen)
        s.send_keys("Escape")
        s.wait_gone("huddle/ann since", 5)
        s.send_text("/diff ben")
        s.send_keys("Enter")
        screen = s.wait_for("huddle/ben since", 10, "ben's diff")
        expect("+ben's two" in screen, screen)
        s.send_keys("Escape")
        s.wait_gone("huddle/ben since", 5)
        s.send_text("/merge ann")
        s.send_keys("Enter")
        s.wait_for("merged huddle/ann into main", 15, "the merge")
        s.send_text("/merge ben")
        s.send_keys("Enter")
        s.wait_for("does not merge cleanly into main (conflicts: a.txt)",
                   15, "the conflict and its file")
        with open(os.path.join(work, "a.txt")) as f:
            expect(f.read() == "one\nann's two\nthree\n", "main is wrong")
        expect(git(work, "status", "--porcelain") == "", "tree changed")
        expect("ben's two" in git(work, "show", "huddle/ben:a.txt"),
               "ben's work is lost")
        quit_clean(s)


def test_task_worktree_on_screen(fake):
    work = repo("huddle-screen-twt-")
    wt = os.path.join(work, ".huddle", "worktrees", "parser")
    fake.reset()
    fake.script(
        {"agent": "lead", "kind": "tool_use", "calls": [
            {"name": "task_create", "input": {
                "subject": "parse", "worktree": "parser"}},
            {"name": "spawn_teammate", "input": {
                "name": "cal", "role": "worker", "autonomous": True,
                "prompt": "Take tasks from the board."}}]},
        *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 6,
        # cal works until the test lets it finish.
        {"kind": "worker", "before":
         "echo draft > draft.txt; while [ ! -e go ]; do sleep 0.1; done"})
    with fake_screen(fake, ["--quit-timeout", "2"], 120, 40,
                     workdir=work) as s:
        say_to_lead(s, "Parse it.")
        s.wait_for("t1 parse [parser]", 30, "cal's title names the worktree")
        s.send_keys("F4")
        s.wait_for("[parser] parse", 10, "the board shows the worktree")
        s.send_keys("F4")
        s.wait_for(lambda t: os.path.exists(os.path.join(wt, "draft.txt")),
                   30, "cal wrote its draft in the worktree")
        s.send_keys("Tab")
        s.wait_for("cal>", 5, "cal's pane focused")
        s.send_keys("F7")
        screen = s.wait_for("huddle/parser since", 10, "the task's diff")
        expect("draft.txt" in screen and "+draft" in screen,
               "the diff view:\n" + screen)
        s.send_keys("Escape")
        s.wait_gone("huddle/parser since", 5)
        open(os.path.join(wt, "go"), "w").close()
        s.wait_for(lambda t: "t1 parse [parser]" not in t, 30,
                   "cal done with t1")
        expect(not os.path.exists(os.path.join(work, "draft.txt")),
               "the task's work landed in the person's tree")
        quit_clean(s)


def tests(r, fake):
    r.run("F7 and /diff review two worktrees; one merges, one conflicts",
          test_review_and_merge, fake)
    r.run("a task's worktree on the board, in the title and under F7",
          test_task_worktree_on_screen, fake)


if __name__ == "__main__":
    run_main(tests)
