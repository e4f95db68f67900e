"""Test-side helpers for driving the fake LLM server and the huddle binary.

FakeLLM starts tests/fakellm/fakellm.py on a free port of 127.0.0.1 and
talks to its control endpoints; run_huddle runs the real binary with a
deadline. Tests wait for conditions with deadlines, never fixed sleeps.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

from results import Results  # noqa: F401 (the tests import it from here)

TOP_SRCDIR = os.environ.get("top_srcdir", ".")
TOP_BUILDDIR = os.environ.get("top_builddir", ".")
HUDDLE = os.path.join(TOP_BUILDDIR, "src", "huddle")
# How many times slower than the plain build this one runs: tests/run
# sets it for the sanitizers' builds (Check's time limits stretch by as
# much); deadlines for heavy work and time bounds scale by it.
SLOW = float(os.environ.get("CK_TIMEOUT_MULTIPLIER", "1"))
# Every huddle a test starts keeps its teams' state here, not in $HOME.
STATE_HOME = tempfile.mkdtemp(prefix="huddle-state-")
os.environ["XDG_STATE_HOME"] = STATE_HOME


def team_folder(workdir):
    """The state folder huddle keeps the team of workdir in
    (src/core/statedir.c): the workdir's last component and a hash of
    its real path."""
    real = os.path.realpath(workdir)
    leaf = os.path.basename(real) or "root"
    name = "".join(c if (c.isascii() and c.isalnum()) or c in "-_" else "_"
                   for c in leaf.encode()[:24].decode("latin-1"))
    h = 0xcbf29ce484222325
    for b in real.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return os.path.join(STATE_HOME, "huddle", "%s-%016x" % (name, h))
API_KEY = os.environ.get("HUDDLE_TEST_KEY", "test-key")
# Which API the team tests speak: "anthropic" (the fake thinks, as today's
# models do), "openai" (OpenAI's Responses API with a reasoning model whose
# reasoning items must come back) or "openai-chat" (chat completions; the
# fake is a reasoning server).
TEST_API = os.environ.get("HUDDLE_TEST_API", "anthropic")
# The model the team tests ask for on OpenAI's own API.
OPENAI_TEST_MODEL = "gpt-5.4"


def conversation(body):
    """The conversation of a recorded request body, whichever API it
    speaks: Messages and chat completions "messages", Responses "input"."""
    if not isinstance(body, dict):
        return []
    return body.get("messages", body.get("input", []))


def thread_sanitized():
    """Whether huddle is ThreadSanitizer's build, whose every process
    keeps a thread of its own: the kernel makes a user namespace (and so
    the namespace holder's proc) only for a process of one thread."""
    with open(HUDDLE, "rb") as f:
        return b"__tsan_init" in f.read()


def remote_addresses(n):
    """n addresses for documentation (TEST-NET-2, then -1 and -3) that are
    not this machine's own: huddle's proxy refuses its own addresses
    without asking, and a test machine may well hold one of them (this
    project's did: 192.0.2.2). An address is the machine's own when a
    socket can be bound to it."""
    import socket
    found = []
    for net in ("198.51.100", "192.0.2", "203.0.113"):
        for i in range(1, 255):
            a = "%s.%d" % (net, i)
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind((a, 0))
                own = True
            except OSError:
                own = False
            finally:
                s.close()
            if not own:
                found.append(a)
                if len(found) == n:
                    return found
    raise RuntimeError("no %d documentation addresses that are not "
                       "this machine's" % n)


def wait_for(condition, timeout, what):
    """Polls condition() until it is true or timeout seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("timed out after %.1f s waiting for %s" % (timeout, what))


class FakeLLM:
    """A running fake server; use as a context manager."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="huddle-fakellm-")
        self.port_file = os.path.join(self.dir, "port")
        self.proc = None
        self.port = None

    def __enter__(self):
        server = os.path.join(TOP_SRCDIR, "tests", "fakellm", "fakellm.py")
        self.proc = subprocess.Popen(
            [sys.executable, server, "--port-file", self.port_file,
             "--api-key", API_KEY, "--thinking", "on", "--reasoning",
             "on" if TEST_API == "openai-chat" else "off"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "log"), "w"))
        wait_for(lambda: os.path.exists(self.port_file), 10, "the fake server's port file")
        with open(self.port_file) as f:
            self.port = int(f.read().strip())
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        return False

    @property
    def anthropic_url(self):
        return "http://127.0.0.1:%d" % self.port

    @property
    def openai_url(self):
        return "http://127.0.0.1:%d/v1" % self.port

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.anthropic_url + path, data=data, method=method,
                                     headers={"content-type": "application/json"})
        # A script may be tens of MiB (the red team's flood): the server
        # reads it slower beside a sanitized build's tests.
        with urllib.request.urlopen(req, timeout=10 * SLOW) as r:
            return json.loads(r.read() or b"null")

    def script(self, *items):
        """Queues scripted responses."""
        self._call("POST", "/_script", list(items))

    def reset(self):
        self._call("POST", "/_reset", {})

    def configure(self, **settings):
        """Changes the server's settings (until the next reset)."""
        return self._call("POST", "/_config", settings)

    def requests(self):
        """The API requests recorded so far, oldest first."""
        return self._call("GET", "/_requests")


def run_huddle(args, env=None, timeout=30, interrupt_when=None):
    """Runs huddle; returns (status, stdout, stderr, seconds, interrupt_latency).

    interrupt_when: a function of the output read so far; once it returns
    true, SIGINT is sent and the time to exit is measured.
    """
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("ANTHROPIC_", "OPENAI_", "HUDDLE_"))}
    full_env.update(env or {})
    start = time.monotonic()
    proc = subprocess.Popen([HUDDLE] + args, env=full_env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    latency = None
    if interrupt_when is not None:
        out = b""
        os.set_blocking(proc.stdout.fileno(), False)
        deadline = time.monotonic() + timeout
        while not interrupt_when(out):
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise AssertionError("huddle never reached the point to interrupt; "
                                     "output so far: %r" % out)
            chunk = proc.stdout.read()
            if chunk:
                out += chunk
            time.sleep(0.005)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout)
        latency = time.monotonic() - sent
        os.set_blocking(proc.stdout.fileno(), True)
        rest, err = proc.communicate()
        return proc.returncode, (out + rest).decode(), err.decode(), \
            time.monotonic() - start, latency
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError("huddle did not finish within %d s: %r %r" % (timeout, out, err))
    return proc.returncode, out.decode(), err.decode(), time.monotonic() - start, None


def run_timed(cases):
    """Runs each (name, test) of cases against one fake server, says how
    long they took in all, and exits with the results (Results.finish)."""
    r = Results()
    started = time.monotonic()
    with FakeLLM() as fake:
        for name, fn in cases:
            r.run(name, fn, fake)
    print("  (%.1f s in all)" % (time.monotonic() - started))
    r.finish()
