#!/usr/bin/env python3
"""Self-test for fakellm.py: starts the fake LLM server and checks it.

Run as `python3 tests/fakellm/selftest.py`. Each check talks to the server
over real HTTP (http.client or a raw socket) and parses the replies itself,
SSE included. Prints one line per failing check, then "N passed, M failed";
exits 1 if anything failed.
"""

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "fakellm.py")
KEY = "selftest-key"
PORT = None

ANTHROPIC_HEADERS = {"x-api-key": KEY, "anthropic-version": "2023-06-01",
                     "content-type": "application/json"}
OPENAI_HEADERS = {"authorization": f"Bearer {KEY}",
                  "content-type": "application/json"}

TOOLS = [{"name": "get_weather", "description": "Weather",
          "input_schema": {"type": "object",
                           "properties": {"location": {"type": "string"}}}}]
OPENAI_TOOLS = [{"type": "function", "function": {
    "name": "get_weather",
    "parameters": {"type": "object",
                   "properties": {"location": {"type": "string"}}}}}]


class Failure(Exception):
    """A failed check."""


def check(condition, message):
    """Fail the current test with message unless condition holds."""
    if not condition:
        raise Failure(message)


def check_eq(actual, expected, what):
    """Fail unless actual == expected, showing both."""
    if actual != expected:
        raise Failure(f"{what}: expected {expected!r}, got {actual!r}")


# ---------------------------------------------------------------------------
# HTTP helpers
# ---------------------------------------------------------------------------

class Reply:
    """A complete HTTP reply: status, lower-cased headers and body bytes."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        """The body parsed as JSON."""
        return json.loads(self.body.decode("utf-8"))


def call(method, path, body=None, headers=None, timeout=5.0):
    """One request on a fresh http.client connection; returns a Reply."""
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=timeout)
    try:
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        return Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()},
                     data)
    finally:
        conn.close()


def raw_exchange(path, body, headers, timeout=5.0, on_chunk=None):
    """Send a POST on a raw socket and read until the server closes.

    Returns (Reply, chunks) where chunks are the body pieces as received.
    Raises socket.timeout if the server goes quiet for timeout seconds.
    """
    data = json.dumps(body).encode("utf-8")
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{PORT}",
             f"Content-Length: {len(data)}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + data)
        received = b""
        while b"\r\n\r\n" not in received:
            piece = sock.recv(65536)
            check(piece, "connection closed before the response headers")
            received += piece
        head, rest = received.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split()[1])
        resp_headers = {}
        for line in header_lines:
            name, value = line.split(":", 1)
            resp_headers[name.strip().lower()] = value.strip()
        chunks = [rest] if rest else []
        if on_chunk and rest:
            on_chunk(rest)
        while True:
            piece = sock.recv(65536)
            if not piece:
                break
            chunks.append(piece)
            if on_chunk:
                on_chunk(piece)
        return Reply(status, resp_headers, b"".join(chunks)), chunks
    finally:
        sock.close()


class SSEParser:
    """Incremental SSE parser: feed bytes in any pieces, collect events.

    Events are split on blank lines (the server only sends "\\n" line ends);
    a block is decoded as UTF-8 only once complete, so pieces may end in
    the middle of a character. Each event is (name or None, data string).
    """

    def __init__(self):
        self.buffer = b""
        self.events = []
        self.comments = 0

    def feed(self, data):
        """Add received bytes; complete events are appended to events."""
        self.buffer += data
        while b"\n\n" in self.buffer:
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            name, data_lines = None, []
            for line in block.decode("utf-8").split("\n"):
                if line.startswith(":"):
                    self.comments += 1
                    continue
                field, _, value = line.partition(":")
                if value.startswith(" "):
                    value = value[1:]
                if field == "event":
                    name = value
                elif field == "data":
                    data_lines.append(value)
            if data_lines:
                self.events.append((name, "\n".join(data_lines)))


def script(items):
    """Queue scripted responses on the server."""
    reply = call("POST", "/_script", items)
    check_eq(reply.status, 200, f"/_script status ({reply.body!r})")
    return reply.json()


def reset():
    """Clear the server's queues and records."""
    check_eq(call("POST", "/_reset", b"").status, 200, "/_reset status")


def recorded():
    """The server's recorded requests."""
    return call("GET", "/_requests").json()


def pending():
    """How many scripted responses are still queued."""
    return call("GET", "/_pending").json()["total"]


def anthropic_body(messages=None, stream=False, **extra):
    """A minimal valid Messages request body."""
    body = {"model": "claude-test", "max_tokens": 100,
            "messages": messages or [{"role": "user", "content": "hi"}]}
    if stream:
        body["stream"] = True
    body.update(extra)
    return body


def openai_body(messages=None, stream=False, **extra):
    """A minimal valid chat completions request body."""
    body = {"model": "gpt-test",
            "messages": messages or [{"role": "user", "content": "hi"}]}
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    body.update(extra)
    return body


def anthropic(body, headers=None, agent=None):
    """POST /v1/messages; returns a Reply."""
    hdrs = dict(ANTHROPIC_HEADERS if headers is None else headers)
    if agent:
        hdrs["x-huddle-agent"] = agent
    return call("POST", "/v1/messages", body, hdrs)


def openai(body, headers=None, agent=None):
    """POST /v1/chat/completions; returns a Reply."""
    hdrs = dict(OPENAI_HEADERS if headers is None else headers)
    if agent:
        hdrs["x-huddle-agent"] = agent
    return call("POST", "/v1/chat/completions", body, hdrs)


def stream(path, body, headers=None, timeout=5.0):
    """A streamed request over a raw socket; returns (Reply, SSEParser)."""
    if headers is None:
        headers = ANTHROPIC_HEADERS if path == "/v1/messages" \
            else OPENAI_HEADERS
    parser = SSEParser()
    reply, _ = raw_exchange(path, body, headers, timeout, parser.feed)
    return reply, parser


def anthropic_events(parser):
    """(name, payload) of the non-ping Anthropic events, checking each
    event's JSON type equals its name."""
    out = []
    for name, data in parser.events:
        payload = json.loads(data)
        check_eq(payload.get("type"), name, "SSE event type vs name")
        if name != "ping":
            out.append((name, payload))
    return out


def assemble_anthropic(events):
    """Rebuild the content blocks of a streamed Message."""
    blocks, partial = {}, {}
    for name, payload in events:
        if name == "content_block_start":
            blocks[payload["index"]] = dict(payload["content_block"])
            partial[payload["index"]] = ""
        elif name == "content_block_delta":
            delta, index = payload["delta"], payload["index"]
            if delta["type"] == "text_delta":
                blocks[index]["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                blocks[index]["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                blocks[index]["signature"] += delta["signature"]
            elif delta["type"] == "input_json_delta":
                partial[index] += delta["partial_json"]
        elif name == "content_block_stop":
            block = blocks[payload["index"]]
            if block["type"] == "tool_use":
                text = partial[payload["index"]]
                block["input"] = json.loads(text) if text else {}
    return [blocks[i] for i in sorted(blocks)]


def check_anthropic_order(names):
    """Check the event sequence grammar of a complete Messages stream."""
    check_eq(names[0], "message_start", "first event")
    check_eq(names[-2:], ["message_delta", "message_stop"], "last events")
    open_block = False
    for name in names[1:-2]:
        if name == "content_block_start":
            check(not open_block, "content_block_start inside a block")
            open_block = True
        elif name in ("content_block_delta", "content_block_stop"):
            check(open_block, f"{name} outside a block")
            open_block = name == "content_block_delta"
        else:
            raise Failure(f"unexpected event {name} in the middle")
    check(not open_block, "a content block was never stopped")


def openai_chunks(parser):
    """The chunks of an OpenAI stream; checks it ends with [DONE]."""
    datas = [data for _, data in parser.events]
    check(datas and datas[-1] == "[DONE]", "stream does not end with [DONE]")
    return [json.loads(d) for d in datas[:-1]]


def assemble_openai(chunks):
    """Rebuild (content, tool calls, finish_reason, usage) from chunks,
    accumulating tool calls by index and starting a new call when a new
    id appears at a used index (as for Ollama)."""
    content, calls, finish, usage = "", [], None, None
    by_index = {}
    for chunk in chunks:
        check_eq(chunk["object"], "chat.completion.chunk", "chunk object")
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk["choices"]:
            delta = choice["delta"]
            content += delta.get("content") or ""
            for tc in delta.get("tool_calls", []):
                call = by_index.get(tc["index"])
                if call is None or ("id" in tc and tc["id"] != call["id"]):
                    call = {"id": tc["id"], "name": "", "arguments": ""}
                    calls.append(call)
                    by_index[tc["index"]] = call
                fn = tc.get("function", {})
                call["name"] += fn.get("name") or ""
                call["arguments"] += fn.get("arguments") or ""
            if choice.get("finish_reason"):
                finish = choice["finish_reason"]
    return content, calls, finish, usage


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------

def test_auth_anthropic():
    """401 for a missing or wrong x-api-key, 400 without anthropic-version."""
    script([{"kind": "text", "text": "unused"}])
    no_key = dict(ANTHROPIC_HEADERS)
    del no_key["x-api-key"]
    for headers in (no_key, dict(ANTHROPIC_HEADERS, **{"x-api-key": "nope"})):
        reply = anthropic(anthropic_body(), headers)
        check_eq(reply.status, 401, "status")
        rid = reply.headers.get("request-id", "")
        check(rid.startswith("req_fake"), f"request-id header: {rid!r}")
        check_eq(reply.json(), {"type": "error", "error": {
            "type": "authentication_error", "message": "invalid x-api-key"},
            "request_id": rid}, "401 body")
    no_version = dict(ANTHROPIC_HEADERS)
    del no_version["anthropic-version"]
    reply = anthropic(anthropic_body(), no_version)
    check_eq(reply.status, 400, "status without anthropic-version")
    check_eq(reply.json()["error"], {
        "type": "invalid_request_error",
        "message": "anthropic-version: header is required"}, "error")
    check_eq(pending(), 1, "rejected requests must not consume responses")


def test_auth_anthropic_bearer():
    """A gateway token as "Authorization: Bearer" stands for the key on
    the Anthropic route, as the SDKs send ANTHROPIC_AUTH_TOKEN."""
    script([{"kind": "text", "text": "through the gateway"}])
    bearer = dict(ANTHROPIC_HEADERS)
    del bearer["x-api-key"]
    bearer["authorization"] = f"Bearer {KEY}"
    reply = anthropic(anthropic_body(), bearer)
    check_eq(reply.status, 200, "status with a Bearer token")
    for wrong in ("Bearer nope", KEY):
        reply = anthropic(anthropic_body(), dict(bearer,
                                                 authorization=wrong))
        check_eq(reply.status, 401, f"status with {wrong!r}")


def test_today_cache_minimum_per_model():
    """Without a setting the cache keeps what the model's pages say: a
    prefix of about 700 tokens is cached on a 5.x model (512) and not on
    Haiku 4.5 (4,096)."""
    config(thinking="off", cache_min_tokens=None)
    text = "The project notes. " * 140
    for model, cached in (("claude-sonnet-5-5", True),
                          ("claude-haiku-5-5", True),
                          ("claude-haiku-4-5", False)):
        script([{"kind": "text", "text": "ok"}])
        body = anthropic_body([{"role": "user", "content": text + model}],
                              model=model,
                              cache_control={"type": "ephemeral"})
        usage = anthropic(body).json()["usage"]
        check_eq(usage["cache_creation_input_tokens"] > 0, cached,
                 f"{model}: {usage}")


def test_auth_openai():
    """401 in the OpenAI shape for a missing or wrong bearer key."""
    script([{"kind": "text", "text": "unused"}])
    for headers in ({"content-type": "application/json"},
                    {"authorization": "Bearer wrong"},
                    {"authorization": KEY}):
        reply = openai(openai_body(), headers)
        check_eq(reply.status, 401, "status")
        check(reply.headers.get("x-request-id", "").startswith("req_fake"),
              "x-request-id header")
        check_eq(reply.json(), {"error": {
            "message": "Incorrect API key provided",
            "type": "invalid_request_error", "param": None,
            "code": "invalid_api_key"}}, "401 body")
    check_eq(pending(), 1, "rejected requests must not consume responses")


def test_bad_bodies():
    """400s naming the field for malformed request bodies."""
    reply = call("POST", "/v1/messages", b"{not json", ANTHROPIC_HEADERS)
    check_eq(reply.status, 400, "non-JSON status")
    check_eq(reply.json()["error"]["type"], "invalid_request_error", "type")
    cases = [
        ({"model": "m", "messages": [{"role": "user", "content": "x"}]},
         "max_tokens: Field required"),
        ({"model": "m", "max_tokens": 0,
          "messages": [{"role": "user", "content": "x"}]},
         "max_tokens: Input should be greater than or equal to 1"),
        ({"max_tokens": 5, "messages": [{"role": "user", "content": "x"}]},
         "model: Field required"),
        ({"model": "m", "max_tokens": 5, "messages": []},
         "messages: List should have at least 1 item after validation, not 0"),
        ({"model": "m", "max_tokens": 5,
          "messages": [{"role": "system", "content": "x"}]},
         "messages.0.role: Input should be 'user' or 'assistant'"),
        ({"model": "m", "max_tokens": 5, "system": 3,
          "messages": [{"role": "user", "content": "x"}]},
         "system: Input should be a valid list"),
    ]
    for body, message in cases:
        reply = anthropic(body)
        check_eq(reply.status, 400, f"status for {message}")
        check_eq(reply.json()["error"]["message"], message, "message")
    reply = openai({"model": "m"})
    check_eq(reply.status, 400, "OpenAI missing messages status")
    err = reply.json()["error"]
    check_eq(err["type"], "invalid_request_error", "type")
    check_eq(err["param"], "messages", "param")
    reply = call("POST", "/v1/chat/completions", b"nope", OPENAI_HEADERS)
    check_eq(reply.status, 400, "OpenAI non-JSON status")
    check("error" in reply.json(), "OpenAI error shape")


def test_text_anthropic_json():
    """A non-streamed Anthropic text reply and its headers."""
    script([{"kind": "text", "text": "Hello there",
             "usage": {"input_tokens": 12, "output_tokens": 3}}])
    reply = anthropic(anthropic_body())
    check_eq(reply.status, 200, "status")
    check_eq(reply.headers.get("content-type"), "application/json",
             "content-type")
    check_eq(reply.headers.get("content-length"), str(len(reply.body)),
             "content-length")
    for name in ("request-id", "x-request-id",
                 "anthropic-ratelimit-requests-limit",
                 "anthropic-ratelimit-requests-remaining",
                 "anthropic-ratelimit-requests-reset"):
        check(name in reply.headers, f"missing header {name}")
    msg = reply.json()
    check(msg["id"].startswith("msg_"), "message id")
    check_eq((msg["type"], msg["role"], msg["model"]),
             ("message", "assistant", "claude-test"), "type/role/model")
    check_eq(msg["content"], [{"type": "text", "text": "Hello there"}],
             "content")
    check_eq((msg["stop_reason"], msg["stop_sequence"]), ("end_turn", None),
             "stop")
    check_eq((msg["usage"]["input_tokens"], msg["usage"]["output_tokens"]),
             (12, 3), "usage")


def test_text_anthropic_stream_utf8_split():
    """An Anthropic stream split every 3 bytes, with pings and UTF-8."""
    text = "héllo ✓ 😀 and some more text to split"
    script([{"kind": "text", "text": text, "split": 3, "pings": True,
             "delta_chars": 3, "stop_reason": "max_tokens"}])
    reply, parser = stream("/v1/messages", anthropic_body(stream=True))
    check_eq(reply.status, 200, "status")
    check_eq(reply.headers.get("content-type"),
             "text/event-stream; charset=utf-8", "content-type")
    check_eq(reply.headers.get("cache-control"), "no-cache", "cache-control")
    check(reply.headers.get("request-id", "").startswith("req_fake"),
          "request-id")
    check(any(name == "ping" for name, _ in parser.events), "no ping events")
    events = anthropic_events(parser)
    names = [name for name, _ in events]
    check_anthropic_order(names)
    check(names.count("content_block_delta") > 5, "text was not split up")
    start = events[0][1]["message"]
    check_eq((start["content"], start["stop_reason"]), ([], None),
             "message_start message")
    check("input_tokens" in start["usage"], "message_start usage")
    check_eq(assemble_anthropic(events), [{"type": "text", "text": text}],
             "reassembled content")
    delta = events[-2][1]
    check_eq(delta["delta"]["stop_reason"], "max_tokens", "stop_reason")
    check(delta["usage"]["output_tokens"] >= 1, "message_delta usage")
    check_eq(parser.buffer, b"", "bytes after the last event")


def test_text_openai():
    """OpenAI text replies, non-streamed and streamed."""
    text = "héllo ✓ 😀 over OpenAI"
    script([{"kind": "text", "text": text},
            {"kind": "text", "text": text, "split": 3, "pings": True}])
    reply = openai(openai_body())
    check_eq(reply.status, 200, "non-stream status")
    body = reply.json()
    check_eq(body["object"], "chat.completion", "object")
    choice = body["choices"][0]
    check_eq(choice["message"], {"role": "assistant", "content": text},
             "message")
    check_eq(choice["finish_reason"], "stop", "finish_reason")
    usage = body["usage"]
    check_eq(usage["total_tokens"],
             usage["prompt_tokens"] + usage["completion_tokens"], "usage")

    reply, parser = stream("/v1/chat/completions", openai_body(stream=True))
    check_eq(reply.status, 200, "stream status")
    check_eq(reply.headers.get("content-type"),
             "text/event-stream; charset=utf-8", "content-type")
    check(parser.comments > 0, "no ping comments")
    check(all(name is None for name, _ in parser.events), "event: lines")
    chunks = openai_chunks(parser)
    check_eq(chunks[0]["choices"][0]["delta"].get("role"), "assistant",
             "first delta role")
    check_eq(chunks[-1]["choices"], [], "usage chunk choices")
    content, calls, finish, usage = assemble_openai(chunks)
    check_eq((content, calls, finish), (text, [], "stop"), "reassembled")
    check(usage and usage["completion_tokens"] > 0, "usage chunk")


def tool_calls_spec():
    """Three scripted calls: a given id, a generated one, empty input."""
    return [{"id": "toolu_A", "name": "get_weather",
             "input": {"location": "Paris, France", "unit": "°C"}},
            {"name": "list_files", "input": {"path": "/tmp", "deep": True}},
            {"name": "no_args", "input": {}}]


def test_tool_use_anthropic():
    """Anthropic tool_use replies, reassembled from the stream."""
    calls = tool_calls_spec()
    script([{"kind": "tool_use", "text": "Let me check.", "calls": calls},
            {"kind": "tool_use", "text": "Let me check.", "calls": calls,
             "split": 7}])
    msg = anthropic(anthropic_body(tools=TOOLS)).json()
    check_eq(msg["stop_reason"], "tool_use", "stop_reason")
    check_eq(msg["content"][0], {"type": "text", "text": "Let me check."},
             "text block")
    uses = msg["content"][1:]
    check_eq([(u["type"], u["name"], u["input"]) for u in uses],
             [("tool_use", c["name"], c["input"]) for c in calls], "tool_use")
    check_eq(uses[0]["id"], "toolu_A", "scripted id")
    check(uses[1]["id"].startswith("toolu_"), "generated id")

    _, parser = stream("/v1/messages", anthropic_body(stream=True,
                                                      tools=TOOLS))
    events = anthropic_events(parser)
    check_anthropic_order([name for name, _ in events])
    starts = [p for n, p in events if n == "content_block_start"]
    for start in starts[1:]:
        check_eq(start["content_block"]["input"], {}, "tool_use start input")
    first_json = [p["delta"]["partial_json"] for n, p in events
                  if n == "content_block_delta"
                  and p["delta"]["type"] == "input_json_delta"
                  and p["index"] == 1]
    check_eq(first_json[0], "", "first input_json_delta")
    check(len(first_json) > 3, "tool input was not fragmented")
    blocks = assemble_anthropic(events)
    check_eq(blocks[0], {"type": "text", "text": "Let me check."}, "text")
    check_eq([(b["name"], b["input"]) for b in blocks[1:]],
             [(c["name"], c["input"]) for c in calls], "reassembled calls")
    check_eq(events[-2][1]["delta"]["stop_reason"], "tool_use",
             "stop_reason")


def test_tool_use_openai():
    """OpenAI tool calls: fragments, whole_call and reuse_index."""
    calls = tool_calls_spec()
    want = [(c["name"], c["input"]) for c in calls]
    script([{"kind": "tool_use", "calls": calls},
            {"kind": "tool_use", "calls": calls},
            {"kind": "tool_use", "calls": calls, "whole_call": True},
            {"kind": "tool_use", "calls": calls, "reuse_index": True,
             "split": 5}])
    body = openai(openai_body(tools=OPENAI_TOOLS)).json()
    choice = body["choices"][0]
    check_eq(choice["finish_reason"], "tool_calls", "finish_reason")
    got = [(c["function"]["name"], json.loads(c["function"]["arguments"]))
           for c in choice["message"]["tool_calls"]]
    check_eq(got, want, "non-stream tool_calls")
    check_eq(choice["message"]["tool_calls"][1]["type"], "function", "type")

    for mode in ("fragments", "whole_call", "reuse_index"):
        _, parser = stream("/v1/chat/completions",
                           openai_body(stream=True, tools=OPENAI_TOOLS))
        chunks = openai_chunks(parser)
        indexes = [tc["index"] for c in chunks for ch in c["choices"]
                   for tc in ch["delta"].get("tool_calls", [])]
        if mode == "reuse_index":
            check_eq(set(indexes), {0}, f"{mode}: indexes")
        else:
            check_eq(sorted(set(indexes)), [0, 1, 2], f"{mode}: indexes")
        if mode == "whole_call":
            check_eq(len(indexes), 3, "whole_call: one chunk per call")
        _, got_calls, finish, _ = assemble_openai(chunks)
        check_eq(finish, "tool_calls", f"{mode}: finish_reason")
        check_eq(len({c["id"] for c in got_calls}), 3, f"{mode}: ids")
        check_eq([(c["name"], json.loads(c["arguments"]))
                  for c in got_calls], want, f"{mode}: reassembled calls")
        check_eq(got_calls[0]["id"], "toolu_A", f"{mode}: scripted id")


def test_tool_result_validation():
    """tool_use/tool_result and tool_calls pairing errors."""
    use = {"role": "assistant", "content": [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
         "input": {"location": "Paris"}},
        {"type": "tool_use", "id": "toolu_2", "name": "get_weather",
         "input": {"location": "Rome"}}]}
    ask = {"role": "user", "content": "Weather?"}

    def result(tool_id):
        return {"type": "tool_result", "tool_use_id": tool_id,
                "content": "sunny"}

    script([{"kind": "text", "text": "ok"}])
    bad = [
        ([ask, use, {"role": "user", "content": [result("toolu_1")]}],
         "messages.2: Did not find 1 tool_result block(s) at the beginning "
         "of this message. Messages following tool_use blocks must begin "
         "with a matching number of tool_result blocks."),
        ([ask, use, {"role": "user", "content": [
            {"type": "text", "text": "here"}, result("toolu_1"),
            result("toolu_2")]}],
         "messages.2: Did not find 2 tool_result block(s) at the beginning "
         "of this message. Messages following tool_use blocks must begin "
         "with a matching number of tool_result blocks."),
        ([ask, use, {"role": "user", "content": [
            result("toolu_2"), result("toolu_9")]}],
         "messages.2.content.1: unexpected `tool_use_id` found in "
         "`tool_result` blocks: toolu_9. Each `tool_result` block must have "
         "a corresponding `tool_use` block in the previous message."),
    ]
    for messages, message in bad:
        reply = anthropic(anthropic_body(messages, tools=TOOLS))
        check_eq(reply.status, 400, "status")
        check_eq(reply.json()["error"], {"type": "invalid_request_error",
                                         "message": message}, "error")
    good = [ask, use, {"role": "user", "content": [
        result("toolu_2"), result("toolu_1"),
        {"type": "text", "text": "go on"}]}]
    reply = anthropic(anthropic_body(good))
    check_eq(reply.status, 400, "status without tools")
    check_eq(reply.json()["error"]["message"],
             "Requests which include `tool_use` or `tool_result` blocks must "
             "define tools.", "message without tools")
    check_eq(pending(), 1, "rejected requests must not consume responses")
    check_eq(anthropic(anthropic_body(good, tools=TOOLS)).status, 200,
             "valid round trip")
    script([{"kind": "text", "text": "ok"}])
    check_eq(anthropic(anthropic_body([ask, use], tools=TOOLS)).status, 200,
             "trailing tool_use (prefill) is accepted")

    call = {"id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": "{}"}}
    call2 = dict(call, id="call_2")
    oai_use = {"role": "assistant", "content": None,
               "tool_calls": [call, call2]}
    script([{"kind": "text", "text": "ok"}])
    reply = openai(openai_body([
        {"role": "user", "content": "x"}, oai_use,
        {"role": "tool", "tool_call_id": "call_2", "content": "r"},
        {"role": "user", "content": "next"}], tools=OPENAI_TOOLS))
    check_eq(reply.status, 400, "OpenAI status")
    check_eq(reply.json()["error"]["message"],
             "An assistant message with 'tool_calls' must be followed by "
             "tool messages responding to each 'tool_call_id'. The following "
             "tool_call_ids did not have response messages: call_1",
             "OpenAI message")
    reply = openai(openai_body([
        {"role": "user", "content": "x"}, oai_use,
        {"role": "tool", "tool_call_id": "call_2", "content": "r"},
        {"role": "tool", "tool_call_id": "call_1", "content": "r"}],
        tools=OPENAI_TOOLS))
    check_eq(reply.status, 200, "OpenAI valid round trip")


def test_images():
    """Images of tool results: the Messages API's image blocks (the four
    types, 5 MB of base64), chat completions' image_url parts (never in a
    tool message), Responses' input_image in a function_call_output."""
    png = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmR"
    use = {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
         "input": {}}]}

    def with_image(source):
        return [{"role": "user", "content": "Look."}, use,
                {"role": "user", "content": [{
                    "type": "tool_result", "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "a map"},
                                {"type": "image", "source": source}]}]}]

    script([{"kind": "text", "text": "ok"}])
    for source, message in (
            ({"type": "base64", "media_type": "image/tiff", "data": png},
             "messages.2.content.0.tool_result.content.1.image.source."
             "base64.media_type: Input should be 'image/jpeg', "
             "'image/png', 'image/gif' or 'image/webp'"),
            ({"type": "base64", "media_type": "image/png",
              "data": "A" * (5 * 1024 * 1024 + 4)},
             "messages.2.content.0.tool_result.content.1.image.source."
             "base64: image exceeds 5 MB maximum: 5242884 bytes > 5242880 "
             "bytes")):
        reply = anthropic(anthropic_body(with_image(source), tools=TOOLS))
        check_eq(reply.status, 400, "status of a bad image")
        check_eq(reply.json()["error"]["message"], message, "its message")
    reply = anthropic(anthropic_body(with_image(
        {"type": "base64", "media_type": "image/png", "data": png}),
        tools=TOOLS))
    check_eq(reply.status, 200, "a good image")

    call_ = {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{}"}}
    part = {"type": "image_url",
            "image_url": {"url": "data:image/png;base64," + png}}
    head = [{"role": "user", "content": "x"},
            {"role": "assistant", "content": None, "tool_calls": [call_]}]
    script([{"kind": "text", "text": "ok"}])
    reply = openai(openai_body(head + [
        {"role": "tool", "tool_call_id": "call_1", "content": [
            {"type": "text", "text": "a map"}, part]}], tools=OPENAI_TOOLS))
    check_eq(reply.status, 400, "an image in a tool message")
    check_eq(reply.json()["error"]["param"], "messages[2].content[1].type",
             "its param")
    reply = openai(openai_body(head + [
        {"role": "tool", "tool_call_id": "call_1", "content": "a map"},
        {"role": "user", "content": [{"type": "text", "text": "call_1:"},
                                     part]}], tools=OPENAI_TOOLS))
    check_eq(reply.status, 200, "an image in the user message after")

    def responses_with(output):
        return {"model": "gpt-5.4", "store": False, "input": [
            {"type": "message", "role": "user", "content": "x"},
            {"type": "function_call", "call_id": "call_1", "name": "read",
             "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1",
             "output": output}]}
    script([{"kind": "text", "text": "ok"}])
    reply = call("POST", "/v1/responses", responses_with(
        [{"type": "input_text", "text": "a map"},
         {"type": "image_url", "image_url": "data:image/png;base64,"}]),
        OPENAI_HEADERS)
    check_eq(reply.status, 400, "a part of no such type")
    reply = call("POST", "/v1/responses", responses_with(
        [{"type": "input_text", "text": "a map"},
         {"type": "input_image",
          "image_url": "data:image/png;base64," + png}]), OPENAI_HEADERS)
    check_eq(reply.status, 200, f"input_image in the output ({reply.body!r})")


def test_empty_text_block():
    """Empty text content is rejected."""
    script([{"kind": "text", "text": "unused"}])
    for content in ([{"type": "text", "text": ""}], ""):
        reply = anthropic(anthropic_body([{"role": "user",
                                           "content": content}]))
        check_eq(reply.status, 400, "status")
        check_eq(reply.json()["error"]["type"], "invalid_request_error",
                 "type")
    reply = anthropic(anthropic_body([{"role": "user", "content": [
        {"type": "text", "text": "a"}, {"type": "text", "text": ""}]}]))
    check_eq(reply.json()["error"]["message"],
             "messages: text content blocks must be non-empty", "message")
    check_eq(pending(), 1, "rejected requests must not consume responses")


def test_tool_name_pattern():
    """Tool names and schemas are checked on both APIs."""
    bad_tools = [dict(TOOLS[0], name="get weather")]
    reply = anthropic(anthropic_body(tools=bad_tools))
    check_eq(reply.status, 400, "status")
    check(reply.json()["error"]["message"].startswith("tools.0.name:"),
          "message names tools.0.name")
    reply = anthropic(anthropic_body(tools=[TOOLS[0], dict(
        TOOLS[0], name="x", input_schema={"type": "string"})]))
    check(reply.json()["error"]["message"].startswith(
        "tools.1.input_schema.type:"), "message names input_schema.type")
    reply = openai(openai_body(tools=[{"type": "function", "function": {
        "name": "x" * 65, "parameters": {"type": "object"}}}]))
    check_eq(reply.status, 400, "OpenAI status")
    check_eq(reply.json()["error"]["param"], "tools[0].function.name",
             "OpenAI param")


def test_error_kind():
    """Scripted API errors with their headers and shapes."""
    script([{"kind": "error", "status": 429, "type": "rate_limit_error",
             "message": "slow down", "headers": {"retry-after": "1"}},
            {"kind": "error", "status": 429, "type": "rate_limit_error",
             "message": "cap", "details": {
                 "error_code": "enforced_spend_limit_reached"}},
            {"kind": "error", "status": 529},
            {"kind": "error", "status": 500, "type": "api_error",
             "message": "boom", "headers": {"x-should-retry": "false"}}])
    reply = anthropic(anthropic_body())
    check_eq(reply.status, 429, "status")
    check_eq(reply.headers.get("retry-after"), "1", "retry-after")
    check_eq(reply.headers.get("anthropic-ratelimit-requests-remaining"), "0",
             "remaining")
    check_eq(reply.json(), {"type": "error", "error": {
        "type": "rate_limit_error", "message": "slow down"},
        "request_id": reply.headers["request-id"]}, "body")
    reply = anthropic(anthropic_body())
    check("retry-after" not in reply.headers, "spend cap has no retry-after")
    check_eq(reply.json()["error"]["details"],
             {"error_code": "enforced_spend_limit_reached"}, "details")
    reply = anthropic(anthropic_body())
    check_eq((reply.status, reply.json()["error"]["type"]),
             (529, "overloaded_error"), "529 default type")
    reply = openai(openai_body())
    check_eq(reply.status, 500, "OpenAI status")
    check_eq(reply.headers.get("x-should-retry"), "false", "x-should-retry")
    check_eq(reply.json(), {"error": {"message": "boom", "type": "api_error",
                                      "param": None, "code": None}},
             "OpenAI error body")


def test_raw_413():
    """A raw non-JSON 413 as a proxy would send it."""
    page = "<html><body><h1>413 Request Entity Too Large</h1></body></html>"
    script([{"kind": "raw", "status": 413, "body": page}])
    reply = anthropic(anthropic_body())
    check_eq(reply.status, 413, "status")
    check_eq(reply.headers.get("content-type"), "text/html", "content-type")
    check_eq(reply.body.decode(), page, "body")


def test_drop():
    """A dropped stream ends before message_stop / [DONE]."""
    script([{"kind": "text", "text": "x" * 80, "fault": "drop",
             "fault_after": 3},
            {"kind": "tool_use", "calls": tool_calls_spec(), "fault": "drop",
             "fault_after": 2}])
    started = time.monotonic()
    reply, parser = stream("/v1/messages", anthropic_body(stream=True))
    check(time.monotonic() - started < 3, "drop took too long")
    check_eq(reply.status, 200, "status")
    names = [n for n, _ in anthropic_events(parser)]
    check_eq(names, ["message_start", "content_block_start",
                     "content_block_delta"], "events before the drop")
    _, parser = stream("/v1/chat/completions",
                       openai_body(stream=True, tools=OPENAI_TOOLS))
    datas = [d for _, d in parser.events]
    check_eq(len(datas), 2, "OpenAI chunks before the drop")
    check("[DONE]" not in datas, "OpenAI drop sent [DONE]")


def test_reset_fault():
    """A reset stream ends before message_stop."""
    script([{"kind": "text", "text": "x" * 80, "fault": "reset"}])
    parser = SSEParser()
    try:
        raw_exchange("/v1/messages", anthropic_body(stream=True),
                     ANTHROPIC_HEADERS, on_chunk=parser.feed)
    except ConnectionResetError:
        pass
    names = [n for n, _ in parser.events]
    check("message_stop" not in names, "reset stream reached message_stop")


def test_error_event():
    """A mid-stream error event ends the stream."""
    script([{"kind": "text", "text": "x" * 80, "fault": "error_event"},
            {"kind": "text", "text": "x" * 80, "fault": "error_event",
             "fault_after": 2}])
    _, parser = stream("/v1/messages", anthropic_body(stream=True))
    events = anthropic_events(parser)
    check_eq([n for n, _ in events],
             ["message_start", "content_block_start", "content_block_delta",
              "error"], "events")
    check_eq(events[-1][1], {"type": "error", "error": {
        "type": "overloaded_error", "message": "Overloaded"}}, "error event")
    _, parser = stream("/v1/chat/completions", openai_body(stream=True))
    datas = [d for _, d in parser.events]
    check_eq(len(datas), 3, "OpenAI events")
    check_eq(json.loads(datas[-1]), {"error": {
        "message": "Overloaded", "type": "server_error"}}, "OpenAI error")


def test_malformed():
    """Broken SSE data and truncated JSON bodies."""
    script([{"kind": "text", "text": "hello world", "fault": "malformed_sse"},
            {"kind": "text", "text": "hello world",
             "fault": "malformed_json"}])
    _, parser = stream("/v1/messages", anthropic_body(stream=True))
    broken = 0
    good = []
    for name, data in parser.events:
        try:
            good.append((name, json.loads(data)))
        except ValueError:
            broken += 1
    check_eq(broken, 1, "broken data lines")
    check_eq(good[-1][0], "message_stop", "stream continued to the end")
    check_eq(assemble_anthropic(good)[0]["text"], "hello world", "text")
    reply = anthropic(anthropic_body())
    check_eq(reply.status, 200, "malformed_json status")
    check_eq(reply.headers.get("content-length"), str(len(reply.body)),
             "content-length matches the truncated body")
    try:
        reply.json()
    except ValueError:
        pass
    else:
        raise Failure("malformed_json body parsed")


def test_stall():
    """A stalled stream makes a 0.5 s client time out."""
    script([{"kind": "text", "text": "x" * 80, "fault": "stall",
             "stall_s": 5}])
    parser = SSEParser()
    started = time.monotonic()
    try:
        raw_exchange("/v1/messages", anthropic_body(stream=True),
                     ANTHROPIC_HEADERS, timeout=0.5, on_chunk=parser.feed)
    except socket.timeout:
        pass
    else:
        raise Failure("a stalled stream did not time out")
    check(time.monotonic() - started < 2, "stall timeout took too long")
    check_eq(len(parser.events), 3, "events before the stall")


def test_stall_headers():
    """No status line: a 0.5 s client times out."""
    script([{"kind": "stall_headers", "stall_s": 5}])
    started = time.monotonic()
    try:
        call("POST", "/v1/messages", anthropic_body(), ANTHROPIC_HEADERS,
             timeout=0.5)
    except socket.timeout:
        pass
    else:
        raise Failure("stall_headers did not make the client time out")
    check(time.monotonic() - started < 2, "timeout took too long")
    check_eq(recorded()[-1]["response_status"], None,
             "stall_headers response_status")


def test_agent_queues():
    """Per-agent queues with fallback to the shared queue."""
    script([{"agent": "alice", "kind": "text", "text": "for alice"},
            {"kind": "text", "text": "for anyone"},
            {"agent": "bob", "kind": "text", "text": "for bob"}])

    def text_for(agent):
        reply = anthropic(anthropic_body(), agent=agent)
        check_eq(reply.status, 200, f"status for agent {agent}")
        return reply.json()["content"][0]["text"]

    check_eq(text_for("bob"), "for bob", "bob's queue")
    check_eq(text_for(None), "for anyone", "request without agent")
    check_eq(text_for("alice"), "for alice", "alice's queue")
    script([{"kind": "text", "text": "fallback"}])
    check_eq(text_for("alice"), "fallback", "fallback to the shared queue")
    script([{"agent": "carol", "kind": "text", "text": "for carol"}])
    reply = anthropic(anthropic_body(), agent="alice")
    check_eq(reply.status, 500, "another agent's response is not taken")
    check_eq(pending(), 1, "carol's response stays queued")


def test_nothing_left():
    """The 500 when no scripted response is left."""
    reply = anthropic(anthropic_body())
    check_eq(reply.status, 500, "status")
    check_eq(reply.headers.get("x-should-retry"), "false", "x-should-retry")
    check_eq(reply.json()["error"], {"type": "api_error",
                                     "message": "fakellm: no scripted "
                                                "response left"}, "error")
    reply = openai(openai_body())
    check_eq(reply.status, 500, "OpenAI status")
    check_eq(reply.json()["error"]["message"],
             "fakellm: no scripted response left", "OpenAI message")


def test_requests_and_reset():
    """/_requests records everything; /_reset clears it."""
    script([{"kind": "text", "text": "a"}, {"kind": "text", "text": "b"}])
    before = time.time()
    anthropic(anthropic_body(), agent="alice")
    call("POST", "/v1/messages", b"\xff not json", ANTHROPIC_HEADERS)
    openai(openai_body())
    call("GET", "/nowhere")
    reqs = recorded()
    check_eq([r["path"] for r in reqs],
             ["/v1/messages", "/v1/messages", "/v1/chat/completions",
              "/nowhere"], "recorded paths")
    check_eq([r["response_status"] for r in reqs], [200, 400, 200, 404],
             "recorded statuses")
    first = reqs[0]
    check_eq(first["agent"], "alice", "agent")
    check_eq(first["headers"].get("x-api-key"), KEY, "lower-cased headers")
    check_eq(first["body"]["model"], "claude-test", "parsed body")
    check("raw" not in first, "raw present for a JSON body")
    check_eq((reqs[1]["body"], reqs[1]["raw"]), (None, "\ufffd not json"),
             "unparsable body")
    check_eq(reqs[2]["agent"], None, "no agent")
    times = [r["time"] for r in reqs]
    check(before <= times[0] <= times[-1] <= time.time(), "times")
    script([{"kind": "text", "text": "c"}])
    reset()
    check_eq(recorded(), [], "records after reset")
    check_eq(pending(), 0, "queue after reset")


def _arrived():
    return call("GET", "/_pending").json()["arrived"]


def _half_sent(body):
    """A raw connection that has sent a request's headers and half its
    body, once the server has seen the headers."""
    before = _arrived()
    raw = json.dumps(body).encode()
    head = "POST /v1/messages HTTP/1.1\r\nHost: x\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in ANTHROPIC_HEADERS.items()) + \
        f"content-length: {len(raw)}\r\n\r\n"
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    sock.sendall(head.encode() + raw[:len(raw) // 2])
    deadline = time.monotonic() + 5
    while _arrived() == before:
        check(time.monotonic() < deadline, "the headers never arrived")
        time.sleep(0.01)
    return sock, raw[len(raw) // 2:]


def test_reset_outdates_a_request_in_flight():
    """A request that arrived before a reset takes nothing after it."""
    sock, rest = _half_sent(anthropic_body())
    try:
        reset()
        script([{"kind": "text", "text": "for the next test"}])
        sock.sendall(rest)
        check_eq(sock.recv(100), b"", "the old request was answered")
    finally:
        sock.close()
    check_eq(pending(), 1, "the old request took the new script's item")
    check_eq(recorded(), [], "the old request was recorded after the reset")
    check_eq(anthropic(anthropic_body()).json()["content"][0]["text"],
             "for the next test", "the next request's answer")


def test_keep_alive():
    """JSON replies (and chunked streams) keep the connection."""
    script([{"kind": "text", "text": "one"}, {"kind": "text", "text": "two"},
            {"kind": "text", "text": "three", "chunked": True},
            {"kind": "text", "text": "four"}])
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=5)
    try:
        sock = None
        for n, body in enumerate([anthropic_body(), anthropic_body(
                max_tokens="x"), anthropic_body(), anthropic_body(stream=True),
                anthropic_body()]):
            conn.request("POST", "/v1/messages", json.dumps(body),
                         ANTHROPIC_HEADERS)
            resp = conn.getresponse()
            data = resp.read()
            if n == 3:
                check_eq(resp.getheader("transfer-encoding"), "chunked",
                         "chunked stream")
                parser = SSEParser()
                parser.feed(data)
                check_eq(parser.events[-1][0], "message_stop",
                         "chunked stream complete")
            check(resp.status in (200, 400), f"status {resp.status}")
            if sock is None:
                sock = conn.sock
            check(conn.sock is sock and sock is not None,
                  f"connection not kept alive after request {n}")
    finally:
        conn.close()


def test_delay_and_script_errors():
    """delay_ms, script validation and the 404 route."""
    script([{"kind": "text", "text": "late", "delay_ms": 300}])
    started = time.monotonic()
    check_eq(anthropic(anthropic_body()).status, 200, "status")
    check(time.monotonic() - started >= 0.3, "delay_ms not honoured")
    reply = call("POST", "/_script", [{"kind": "text", "txet": "typo"}])
    check_eq(reply.status, 400, "unknown key rejected")
    reply = call("POST", "/_script", [{"kind": "bogus"}])
    check_eq(reply.status, 400, "unknown kind rejected")
    check_eq(pending(), 0, "rejected scripts queue nothing")
    reply = call("GET", "/v1/models", headers={"x-api-key": KEY})
    check_eq(reply.status, 404, "unknown route")
    check_eq(reply.json()["error"]["type"], "not_found_error", "404 type")


# ---------------------------------------------------------------------------
# Today's models: thinking, its binding, caching, reasoning (today.py)
# ---------------------------------------------------------------------------

def config(**settings):
    reply = call("POST", "/_config", settings)
    check_eq(reply.status, 200, f"/_config status ({reply.body!r})")


TOOL = {"name": "read", "description": "read a file",
        "input_schema": {"type": "object", "properties": {}}}


def reply_of(body, streamed):
    """The assistant content of one exchange, streamed or whole."""
    if streamed:
        reply, parser = stream("/v1/messages", dict(body, stream=True))
        check_eq(reply.status, 200, "stream status")
        return assemble_anthropic(anthropic_events(parser))
    reply = anthropic(body)
    check_eq(reply.status, 200, f"status ({reply.body!r})")
    return reply.json()["content"]


def tool_loop(streamed):
    """A first request and its tool_use reply: (body, assistant content)."""
    script([{"kind": "tool_use", "calls": [{"name": "read", "input": {}}],
             "thinking": "I should read it."},
            {"kind": "text", "text": "Done."}])
    body = anthropic_body([{"role": "user", "content": "go"}],
                          system="You help.", tools=[TOOL],
                          thinking={"type": "adaptive"})
    return body, reply_of(body, streamed)


def follow_up(body, content):
    """The next request of the loop: the reply and its tool result."""
    call_id = [b for b in content if b["type"] == "tool_use"][0]["id"]
    return dict(body, messages=body["messages"] + [
        {"role": "assistant", "content": content},
        {"role": "user", "content": [{"type": "tool_result",
                                      "tool_use_id": call_id,
                                      "content": "text"}]}])


def refused_with(body, words):
    reply = anthropic(body)
    check_eq(reply.status, 400, "status of a broken history")
    message = reply.json()["error"]["message"]
    check(words in message, f"{words!r} not in {message!r}")


def test_today_thinking_round_trip():
    config(thinking="on")
    for streamed in (False, True):
        body, content = tool_loop(streamed)
        check_eq(content[0]["type"], "thinking", "first block")
        check_eq(content[0]["thinking"], "I should read it.", "thought")
        check(len(content[0]["signature"]) > 40, "no signature")
        nxt = follow_up(body, content)
        # Cache markers are not content: adding one breaks nothing.
        nxt["messages"][-1]["content"][0]["cache_control"] = {
            "type": "ephemeral"}
        check_eq(reply_of(nxt, streamed)[0]["type"], "thinking",
                 "the second reply thinks too")
        reset()
        config(thinking="on")


def test_today_broken_histories_are_refused():
    config(thinking="on")
    body, content = tool_loop(False)
    nxt = follow_up(body, content)
    dropped = follow_up(body, content[1:])
    refused_with(dropped, "messages.1.content.0.type: Expected `thinking` "
                 "or `redacted_thinking`, but found `tool_use`")
    edited = json.loads(json.dumps(nxt))
    edited["messages"][1]["content"][0]["thinking"] += "!"
    refused_with(edited, "messages.1.content.0: Invalid `signature` in "
                 "`thinking` block")
    forged = json.loads(json.dumps(nxt))
    forged["messages"][1]["content"][0]["signature"] = "c2lnbmF0dXJl"
    refused_with(forged, "Invalid `signature`")
    for change in ("system", "tools", "earlier", "moved"):
        other = json.loads(json.dumps(nxt))
        if change == "system":
            other["system"] = "You help. Today is Tuesday."
        elif change == "tools":
            other["tools"] = [dict(TOOL, description="read a file fast")]
        elif change == "earlier":
            other["messages"][0]["content"] = "go now"
        else:
            blocks = other["messages"][1]["content"]
            blocks.insert(1, {"type": "text", "text": "first"})
            blocks[0], blocks[1] = blocks[1], blocks[0]
            other["messages"][1]["content"] = blocks
        refused_with(other, "bound to a different conversation")
    check_eq(anthropic(nxt).status, 200, "the intact history")


def test_today_redacted_thinking():
    config(thinking="on")
    script([{"kind": "tool_use", "calls": [{"name": "read", "input": {}}],
             "redacted": True}, {"kind": "text", "text": "ok"}])
    body = anthropic_body([{"role": "user", "content": "go"}], tools=[TOOL])
    reply, parser = stream("/v1/messages", dict(body, stream=True))
    content = assemble_anthropic(anthropic_events(parser))
    check_eq(content[0]["type"], "redacted_thinking", "first block")
    nxt = follow_up(body, content)
    check_eq(anthropic(nxt).status, 200, "a redacted block round-trips")
    nxt["messages"][1]["content"][0]["data"] += "x"
    refused_with(nxt, "Invalid `signature` in `redacted_thinking`")


def test_today_request_settings():
    config(thinking="on")
    refused_with(anthropic_body(temperature=0.5), "temperature")
    refused_with(anthropic_body(top_k=5), "top_k")
    refused_with(anthropic_body(thinking={"type": "enabled",
                                          "budget_tokens": 2000}),
                 "thinking.type.enabled is not supported")
    script([{"kind": "text", "text": "plain"}])
    reply = anthropic(anthropic_body(thinking={"type": "disabled"}))
    check_eq([b["type"] for b in reply.json()["content"]], ["text"],
             "thinking disabled: no thinking block")
    config(thinking="off")
    script([{"kind": "text", "text": "old"}])
    check_eq(anthropic(anthropic_body(temperature=0.5)).status, 200,
             "the older dialect takes sampling parameters")


def test_today_prompt_cache():
    config(thinking="on", cache_min_tokens=50)
    long_text = "The project notes. " * 100
    body = anthropic_body([{"role": "user", "content": long_text}],
                          system="You help.", tools=[TOOL],
                          cache_control={"type": "ephemeral"})
    script([{"kind": "tool_use", "calls": [{"name": "read", "input": {}}]},
            {"kind": "text", "text": "done"}])
    first = anthropic(body).json()
    u1 = first["usage"]
    check(u1["cache_read_input_tokens"] == 0 and
          u1["cache_creation_input_tokens"] > 400, f"first usage {u1}")
    check_eq(u1["cache_creation"]["ephemeral_5m_input_tokens"],
             u1["cache_creation_input_tokens"], "5-minute writes")
    u2 = anthropic(follow_up(body, first["content"])).json()["usage"]
    check(u2["cache_read_input_tokens"] >= u1["cache_creation_input_tokens"],
          f"the second request did not read the first's prefix: {u2}")
    check(u2["cache_read_input_tokens"] > 3 * (
        u2["input_tokens"] + u2["cache_creation_input_tokens"]),
        f"most of the input should be a cache read: {u2}")
    usage = [r.get("usage") for r in recorded()]
    check_eq(usage[1]["cache_read_input_tokens"],
             u2["cache_read_input_tokens"], "recorded usage")
    # No caching asked for: nothing is read or written.
    script([{"kind": "text", "text": "x"}])
    plain = dict(body)
    del plain["cache_control"]
    u3 = anthropic(plain).json()["usage"]
    check(u3["cache_read_input_tokens"] == 0 and
          u3["cache_creation_input_tokens"] == 0, f"uncached usage {u3}")
    marked = {"type": "text", "text": "a", "cache_control": {
        "type": "ephemeral"}}
    many = anthropic_body([{"role": "user", "content": [marked] * 4}],
                          cache_control={"type": "ephemeral"})
    refused_with(many, "A maximum of 4 blocks with cache_control may be "
                 "provided. Found 5.")


def test_today_openai_reasoning():
    config(reasoning="on", cache_min_tokens=50)
    script([{"kind": "tool_use", "calls": [{"name": "read", "input": {}}],
             "thinking": "Reading first."},
            {"kind": "text", "text": "done"}])
    tools = [{"type": "function", "function": {
        "name": "read", "parameters": {"type": "object"}}}]
    body = openai_body([{"role": "user", "content": "notes " * 300}],
                       tools=tools)
    reply, parser = stream("/v1/chat/completions", dict(
        body, stream=True, stream_options={"include_usage": True}))
    chunks = openai_chunks(parser)
    reasoning = "".join(c["choices"][0]["delta"].get("reasoning_content", "")
                        for c in chunks if c["choices"])
    check_eq(reasoning, "Reading first.", "streamed reasoning")
    _, calls, _, _ = assemble_openai(chunks)
    tool_calls = [{"id": c["id"], "type": "function", "function": {
        "name": c["name"], "arguments": c["arguments"]}} for c in calls]
    answer = {"role": "tool", "tool_call_id": calls[0]["id"],
              "content": "text"}
    without = dict(body, messages=body["messages"] + [
        {"role": "assistant", "content": None, "tool_calls": tool_calls},
        answer])
    reply = openai(without)
    check_eq(reply.status, 400, "reasoning left out")
    check("must be passed back" in reply.json()["error"]["message"],
          reply.json())
    with_it = json.loads(json.dumps(without))
    with_it["messages"][1]["reasoning_content"] = reasoning
    reply = openai(with_it)
    check_eq(reply.status, 200, f"reasoning sent back ({reply.body!r})")
    cached = reply.json()["usage"]["prompt_tokens_details"]["cached_tokens"]
    check(cached > 300, f"cached_tokens {cached}")


def test_outage():
    """An outage refuses N requests, or every request for T seconds, as
    the service does when overloaded; then the next response is served."""
    script([{"kind": "outage", "status": 529, "count": 2,
             "retry_after_ms": 40},
            {"kind": "outage", "status": 429, "count": 1},
            {"kind": "text", "text": "through"}])
    for _ in range(2):
        reply = anthropic(anthropic_body())
        check_eq(reply.status, 529, "outage status")
        err = reply.json()
        check_eq(err["error"]["type"], "overloaded_error", "529 error type")
        check_eq(err["error"]["message"], "Overloaded", "529 message")
        check_eq(reply.headers.get("retry-after-ms"), "40", "retry-after-ms")
        check_eq(reply.headers.get("retry-after"), "1", "retry-after")
    reply = anthropic(anthropic_body())
    check_eq(reply.status, 429, "rate-limit outage status")
    check_eq(reply.json()["error"]["type"], "rate_limit_error", "429 type")
    check_eq(reply.headers.get("retry-after"), "1",
             "a 429 always says when to come back")
    check(reply.headers.get("retry-after-ms") is None, "429 retry-after-ms")
    check_eq(anthropic(anthropic_body()).status, 200, "after the outage")
    reset()
    script([{"kind": "outage", "seconds": 0.3},
            {"kind": "text", "text": "through"}])
    check_eq(anthropic(anthropic_body()).status, 529, "timed outage")
    check_eq(openai(openai_body()).status, 529, "timed outage, OpenAI route")
    check(anthropic(anthropic_body()).headers.get("retry-after") is None,
          "a 529 without retry_after_ms names no wait")
    time.sleep(0.35)
    check_eq(anthropic(anthropic_body()).status, 200, "after the timed outage")
    for bad in ({"kind": "outage"}, {"kind": "outage", "count": 1,
                                     "seconds": 1},
                {"kind": "outage", "count": 0},
                {"kind": "outage", "count": 1, "status": 400}):
        reply = call("POST", "/_script", [bad])
        check_eq(reply.status, 400, f"bad outage {bad!r} refused")


TESTS = [value for name, value in sorted(globals().items())
         if name.startswith("test_")]


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def start_server(workdir):
    """Start fakellm.py; return (process, port, stderr path, log path)."""
    port_file = os.path.join(workdir, "port")
    log_file = os.path.join(workdir, "requests.jsonl")
    err_path = os.path.join(workdir, "stderr")
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            # The tests of the formats run in the older dialect; the
            # tests of today's rules switch thinking on with /_config.
            [sys.executable, SERVER, "--port-file", port_file,
             "--api-key", KEY, "--log", log_file, "--thinking", "off"],
            stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + 10
    while not os.path.exists(port_file):
        if proc.poll() is not None:
            sys.exit(f"selftest: fakellm exited with {proc.returncode}: "
                     + open(err_path).read())
        if time.monotonic() > deadline:
            proc.kill()
            sys.exit("selftest: fakellm did not write its port file in 10 s")
        time.sleep(0.02)
    with open(port_file) as handle:
        return proc, int(handle.read().strip()), err_path, log_file


def main():
    """Run every test against a fresh server; return the exit status."""
    global PORT
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fakellm-selftest.") as workdir:
        proc, PORT, err_path, log_file = start_server(workdir)
        passed, failed = 0, 0
        try:
            for test in TESTS:
                try:
                    reset()
                    test()
                    passed += 1
                except Exception as exc:  # report every kind of failure
                    failed += 1
                    kind = "" if isinstance(exc, Failure) \
                        else f"{type(exc).__name__}: "
                    print(f"FAIL {test.__name__}: {kind}{exc}")
            try:
                with open(log_file) as handle:
                    lines = [json.loads(line) for line in handle]
                check(len(lines) > 20 and "response_status" in lines[0],
                      f"only {len(lines)} lines in the --log file")
                passed += 1
            except Exception as exc:
                failed += 1
                print(f"FAIL log file: {exc}")
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                code = proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = "timeout"
        if code != 0:
            failed += 1
            print(f"FAIL shutdown: fakellm exit status {code} after SIGTERM")
        else:
            passed += 1
        errors = open(err_path).read()
        if errors:
            failed += 1
            print("FAIL fakellm wrote to stderr:\n" + errors)
    print(f"selftest: took {time.monotonic() - started:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
