"""The red team's run across teams: two teams of the same person, side
by side (each its own huddle, working tree and proxy). Team B's lead runs
a long command that holds a marker on its command line, as every command
does on its reaper's (which also holds B's proxy port). Once the test
itself sees it in /proc, team A's lead, the person approving everything,
reads every command line /proc shows. It must find neither B's marker
nor any reaper's proxy port: as root, each command sees only its own
processes. A user other than root gets no proc of its own (there is no
PID namespace for it: doc/security.md), so there the row says so and
does not count."""

import glob
import os
import shutil
import tempfile
import time

from attack import exits, judge, row
from fakellm_client import FakeLLM, thread_sanitized
from team_driver import Huddle, call, ev, notes

MARKER = "REDTEAM-TEAM-B-CMDLINE-61f0"
HOLD = ("exec python3 -c 'import sys, time; time.sleep(int(sys.argv[1]))' "
        "90 %s" % MARKER)
# Split so that the attacker's own command line holds neither.
LOOK = r'''python3 - <<'EOF'
import glob
marks = ("REDTEAM-TEAM-B-" + "CMDLINE", "proxy" + "_port")
seen = []
for f in glob.glob("/proc/[0-9]*/cmdline"):
    try:
        t = open(f, "rb").read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        continue
    if any(m in t for m in marks):
        seen.append(t[:160])
print("procs=%d" % len(glob.glob("/proc/[0-9]*")))
print("seen=%d" % len(seen))
for s in seen:
    print("saw:", s)
EOF'''


def _marker_seen():
    """Whether the test itself sees team B's command in /proc."""
    for f in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(f, "rb") as fh:
                if MARKER.encode() in fh.read():
                    return True
        except OSError:
            continue
    return False


def run():
    """Returns (rows, lost)."""
    name = "reads another team's command lines (its proxy port) in /proc"
    expected = "none in sight"
    if os.geteuid() != 0:
        return [row(name, expected, None, "not run: a user other than "
                    "root has no proc of its own (doc/security.md)")], []
    if thread_sanitized():
        return [row(name, expected, None, "not run: ThreadSanitizer's "
                    "build makes no namespace holder")], []
    a_dir = os.path.realpath(tempfile.mkdtemp(prefix="huddle-redteam-a-"))
    b_dir = os.path.realpath(tempfile.mkdtemp(prefix="huddle-redteam-b-"))
    res, seen, said = None, False, ""
    try:
        with FakeLLM() as fake_b, FakeLLM() as fake_a:
            fake_b.reset()
            fake_b.script(call("lead", "bash", command=HOLD),
                          *notes("lead", 4))
            fake_a.reset()
            fake_a.script(call("lead", "bash", command=LOOK),
                          *notes("lead", 4))
            with Huddle(fake_b, workdir=b_dir, approve=True) as b:
                b.send("hello")
                deadline = time.monotonic() + 60
                while not seen and time.monotonic() < deadline:
                    b._pump(0.2)
                    seen = _marker_seen()
                if seen:
                    with Huddle(fake_a, workdir=a_dir, approve=True) as a:
                        a.send("hello")
                        res = a.wait(ev("tool_result", "lead"), timeout=60,
                                     what="team A's command")
                        a.send("/quit")
                        a.wait_exit(30)
                b.send("/quit")
                b.wait_exit(30)
    except AssertionError as e:
        said = "huddle failed: %s" % e
    finally:
        shutil.rmtree(a_dir, ignore_errors=True)
        shutil.rmtree(b_dir, ignore_errors=True)
    return [judge(name, expected, _check, res, seen, said)], []


def _check(res, seen, said):
    if not seen:
        return False, "team B's command never ran: %s" % (said or "?")
    if res is None:
        return False, said or "team A's command never ran"
    out = res["output"]
    n = exits(out, "seen")
    if n is None:
        return False, "the look failed: %s" % out[:100]
    ok = n == 0 and MARKER not in out
    return ok, "no other command in sight (%s processes seen)" % \
        exits(out, "procs") if ok else "saw %d: %s" % (n, out[:100])
