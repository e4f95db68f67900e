#!/usr/bin/env python3
"""The network with the person in the loop, end to end: the real binary
in --headless mode against the fake LLM server, with a small HTTP server
on 127.0.0.1 standing in for a package registry (a PyPI "simple" index,
a wheel, and a page).

Covers: a command's first connection to a host is a permission request
("network: HOST:PORT") and waits for the person; `/approve REQ team`
allows the host for the whole team, so the next command (a real
`pip install` through the proxy) asks nothing; a host the person
rejects fails the command cleanly with the reason, and the registry
never hears of it; a plain `/approve` allows one command only; the
team's hosts are kept for --resume; --network open and --no-network
give commands no proxy. The registry is on this machine, which the
proxy refuses unless the person allows its host and port: in their own
settings ("allow-local") for the first part, with --allow-local for the
others; without either, the person is never even asked, and the
project's settings may not allow it.
"""

import base64
import hashlib
import http.server
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import HUDDLE, FakeLLM, Results  # noqa: E402
from team_driver import Huddle, call, contains, ev, expect, notes, say  # noqa: E402,E501


def wheel():
    """A tiny pure-Python wheel, tinypkg 0.1, with a correct RECORD."""
    files = {
        "tinypkg/__init__.py": b"VALUE = 42\n",
        "tinypkg-0.1.dist-info/METADATA":
            b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1\n",
        "tinypkg-0.1.dist-info/WHEEL":
            b"Wheel-Version: 1.0\nGenerator: huddle-test\n"
            b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = ""
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(
            hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += "%s,sha256=%s,%d\n" % (name, digest, len(data))
    record += "tinypkg-0.1.dist-info/RECORD,,\n"
    files["tinypkg-0.1.dist-info/RECORD"] = record.encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return out.getvalue()


WHEEL_NAME = "tinypkg-0.1-py3-none-any.whl"
WHEEL = wheel()


class Registry(http.server.ThreadingHTTPServer):
    """The registry stand-in; .seen lists the paths asked for."""

    def __init__(self):
        self.seen = []
        super().__init__(("127.0.0.1", 0), RegistryHandler)
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()


class RegistryHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.seen.append(self.path)
        digest = hashlib.sha256(WHEEL).hexdigest()
        if self.path == "/hello":
            body, kind = b"hello from the registry\n", "text/plain"
        elif self.path.rstrip("/") == "/simple/tinypkg":
            body = ('<!DOCTYPE html><html><body><a href="/packages/%s'
                    '#sha256=%s">%s</a></body></html>'
                    % (WHEEL_NAME, digest, WHEEL_NAME)).encode()
            kind = "text/html"
        elif self.path == "/packages/" + WHEEL_NAME:
            body, kind = WHEEL, "application/octet-stream"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def bash_result(h, agent, mark, what):
    return h.wait(ev("tool_result", agent, tool="bash"), since=mark,
                  what=what, timeout=60)


def person_settings(settings):
    """An XDG_CONFIG_HOME whose huddle/settings.json is `settings`."""
    home = tempfile.mkdtemp(prefix="huddle-config-")
    os.mkdir(os.path.join(home, "huddle"))
    with open(os.path.join(home, "huddle", "settings.json"), "w") as f:
        json.dump(settings, f)
    return {"XDG_CONFIG_HOME": home}


def allow_local(reg):
    """--allow-local for the registry under both its names."""
    return ["--allow-local", "localhost:%d" % reg.port,
            "--allow-local", "127.0.0.1:%d" % reg.port]


def test_first_asks_team_allows_denied_fails(fake, reg):
    host = "localhost:%d" % reg.port
    other = "127.0.0.1:%d" % reg.port
    pip = ("python3 -m pip install --no-deps --no-cache-dir "
           "--disable-pip-version-check --no-input --target ./site "
           "--index-url http://%s/simple/ tinypkg && "
           "python3 -c 'import sys; sys.path.insert(0, \"site\"); "
           "import tinypkg; print(\"installed\", tinypkg.VALUE)'" % host)
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="pat", role="builder",
             prompt="Fetch."),
        *notes("lead"),
        call("pat", "bash", command="curl -sS -f http://%s/hello" % host),
        call("pat", "bash", command=pip),
        call("pat", "bash",
             command="curl -sS -f http://%s/hello; echo curl=$?" % other),
        say("pat", "Done."), *notes("pat", 4),
        call("pat", "shutdown_response", request_id="{{request_id}}",
             approve=True))
    with Huddle(fake, env=person_settings({"allow-local": [host, other]})
                ) as h:
        h.send("go")
        req = h.wait(ev("request", type="permission", status="pending",
                        body=contains("network: " + host)),
                     what="the first connection's request", timeout=30)
        expect(req["from"] == "pat", req)
        expect("(this machine)" in req["body"], req["body"])
        expect(reg.seen == [], "the registry was reached before the "
               "person allowed it: %r" % reg.seen)
        mark = len(h.events)
        h.send("/approve pat team")
        res = bash_result(h, "pat", mark, "curl")
        expect("hello from the registry" in res["output"], res["output"])
        # pip through the proxy: no question asked.
        mark = len(h.events)
        res = bash_result(h, "pat", mark, "pip install")
        expect("installed 42" in res["output"], res["output"])
        expect(os.path.isfile(os.path.join(h.workdir, "site", "tinypkg",
                                           "__init__.py")), "not installed")
        # Another host asks again; the person refuses.
        req2 = h.wait(ev("request", type="permission", status="pending",
                         body=contains("network: " + other)),
                      since=mark, what="the other host's request")
        asked = [e for e in h.events[mark:] if e.get("event") == "request"
                 and e.get("status") == "pending"]
        expect(len(asked) == 1, "pip asked: %r" % asked)
        seen = len(reg.seen)
        h.send("/reject %s not that one" % req2["id"])
        res = bash_result(h, "pat", len(h.events) - 1, "denied curl")
        out = res["output"]
        expect("curl=0" not in out and "403" in out, out)
        expect(len(reg.seen) == seen, "a denied host was reached")
        expect(["/hello", "/simple/tinypkg/", "/packages/" + WHEEL_NAME] ==
               reg.seen, reg.seen)
        h.quit()
    return h.workdir


def test_team_allowance_is_resumed(fake, reg, workdir):
    host = "localhost:%d" % reg.port
    fake.reset()
    fake.script(
        call("lead", "bash", command="curl -sS -f http://%s/hello" % host),
        *notes("lead", 4))
    with Huddle(fake, workdir=workdir, resume=True,
                args=allow_local(reg)) as h:
        mark = len(h.events)
        h.send("again")
        res = bash_result(h, "lead", mark, "curl after resume")
        expect("hello from the registry" in res["output"], res["output"])
        asked = [e for e in h.events[mark:] if e.get("event") == "request"
                 and e.get("status") == "pending"]
        expect(asked == [], "a resumed team asked again: %r" % asked)
        h.quit()


def test_approve_once_is_for_one_command(fake, reg):
    host = "localhost:%d" % reg.port
    twice = ("curl -sS -f http://%s/hello && curl -sS -f http://%s/hello"
             % (host, host))
    fake.reset()
    fake.script(
        call("lead", "bash", command=twice),
        call("lead", "bash",
             command="curl -sS -f http://%s/hello; echo curl=$?" % host),
        *notes("lead", 4))
    with Huddle(fake, args=allow_local(reg)) as h:
        h.send("go")
        h.wait(ev("request", type="permission", status="pending",
                  body=contains("network: " + host)), what="the request")
        mark = len(h.events)
        h.send("/approve")
        res = bash_result(h, "lead", mark, "two fetches")
        expect(res["output"].count("hello from the registry") == 2,
               res["output"])
        asked = [e for e in h.events[mark:] if e.get("event") == "request"
                 and e.get("status") == "pending"]
        expect(asked == [], "one command asked twice: %r" % asked)
        # The next command asks again; unanswered, it is withdrawn when
        # the command gives up.
        req = h.wait(ev("request", type="permission", status="pending"),
                     since=mark, what="the next command's request")
        h.send("/reject %s" % req["id"])
        res = bash_result(h, "lead", len(h.events) - 1, "refused")
        expect("curl=0" not in res["output"], "%s\nthe requests: %r" % (
            res["output"], [(e.get("id"), e.get("status"), e.get("from"),
                             e.get("body", "")[:60], e.get("response"))
                            for e in h.events if e.get("event") ==
                            "request"]))
        h.quit()


def test_this_machine_needs_the_person(fake, reg):
    """Without the person's allowance the registry is refused under any
    name, with a sentence, though the person approves everything; the
    project's settings cannot allow it."""
    names = ["localhost", "127.0.0.1", "2130706433", "127.1", "0x7f.1",
             "0"]
    fetch = "; ".join("curl -sS -x \"$HTTP_PROXY\" http://%s:%d/hello; "
                      "echo \" curl=$?\"" % (n, reg.port) for n in names)
    fake.reset()
    fake.script(call("lead", "bash", command=fetch), *notes("lead", 4))
    seen = len(reg.seen)
    with Huddle(fake, approve=True) as h:
        h.send("go")
        res = bash_result(h, "lead", 0, "fetches")
        out = res["output"]
        expect(out.count("huddle's proxy never leads there") == len(names),
               out)
        expect("this machine" in out and "--allow-local" in out, out)
        expect("hello from the registry" not in out, out)
        asked = [e for e in h.events if e.get("event") == "request" and
                 e.get("type") == "permission"]
        expect(asked == [], "the person was asked: %r" % asked)
        h.quit()
    expect(len(reg.seen) == seen, "the registry was reached")
    # The project's settings are the team's to write: refused at start.
    work = tempfile.mkdtemp(prefix="huddle-team-")
    os.mkdir(os.path.join(work, ".huddle"))
    with open(os.path.join(work, ".huddle", "settings.json"), "w") as f:
        json.dump({"allow-local": ["localhost:%d" % reg.port]}, f)
    run = subprocess.run([HUDDLE, "--headless", "--workdir", work],
                         stdin=subprocess.DEVNULL, capture_output=True,
                         timeout=30)
    err = run.stderr.decode(errors="replace")
    expect(run.returncode == 2 and 'may not set "allow-local"' in err,
           (run.returncode, err))


def test_open_and_none_give_no_proxy(fake, reg):
    for args in (["--network", "open"], ["--no-network"]):
        fake.reset()
        fake.script(call("lead", "bash",
                         command="env | grep -i _proxy; echo listed"),
                    *notes("lead", 4))
        with Huddle(fake, args=args) as h:
            h.send("go")
            res = bash_result(h, "lead", 0, "env")
            expect("listed" in res["output"] and
                   "127.0.0.1" not in res["output"], res["output"])
            h.quit()
    fake.reset()
    fake.script(call("lead", "bash", command="env | grep -i _proxy"),
                *notes("lead", 4))
    with Huddle(fake) as h:
        h.send("go")
        res = bash_result(h, "lead", 0, "env")
        out = res["output"]
        expect("HTTPS_PROXY=http://lead:" in out and "@127.0.0.1:" in out,
               out)
        expect("NO_PROXY=\n" in out, out)
        h.quit()


def main():
    results = Results()
    reg = Registry()
    with FakeLLM() as fake:
        box = {}
        results.run("first asks, team allows, denied fails",
                    lambda: box.update(w=test_first_asks_team_allows_denied_fails(
                        fake, reg)))
        if "w" in box:
            results.run("the team's hosts are resumed",
                        test_team_allowance_is_resumed, fake, reg, box["w"])
        results.run("approve once is for one command",
                    test_approve_once_is_for_one_command, fake, reg)
        results.run("this machine needs the person",
                    test_this_machine_needs_the_person, fake, reg)
        results.run("open and none give no proxy",
                    test_open_and_none_give_no_proxy, fake, reg)
    reg.shutdown()
    results.finish()


if __name__ == "__main__":
    main()
