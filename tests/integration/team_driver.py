"""Drives `huddle --headless` as a test: starts it against the fake LLM
server in a fresh working directory, reads its JSONL events on a thread,
and waits for events with deadlines.
"""

import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from fakellm_client import API_KEY, HUDDLE, OPENAI_TEST_MODEL, TEST_API


class Huddle:
    """One running huddle --headless; use as a context manager."""

    def __init__(self, fake, workdir=None, args=(), resume=False, env=None,
                 approve=False, program=HUDDLE):
        self.fake = fake
        self.program = program
        # approve: the person approves every permission request as it
        # comes (the sandbox must hold whatever the person allows);
        # "reject": nobody approves, each is refused as it comes.
        self.approve = approve
        self.extra_env = dict(env or {})
        self.workdir = workdir or tempfile.mkdtemp(prefix="huddle-team-")
        self.args = list(args)
        self.resume = resume
        self.events = []          # every event seen, in order
        self.raw = []             # every line printed, as bytes
        self.lines = queue.Queue()
        self.proc = None
        self.stderr = b""
        self.eof = False          # its output has ended

    def __enter__(self):
        return self.start()

    def start(self):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "OPENAI_", "HUDDLE_"))}
        if TEST_API == "openai":
            env.update({"OPENAI_API_KEY": API_KEY,
                        "OPENAI_BASE_URL": self.fake.openai_url})
            api = ["--provider", "openai", "--model", OPENAI_TEST_MODEL]
        elif TEST_API == "openai-chat":
            env.update({"OPENAI_API_KEY": API_KEY,
                        "OPENAI_BASE_URL": self.fake.openai_url})
            api = ["--provider", "openai-chat"]
        else:
            env.update({"ANTHROPIC_API_KEY": API_KEY,
                        "ANTHROPIC_BASE_URL": self.fake.anthropic_url})
            api = []
        env.update(self.extra_env)
        cmd = [self.program, "--headless", "--workdir", self.workdir,
               "--quit-timeout", "3"] + api + self.args
        if self.resume:
            cmd.append("--resume")
        self.eof = False
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        threading.Thread(target=self._read, daemon=True).start()
        self._err_reader = threading.Thread(target=self._read_err,
                                            daemon=True)
        self._err_reader.start()
        return self

    def _read(self):
        for raw in self.proc.stdout:
            self.raw.append(raw)
            try:
                self.lines.put(json.loads(raw))
            except ValueError:
                self.lines.put({"event": "garbage", "raw": raw.decode(errors="replace")})
        self.lines.put(None)

    def _read_err(self):
        self.stderr = self.proc.stderr.read()

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        return False

    def send(self, line):
        """Types one line into huddle's input."""
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def close_input(self):
        self.proc.stdin.close()

    def _pump(self, timeout):
        try:
            ev = self.lines.get(timeout=timeout)
        except queue.Empty:
            return False
        if ev is None:
            self.eof = True
            raise AssertionError("huddle exited (status %s); stderr: %s"
                                 % (self.proc.poll(), self.stderr.decode(errors="replace")))
        self.events.append(ev)
        if (self.approve and ev.get("event") == "request" and
                ev.get("type") == "permission" and
                ev.get("status") == "pending"):
            self.send("/%s %s" % ("reject" if self.approve == "reject" else
                                  "approve", ev["id"]))
        return True

    def wait(self, match, timeout=15, what=None, since=0):
        """Returns the first event (from index `since`) for which match(ev)."""
        deadline = time.monotonic() + timeout
        i = since
        while True:
            while i < len(self.events):
                if match(self.events[i]):
                    return self.events[i]
                i += 1
            left = deadline - time.monotonic()
            if left <= 0:
                tail = "\n".join(json.dumps(e) for e in self.events[-15:])
                raise AssertionError("timed out waiting for %s; last events:\n%s"
                                     % (what or "an event", tail))
            try:
                self._pump(min(left, 0.5))
            except AssertionError:
                while i < len(self.events):
                    if match(self.events[i]):
                        return self.events[i]
                    i += 1
                raise

    def wait_text(self, agent, text, timeout=15, since=0):
        """Waits until the text `agent` streamed after event `since`
        contains `text` (streamed text arrives in pieces)."""
        def seen():
            return "".join(e.get("text", "") for e in self.events[since:]
                           if e.get("event") == "text" and e.get("agent") == agent)
        deadline = time.monotonic() + timeout
        while text not in seen():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("timed out waiting for %s to write %r; it wrote %r"
                                     % (agent, text, seen()))
            self._pump(min(left, 0.5))

    def wait_exit(self, timeout=20):
        """Waits for the process to end; returns its status."""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            try:
                self._pump(0.2)
            except AssertionError:
                break
        try:
            status = self.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise AssertionError("huddle did not exit within %d s" % timeout)
        # Every line it printed is taken, to the end of its output (the
        # last ones, its exit event among them, may still be on their
        # way from the reader when the process is seen gone).
        end = time.monotonic() + 5
        while not self.eof and time.monotonic() < end:
            try:
                self._pump(0.2)
            except AssertionError:
                break
        # What it said on stderr is read to its end.
        self._err_reader.join(5)
        return status

    def reply(self, line, timeout=15):
        """Sends the command `line` ("/mcp") and returns its reply event,
        the first after it was sent."""
        mark = len(self.events)
        self.send(line)
        return self.wait(ev("reply", command=line.split()[0][1:]),
                         timeout=timeout, since=mark, what=line)

    def quit(self):
        """Sends /quit and fails unless huddle exits cleanly (status 0),
        naming what it said on stderr."""
        self.send("/quit")
        expect(self.wait_exit() == 0, "no clean exit: %s" % self.stderr)

    def discard(self):
        """Kills huddle if it still runs, and removes its working
        directory."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def kill9(self):
        """Kills huddle at once; every event it printed before it died is
        then in self.events."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        try:
            while self._pump(5):
                pass
        except AssertionError:
            pass


def alive(pid):
    """Whether process pid exists (a zombie counts)."""
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def ev(name, agent=None, **fields):
    """A matcher for an event by name, agent and field values (callables
    are predicates)."""
    def match(e):
        if e.get("event") != name:
            return False
        if agent is not None and e.get("agent") != agent:
            return False
        for k, v in fields.items():
            got = e.get(k)
            if callable(v):
                if not v(got):
                    return False
            elif got != v:
                return False
        return True
    return match


def contains(text):
    return lambda v: isinstance(v, str) and text in v


# -- scripted model turns and checks, shared by the team tests --------------

def say(agent, text, **extra):
    """A scripted reply of text from agent."""
    item = {"agent": agent, "kind": "text", "text": text}
    item.update(extra)
    return item


def call(agent, tool, **inputs):
    """A scripted reply that calls one tool."""
    return {"agent": agent, "kind": "tool_use",
            "calls": [{"name": tool, "input": inputs}]}


def notes(agent, n=8):
    """n short replies, for an agent that is told things along the way."""
    return [say(agent, "Noted.") for _ in range(n)]


def expect(cond, what):
    if not cond:
        raise AssertionError(what)
