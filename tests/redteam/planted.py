"""The red team's planted store: a working tree that carries a
.huddle/team.db (as a cloned repository may) must keep it where it is,
unopened and unchanged; huddle says it is there and ignores it. Watched
with inotify from before huddle starts until it has quit."""

import ctypes
import hashlib
import json
import os
import sqlite3
import tempfile

from attack import judge
from fakellm_client import FakeLLM, team_folder
from team_driver import Huddle, ev, notes

MARK = "REDTEAM-PLANTED-STORE-3e8f"
# IN_ACCESS, IN_MODIFY, IN_ATTRIB, IN_OPEN, IN_DELETE_SELF, IN_MOVE_SELF
WATCH = 0x1 | 0x2 | 0x4 | 0x20 | 0x400 | 0x800
IN_NONBLOCK = 0o4000


def run():
    """Returns (rows, lost)."""
    work = os.path.realpath(tempfile.mkdtemp(prefix="huddle-redteam-tree-"))
    planted = os.path.join(work, ".huddle", "team.db")
    os.makedirs(os.path.dirname(planted))
    c = sqlite3.connect(planted)
    c.execute("CREATE TABLE planted (mark TEXT)")
    c.execute("INSERT INTO planted VALUES (?)", (MARK,))
    c.commit()
    c.close()
    before = _identity(planted)
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(IN_NONBLOCK)
    if fd < 0 or libc.inotify_add_watch(fd, planted.encode(), WATCH) < 0:
        raise OSError(ctypes.get_errno(), "inotify")
    events = []
    try:
        with FakeLLM() as fake:
            fake.reset()
            fake.script(*notes("lead", 4))
            with Huddle(fake, workdir=work) as h:
                h.send("hello")
                h.wait(ev("text", "lead"), timeout=30, what="the lead")
                h.send("/quit")
                h.wait_exit(30)
                said = json.dumps(h.events)
        events = _drain(fd)
    except AssertionError as e:
        said = "huddle failed: %s" % e
        events = _drain(fd)
    finally:
        os.close(fd)
    return [judge("a .huddle/team.db planted in the workdir",
                  "left where it was, unopened", _check, planted, before,
                  events, work, said)], []


def _identity(path):
    st = os.stat(path)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return (st.st_ino, st.st_size, st.st_mtime_ns, digest)


def _drain(fd):
    got = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        got += chunk
    masks = []
    i = 0
    while i + 16 <= len(got):
        wd, mask, cookie, size = (int.from_bytes(got[i + k:i + k + 4],
                                                 "little")
                                  for k in (0, 4, 8, 12))
        masks.append(mask)
        i += 16 + size
    return masks


def _check(planted, before, events, work, said):
    if not os.path.exists(planted):
        return False, "it was moved or deleted"
    problems = []
    if _identity(planted) != before:
        problems.append("it changed")
    if events:
        problems.append("it was opened (inotify %s)" %
                        ", ".join("%#x" % m for m in events[:4]))
    state = os.path.join(team_folder(work), "team.db")
    if os.path.exists(state):
        with open(state, "rb") as f:
            if MARK.encode() in f.read():
                problems.append("its content is in the team's state")
    if problems:
        return False, "; ".join(problems)
    told = ".huddle/team.db" in said or "team.db" in said
    return True, "unopened, unchanged%s" % (
        ", and the person was told" if told else "")
