"""A small git repository for the worktree tests: `repo()` makes one with
a.txt committed on main; `git(repo, ...)` runs git there and returns what
it printed."""

import os
import subprocess
import tempfile


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True,
                          capture_output=True, text=True).stdout


def repo(prefix="huddle-wt-"):
    d = os.path.realpath(tempfile.mkdtemp(prefix=prefix))
    git(d, "init", "-q", "-b", "main")
    git(d, "config", "user.name", "Person")
    git(d, "config", "user.email", "person@example.invalid")
    with open(os.path.join(d, "a.txt"), "w") as f:
        f.write("one\ntwo\nthree\n")
    git(d, "add", "a.txt")
    git(d, "commit", "-q", "-m", "first")
    return d
