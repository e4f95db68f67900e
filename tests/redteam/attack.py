"""What the red team's parts share: an attack (one tool call of the
hostile teammate and the check of its goal), a row of the closing table,
how a command's exit status is read back from its output, the lead's
spawning of bob and mallory, and a loopback port that counts who
connects."""

import ctypes
import re
import socket
import threading

from team_driver import call


class Attack:
    """One tool call of the attacker; check(run, result) -> (ok, what
    happened), ok None for a step that sets up the next."""

    def __init__(self, name, expected, tool, check, **inputs):
        self.name = name
        self.expected = expected
        self.tool = tool
        self.inputs = inputs
        self.check = check


def exits(out, label):
    """The status a command printed as LABEL=N, or None."""
    m = re.search(r"%s=(\d+)" % label, out)
    return int(m.group(1)) if m else None


def row(name, expected, ok, what):
    """A row of the table: (attack, expected, result, ok)."""
    what = " ".join(str(what).split())
    if len(what) > 120:
        what = what[:117] + "..."
    if ok is None:
        return (name, "", "(step: %s)" % what, True)
    return (name, expected, ("refused: " if ok else "GOT THROUGH: ") + what,
            bool(ok))


def judge(name, expected, fn, *args):
    """A row from a check fn(*args) -> (ok, what); a check that breaks is a
    failure, with its reason."""
    try:
        ok, what = fn(*args)
    except Exception as e:  # a broken check is a failed one
        ok, what = False, "check failed: %s" % e
    return row(name, expected, ok, what)


def landlock_abi():
    """The kernel's Landlock ABI version, 0 without Landlock."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
    abi = libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0),
                       ctypes.c_uint32(1))
    return max(abi, 0)


def spawn_bob_and_mallory():
    """The lead's first calls in a red team script: bob, a writer whose
    plan the person approves, and mallory, the hostile helper."""
    return [call("lead", "spawn_teammate", name="bob", role="writer",
                 prompt="Plan, then write bob.txt.", plan_required=True),
            call("lead", "spawn_teammate", name="mallory", role="helper",
                 prompt="Help.")]


class Listener:
    """A port of 127.0.0.1 that counts the connections it accepts
    (.accepted) and hands each to on_connect, which closes it."""

    def __init__(self, backlog=8):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(backlog)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.on_connect(c)

    def on_connect(self, c):
        c.close()

    def close(self):
        self.sock.close()
