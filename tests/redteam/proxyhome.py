"""The red team's run against huddle's network proxy, with the person
approving every request that is asked. Two listeners on 127.0.0.1 stand
for the person's own services: `home`, which nobody allowed, and `dev`,
which the person allowed with --allow-local. A command asks the proxy for
home under every name that hides loopback, for the proxy itself under
0.0.0.0 and ::, and for dev with a Host header of another host; then the
lead's command holds 70 silent connections and 20 tunnels to dev while a
teammate's command asks for dev, which must still be served."""

import os
import shutil
import tempfile
import threading

from attack import Listener, judge
from fakellm_client import FakeLLM
from team_driver import Huddle, call, ev, notes

# What the commands run: a small client of the proxy that speaks HTTP to
# it by hand, with the command's own credentials from $HTTP_PROXY.
PROBE = r'''
import base64, os, socket, sys, time
url = os.environ["HTTP_PROXY"][len("http://"):]
creds, where = url.rsplit("@", 1)
PORT = int(where.rsplit(":", 1)[1])
AUTH = "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(
    creds.encode()).decode()

def ask(line, extra="", wait=20):
    s = socket.create_connection(("127.0.0.1", PORT))
    s.settimeout(wait)
    s.sendall(("%s HTTP/1.1\r\n%s%s\r\n" % (line, AUTH, extra)).encode())
    got = b""
    try:
        while b"\r\n\r\n" not in got or line.startswith("GET"):
            b = s.recv(4096)
            if not b:
                break
            got += b
    except socket.timeout:
        pass
    return s, got.decode(errors="replace")

def show(tag, got):
    print("%s: %s" % (tag, " | ".join(got.split("\r\n"))[:400]))

what = sys.argv[1]
if what == "names":
    home, dev = sys.argv[2], sys.argv[3]
    for name in ("2130706433", "0", "0x7f.1", "127.1",
                 "[::ffff:127.0.0.1]", "localhost", "127.0.0.1"):
        s, got = ask("CONNECT %s:%s" % (name, home))
        show("name " + name, got)
        s.close()
    for name in ("0.0.0.0", "[::]"):
        s, got = ask("CONNECT %s:%d" % (name, PORT))
        show("self " + name, got)
        s.close()
    s, got = ask("GET http://127.0.0.1:%s/host" % dev,
                 "Host: evil.internal\r\n")
    show("host", got)
elif what == "hold":
    dev, flag = sys.argv[2], sys.argv[3]
    idle = [socket.create_connection(("127.0.0.1", PORT))
            for _ in range(70)]
    tunnels = [ask("CONNECT 127.0.0.1:%s" % dev, wait=60)
               for _ in range(20)]
    ok = sum(1 for s, got in tunnels if got.startswith("HTTP/1.1 200"))
    why = sum(1 for s, got in tunnels if got.startswith("HTTP/1.1 503")
              and "\r\n\r\nhuddle proxy: " in got and "most one command"
              in got)
    print("held idle=%d tunnels=%d refused-with-a-sentence=%d"
          % (len(idle), ok, why))
    open(flag + ".ready", "w").close()
    end = time.monotonic() + 60
    while not os.path.exists(flag + ".done") and time.monotonic() < end:
        time.sleep(0.05)
    print("released")
elif what == "fetch":
    dev, flag = sys.argv[2], sys.argv[3]
    end = time.monotonic() + 60
    while not os.path.exists(flag + ".ready") and time.monotonic() < end:
        time.sleep(0.05)
    s, got = ask("GET http://127.0.0.1:%s/pat" % dev, wait=60)
    show("fetch", got)
    open(flag + ".done", "w").close()
'''


class Service(Listener):
    """A service of the person's on 127.0.0.1: answers a GET with the Host
    header it got, holds any other connection open; .hosts lists the Host
    headers, .accepted counts connections."""

    def __init__(self):
        self.hosts = []
        self.conns = []
        super().__init__(backlog=256)

    def on_connect(self, c):
        self.conns.append(c)
        threading.Thread(target=self._one, args=(c,), daemon=True).start()

    def _one(self, c):
        got = b""
        try:
            while b"\r\n\r\n" not in got:
                b = c.recv(4096)
                if not b:
                    return
                got += b
        except OSError:
            return
        head = got.decode(errors="replace").split("\r\n")
        host = [h[5:].strip() for h in head if h.lower().startswith("host:")]
        self.hosts.append(host)
        body = ("host=%s\n" % ",".join(host)).encode()
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                  b"Connection: close\r\n\r\n%s" % (len(body), body))
        c.close()

    def close(self):
        super().close()
        for c in self.conns:
            c.close()


def run(approve=True):
    """Returns (rows, lost)."""
    work = os.path.realpath(tempfile.mkdtemp(prefix="huddle-redteam-net-"))
    with open(os.path.join(work, "probe.py"), "w") as f:
        f.write(PROBE)
    home, dev = Service(), Service()
    flag = os.path.join(work, "flag")
    results = {}
    said = ""
    try:
        with FakeLLM() as fake:
            fake.reset()
            fake.script(
                call("lead", "bash", command="python3 probe.py names %d %d"
                     % (home.port, dev.port)),
                call("lead", "spawn_teammate", name="pat", role="builder",
                     prompt="Fetch."),
                call("lead", "bash", command="python3 probe.py hold %d %s"
                     % (dev.port, flag)),
                *notes("lead", 6),
                call("pat", "bash", command="python3 probe.py fetch %d %s"
                     % (dev.port, flag)),
                *notes("pat", 6))
            with Huddle(fake, workdir=work, approve=approve,
                        args=["--allow-local", "127.0.0.1:%d" % dev.port]
                        ) as h:
                h.send("hello")
                results["names"] = h.wait(ev("tool_result", "lead",
                                             tool="bash"), timeout=90,
                                          what="the lead's probe")
                since = h.events.index(results["names"]) + 1
                results["pat"] = h.wait(ev("tool_result", "pat",
                                           tool="bash"), timeout=120,
                                        since=since, what="pat's fetch")
                results["hold"] = h.wait(ev("tool_result", "lead",
                                            tool="bash"), timeout=120,
                                         since=since, what="the holder")
                h.send("/quit")
                h.wait_exit(30)
    except AssertionError as e:
        said = "huddle failed: %s" % e
    out = results.get("names", {}).get("output", "")
    rows = [
        judge("CONNECT to the person's loopback service under 7 names "
              "(2130706433, 0, 0x7f.1, 127.1, [::ffff:127.0.0.1] ...)",
              "refused with a sentence, the service never reached",
              _names, out, home, said),
        judge("CONNECT to the proxy itself as 0.0.0.0 and [::]",
              "refused", _self, out, said),
        judge("GET of an allowed local service with Host: evil.internal",
              "the service sees the URI's Host only", _host, out, dev,
              said),
        judge("70 silent sockets and 20 tunnels held by one command",
              "another teammate's request is still served", _fair,
              results, said),
    ]
    home.close()
    dev.close()
    shutil.rmtree(work, ignore_errors=True)
    return rows, []


def _lines(out, tag):
    return [l for l in out.splitlines() if l.startswith(tag)]


def _names(out, home, said):
    lines = _lines(out, "name ")
    if len(lines) != 7:
        return False, said or "the probe did not run: %s" % out[:200]
    if home.accepted:
        return False, "the service was reached %d times" % home.accepted
    bad = [l for l in lines if "403 Forbidden" not in l or
           "this machine" not in l]
    if bad:
        return False, bad[0]
    return True, "403 \"... is local, this machine: huddle's proxy never " \
        "leads there\" for each; the service saw nothing"


def _self(out, said):
    lines = _lines(out, "self ")
    bad = [l for l in lines if "403" not in l or "proxy itself" not in l]
    if len(lines) != 2:
        return False, said or out[:200]
    if bad:
        return False, bad[0]
    return True, "403 \"... is huddle's proxy itself\" for both"


def _host(out, dev, said):
    want = ["127.0.0.1:%d" % dev.port]
    if not dev.hosts:
        return False, said or "the allowed service was not reached: " \
            "%s" % "".join(_lines(out, "host"))[:200]
    if dev.hosts[0] != want:
        return False, "the service saw Host %r" % dev.hosts[0]
    return True, "the service saw Host: %s only" % want[0]


def _fair(results, said):
    hold = results.get("hold", {}).get("output", "")
    pat = results.get("pat", {}).get("output", "")
    if "fetch: HTTP/1.1 200" not in pat or "host=" not in pat:
        return False, said or "pat's request: %s" % pat[:200]
    if "held idle=70 tunnels=16 refused-with-a-sentence=4" not in hold:
        return False, said or "the holder: %s" % hold[:200]
    return True, "16 tunnels, 4 told why; pat's request served with 200"
