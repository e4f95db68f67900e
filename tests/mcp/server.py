#!/usr/bin/env python3
"""A small MCP server for huddle's tests, with nothing beyond Python's
standard library.

    server.py [--legacy] [--log FILE]                   speaks on stdio
    server.py --http --port-file FILE [--legacy] [--sse] [--log FILE]

It answers server/discover (the stateless revision: every request must
then carry its _meta) unless --legacy, which makes it a server of the
initialize handshake only (and, over HTTP, of sessions). Its tools:
echo, add, slow (sleeps; honours notifications/cancelled; with a
progress token, sends notifications/progress every half second), crash
(the process exits), grow (adds the tool "extra" and sends
notifications/tools/list_changed), ask (stdio, --legacy: asks the client
a form question with elicitation/create, as the 2025-11-25 revision has
it, and answers with what came back; refused, as the reference SDK
refuses it, when the client did not declare elicitation). tools/list
answers in pages of two.
--log appends one JSON line per message received.

--cwd-tool adds the tool cwd, which answers the server's working directory.
--start-delay S sleeps S seconds before it reads anything (stdio).

--connect HOST:PORT asks huddle's proxy ($HTTPS_PROXY) for a tunnel there
as it starts, as npx asks for its registry, and logs the proxy's answer
({"connect": status line}); it serves meanwhile.

--image-tool adds the tool picture, which answers a line of text, a PNG of
4 x 3 pixels (PICTURE_PNG, made here with zlib) and a TIFF's start (a
type the models do not take).

Hostile modes, for the client's defences:
  --flood-pings       at a tools/call, stops reading its input and sends
                      ping requests without end (stdio)
  --spam-lines        once its list is read, writes short notifications
                      without end (stdio)
  --huge-list         lists 150 tools in one page, among them one with a
                      long description, one with a huge input schema and
                      one with none
  --sse-keepalive-forever  answers tools/call with an event stream of
                      keep-alive comments that never ends (HTTP)
  --huge-event        answers tools/call with one event of 17 MiB (HTTP)
  --get-tight         (HTTP, --legacy) every GET of the client's own
                      stream: retry 0, a reply to request -1 of 1 MiB,
                      and the end; each GET is logged ("GET")
  --get-trickle       (HTTP, --legacy) the client's own stream asks a
                      ping; the POST of its answer is answered one byte
                      every two seconds, for ever
  --reply-on-get      (HTTP, --legacy) a tools/call's stream carries only
                      a priming event; the reply goes on the client's
                      own GET stream (one without Last-Event-ID), and
                      then the call's stream closes, as a server does
                      that takes any GET for the call's resumption (the
                      MCP conformance suite's sse-retry server does)
"""

import argparse
import base64
import json
import os
import struct
import sys
import threading
import time
import uuid
import zlib

MODERN = "2026-07-28"
LEGACY = "2025-06-18"
META_VERSION = "io.modelcontextprotocol/protocolVersion"

ARGS = None
LOCK = threading.Lock()
CANCELLED = set()
STATE = {"grown": False, "initialized": False, "caps": {}}
# --oauth: the code challenge of the sign-in under way.
OAUTH = {}
# Our own requests to the client that wait for its answer: id -> [event,
# the answer].
PENDING = {}

# The question ask puts: a required text without default, a number with
# one, a choice with one.
ASK_FORM = {
    "message": "Who is deploying?",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Your name"},
            "replicas": {"type": "integer", "default": 2, "minimum": 1},
            "region": {"type": "string", "enum": ["eu", "us"],
                       "default": "eu"}},
        "required": ["name"]}}


def png(width, height, rgb):
    """A PNG of one colour: signature, IHDR, IDAT, IEND."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
    rows = b"".join(b"\0" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0,
                                       0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


PICTURE_PNG = base64.b64encode(png(4, 3, (200, 30, 30))).decode()


def log(msg):
    if ARGS.log:
        with LOCK, open(ARGS.log, "a") as f:
            f.write(json.dumps(msg) + "\n")


def tools():
    obj = {"type": "object"}
    out = [
        {"name": "echo", "description": "Echo the text back.",
         "inputSchema": dict(obj, properties={"text": {"type": "string"}},
                             required=["text"])},
        {"name": "add", "description": "Add two numbers.",
         "inputSchema": dict(obj, properties={"a": {"type": "number"},
                                              "b": {"type": "number"}})},
        {"name": "slow", "description": "Sleep for some seconds.",
         "inputSchema": dict(obj, properties={
             "seconds": {"type": "number"}})},
        {"name": "crash", "description": "End the server's process.",
         "inputSchema": obj},
        {"name": "grow", "description": "Add the tool extra.",
         "inputSchema": obj},
        # As the reference server's research tool: it runs only as an
        # MCP task, which a client without tasks must not offer.
        {"name": "research", "description": "Research, as a task.",
         "inputSchema": obj, "execution": {"taskSupport": "required"}},
    ]
    if ARGS.legacy and not ARGS.http:
        out.append({"name": "ask", "description": "Ask the person.",
                    "inputSchema": obj})
    if ARGS.env_tool:
        out.append({"name": "env", "description": "What it was given: "
                    "its proxy and cache variables, its cache's starts.",
                    "inputSchema": obj})
    if ARGS.cwd_tool:
        out.append({"name": "cwd", "description": "Its working directory.",
                    "inputSchema": obj})
    if ARGS.image_tool:
        out.append({"name": "picture", "description": "A small picture.",
                    "inputSchema": obj})
    if STATE["grown"]:
        out.append({"name": "extra", "description": "Appeared later.",
                    "inputSchema": obj})
    return out


def huge_tools():
    obj = {"type": "object"}
    out = [{"name": "t%d" % i, "description": "Tool %d." % i,
            "inputSchema": obj} for i in range(150)]
    out[0]["description"] = "long " + "\u00e9" * 3000
    out[1]["inputSchema"] = dict(obj, properties={
        "p%d" % i: {"type": "string", "description": "x" * 50}
        for i in range(400)})
    del out[2]["inputSchema"]
    return out


def spam(lock):
    line = (json.dumps({"jsonrpc": "2.0",
                        "method": "notifications/message",
                        "params": {}}) + "\n").encode()
    block = line * ((1 << 20) // len(line) + 1)
    while True:
        with lock:
            os.write(1, block)


def text(t, error=False):
    return {"content": [{"type": "text", "text": t}], "isError": error}


def ask_client(notify):
    """Asks the client the form question and waits for its answer."""
    if "elicitation" not in STATE["caps"]:
        return text("the client takes no questions", True)
    qid = "ask-%s" % uuid.uuid4().hex[:8]
    slot = [threading.Event(), None]
    with LOCK:
        PENDING[qid] = slot
    notify({"jsonrpc": "2.0", "id": qid, "method": "elicitation/create",
            "params": ASK_FORM})
    if not slot[0].wait(120):
        return text("no answer", True)
    got = slot[1]
    if "error" in got:
        return text("error: %s" % json.dumps(got["error"]), True)
    return text("answer: %s" % json.dumps(got["result"], sort_keys=True))


def call_tool(name, args, rid, notify, meta=None):
    if name == "echo":
        return text("echo: %s" % args.get("text", ""))
    if name == "env":
        names = ("HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "npm_config_cache",
                 "XDG_CACHE_HOME", "UV_CACHE_DIR", "PIP_CACHE_DIR",
                 "HUDDLE_MCP_CACHE", "npm_config_offline")
        return text(json.dumps(dict({n: os.environ.get(n) for n in names},
                                    starts=STATE.get("starts"))))
    if name == "add":
        return text(str(args.get("a", 0) + args.get("b", 0)))
    if name == "slow":
        start = time.time()
        seconds = float(args.get("seconds", 30))
        token = (meta or {}).get("progressToken")
        step = 0
        while time.time() < start + seconds:
            with LOCK:
                if rid in CANCELLED:
                    return None
            if token is not None and time.time() >= start + step * 0.5:
                step += 1
                notify({"jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {"progressToken": token,
                                   "progress": step,
                                   "total": int(seconds * 2) + 1,
                                   "message": "step %d" % step}})
            time.sleep(0.05)
        return text("slept")
    if name == "ask" and ARGS.legacy and not ARGS.http:
        return ask_client(notify)
    if name == "crash":
        sys.stdout.flush()
        os._exit(3)
    if name == "grow":
        STATE["grown"] = True
        notify({"jsonrpc": "2.0",
                "method": "notifications/tools/list_changed"})
        return text("grown")
    if name == "cwd" and ARGS.cwd_tool:
        return text(os.getcwd())
    if name == "picture" and ARGS.image_tool:
        return {"content": [
            {"type": "text", "text": "a red picture"},
            {"type": "image", "data": PICTURE_PNG, "mimeType": "image/png"},
            {"type": "image", "data": "SUkqAAgAAAA=",
             "mimeType": "image/tiff"}]}
    if name == "extra" and STATE["grown"]:
        return text("extra ran")
    return text("no tool %s" % name, True)


def error(rid, code, message):
    return {"jsonrpc": "2.0", "id": rid,
            "error": {"code": code, "message": message}}


def handle(msg, notify):
    """The reply to one message (None for none)."""
    log(msg)
    method, rid = msg.get("method"), msg.get("id")
    params = msg.get("params") or {}
    if method is None:
        # The client's answer to a request of ours.
        with LOCK:
            slot = PENDING.pop(rid, None)
        if slot is not None:
            slot[1] = msg
            slot[0].set()
        return None
    if method == "notifications/cancelled":
        with LOCK:
            CANCELLED.add(params.get("requestId"))
        return None
    if rid is None:
        if method == "notifications/initialized":
            STATE["initialized"] = True
        return None
    meta = params.get("_meta") or {}
    if method == "server/discover":
        if ARGS.legacy:
            return error(rid, -32601, "Method not found")
        return {"jsonrpc": "2.0", "id": rid, "result": {
            "resultType": "complete",
            "supportedVersions": [MODERN, "2025-11-25"],
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "huddle-test", "version": "1.0"}}}
    if method == "initialize":
        STATE["caps"] = params.get("capabilities") or {}
        return {"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": LEGACY,
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "huddle-test-legacy", "version": "1.0"}}}
    if ARGS.legacy:
        if not STATE["initialized"] and not ARGS.http:
            return error(rid, -32002, "not initialized")
    elif meta.get(META_VERSION) != MODERN:
        return error(rid, -32602, "no protocol version in _meta")
    if method == "tools/list" and ARGS.huge_list:
        return {"jsonrpc": "2.0", "id": rid, "result": {
            "tools": huge_tools(), "resultType": "complete"}}
    if method == "tools/list":
        every = tools()
        start = int(params.get("cursor") or 0)
        page = {"tools": every[start:start + 2]}
        if start + 2 < len(every):
            page["nextCursor"] = str(start + 2)
        if not ARGS.legacy:
            page["resultType"] = "complete"
        if ARGS.spam_lines and "nextCursor" not in page:
            STATE["spam"] = True
        return {"jsonrpc": "2.0", "id": rid, "result": page}
    if method == "tools/call":
        result = call_tool(params.get("name"),
                           params.get("arguments") or {}, rid, notify,
                           meta)
        if result is None:
            return None
        return {"jsonrpc": "2.0", "id": rid, "result": result}
    return error(rid, -32601, "Method not found")


def run_stdio():
    out_lock = threading.Lock()

    def send(obj):
        with out_lock:
            sys.stdout.write(json.dumps(obj) + "\n")
            sys.stdout.flush()

    def work(msg):
        reply = handle(msg, send)
        if reply is not None:
            send(reply)
        if STATE.pop("spam", False):
            threading.Thread(target=spam, args=(out_lock,),
                             daemon=True).start()

    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if ARGS.flood_pings and msg.get("method") == "tools/call":
            log(msg)
            n = 0
            while True:
                n += 1
                send({"jsonrpc": "2.0", "id": "ping-%d" % n,
                      "method": "ping"})
        # Calls run beside the reading, so a cancel can reach them.
        if msg.get("method") == "tools/call":
            threading.Thread(target=work, args=(msg,), daemon=True).start()
        else:
            work(msg)


def run_http():
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    sessions = set()
    # --reply-on-get: the client's own streams open now.
    own_streams = []
    own_cond = threading.Condition()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def oauth(self):
            """--oauth: the server is its own authorization server
            (RFC 9728 and 8414 metadata, dynamic registration, the
            authorization endpoint that sends the browser straight back
            with the code, the token endpoint that checks PKCE), and
            /mcp takes only the token it gives. Returns whether it
            answered the request."""
            from urllib.parse import parse_qs, urlsplit, urlencode
            import base64
            import hashlib
            u = urlsplit(self.path)
            base = "http://127.0.0.1:%d" % self.server.server_address[1]
            q = {k: v[0] for k, v in parse_qs(u.query).items()}
            if self.command == "GET" and u.path == \
                    "/.well-known/oauth-protected-resource/mcp":
                return self.reply(200, {
                    "resource": base + "/mcp",
                    "authorization_servers": [base],
                    "scopes_supported": ["notes:read"]}) or True
            if self.command == "GET" and u.path == \
                    "/.well-known/oauth-authorization-server":
                return self.reply(200, {
                    "issuer": base,
                    "authorization_endpoint": base + "/authorize",
                    "token_endpoint": base + "/token",
                    "registration_endpoint": base + "/register",
                    "response_types_supported": ["code"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["none"]}) \
                    or True
            if self.command == "GET" and u.path == "/authorize":
                log({"authorize": sorted(q)})
                OAUTH["challenge"] = q.get("code_challenge")
                back = q["redirect_uri"] + "?" + urlencode(
                    {"code": ARGS.oauth_code, "state": q.get("state", "")})
                self.send_response(302)
                self.send_header("Location", back)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return True
            if self.command == "POST" and u.path in ("/register", "/token"):
                body = self.rfile.read(int(self.headers.get(
                    "Content-Length", 0))).decode()
                if u.path == "/register":
                    log({"register": json.loads(body).get("client_name")})
                    return self.reply(201, {"client_id": "huddle-test"}) \
                        or True
                form = {k: v[0] for k, v in parse_qs(body).items()}
                verifier = form.get("code_verifier", "")
                made = base64.urlsafe_b64encode(hashlib.sha256(
                    verifier.encode()).digest()).decode().rstrip("=")
                ok = (form.get("code") == ARGS.oauth_code and
                      made == OAUTH.get("challenge"))
                log({"token": form.get("grant_type"), "pkce": ok})
                if not ok:
                    return self.reply(400, {"error": "invalid_grant"}) \
                        or True
                return self.reply(200, {
                    "access_token": ARGS.oauth_token, "token_type":
                    "Bearer", "expires_in": 3600, "scope": "notes:read",
                    "refresh_token": ARGS.oauth_token + "-refresh"}) or True
            if u.path == "/mcp" and self.headers.get("Authorization") != \
                    "Bearer " + ARGS.oauth_token:
                if self.command == "POST":
                    self._body = self.rfile.read(int(self.headers.get(
                        "Content-Length", 0)))
                    method = json.loads(self._body).get("method")
                    # --oauth-calls: only a tool's call needs the token.
                    if ARGS.oauth_calls and method != "tools/call":
                        return False
                    log({"unauthorized": method})
                elif ARGS.oauth_calls:
                    return False
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Bearer resource_'
                                 'metadata="%s/.well-known/oauth-protected-'
                                 'resource/mcp"' % base)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return True
            return False

        def do_GET(self):
            if ARGS.oauth and self.oauth():
                return
            log({"GET": self.headers.get("Last-Event-ID")})
            if ARGS.get_tight:
                ev = "retry: 0\nid: 1\ndata: %s\n\n" % json.dumps(
                    {"jsonrpc": "2.0", "id": -1,
                     "result": {"big": "x" * (1 << 20)}})
                data = ev.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            if ARGS.get_trickle:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    self.wfile.write(b'data: {"jsonrpc": "2.0", "id": '
                                     b'"p1", "method": "ping"}\n\n')
                    self.wfile.flush()
                    while True:
                        time.sleep(0.5)
                        self.wfile.write(b": idle\n\n")
                        self.wfile.flush()
                except OSError:
                    pass
                return
            if ARGS.reply_on_get:
                return self.own_stream()
            # As the specification lets a server that offers no stream
            # of its own.
            self.reply(405, None)

        def own_stream(self):
            """Holds the GET open; one without Last-Event-ID is the
            client's own, on which a call's reply may go."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            own = self.headers.get("Last-Event-ID") is None
            if not own:
                self.wfile.write(b"id: r1\nretry: 200\ndata: \n\n")
                self.wfile.flush()
            with own_cond:
                if own:
                    own_streams.append(self)
                    own_cond.notify_all()
            try:
                while True:
                    time.sleep(0.2)
                    with own_cond:
                        self.wfile.write(b": idle\n\n")
                        self.wfile.flush()
            except OSError:
                pass
            with own_cond:
                if self in own_streams:
                    own_streams.remove(self)

        def reply_elsewhere(self, reply):
            """The reply on the client's own stream, even before the
            call's own answer begins (the hardest order for a client);
            then the call's stream: a priming event, and the end."""
            with own_cond:
                own_cond.wait_for(lambda: own_streams, timeout=10)
                for s in own_streams[:1]:
                    s.wfile.write(("id: g1\ndata: %s\n\n" %
                                   json.dumps(reply)).encode())
                    s.wfile.flush()
            time.sleep(0.3)   # the client has it before our headers
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"id: c1\nretry: 200\ndata: \n\n")
            self.wfile.flush()

        def do_POST(self):
            if ARGS.oauth and self.oauth():
                return
            body = self.__dict__.pop("_body", None)
            if body is None:
                body = self.rfile.read(int(self.headers.get(
                    "Content-Length", 0)))
            msg = json.loads(body)
            if ARGS.get_trickle and "method" not in msg:
                # The answer to our ping: a body that never ends.
                log(msg)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                try:
                    while True:
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(2)
                except OSError:
                    pass
                return
            if ARGS.auth:
                # A server that wants an OAuth sign-in first.
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Bearer resource_'
                                 'metadata="http://127.0.0.1/.well-known/'
                                 'oauth-protected-resource"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            accept = self.headers.get("Accept", "")
            if ("application/json" not in accept or
                    "text/event-stream" not in accept):
                return self.reply(406, None)
            sid = self.headers.get("Mcp-Session-Id")
            new_sid = None
            if ARGS.legacy and msg.get("method") == "initialize":
                new_sid = uuid.uuid4().hex
                sessions.add(new_sid)
            elif ARGS.legacy and sid not in sessions:
                return self.reply(400 if sid is None else 404, None)
            if msg.get("method") == "tools/call" and (
                    ARGS.sse_keepalive_forever or ARGS.huge_event):
                log(msg)
                return self.reply_forever()
            notes = []
            reply = handle(msg, notes.append)
            if reply is None:
                return self.reply(202, None, new_sid)
            if ARGS.reply_on_get and msg.get("method") == "tools/call":
                return self.reply_elsewhere(reply)
            if ARGS.sse:
                return self.reply_sse(notes + [reply], new_sid)
            return self.reply(200, reply, new_sid)

        def reply(self, status, obj, sid=None):
            data = json.dumps(obj).encode() if obj is not None else b""
            self.send_response(status)
            if obj is not None:
                self.send_header("Content-Type", "application/json")
            if sid:
                self.send_header("Mcp-Session-Id", sid)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def reply_forever(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                if ARGS.huge_event:
                    self.wfile.write(b"data: " + b"x" * (17 << 20) +
                                     b"\n\n")
                while True:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass

        def reply_sse(self, msgs, sid):
            data = "".join("event: message\ndata: %s\n\n" % json.dumps(m)
                           for m in msgs).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            if sid:
                self.send_header("Mcp-Session-Id", sid)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, ARGS.port_file)
    srv.serve_forever()


def connect_through_proxy(target):
    """CONNECT target through $HTTPS_PROXY (http://user:token@host:port);
    logs the status line of the answer."""
    import base64
    import socket
    from urllib.parse import urlsplit
    try:
        u = urlsplit(os.environ["HTTPS_PROXY"])
        creds = base64.b64encode(("%s:%s" % (u.username, u.password))
                                 .encode()).decode()
        s = socket.create_connection((u.hostname, u.port), 10)
        s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n"
                   "Proxy-Authorization: Basic %s\r\n\r\n"
                   % (target, target, creds)).encode())
        s.settimeout(None)
        answer = s.recv(4096).decode(errors="replace")
        s.close()
        log({"connect": answer.split("\r\n", 1)[0]})
    except (KeyError, OSError) as e:
        log({"connect": "failed: %r" % e})


def cache_starts():
    """Counts this start in the cache folder huddle gave it (a line in
    $HUDDLE_MCP_CACHE/starts); returns the count, or the error."""
    try:
        path = os.path.join(os.environ["HUDDLE_MCP_CACHE"], "starts")
        with open(path, "a") as f:
            f.write("start\n")
        with open(path) as f:
            return len(f.readlines())
    except (KeyError, OSError) as e:
        return "cannot write its cache: %r" % e


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--legacy", action="store_true")
    p.add_argument("--http", action="store_true")
    p.add_argument("--sse", action="store_true")
    p.add_argument("--port-file")
    p.add_argument("--log")
    p.add_argument("--cwd-tool", action="store_true")
    p.add_argument("--image-tool", action="store_true")
    p.add_argument("--flood-pings", action="store_true")
    p.add_argument("--spam-lines", action="store_true")
    p.add_argument("--huge-list", action="store_true")
    p.add_argument("--sse-keepalive-forever", action="store_true")
    p.add_argument("--huge-event", action="store_true")
    p.add_argument("--get-tight", action="store_true")
    p.add_argument("--start-delay", type=float, default=0)
    p.add_argument("--get-trickle", action="store_true")
    p.add_argument("--reply-on-get", action="store_true")
    p.add_argument("--auth", action="store_true")
    p.add_argument("--oauth", action="store_true",
                   help="ask for a sign-in, and be the authorization "
                   "server that gives --oauth-token for --oauth-code")
    p.add_argument("--oauth-token", default="test-access-token")
    p.add_argument("--oauth-calls", action="store_true",
                   help="with --oauth, only tools/call needs the token")
    p.add_argument("--oauth-code", default="test-code")
    p.add_argument("--env-tool", action="store_true")
    p.add_argument("--connect")
    p.add_argument("--mute", action="store_true",
                   help="write to stderr, then never answer")
    p.add_argument("--fail", action="store_true",
                   help="write an error (with terminal escapes) to "
                   "stderr and exit")
    ARGS = p.parse_args()
    if ARGS.env_tool:
        STATE["starts"] = cache_starts()
    if ARGS.connect:
        threading.Thread(target=connect_through_proxy, args=(ARGS.connect,),
                         daemon=True).start()
    if ARGS.start_delay:
        # As npx fetching its package before the server runs.
        time.sleep(ARGS.start_delay)
    if ARGS.mute or ARGS.fail:
        for i in range(30):
            sys.stderr.write("line %d of its stderr\n" % i)
        sys.stderr.write("\x1b[31mError: cannot find module "
                         "'left-pad'\x1b[0m\r\n")
        sys.stderr.flush()
        if ARGS.fail:
            sys.exit(1)
        for _ in sys.stdin:
            pass
        return
    if ARGS.http:
        run_http()
    else:
        run_stdio()


if __name__ == "__main__":
    main()
