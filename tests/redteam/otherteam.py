"""The red team's run across teams: two teams of the same person, side
by side (each its own huddle, working tree and proxy). Team B's lead runs
a long command that leaves a file in its TMPDIR and holds a marker on its
command line, as every command does on its reaper's (which also holds
B's proxy port). Once the test itself sees both, team A's lead, the
person approving everything, tries to read that file and list B's
TMPDIR (both must be denied: a team's TMPDIR lies in its state folder,
which every team's commands are denied), and reads every command line
/proc shows. It must find neither B's marker
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
from fakellm_client import FakeLLM, team_folder, thread_sanitized
from team_driver import Huddle, call, ev, notes

MARKER = "REDTEAM-TEAM-B-CMDLINE-61f0"
SECRET = "REDTEAM-TEAM-B-SCRATCH-2b9e"
# Team B's command leaves a file in its TMPDIR; team A's tries to read it
# and to list the directory (their paths filled in once B's is known).
PLANT = "echo %s > \"$TMPDIR/b-secret\"; " % SECRET
READ = "\ncat '%s'; echo tmp=$?; ls \"$(dirname '%s')\"; echo ls=$?"
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


def _b_secret(b_dir):
    """The file team B's command left in its TMPDIR, or None."""
    found = glob.glob(os.path.join(team_folder(b_dir), "tmp-*", "b-secret"))
    return found[0] if found else None


def run(approve=True):
    """Returns (rows, lost)."""
    name = "reads another team's command lines (its proxy port) in /proc"
    expected = "none in sight"
    a_dir = os.path.realpath(tempfile.mkdtemp(prefix="huddle-redteam-a-"))
    b_dir = os.path.realpath(tempfile.mkdtemp(prefix="huddle-redteam-b-"))
    res, seen, said, secret = None, False, "", None
    try:
        with FakeLLM() as fake_b, FakeLLM() as fake_a:
            fake_b.reset()
            fake_b.script(call("lead", "bash", command=PLANT + HOLD),
                          *notes("lead", 4))
            with Huddle(fake_b, workdir=b_dir, approve=approve) as b:
                b.send("hello")
                deadline = time.monotonic() + 60
                while not seen and time.monotonic() < deadline:
                    b._pump(0.2)
                    seen = _marker_seen()
                    secret = _b_secret(b_dir)
                    seen = seen and secret is not None
                if seen:
                    fake_a.reset()
                    fake_a.script(call("lead", "bash", command=LOOK +
                                       READ % (secret, secret)),
                                  *notes("lead", 4))
                    with Huddle(fake_a, workdir=a_dir,
                                approve=approve) as a:
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
    rows = [judge("reads another team's TMPDIR", "permission denied",
                  _check_tmp, res, seen, said)]
    if os.geteuid() != 0:
        rows.append(row(name, expected, None, "not run: a user other than "
                        "root has no proc of its own (doc/security.md)"))
    elif thread_sanitized():
        rows.append(row(name, expected, None, "not run: ThreadSanitizer's "
                        "build makes no namespace holder"))
    else:
        rows.append(judge(name, expected, _check, res, seen, said))
    return rows, []


def _check_tmp(res, seen, said):
    if not seen:
        return False, "team B's command never ran: %s" % (said or "?")
    if res is None:
        return False, said or "team A's command never ran"
    out = res["output"]
    ok = exits(out, "tmp") not in (None, 0) and exits(out, "ls") not in \
        (None, 0) and SECRET not in out
    return ok, "permission denied to cat and ls" if ok else \
        "read: %s" % out[-120:]


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
