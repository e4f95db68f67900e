"""The red team's run against the disk. Two attacks, each a command
nobody is asked about:

* A full disk. huddle runs on a small file system of its own (a 96 MiB
  tmpfs, mounted in a mount namespace that only huddle and this test's
  wrapper see) that holds both the working tree and the team's state.
  mallory writes 200 MiB into the working tree, which fills it (and
  then cannot keep even its own transcript). What must hold: every sentence about it
  names a full disk (never the state's ceiling nor HUDDLE_STATE_MAX),
  bob's plan, waiting all along, is decided by the person and the
  decision lands, and the team quits cleanly. Mounting takes root; as
  another user the row says so and does not count.
* The team's scratch space. mallory writes 2.1 GiB in 20,000 files into
  its TMPDIR (the ceiling here 64 MiB and 5,000 files). The command must
  be stopped with a sentence naming the ceiling, long before it is
  done."""

import os
import shutil
import stat
import tempfile

from attack import exits, judge, row, spawn_bob_and_mallory
from fakellm_client import HUDDLE, FakeLLM
from team_driver import Huddle, call, contains, ev, notes

FILL = "head -c 200M /dev/zero > fill; echo fill=$?; df -k . | tail -1"
SCRATCH = ("i=0; while [ $i -lt 20000 ]; do head -c 110000 /dev/zero > "
           "\"$TMPDIR/f$i\" || break; i=$((i+1)); done; echo wrote=$i")
MEASURE = ("echo kib=$(du -sk \"$TMPDIR\" | cut -f1); "
           "echo files=$(ls \"$TMPDIR\" | wc -l)")

# Starts again in a mount namespace of its own, mounts the small disk
# there, makes the tree and the state folder in it, and starts huddle
# with the arguments it was given.
WRAPPER = """#!/bin/sh
set -e
if [ -z "$REDTEAM_IN_NS" ]; then
	REDTEAM_IN_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi
unset REDTEAM_IN_NS
mount -t tmpfs -o size=96m,mode=0755 redteam-disk '%s'
mkdir -m 0700 '%s/work' '%s/state'
exec '%s' "$@"
"""


def _script(fake, mallory):
    fake.reset()
    fake.script(
        *spawn_bob_and_mallory(),
        *notes("lead", 30),
        call("bob", "submit_plan", plan="1. write bob.txt"),
        *notes("bob", 10),
        *mallory,
        *notes("mallory", 10))


def _full_disk(approve):
    name = "a command fills the disk of the working tree and the state"
    expected = "a full disk named; the person's decision lands"
    if os.geteuid() != 0:
        return row(name, expected, None, "not run: mounting a small disk "
                   "takes root")
    top = tempfile.mkdtemp(prefix="huddle-redteam-disk-")
    disk = os.path.join(top, "disk")
    os.mkdir(disk)
    wrapper = os.path.join(top, "small-disk")
    with open(wrapper, "w") as f:
        f.write(WRAPPER % (disk, disk, disk, HUDDLE))
    os.chmod(wrapper, stat.S_IRWXU)
    said = {}
    try:
        with FakeLLM() as fake:
            _script(fake, [call("mallory", "bash", command=FILL)])
            # The tmpfs is seen by huddle alone, and goes with it.
            with Huddle(fake, workdir=os.path.join(disk, "work"),
                        env={"XDG_STATE_HOME": os.path.join(disk, "state")},
                        args=["--plan-review", "human"], approve=approve,
                        program=wrapper) as h:
                said = _full_disk_run(h, approve)
    except AssertionError as e:
        said["broke"] = str(e)[:300]
        if os.environ.get("REDTEAM_DEBUG"):
            print(e)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return judge(name, expected, _check_full_disk, said)


def _full_disk_run(h, approve):
    said = {}
    h.send("Start the team.")
    plan = h.wait(ev("request", type="plan", status="pending"), timeout=60,
                  what="bob's plan")
    fill = h.wait(ev("tool_result", "mallory", tool="bash"), timeout=60,
                  what="mallory's fill")
    said["fill"] = fill["output"]
    # mallory cannot even keep the result in its transcript: it stops.
    h.wait(ev("notice", message=contains("disk")), timeout=30,
           what="the notice")
    # The person's decision: a yes, or with nobody approving a no.
    no = approve == "reject"
    mark = len(h.events)
    h.send("/%s %s" % ("reject" if no else "approve", plan["id"]))
    said["approved"] = h.wait(ev("request", id=plan["id"], status=(
        "rejected" if no else "approved")), timeout=30, since=mark,
        what="the decision") is not None
    h.send("/quit")
    said["exit"] = h.wait_exit(30)
    said["texts"] = [e.get("message") or e.get("output") or
                     e.get("content") or "" for e in h.events]
    return said


def _check_full_disk(said):
    if "broke" in said:
        return False, "huddle failed: %s" % said["broke"]
    if exits(said["fill"], "fill") in (None, 0):
        return False, "the disk did not fill: %s" % said["fill"][:100]
    texts = said["texts"]
    disk = [t for t in texts if "disk holding the team's state is full" in t]
    wrong = [t for t in texts if "HUDDLE_STATE_MAX" in t or
             "reached its ceiling" in t]
    if not disk or wrong:
        return False, "what huddle said: %s" % (wrong or texts[-5:])[:1]
    if not said["approved"] or said["exit"] != 0:
        return False, "decided %s, exit %s" % (said["approved"],
                                               said["exit"])
    return True, "named the full disk %d times, never the ceiling; the " \
        "person's decision landed, the team quit" % len(disk)


def _scratch(approve):
    name = "one command writes 2.1 GiB in 20,000 files into its TMPDIR"
    expected = "stopped at the ceiling, told why"
    work = tempfile.mkdtemp(prefix="huddle-redteam-tmp-")
    said = {}
    try:
        with FakeLLM() as fake:
            _script(fake, [call("mallory", "bash", command=SCRATCH),
                           call("mallory", "bash", command=MEASURE)])
            with Huddle(fake, workdir=work, approve=approve,
                        args=["--tmp-max", "64M", "--tmp-max-files",
                              "5000"]) as h:
                h.send("Start the team.")
                r = h.wait(ev("tool_result", "mallory", tool="bash"),
                           timeout=120, what="mallory's writes")
                said["fill"] = r
                m = h.wait(ev("tool_result", "mallory", tool="bash",
                              output=contains("kib=")), timeout=60,
                           what="the measure")
                said["measure"] = m["output"]
                h.send("/quit")
                h.wait_exit(30)
    except AssertionError as e:
        said["broke"] = str(e)[:300]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return judge(name, expected, _check_scratch, said)


def _check_scratch(said):
    if "broke" in said:
        return False, "huddle failed: %s" % said["broke"]
    r, out = said["fill"], said["fill"]["output"]
    kib = exits(said["measure"], "kib")
    if not r["is_error"] or "grew past its ceiling of 64 MiB" not in out:
        return False, "not stopped: %s" % out[-160:]
    if exits(out, "wrote") is not None or kib is None or kib > 512 * 1024:
        return False, "it wrote on: %s KiB" % kib
    return True, "stopped with %d MiB there, the ceiling named" % \
        (kib // 1024)


def run(approve=True):
    """Returns (rows, lost)."""
    return [_full_disk(approve), _scratch(approve)], []
