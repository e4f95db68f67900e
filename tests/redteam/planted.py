"""The red team's run with the defaults: a working tree that carries a
.huddle/team.db (as a cloned repository may) must keep it where it is,
unopened and unchanged; huddle says it is there and ignores it. Watched
with inotify from before huddle starts until it has quit. In the same
run, with the default network (huddle's proxy), the lead's command tries
TCP and UDP to loopback listeners directly, past the proxy: the sandbox
must refuse both, whatever the person approves."""

import ctypes
import hashlib
import json
import os
import socket
import sqlite3
import tempfile

from attack import judge, landlock_abi
from fakellm_client import FakeLLM, team_folder
from team_driver import Huddle, call, ev, notes

MARK = "REDTEAM-PLANTED-STORE-3e8f"
# IN_ACCESS, IN_MODIFY, IN_ATTRIB, IN_OPEN, IN_DELETE_SELF, IN_MOVE_SELF
WATCH = 0x1 | 0x2 | 0x4 | 0x20 | 0x400 | 0x800
IN_NONBLOCK = 0o4000


def run(approve=True):
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
    return [_direct(),
            judge("a .huddle/team.db planted in the workdir",
                  "left where it was, unopened", _check, planted, before,
                  events, work, said)], []


def _direct():
    """The lead's command, with the default network, past the proxy."""
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(4)
    tcp.setblocking(False)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    direct = ("python3 -c \"\nimport socket\ntry:\n    socket.create_"
              "connection(('127.0.0.1', %d), 3)\n    print('tcp=0')\n"
              "except OSError as e:\n    print('tcp=1', e)\ntry:\n"
              "    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto("
              "b'the-secret', ('127.0.0.1', %d))\n    print('udp=0')\n"
              "except OSError as e:\n    print('udp=1', e)\n\""
              % (tcp.getsockname()[1], udp.getsockname()[1]))
    res = None
    try:
        with FakeLLM() as fake:
            fake.reset()
            fake.script(call("lead", "bash", command=direct),
                        *notes("lead", 4))
            with Huddle(fake) as h:
                h.send("hello")
                approved = set()

                def result(e):
                    if e.get("event") == "request" and \
                            e.get("status") == "pending" and \
                            e.get("type") != "plan" and \
                            e.get("id") not in approved:
                        approved.add(e["id"])
                        h.send("/%s %s" % ("reject" if approve == "reject"
                                           else "approve", e["id"]))
                    return e.get("event") == "tool_result"
                res = h.wait(result, timeout=60, what="the lead's command")
                h.send("/quit")
                h.wait_exit(30)
    except AssertionError:
        pass
    r = judge("direct TCP and UDP past the proxy (defaults)", "refused",
              _check_direct, res, tcp, udp)
    tcp.close()
    udp.close()
    return r


def _check_direct(res, tcp, udp):
    if res is None:
        return False, "the command never ran"
    got = []
    try:
        tcp.accept()[0].close()
        got.append("a TCP connection")
    except BlockingIOError:
        pass
    try:
        udp.recv(100)
        got.append("a datagram")
    except BlockingIOError:
        pass
    out = res["output"]
    if landlock_abi() < 4 and got == ["a TCP connection"]:
        got = []            # Landlock cannot deny TCP there
        out = out.replace("tcp=0", "tcp=1")
    ok = not got and "tcp=1" in out and "udp=1" in out
    return ok, "both refused by the sandbox" if ok else \
        "the listeners got %s (%s)" % (got or "nothing", out[:80])


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
