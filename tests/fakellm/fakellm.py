#!/usr/bin/env python3
"""fakellm: a scriptable fake LLM server for huddle's tests.

It speaks the Anthropic Messages API (POST /v1/messages), the
OpenAI-compatible chat completions API (POST /v1/chat/completions) and
OpenAI's Responses API (POST /v1/responses, responses.py) on
127.0.0.1, validates requests the way the real services do, and answers each
valid request with the next scripted response from a queue. Control endpoints
(/_script, /_reset, /_requests, /_pending) let a test queue responses and
inspect what the client sent. README.md in this directory documents the
command line, the endpoints and every key of a scripted response.

Python 3 standard library only.
"""

import argparse
import collections
import datetime
import json
import os
import re
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import context
import outage
import rules
import responses
import tasks
import today

DEFAULT_API_KEY = "test-key"

# What the server behaves like unless told otherwise (--thinking,
# --reasoning, --cache-min-tokens, POST /_config).
DEFAULT_SETTINGS = {"thinking": "on", "reasoning": "off",
                    "cache_min_tokens": None, "context_window": 0}
AGENT_HEADER = "x-huddle-agent"

TOOL_NAME_PATTERN = "^[a-zA-Z0-9_-]{1,64}$"
TOOL_NAME_RE = re.compile(r"[a-zA-Z0-9_-]{1,64}")

KINDS = ("text", "tool_use", "error", "raw", "stall_headers", "rounds",
         "worker", "outage")
FAULTS = ("error_event", "drop", "reset", "stall", "malformed_sse",
          "malformed_json")

# Every key a scripted response may carry; anything else is a typo and is
# rejected when the script is loaded. Keys starting with "_" are comments.
ITEM_KEYS = frozenset((
    "agent", "kind", "status", "headers", "delay_ms", "chunk_delay_ms",
    "split", "pings", "keepalive", "chunked",
    "text", "delta_chars", "usage", "stop_reason", "finish_reason",
    "thinking", "redacted",
    "calls", "whole_call", "reuse_index", "json_chars",
    "fault", "fault_after", "stall_s", "fault_error_type",
    "fault_error_message",
    "type", "message", "details", "code",
    "body", "content_type",
    "rounds", "bytes", "summary_delay_ms", "wait_for",
    "work_ms", "log", "before",
    "count", "seconds", "retry_after_ms", "round_tool",
))

ERROR_TYPE_BY_STATUS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}

DEFAULT_ERROR_MESSAGE = {
    "invalid_request_error": "Invalid request",
    "authentication_error": "invalid x-api-key",
    "permission_error": "Your API key does not have permission to use the "
                        "specified resource.",
    "not_found_error": "Not found",
    "request_too_large": "Request exceeds the maximum allowed number of "
                         "bytes.",
    "rate_limit_error": "Number of request tokens has exceeded your "
                        "per-minute rate limit",
    "api_error": "Internal server error",
    "timeout_error": "Request timed out",
    "overloaded_error": "Overloaded",
}

# Reason phrases http.server does not know.
EXTRA_REASONS = {529: "Overloaded"}

# Anthropic stop_reason -> OpenAI finish_reason.
FINISH_BY_STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "stop",      # the text comes as "refusal" instead
}

SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8"
JSON_CONTENT_TYPE = "application/json"


def to_json(value):
    """Serialise value compactly, with non-ASCII characters kept as UTF-8."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def chunks_of(text, size):
    """Split a string (or bytes) into consecutive pieces of at most size."""
    return [text[i:i + size] for i in range(0, len(text), size)]


def rfc3339_in(seconds):
    """An RFC 3339 UTC timestamp the given number of seconds from now."""
    moment = (datetime.datetime.now(datetime.timezone.utc)
              + datetime.timedelta(seconds=seconds))
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class ApiError(Exception):
    """A request rejected with an HTTP error in the API's own error shape."""

    def __init__(self, status, err_type, message, param=None, code=None,
                 headers=None, details=None):
        super().__init__(message)
        self.status = status
        self.err_type = err_type
        self.message = message
        self.param = param
        self.code = code
        self.headers = headers or {}
        self.details = details


def anthropic_error_body(err_type, message, request_id, details=None):
    """The Anthropic error JSON object."""
    error = {"type": err_type, "message": message}
    if details is not None:
        error["details"] = details
    return {"type": "error", "error": error, "request_id": request_id}


def openai_error_body(err_type, message, param=None, code=None, details=None):
    """The OpenAI error JSON object."""
    error = {"message": message, "type": err_type, "param": param,
             "code": code}
    if details is not None:
        error["details"] = details
    return {"error": error}


# ---------------------------------------------------------------------------
# Scripted responses
# ---------------------------------------------------------------------------

def _check(condition, message):
    if not condition:
        raise ValueError(message)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_count(value, minimum):
    return _is_int(value) and value >= minimum


def validate_script_item(item, where="item"):
    """Check one scripted response; raise ValueError naming the problem.

    Returns a shallow copy with "kind" filled in (default "text").
    """
    _check(isinstance(item, dict), f"{where}: must be a JSON object")
    unknown = [k for k in item if k not in ITEM_KEYS and not k.startswith("_")]
    _check(not unknown, f"{where}: unknown key(s): {', '.join(unknown)}")
    item = dict(item)
    kind = item.setdefault("kind", "text")
    _check(kind in KINDS, f"{where}: kind must be one of {', '.join(KINDS)}")
    if "agent" in item:
        _check(item["agent"] is None or isinstance(item["agent"], str),
               f"{where}: agent must be a string")
    if "status" in item:
        _check(_is_count(item["status"], 100) and item["status"] <= 999,
               f"{where}: status must be an HTTP status code")
    if "headers" in item:
        _check(isinstance(item["headers"], dict),
               f"{where}: headers must be an object")
    if "wait_for" in item:
        wait = item["wait_for"]
        _check(isinstance(wait, dict) and isinstance(wait.get("agent"), str)
               and _is_count(wait.get("requests"), 1),
               f"{where}: wait_for must be {{\"agent\": NAME, "
               "\"requests\": N}")
    for key in ("delay_ms", "chunk_delay_ms", "stall_s"):
        if key in item:
            _check(_is_number(item[key]) and item[key] >= 0,
                   f"{where}: {key} must be a number >= 0")
    for key in ("split", "delta_chars", "json_chars"):
        if key in item:
            _check(_is_count(item[key], 1),
                   f"{where}: {key} must be an integer >= 1")
    if "fault_after" in item:
        _check(_is_count(item["fault_after"], 0),
               f"{where}: fault_after must be an integer >= 0")
    for key in ("pings", "keepalive", "chunked", "whole_call", "reuse_index"):
        if key in item:
            _check(isinstance(item[key], bool),
                   f"{where}: {key} must be a boolean")
    for key in ("text", "thinking", "stop_reason", "finish_reason", "type",
                "message", "body", "content_type", "fault_error_type",
                "fault_error_message"):
        if key in item:
            _check(isinstance(item[key], str),
                   f"{where}: {key} must be a string")
    if "usage" in item:
        _check(isinstance(item["usage"], dict),
               f"{where}: usage must be an object")
    if "details" in item:
        _check(isinstance(item["details"], dict),
               f"{where}: details must be an object")
    if "fault" in item:
        _check(item["fault"] in FAULTS,
               f"{where}: fault must be one of {', '.join(FAULTS)}")
        _check(kind in ("text", "tool_use"),
               f"{where}: fault only applies to kind text or tool_use")
    if kind == "text":
        _check("text" in item, f"{where}: kind text needs \"text\"")
    if kind == "tool_use":
        calls = item.get("calls", [])
        _check(isinstance(calls, list) and calls,
               f"{where}: kind tool_use needs a non-empty \"calls\" array")
        for n, call in enumerate(calls):
            cw = f"{where}.calls[{n}]"
            _check(isinstance(call, dict), f"{cw}: must be an object")
            extra = [k for k in call
                     if k not in ("id", "name", "input", "raw_input")]
            _check(not extra, f"{cw}: unknown key(s): {', '.join(extra)}")
            _check(isinstance(call.get("name"), str),
                   f"{cw}: name must be a string")
            _check(isinstance(call.get("input", {}), dict),
                   f"{cw}: input must be an object")
            if "id" in call:
                _check(isinstance(call["id"], str),
                       f"{cw}: id must be a string")
            if "raw_input" in call:
                _check(isinstance(call["raw_input"], str),
                       f"{cw}: raw_input must be a string")
    if kind == "raw":
        _check("body" in item, f"{where}: kind raw needs \"body\"")
    if kind == "worker":
        _check(_is_count(item.get("work_ms", 0), 0),
               f"{where}: work_ms must be an integer >= 0")
        _check(isinstance(item.get("log", "work.log"), str) and
               re.fullmatch(r"[a-z0-9_.-]+", item.get("log", "work.log")),
               f"{where}: log must be a plain file name")
        _check(isinstance(item.get("before", ""), str),
               f"{where}: before must be a shell command")
    if kind == "outage":
        outage.check(item, where, lambda message: _check(False, message))
    if kind == "rounds":
        _check(_is_count(item.get("rounds"), 1),
               f"{where}: kind rounds needs \"rounds\" >= 1")
        _check(_is_count(item.get("bytes", 0), 0),
               f"{where}: bytes must be an integer >= 0")
        _check(_is_count(item.get("summary_delay_ms", 0), 0),
               f"{where}: summary_delay_ms must be an integer >= 0")
        _check(item.get("round_tool", "bash") in ("bash", "write_file"),
               f"{where}: round_tool must be bash or write_file")
        item.setdefault("bytes", 0)
    return item


def parse_script(text, where):
    """Parse a JSON script (an array of responses or a single one)."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{where}: not valid JSON: {exc}") from None
    if isinstance(value, dict):
        value = [value]
    _check(isinstance(value, list), f"{where}: must be a JSON array or object")
    return [validate_script_item(item, f"{where}[{n}]")
            for n, item in enumerate(value)]


# What FakeState.take returns for a request of an earlier generation.
STALE = {"kind": "stale"}


class FakeState:
    """Everything the request handlers share: queues, records and counters."""

    def __init__(self, api_key, log_path=None, verbose=False, settings=None):
        self.api_key = api_key
        self.verbose = verbose
        self.defaults = dict(settings or DEFAULT_SETTINGS)
        self.settings = dict(self.defaults)
        self.signer = today.Signer()
        self.cache = today.PromptCache()
        self._lock = threading.Lock()
        self._queues = collections.defaultdict(collections.deque)
        self._records = []
        # Responses route: reply number -> the reasoning item it began with.
        self.reasoned = {}
        self._counter = 0
        # Bumped by each reset: a request that arrived before it belongs
        # to the test before and takes nothing from the new script.
        self.generation = 0
        self._arrived = 0           # requests whose headers have come
        self._log = open(log_path, "a", encoding="utf-8") if log_path else None

    def arrive(self):
        """Count a request whose headers have come; return the generation
        it belongs to."""
        with self._lock:
            self._arrived += 1
            return self.generation

    def next_number(self):
        """A new request number (used in request ids and generated ids)."""
        with self._lock:
            self._counter += 1
            return self._counter

    def add_script(self, items):
        """Queue validated scripted responses; return how many were added."""
        with self._lock:
            for item in items:
                self._queues[item.get("agent")].append(item)
        return len(items)

    def take(self, agent, body=None, generation=None):
        """Pop the response for a request from agent (None = no agent).

        A request of an earlier generation (one that arrived before the
        last reset) takes nothing: STALE is returned.

        The agent's own queue comes first, then the queue of responses
        without an agent. Returns None when both are empty. A "rounds"
        item answers from the request (context.rounds_step) and stays at
        the head of its queue until its rounds are done; a "worker" item
        (tasks.worker_step) stays there for good; an "outage" item
        refuses requests until its count or time is spent
        (outage.step), then gives way to the item after it.
        """
        with self._lock:
            if generation is not None and generation != self.generation:
                return STALE
            for name in ((agent, None) if agent is not None else (None,)):
                queue = self._queues.get(name)
                while queue and queue[0]["kind"] == "outage":
                    refusal = outage.step(queue[0])
                    if refusal is not None:
                        return refusal
                    queue.popleft()
                if not queue:
                    continue
                if queue[0]["kind"] == "worker":
                    return tasks.worker_step(queue[0], body or {})
                if queue[0]["kind"] != "rounds":
                    return queue.popleft()
                step, done = context.rounds_step(queue[0], body or {})
                if done:
                    queue.popleft()
                return step
        return None

    def pending(self):
        """Counts of queued responses, in total and per agent ("" = none)."""
        with self._lock:
            by_agent = {(name if name is not None else ""): len(queue)
                        for name, queue in self._queues.items() if queue}
            arrived = self._arrived
        return {"total": sum(by_agent.values()), "by_agent": by_agent,
                "arrived": arrived}

    def reset(self):
        """Forget every queued response and every recorded request, the
        prompt cache and any /_config change."""
        with self._lock:
            self.generation += 1
            self._queues.clear()
            self._records.clear()
            self.settings = dict(self.defaults)
        self.cache.reset()

    def configure(self, changes):
        """Apply /_config changes after checking them all."""
        if not isinstance(changes, dict):
            raise ValueError("the body must be an object of settings")
        for key, value in changes.items():
            if key not in DEFAULT_SETTINGS:
                raise ValueError(f"unknown setting {key!r}")
            if key == "cache_min_tokens" and value is None:
                continue            # the model's own minimum
            if key in ("cache_min_tokens", "context_window"):
                if not _is_count(value, 0):
                    raise ValueError(f"{key} must be a count")
            elif value not in ("on", "off"):
                raise ValueError(f"{key} must be \"on\" or \"off\"")
        with self._lock:
            self.settings.update(changes)
            return dict(self.settings)

    def setting(self, key):
        with self._lock:
            return self.settings[key]

    def begin_record(self, record, generation):
        """Record an arriving request (its status is filled in later);
        one of an earlier generation is not recorded."""
        with self._lock:
            if generation == self.generation:
                self._records.append(record)

    def drop_record(self, record):
        """Forget a request that took nothing and got nothing."""
        with self._lock:
            self._records[:] = [r for r in self._records if r is not record]

    def finish_record(self, record, status):
        """Set the status a recorded request was answered with; log it."""
        with self._lock:
            record["response_status"] = status
            if self._log:
                self._log.write(to_json(record) + "\n")
                self._log.flush()

    def records(self):
        """A copy of the recorded requests, in arrival order."""
        with self._lock:
            return [dict(r) for r in self._records]


# ---------------------------------------------------------------------------
# Request validation
# ---------------------------------------------------------------------------

def _bad(message):
    return ApiError(400, "invalid_request_error", message)


def _parse_json_body(raw, on_error):
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise on_error from None


def _text_blocks_check(blocks, where, final_assistant):
    """Apply the real API's rules on text blocks in a content array."""
    for j, block in enumerate(blocks):
        if block.get("type") != "text":
            continue
        text = block.get("text")
        if not isinstance(text, str):
            raise _bad(f"{where}.{j}.text: Input should be a valid string")
        if text == "":
            raise _bad("messages: text content blocks must be non-empty")
        if not text.strip():
            raise _bad("messages: text content blocks must contain "
                       "non-whitespace text")
    if final_assistant and blocks and blocks[-1].get("type") == "text":
        text = blocks[-1].get("text", "")
        if text != text.rstrip():
            raise _bad("messages: final assistant content cannot end with "
                       "trailing whitespace")


def _content_blocks(msg, i):
    """A message's content as a list of blocks (a string is one text block)."""
    content = msg["content"]
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        raise _bad(f"messages.{i}.content: Input should be a valid list")
    for j, block in enumerate(content):
        if not isinstance(block, dict):
            raise _bad(f"messages.{i}.content.{j}: Input should be a valid "
                       "dictionary")
        if not isinstance(block.get("type"), str):
            raise _bad(f"messages.{i}.content.{j}.type: Field required")
    return content


# Images (the Vision page, "Limits"): the four media types, and at most
# 5 MB of base64 each, as the API counts them.
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
IMAGE_MAX_BASE64 = 5 * 1024 * 1024
# What a tool_result's content may hold (the SDK's ToolResultBlockParam).
RESULT_BLOCKS = ("text", "image", "search_result", "document",
                 "tool_reference")


def _check_image(block, where):
    """An image block: a base64 source of a type the API takes."""
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") not in (
            "base64", "url", "file"):
        raise _bad(f"{where}.source: Input tag does not match any of the "
                   "expected tags: 'base64', 'url', 'file'")
    if source["type"] != "base64":
        return
    if source.get("media_type") not in IMAGE_TYPES:
        raise _bad(f"{where}.source.base64.media_type: Input should be "
                   "'image/jpeg', 'image/png', 'image/gif' or 'image/webp'")
    data = source.get("data")
    if not isinstance(data, str) or not data:
        raise _bad(f"{where}.source.base64.data: Field required")
    if len(data) > IMAGE_MAX_BASE64:
        raise _bad(f"{where}.source.base64: image exceeds 5 MB maximum: "
                   f"{len(data)} bytes > {IMAGE_MAX_BASE64} bytes")


def _check_tool_blocks(blocks, i):
    for j, block in enumerate(blocks):
        where = f"messages.{i}.content.{j}"
        if block["type"] == "tool_use":
            for field in ("id", "name"):
                if not isinstance(block.get(field), str):
                    raise _bad(f"{where}.{field}: Field required")
            if not isinstance(block.get("input"), dict):
                raise _bad(f"{where}.input: Input should be a valid "
                           "dictionary")
        elif block["type"] == "tool_result":
            if not isinstance(block.get("tool_use_id"), str):
                raise _bad(f"{where}.tool_use_id: Field required")
            content = block.get("content", "")
            if not isinstance(content, (str, list)):
                raise _bad(f"{where}.content: Input should be a valid list")
            for k, part in enumerate(content if isinstance(content, list)
                                     else []):
                kind = part.get("type") if isinstance(part, dict) else None
                if kind not in RESULT_BLOCKS:
                    raise _bad(f"{where}.tool_result.content.{k}: Input tag "
                               f"'{kind}' does not match any of the "
                               "expected tags")
                if kind == "image":
                    _check_image(part, f"{where}.tool_result.content.{k}."
                                 "image")
            if "is_error" in block and not isinstance(block["is_error"], bool):
                raise _bad(f"{where}.is_error: Input should be a valid "
                           "boolean")


def validate_anthropic(headers, raw, api_key):
    """Validate a /v1/messages request; return its parsed body.

    Raises ApiError with the status and message the real API would use (or
    a close approximation, see README.md).
    """
    # The key as x-api-key, or a token as a Bearer (ANTHROPIC_AUTH_TOKEN,
    # what gateways take; the SDKs send it as "Authorization: Bearer").
    if headers.get("x-api-key") != api_key and \
            headers.get("authorization") != f"Bearer {api_key}":
        raise ApiError(401, "authentication_error", "invalid x-api-key")
    if headers.get("anthropic-version") is None:
        raise _bad("anthropic-version: header is required")
    body = _parse_json_body(raw, _bad(
        "There was an error parsing the body of your request: the body "
        "is not valid JSON"))
    if not isinstance(body, dict):
        raise _bad("Input should be a valid dictionary")

    if "model" not in body:
        raise _bad("model: Field required")
    if not isinstance(body["model"], str):
        raise _bad("model: Input should be a valid string")
    if not body["model"]:
        raise _bad("model: String should have at least 1 character")
    if "max_tokens" not in body:
        raise _bad("max_tokens: Field required")
    if not _is_int(body["max_tokens"]):
        raise _bad("max_tokens: Input should be a valid integer")
    if body["max_tokens"] < 1:
        raise _bad("max_tokens: Input should be greater than or equal to 1")
    if "messages" not in body:
        raise _bad("messages: Field required")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise _bad("messages: Input should be a valid list")
    if not messages:
        raise _bad("messages: List should have at least 1 item after "
                   "validation, not 0")
    if "stream" in body and not isinstance(body["stream"], bool):
        raise _bad("stream: Input should be a valid boolean")

    system = body.get("system")
    if system is not None:
        if isinstance(system, list):
            for j, block in enumerate(system):
                if not isinstance(block, dict) or block.get("type") != "text":
                    raise _bad(f"system.{j}.type: Input should be 'text'")
                if not isinstance(block.get("text"), str):
                    raise _bad(f"system.{j}.text: Field required")
                if not block["text"]:
                    raise _bad("system: text content blocks must be non-empty")
        elif not isinstance(system, str):
            raise _bad("system: Input should be a valid list")

    # Per-message shape.
    all_blocks = []
    last = len(messages) - 1
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise _bad(f"messages.{i}: Input should be a valid dictionary")
        if msg.get("role") not in ("user", "assistant"):
            raise _bad(f"messages.{i}.role: Input should be 'user' or "
                       "'assistant'")
        if "content" not in msg:
            raise _bad(f"messages.{i}.content: Field required")
        blocks = _content_blocks(msg, i)
        final_assistant = i == last and msg["role"] == "assistant"
        if not blocks and not final_assistant:
            raise _bad(f"messages.{i}: all messages must have non-empty "
                       "content except for the optional final assistant "
                       "message")
        _text_blocks_check(blocks, f"messages.{i}.content", final_assistant)
        _check_tool_blocks(blocks, i)
        all_blocks.append(blocks)

    # tool_use / tool_result pairing. Message i is checked against message
    # i-1: first for tool_result ids with no tool_use there, then for
    # tool_use ids with no leading tool_result here.
    uses_tools = any(b["type"] in ("tool_use", "tool_result")
                     for blocks in all_blocks for b in blocks)
    for i, msg in enumerate(messages):
        blocks = all_blocks[i]
        prev_ids = []
        if i > 0 and messages[i - 1]["role"] == "assistant":
            prev_ids = [b["id"] for b in all_blocks[i - 1]
                        if b["type"] == "tool_use"]
        if msg["role"] == "user":
            for j, block in enumerate(blocks):
                if block["type"] == "tool_result" \
                        and block["tool_use_id"] not in prev_ids:
                    raise _bad(
                        f"messages.{i}.content.{j}: unexpected `tool_use_id` "
                        f"found in `tool_result` blocks: "
                        f"{block['tool_use_id']}. Each `tool_result` block "
                        "must have a corresponding `tool_use` block in the "
                        "previous message.")
        if not prev_ids:
            continue
        leading = set()
        if msg["role"] == "user":
            for block in blocks:
                if block["type"] != "tool_result":
                    break
                leading.add(block["tool_use_id"])
        missing = [u for u in prev_ids if u not in leading]
        if missing:
            raise _bad(
                f"messages.{i}: Did not find {len(missing)} tool_result "
                "block(s) at the beginning of this message. Messages "
                "following tool_use blocks must begin with a matching number "
                "of tool_result blocks.")

    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise _bad("tools: Input should be a valid list")
        for n, tool in enumerate(tools):
            if not isinstance(tool, dict):
                raise _bad(f"tools.{n}: Input should be a valid dictionary")
            if not isinstance(tool.get("name"), str):
                raise _bad(f"tools.{n}.name: Field required")
            if not TOOL_NAME_RE.fullmatch(tool["name"]):
                raise _bad(f"tools.{n}.name: String should match pattern "
                           f"'{TOOL_NAME_PATTERN}'")
            if tool.get("type") not in (None, "custom"):
                continue    # a server tool: no input_schema
            schema = tool.get("input_schema")
            if schema is None:
                raise _bad(f"tools.{n}.input_schema: Field required")
            if not isinstance(schema, dict):
                raise _bad(f"tools.{n}.input_schema: Input should be a valid "
                           "dictionary")
            if schema.get("type") != "object":
                raise _bad(f"tools.{n}.input_schema.type: Input should be "
                           "'object'")
    if uses_tools and not tools:
        raise _bad("Requests which include `tool_use` or `tool_result` "
                   "blocks must define tools.")

    _check_thinking_shape(body.get("thinking"))
    choice = body.get("tool_choice")
    if choice is not None:
        if not isinstance(choice, dict) or choice.get("type") not in (
                "auto", "any", "tool", "none"):
            raise _bad("tool_choice.type: Input should be 'auto', 'any', "
                       "'tool' or 'none'")
        if choice["type"] == "tool" \
                and not isinstance(choice.get("name"), str):
            raise _bad("tool_choice.tool.name: Field required")
    return body


# The fields each kind of thinking takes, as the SDK's ThinkingConfig
# types give them (ThinkingConfigEnabled, …Adaptive, …Disabled,
# …BetweenTools): anything else is refused, as the API refuses extra
# inputs.
THINKING_FIELDS = {
    "enabled": ("type", "budget_tokens", "display"),
    "adaptive": ("type", "display"),
    "disabled": ("type",),
    "between_tools": ("type",),
}


def _check_thinking_shape(thinking):
    if thinking is None:
        return
    if not isinstance(thinking, dict):
        raise _bad("thinking: Input should be a valid dictionary")
    kind = thinking.get("type")
    allowed = THINKING_FIELDS.get(kind)
    if allowed is None:
        return      # the model's rules say what of the type
    for name in thinking:
        if name not in allowed:
            raise _bad(f"thinking.{kind}.{name}: Extra inputs are not "
                       "permitted")
    if kind == "enabled" and not _is_int(thinking.get("budget_tokens")):
        raise _bad("thinking.enabled.budget_tokens: Field required")


def _from_bad(bad):
    """An ApiError for a refusal of responses.py."""
    return ApiError(bad.status, bad.err_type, bad.message, param=bad.param,
                    code=bad.code)


def _oai_bad(message, param=None, code=None):
    return ApiError(400, "invalid_request_error", message, param=param,
                    code=code)


def _check_chat_parts(msg, i):
    """A message's content parts: a tool message's may only be text (the
    SDK's ChatCompletionToolMessageParam), an image part is a URL."""
    content = msg.get("content")
    if not isinstance(content, list):
        return
    allowed = ["text"] if msg.get("role") == "tool" else \
        ["text", "image_url", "input_audio", "file"]
    for k, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        where = f"messages[{i}].content[{k}]"
        if kind not in allowed:
            raise _oai_bad(f"Invalid value: '{kind}'. Supported values are: "
                           + ", ".join(f"'{a}'" for a in allowed) + ".",
                           param=f"{where}.type", code="invalid_value")
        if kind == "image_url":
            url = (part.get("image_url") or {}).get("url")
            if not isinstance(url, str) or not url.startswith(
                    ("data:image/", "http://", "https://")):
                raise _oai_bad(f"Invalid '{where}.image_url.url': expected "
                               "a URL or a base64 data URL of an image.",
                               param=f"{where}.image_url.url",
                               code="invalid_value")


def validate_openai(headers, raw, api_key):
    """Validate a /v1/chat/completions request; return its parsed body."""
    if headers.get("authorization") != f"Bearer {api_key}":
        raise ApiError(401, "invalid_request_error",
                       "Incorrect API key provided", code="invalid_api_key")
    body = _parse_json_body(raw, _oai_bad(
        "We could not parse the JSON body of your request. (HINT: This "
        "likely means you aren't using your HTTP library correctly. The "
        "OpenAI API expects a JSON payload, but what was sent was not valid "
        "JSON.)"))
    if not isinstance(body, dict):
        raise _oai_bad("Invalid type for request body: expected an object, "
                       f"but got {responses.json_type_name(body)} instead.",
                       code="invalid_type")
    if "model" not in body:
        raise _oai_bad("you must provide a model parameter")
    if not isinstance(body["model"], str):
        raise _oai_bad("Invalid type for 'model': expected a string, but got "
                       f"{responses.json_type_name(body['model'])} instead.",
                       param="model", code="invalid_type")
    if "messages" not in body:
        raise _oai_bad("Missing required parameter: 'messages'.",
                       param="messages", code="missing_required_parameter")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise _oai_bad("Invalid type for 'messages': expected an array, but "
                       f"got {responses.json_type_name(messages)} instead.",
                       param="messages", code="invalid_type")
    if not messages:
        raise _oai_bad("Invalid 'messages': empty array. Expected an array "
                       "with minimum length 1, but got an empty array "
                       "instead.", param="messages", code="empty_array")
    if "stream" in body and not isinstance(body["stream"], bool):
        raise _oai_bad("Invalid type for 'stream': expected a boolean, but "
                       "got "
                       f"{responses.json_type_name(body['stream'])} instead.",
                       param="stream", code="invalid_type")

    roles = ("system", "developer", "user", "assistant", "tool", "function")
    outstanding = None      # ids still waiting for a tool message, in order
    answered_from = None    # every id of the last assistant's tool_calls
    owner = None            # index of that assistant message

    def missing_error():
        return _oai_bad(
            "An assistant message with 'tool_calls' must be followed by tool "
            "messages responding to each 'tool_call_id'. The following "
            "tool_call_ids did not have response messages: "
            + ", ".join(outstanding), param=f"messages.[{owner}].role")

    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise _oai_bad(f"Invalid type for 'messages[{i}]': expected an "
                           "object, but got "
                           f"{responses.json_type_name(msg)} instead.",
                           param=f"messages[{i}]", code="invalid_type")
        role = msg.get("role")
        if role not in roles:
            raise _oai_bad(f"Invalid value: '{role}'. Supported values are: "
                           "'system', 'assistant', 'user', 'function', "
                           "'tool', and 'developer'.",
                           param=f"messages[{i}].role", code="invalid_value")
        _check_chat_parts(msg, i)
        if role == "tool":
            call_id = msg.get("tool_call_id")
            if not isinstance(call_id, str):
                raise _oai_bad("Missing required parameter: "
                               f"'messages[{i}].tool_call_id'.",
                               param=f"messages[{i}].tool_call_id",
                               code="missing_required_parameter")
            if answered_from is None or call_id not in answered_from:
                raise _oai_bad("Invalid parameter: messages with role 'tool' "
                               "must be a response to a preceeding message "
                               "with 'tool_calls'.",
                               param=f"messages.[{i}].role")
            if call_id in outstanding:
                outstanding.remove(call_id)
            continue
        if outstanding:
            raise missing_error()
        outstanding = answered_from = owner = None
        calls = msg.get("tool_calls") if role == "assistant" else None
        if calls is None:
            continue
        if not isinstance(calls, list):
            raise _oai_bad(f"Invalid type for 'messages[{i}].tool_calls': "
                           "expected an array, but got "
                           f"{responses.json_type_name(calls)} instead.",
                           param=f"messages[{i}].tool_calls",
                           code="invalid_type")
        ids = []
        for n, call in enumerate(calls):
            where = f"messages[{i}].tool_calls[{n}]"
            if not isinstance(call, dict) \
                    or not isinstance(call.get("id"), str):
                raise _oai_bad(f"Missing required parameter: '{where}.id'.",
                               param=f"{where}.id",
                               code="missing_required_parameter")
            function = call.get("function")
            if call.get("type") != "function" \
                    or not isinstance(function, dict) \
                    or not isinstance(function.get("name"), str) \
                    or not isinstance(function.get("arguments"), str):
                raise _oai_bad(f"Invalid '{where}': expected a function call "
                               "with a string name and string arguments.",
                               param=where, code="invalid_value")
            ids.append(call["id"])
        if ids:
            outstanding = list(ids)
            answered_from = set(ids)
            owner = i
    if outstanding:
        raise missing_error()

    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise _oai_bad("Invalid type for 'tools': expected an array, but "
                           f"got {responses.json_type_name(tools)} instead.",
                           param="tools", code="invalid_type")
        for n, tool in enumerate(tools):
            if not isinstance(tool, dict) or tool.get("type") != "function":
                got = tool.get("type") if isinstance(tool, dict) else tool
                raise _oai_bad(f"Invalid value: '{got}'. Supported values "
                               "are: 'function' and 'custom'.",
                               param=f"tools[{n}].type", code="invalid_value")
            function = tool.get("function")
            if not isinstance(function, dict):
                raise _oai_bad("Missing required parameter: "
                               f"'tools[{n}].function'.",
                               param=f"tools[{n}].function",
                               code="missing_required_parameter")
            name = function.get("name")
            if not isinstance(name, str) or not TOOL_NAME_RE.fullmatch(name):
                raise _oai_bad(f"Invalid 'tools[{n}].function.name': string "
                               "does not match pattern. Expected a string "
                               "that matches the pattern "
                               f"'{TOOL_NAME_PATTERN}'.",
                               param=f"tools[{n}].function.name",
                               code="invalid_value")
            params = function.get("parameters")
            got = params.get("type") if isinstance(params, dict) else None
            if got != "object":
                raise _oai_bad(f"Invalid schema for function '{name}': schema "
                               "must be a JSON Schema of 'type: \"object\"', "
                               f"got 'type: \"{got}\"'.",
                               param=f"tools[{n}].function.parameters",
                               code="invalid_function_parameters")
    return body


# ---------------------------------------------------------------------------
# Response bodies
# ---------------------------------------------------------------------------

REQUEST_ID_RE = re.compile(r"req_[0-9a-f]{8}")


def newest_request_id(body):
    """The last protocol request id ("req_" + 8 hex) in a request body.

    Protocol ids are random, so a script cannot know them; a scripted tool
    input writes {{request_id}} to answer the request the agent was just
    shown.
    """
    found = REQUEST_ID_RE.findall(json.dumps(
        body.get("messages", body.get("input", []))))
    return found[-1] if found else "req_unknown"


def expand_request_id(value, request_id):
    """Replaces {{request_id}} in every string inside value."""
    if isinstance(value, str):
        return value.replace("{{request_id}}", request_id)
    if isinstance(value, list):
        return [expand_request_id(v, request_id) for v in value]
    if isinstance(value, dict):
        return {k: expand_request_id(v, request_id) for k, v in value.items()}
    return value


class Reply:
    """What a scripted response turns into for one request.

    Holds the request facts the response builders need (number, model,
    streaming) and the normalised content of the scripted item.
    """

    def __init__(self, item, body, raw_len, number, api, extras=None):
        extras = extras or {}
        self.item = item
        self.number = number
        self.model = body.get("model", "fake-model")
        self.stream = body.get("stream") is True
        options = body.get("stream_options")
        self.include_usage = isinstance(options, dict) \
            and options.get("include_usage") is True
        self.text = item.get("text", "")
        # Today's models think before every reply; the block is signed
        # and bound to the request it answers (today.py).
        self.thinking = item.get("thinking")
        self.redacted = None
        self.signature = None
        if extras.get("thinks") and self.thinking is None:
            self.thinking = f"Request {number}: deciding what to do next."
        # Anthropic: the thinking blocks of the reply, each signed and
        # bound to everything before it; on models that put the words
        # written between tool calls in thinking (rules.py), those words
        # are a thinking block of their own, empty unless shown.
        self.thoughts = []
        self.words_block = api == "anthropic" and \
            extras.get("words") is not None and \
            item["kind"] == "tool_use" and bool(self.text)
        if api == "anthropic" and (self.thinking is not None or
                                   self.words_block):
            signer = extras["signer"]
            digest_at = extras.get("digest_at") or \
                (lambda done: extras["digest"])
            done = []
            if self.thinking is not None and item.get("redacted"):
                self.redacted = signer.redacted_data(digest_at(done), number)
                done.append({"type": "redacted_thinking",
                             "data": self.redacted})
            elif self.thinking is not None:
                shown = self.thinking if extras.get("show_thinking", True) \
                    else ""
                self.signature = signer.sign(digest_at(done), shown)
                done.append({"type": "thinking", "thinking": shown,
                             "signature": self.signature})
                self.thoughts.append(done[-1])
            if self.words_block:
                shown = self.text if extras["words"] else ""
                done.append({"type": "thinking", "thinking": shown,
                             "signature": signer.sign(digest_at(done),
                                                      shown)})
                self.thoughts.append(done[-1])
            if item.get("redacted"):
                self.thinking = None
        self.cached_tokens = extras.get("cached_tokens", 0)
        self.compaction = extras.get("compaction")
        self.calls = []
        id_prefix = "toolu_fake" if api == "anthropic" else "call_fake"
        request_id = newest_request_id(body)
        for n, call in enumerate(item.get("calls", [])):
            arguments = expand_request_id(call.get("input", {}), request_id)
            if "raw_input" in call:
                streamed = call["raw_input"]
            elif api == "anthropic":
                streamed = json.dumps(arguments, ensure_ascii=False)
            else:
                streamed = to_json(arguments)
            self.calls.append({
                "id": call.get("id", f"{id_prefix}{number}_{n}"),
                "name": call["name"],
                "input": arguments,
                "json": streamed,
                # An empty input streams as a lone "" fragment, like the API.
                "stream_json": bool(arguments) or "raw_input" in call,
            })
        default_stop = "tool_use" if item["kind"] == "tool_use" else "end_turn"
        self.stop_reason = item.get("stop_reason", default_stop)
        self.finish_reason = item.get(
            "finish_reason", FINISH_BY_STOP.get(self.stop_reason, "stop"))
        usage = dict(extras.get("usage", {}))
        usage.update(item.get("usage", {}))
        if "cache_creation_input_tokens" in item.get("usage", {}) and \
                "cache_creation" not in item["usage"]:
            usage["cache_creation"] = {
                "ephemeral_5m_input_tokens":
                    item["usage"]["cache_creation_input_tokens"],
                "ephemeral_1h_input_tokens": 0}
        produced = len(self.text) + len(self.thinking or "") \
            + sum(len(c["json"]) for c in self.calls)
        self.input_tokens = usage.pop("input_tokens", max(1, raw_len // 4))
        self.output_tokens = usage.pop("output_tokens", max(1, produced // 4))
        self.extra_usage = usage
        self.delta_chars = item.get("delta_chars", 8)
        self.json_chars = item.get("json_chars", 10)

    # -- Anthropic ----------------------------------------------------------

    def anthropic_usage(self, output_tokens):
        """The full usage object of a Message."""
        usage = {
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0,
                               "ephemeral_1h_input_tokens": 0},
            "output_tokens": output_tokens,
            "service_tier": "standard",
        }
        usage.update(self.extra_usage)
        return usage

    def _has_text_block(self):
        return self.item["kind"] == "text" or (bool(self.text) and
                                               not self.words_block)

    def anthropic_message(self):
        """The non-streamed Message JSON object."""
        content = []
        if self.compaction is not None:
            content.append(dict(self.compaction))
        if self.redacted is not None:
            content.append({"type": "redacted_thinking",
                            "data": self.redacted})
        content.extend(dict(t) for t in self.thoughts)
        if self._has_text_block():
            content.append({"type": "text", "text": self.text})
        for call in self.calls:
            content.append({"type": "tool_use", "id": call["id"],
                            "name": call["name"], "input": call["input"]})
        return {
            "id": f"msg_fake{self.number}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": self.stop_reason,
            "stop_sequence": None,
            "usage": self.anthropic_usage(self.output_tokens),
        }

    def anthropic_events(self):
        """The SSE events of a streamed Message, as a list of bytes."""
        events = []

        def event(payload):
            events.append(f"event: {payload['type']}\ndata: "
                          f"{to_json(payload)}\n\n".encode("utf-8"))

        def delta(index, body):
            event({"type": "content_block_delta", "index": index,
                   "delta": body})

        message = self.anthropic_message()
        message.update(content=[], stop_reason=None, stop_sequence=None,
                       usage=self.anthropic_usage(1))
        event({"type": "message_start", "message": message})
        index = 0
        if self.compaction is not None:
            # The summary comes whole in one delta (Compaction,
            # "Streaming").
            event({"type": "content_block_start", "index": index,
                   "content_block": {"type": "compaction", "content": None}})
            delta(index, {"type": "compaction_delta",
                          "content": self.compaction["content"]})
            event({"type": "content_block_stop", "index": index})
            index += 1
        if self.redacted is not None:
            event({"type": "content_block_start", "index": index,
                   "content_block": {"type": "redacted_thinking",
                                     "data": self.redacted}})
            event({"type": "content_block_stop", "index": index})
            index += 1
        for thought in self.thoughts:
            event({"type": "content_block_start", "index": index,
                   "content_block": {"type": "thinking", "thinking": "",
                                     "signature": ""}})
            for piece in chunks_of(thought["thinking"], self.delta_chars):
                delta(index, {"type": "thinking_delta", "thinking": piece})
            delta(index, {"type": "signature_delta",
                          "signature": thought["signature"]})
            event({"type": "content_block_stop", "index": index})
            index += 1
        if self._has_text_block():
            event({"type": "content_block_start", "index": index,
                   "content_block": {"type": "text", "text": ""}})
            for piece in chunks_of(self.text, self.delta_chars) or [""]:
                delta(index, {"type": "text_delta", "text": piece})
            event({"type": "content_block_stop", "index": index})
            index += 1
        for call in self.calls:
            event({"type": "content_block_start", "index": index,
                   "content_block": {"type": "tool_use", "id": call["id"],
                                     "name": call["name"], "input": {}}})
            delta(index, {"type": "input_json_delta", "partial_json": ""})
            if call["stream_json"]:
                for piece in chunks_of(call["json"], self.json_chars):
                    delta(index, {"type": "input_json_delta",
                                  "partial_json": piece})
            event({"type": "content_block_stop", "index": index})
            index += 1
        event({"type": "message_delta",
               "delta": {"stop_reason": self.stop_reason,
                         "stop_sequence": None},
               "usage": {"output_tokens": self.output_tokens}})
        event({"type": "message_stop"})
        return events

    # -- OpenAI -------------------------------------------------------------

    def openai_usage(self):
        """The usage object of a chat completion."""
        return {"prompt_tokens": self.input_tokens,
                "completion_tokens": self.output_tokens,
                "total_tokens": self.input_tokens + self.output_tokens,
                "prompt_tokens_details": {
                    "cached_tokens": self.cached_tokens}}

    def openai_completion(self):
        """The non-streamed chat.completion JSON object."""
        message = {"role": "assistant",
                   "content": self.text if self._has_text_block() else None}
        # A refusal comes in a field of its own, the content null.
        if self.stop_reason == "refusal" and self._has_text_block():
            message = {"role": "assistant", "content": None,
                       "refusal": self.text}
        if self.thinking is not None:
            message["reasoning_content"] = self.thinking
        if self.calls:
            message["tool_calls"] = [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["name"], "arguments": c["json"]}}
                for c in self.calls]
        return {
            "id": f"chatcmpl-fake{self.number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "message": message,
                         "logprobs": None,
                         "finish_reason": self.finish_reason}],
            "usage": self.openai_usage(),
        }

    def openai_events(self):
        """The SSE data lines of a streamed chat completion, as bytes."""
        created = int(time.time())
        events = []

        def chunk(delta, finish_reason=None):
            payload = {"id": f"chatcmpl-fake{self.number}",
                       "object": "chat.completion.chunk",
                       "created": created, "model": self.model,
                       "choices": [{"index": 0, "delta": delta,
                                    "finish_reason": finish_reason}]}
            if self.include_usage:
                payload["usage"] = None
            events.append(f"data: {to_json(payload)}\n\n".encode("utf-8"))

        has_text = self._has_text_block()
        chunk({"role": "assistant", "content": "" if has_text else None})
        if self.thinking is not None:
            for piece in chunks_of(self.thinking, self.delta_chars):
                chunk({"reasoning_content": piece})
        if has_text:
            field = "refusal" if self.stop_reason == "refusal" \
                else "content"
            for piece in chunks_of(self.text, self.delta_chars):
                chunk({field: piece})
        reuse = self.item.get("reuse_index", False)
        for n, call in enumerate(self.calls):
            index = 0 if reuse else n
            if self.item.get("whole_call", False):
                chunk({"tool_calls": [{
                    "index": index, "id": call["id"], "type": "function",
                    "function": {"name": call["name"],
                                 "arguments": call["json"]}}]})
                continue
            chunk({"tool_calls": [{
                "index": index, "id": call["id"], "type": "function",
                "function": {"name": call["name"], "arguments": ""}}]})
            for piece in chunks_of(call["json"], self.json_chars):
                chunk({"tool_calls": [{"index": index,
                                       "function": {"arguments": piece}}]})
        chunk({}, self.finish_reason)
        if self.include_usage:
            payload = {"id": f"chatcmpl-fake{self.number}",
                       "object": "chat.completion.chunk",
                       "created": created, "model": self.model,
                       "choices": [], "usage": self.openai_usage()}
            events.append(f"data: {to_json(payload)}\n\n".encode("utf-8"))
        events.append(b"data: [DONE]\n\n")
        return events


# ---------------------------------------------------------------------------
# HTTP plumbing
# ---------------------------------------------------------------------------

class BodyWriter:
    """Writes a response body, optionally in fixed-size pieces with pauses
    between them and optionally with chunked transfer encoding."""

    def __init__(self, wfile, split=None, delay_s=0.0, chunked=False):
        self.wfile = wfile
        self.split = split
        self.delay_s = delay_s
        self.chunked = chunked
        self.pending = b""
        self.started = False

    def write(self, data):
        """Queue data; full pieces are sent at once (all of it if no split)."""
        if not self.split:
            self._emit(data)
            return
        self.pending += data
        while len(self.pending) >= self.split:
            piece, self.pending = (self.pending[:self.split],
                                   self.pending[self.split:])
            self._emit(piece)

    def flush(self):
        """Send whatever is still queued."""
        if self.pending:
            piece, self.pending = self.pending, b""
            self._emit(piece)

    def finish(self):
        """Send the rest and, when chunked, the terminating chunk."""
        self.flush()
        if self.chunked:
            self.wfile.write(b"0\r\n\r\n")

    def _emit(self, piece):
        if not piece:
            return
        if self.started and self.delay_s:
            time.sleep(self.delay_s)
        self.started = True
        if self.chunked:
            piece = b"%x\r\n" % len(piece) + piece + b"\r\n"
        self.wfile.write(piece)


class FakeLLMServer(ThreadingHTTPServer):
    """A threading HTTP server on 127.0.0.1 carrying the shared FakeState."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(self, state, port=0):
        self.state = state
        super().__init__(("127.0.0.1", port), FakeLLMHandler)

    def handle_error(self, request, client_address):
        """Stay quiet about clients that went away; report real bugs."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, socket.timeout, OSError)):
            return
        traceback.print_exc(file=sys.stderr)


class FakeLLMHandler(BaseHTTPRequestHandler):
    """Handles one connection: API routes, control routes, 404s."""

    protocol_version = "HTTP/1.1"
    server_version = "fakellm/1"
    disable_nagle_algorithm = True
    timeout = 300

    # -- entry points -------------------------------------------------------

    def do_GET(self):
        """Serve a GET (control routes; anything else is a 404)."""
        self._dispatch()

    def do_POST(self):
        """Serve a POST (the API and control routes)."""
        self._dispatch()

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def version_string(self):
        """The Server header value."""
        return self.server_version

    def log_message(self, format, *args):  # noqa: A002 (http.server's name)
        if self.server.state.verbose:
            sys.stderr.write("fakellm: %s - %s\n"
                             % (self.address_string(), format % args))

    # -- dispatch -----------------------------------------------------------

    def _dispatch(self):
        state = self.server.state
        arrival = time.time()
        self.generation = state.arrive()
        try:
            raw = self._read_body()
        except ValueError as exc:
            self.close_connection = True
            self.send_error(400, f"bad request framing: {exc}")
            return
        self.response_started = False
        self.number = state.next_number()
        self.request_id = f"req_fake{self.number}"
        path = urllib.parse.urlsplit(self.path).path
        control = {("POST", "/_script"): self._control_script,
                   ("POST", "/_reset"): self._control_reset,
                   ("GET", "/_requests"): self._control_requests,
                   ("GET", "/_pending"): self._control_pending,
                   ("POST", "/_config"): self._control_config}
        handler = control.get((self.command, path))
        if handler:
            handler(raw)
            return

        routes = {("POST", "/v1/messages"): "anthropic",
                  ("POST", "/v1/chat/completions"): "openai",
                  ("POST", "/v1/responses"): "responses"}
        api = routes.get((self.command, path))
        if api is None:
            # Not a route: answer 404 in the shape the client seems to use.
            openai_like = "chat/completions" in path or \
                path.endswith("/responses") or (
                self.headers.get("authorization") is not None
                and self.headers.get("x-api-key") is None)
            error_shape = "openai" if openai_like else "anthropic"
        else:
            error_shape = api
        record = self._record(arrival, raw)
        try:
            if api is None:
                raise ApiError(404, "not_found_error",
                               f"fakellm: no route for {self.command} {path}")
            self._serve_api(api, raw, record)
        except ApiError as err:
            state.finish_record(record, err.status)
            self._send_api_error(error_shape, err)
        except (ConnectionError, socket.timeout):
            self.close_connection = True
        except Exception as exc:  # a bug here: tell the client and stderr
            traceback.print_exc(file=sys.stderr)
            if record.get("response_status") is None:
                state.finish_record(record, 500)
            if not self.response_started:
                try:
                    self._send_api_error(error_shape, ApiError(
                        500, "api_error", f"fakellm internal error: {exc}"))
                except OSError:
                    pass
            self.close_connection = True

    def _read_body(self):
        """Read the request body (Content-Length or chunked)."""
        encoding = self.headers.get("Transfer-Encoding", "")
        if "chunked" in encoding.lower():
            parts = []
            while True:
                line = self.rfile.readline(1024)
                size = int(line.split(b";")[0].strip() or b"x", 16)
                if size == 0:
                    trailer = self.rfile.readline(1024)
                    while trailer not in (b"\r\n", b"\n", b""):
                        trailer = self.rfile.readline(1024)
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline(1024)
        length = self.headers.get("Content-Length")
        if length is None:
            return b""
        length = int(length)
        if length < 0:
            raise ValueError("negative Content-Length")
        data = self.rfile.read(length)
        if len(data) != length:
            raise ValueError("body shorter than Content-Length")
        return data

    def _record(self, arrival, raw):
        headers = {}
        for name, value in self.headers.items():
            name = name.lower()
            headers[name] = f"{headers[name]}, {value}" if name in headers \
                else value
        record = {"path": self.path, "method": self.command,
                  "headers": headers, "body": None, "time": arrival,
                  "agent": headers.get(AGENT_HEADER),
                  "response_status": None}
        try:
            record["body"] = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            record["raw"] = raw.decode("utf-8", errors="replace")
        self.server.state.begin_record(record, self.generation)
        return record

    # -- control routes -----------------------------------------------------

    def _control_script(self, raw):
        try:
            items = parse_script(raw.decode("utf-8", errors="replace"),
                                 "script")
        except ValueError as exc:
            self._send_json(400, {"error": str(exc)}, [])
            return
        added = self.server.state.add_script(items)
        self._send_json(200, {"queued": added,
                              "pending": self.server.state.pending()["total"]},
                        [])

    def _control_reset(self, raw):
        self.server.state.reset()
        self._send_json(200, {"reset": True}, [])

    def _control_requests(self, raw):
        self._send_json(200, self.server.state.records(), [])

    def _control_pending(self, raw):
        self._send_json(200, self.server.state.pending(), [])

    def _control_config(self, raw):
        try:
            now = self.server.state.configure(json.loads(raw or b"{}"))
        except ValueError as exc:
            self._send_json(400, {"error": str(exc)}, [])
            return
        self._send_json(200, now, [])

    def _today_anthropic(self, body, record):
        """Today's rules for a valid /v1/messages request; returns the
        reply's extras: thinking, signature and usage."""
        state = self.server.state
        thinking_on = state.setting("thinking") == "on"
        # Everything before the last compaction block is ignored.
        seen = context.effective_body(body)
        # A model the fake knows keeps its published rules (rules.py).
        known = rules.rules_for(body.get("model")) if thinking_on else None
        try:
            if known is not None:
                rules.check(body, known)
            elif thinking_on:
                today.check_request_settings(body)
            today.count_breakpoints(body)
            context.check_compaction_blocks(body)
            trigger = context.compaction_edit(
                body, self.headers.get("anthropic-beta"))
            too_long = context.too_long(seen, state.setting("context_window"))
            if too_long:
                raise today.Refusal(too_long)
            today.check_thinking_blocks(seen, state.signer)
            thinks = rules.thinks(body, known) if known is not None \
                else today.thinking_requested(body, thinking_on)
            if thinks:
                today.check_tool_loop(seen)
        except (today.Refusal, rules.Refusal) as refusal:
            raise _bad(str(refusal))
        shown = {"show_thinking": True, "words": None}
        if known is not None:
            shown["show_thinking"] = rules.shows_thinking(body, known)
            if known["words"]:
                shown["words"] = rules.shows_words(body, known)
        before = context.prompt_tokens(seen)
        min_tokens = today.cache_min_tokens(
            body.get("model"), state.setting("cache_min_tokens"))
        if trigger is not None and before > trigger:
            return dict(self._compact(seen, before, thinks, record,
                                      min_tokens), **shown)
        inp, read, w5, w1 = state.cache.account(
            seen, state.api_key, min_tokens)
        digest = today.prefix_digest(seen, len(seen["messages"]), 0)
        usage = {"input_tokens": inp, "cache_read_input_tokens": read,
                 "cache_creation_input_tokens": w5 + w1,
                 "cache_creation": {"ephemeral_5m_input_tokens": w5,
                                    "ephemeral_1h_input_tokens": w1}}
        record["usage"] = usage
        n = len(seen["messages"])

        def digest_at(done):
            return today.prefix_digest(dict(seen, messages=seen["messages"] + [
                {"role": "assistant", "content": list(done)}]), n, len(done))
        return dict({"thinks": thinks, "digest": digest, "usage": usage,
                     "signer": state.signer, "digest_at": digest_at},
                    **shown)

    def _compact(self, seen, before, thinks, record, min_tokens):
        """A request over its compaction trigger: the reply starts with a
        compaction block that stands for everything before it, and what
        follows is bound to that block (Compaction, "How compaction
        works"; usage per iteration, "Understanding usage"). The
        compaction step reads the conversation like any call: through
        the prompt cache, whose reads and writes it reports (and is
        billed for) in its own iteration."""
        state = self.server.state
        c_inp, c_read, c_w5, c_w1 = state.cache.account(
            seen, state.api_key, min_tokens)
        summary = context.summary_of(seen["messages"])
        block = {"type": "compaction", "content": summary}
        after = dict(seen, messages=[{"role": "assistant",
                                      "content": [block]}])
        inp = context.prompt_tokens(after)
        usage = {"input_tokens": inp, "cache_read_input_tokens": 0,
                 "cache_creation_input_tokens": 0,
                 "cache_creation": {"ephemeral_5m_input_tokens": 0,
                                    "ephemeral_1h_input_tokens": 0},
                 "iterations": [
                     {"type": "compaction", "input_tokens": c_inp,
                      "cache_read_input_tokens": c_read,
                      "cache_creation_input_tokens": c_w5 + c_w1,
                      "output_tokens": max(1, len(summary) // 4)},
                     {"type": "message", "input_tokens": inp,
                      "output_tokens": 0}]}
        record["usage"] = usage
        record["compacted"] = {"before": before, "after": inp}
        def digest_at(done):
            return today.prefix_digest(dict(after, messages=[
                {"role": "assistant", "content": [block] + list(done)}]),
                0, 1 + len(done))
        return {"thinks": thinks, "digest": today.prefix_digest(after, 0, 1),
                "usage": usage, "signer": state.signer,
                "compaction": block, "digest_at": digest_at}

    def _today_responses(self, body, record):
        """The stateless tool loop's rules and cached tokens on the
        Responses route (responses.py); returns the reply's extras."""
        state = self.server.state
        try:
            responses.check_input(body, state.signer, state.reasoned)
        except responses.Bad as bad:
            raise _from_bad(bad)
        cached = state.cache.openai_cached(
            responses.cache_view(body), state.api_key,
            today.cache_min_tokens(body.get("model"),
                                   state.setting("cache_min_tokens")))
        record["usage"] = {"cached_tokens": cached}
        reasons, summary, encrypted = responses.reasoning_wanted(body)
        return {"thinks": reasons, "reasons": reasons, "summary": summary,
                "encrypted": encrypted, "signer": state.signer,
                "cached_tokens": cached}

    def _today_openai(self, body, record):
        """Reasoning and cached tokens on the OpenAI route."""
        state = self.server.state
        reasoning = state.setting("reasoning") == "on"
        if reasoning:
            try:
                today.check_reasoning_returned(body)
            except today.Refusal as refusal:
                raise _oai_bad(str(refusal))
        cached = state.cache.openai_cached(
            body, state.api_key, today.cache_min_tokens(
                body.get("model"), state.setting("cache_min_tokens")))
        record["usage"] = {"cached_tokens": cached}
        return {"thinks": reasoning, "cached_tokens": cached}

    # -- API routes ---------------------------------------------------------

    def _serve_api(self, api, raw, record):
        state = self.server.state
        if api == "anthropic":
            body = validate_anthropic(self.headers, raw, state.api_key)
            extras = self._today_anthropic(body, record)
        elif api == "responses":
            try:
                body = responses.validate(self.headers, raw, state.api_key)
            except responses.Bad as bad:
                raise _from_bad(bad)
            extras = self._today_responses(body, record)
        else:
            body = validate_openai(self.headers, raw, state.api_key)
            try:
                responses.check_chat_max_tokens(body)
            except responses.Bad as bad:
                raise _from_bad(bad)
            too_long = context.openai_too_long(
                body, state.setting("context_window"))
            if too_long:
                raise _oai_bad(too_long, param="messages",
                               code="context_length_exceeded")
            extras = self._today_openai(body, record)
        # A client gone before its answer (a test killed it) takes nothing:
        # the item is the next test's, which may have reset by now.
        item = STALE if self._client_gone() else \
            state.take(record["agent"], body, self.generation)
        if item is STALE:
            state.drop_record(record)
            self.close_connection = True
            return
        if item is None:
            raise ApiError(500, "api_error",
                           "fakellm: no scripted response left",
                           headers={"x-should-retry": "false"})
        kind = item["kind"]
        status = item.get("status", 500 if kind == "error" else 200)
        state.finish_record(record,
                            None if kind == "stall_headers" else status)
        if item.get("wait_for"):
            self._wait_for_requests(item["wait_for"])
        if item.get("delay_ms"):
            self._idle_wait(item["delay_ms"] / 1000.0)
        # When the answer starts, for tests that time what follows it.
        record["replied"] = time.time()

        if kind == "stall_headers":
            self._idle_wait(item.get("stall_s", 30))
            self._hang_up()
            return
        if kind == "error":
            err_type = item.get("type") or ERROR_TYPE_BY_STATUS.get(
                status, "api_error")
            message = item.get("message") or DEFAULT_ERROR_MESSAGE.get(
                err_type, "error")
            err = ApiError(status, err_type, message, code=item.get("code"),
                           headers=item.get("headers"),
                           details=item.get("details"))
            self._send_api_error(api, err, scripted=True)
            return
        if kind == "raw":
            data = item["body"].encode("utf-8")
            headers = self._merge_headers(
                [("Content-Type", item.get("content_type", "text/html"))]
                + self._id_headers(), item.get("headers"))
            self._start(status, headers + [("Content-Length", str(len(data)))])
            self.wfile.write(data)
            return

        reply = Reply(item, body, len(raw), self.number, api, extras)
        # The usage the reply carries, as the API bills it: what a test
        # sums by hand (tests/integration/money.py).
        if status == 200 and not item.get("fault"):
            record["billed"] = (
                reply.anthropic_usage(reply.output_tokens)
                if api == "anthropic" else responses.usage(reply)
                if api == "responses" else reply.openai_usage())
        base = self._id_headers()
        if api == "anthropic":
            base += self._ratelimit_headers(status)
        if api == "responses":
            if extras["reasons"]:
                state.reasoned[reply.number] = f"rs_fake{reply.number}"
            if reply.stream:
                self._stream(status, base, item,
                             responses.events(reply, extras, body),
                             ping=b": ping\n\n",
                             error_event=responses.error_event(
                                 item.get("fault_error_message", "Overloaded"),
                                 item.get("fault_error_type", "server_error")),
                             malformed=responses.MALFORMED)
            else:
                obj = responses.response_object(reply, extras, body)
                self._send_whole(status, to_json(obj).encode("utf-8"), base,
                                 item)
            return
        if reply.stream:
            if api == "anthropic":
                self._send_anthropic_stream(status, reply, base)
            else:
                self._send_openai_stream(status, reply, base)
        else:
            obj = reply.anthropic_message() if api == "anthropic" \
                else reply.openai_completion()
            self._send_whole(status, to_json(obj).encode("utf-8"), base, item)

    # -- headers ------------------------------------------------------------

    def _id_headers(self):
        return [("request-id", self.request_id),
                ("x-request-id", self.request_id)]

    @staticmethod
    def _ratelimit_headers(status):
        exhausted = status == 429
        reset = rfc3339_in(60)
        return [
            ("anthropic-ratelimit-requests-limit", "1000"),
            ("anthropic-ratelimit-requests-remaining",
             "0" if exhausted else "999"),
            ("anthropic-ratelimit-requests-reset", reset),
            ("anthropic-ratelimit-tokens-limit", "100000"),
            ("anthropic-ratelimit-tokens-remaining",
             "0" if exhausted else "100000"),
            ("anthropic-ratelimit-tokens-reset", reset),
        ]

    @staticmethod
    def _merge_headers(base, extra):
        """Apply scripted headers: same name replaces, null removes."""
        if not extra:
            return list(base)
        lowered = {name.lower() for name in extra}
        merged = [(n, v) for n, v in base if n.lower() not in lowered]
        merged += [(n, str(v)) for n, v in extra.items() if v is not None]
        return merged

    # -- senders ------------------------------------------------------------

    def _start(self, status, headers):
        """Send the status line and headers."""
        self.response_started = True
        self.send_response(status, EXTRA_REASONS.get(status))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()

    def _send_json(self, status, obj, headers):
        """Send a control-route JSON reply."""
        data = to_json(obj).encode("utf-8")
        self._start(status, [("Content-Type", JSON_CONTENT_TYPE),
                             ("Content-Length", str(len(data)))]
                    + self._id_headers() + headers)
        self.wfile.write(data)

    def _send_api_error(self, api, err, scripted=False):
        """Send an error in the shape of the route's API."""
        headers = self._id_headers()
        if api == "anthropic":
            obj = anthropic_error_body(err.err_type, err.message,
                                       self.request_id, err.details)
            if scripted:
                headers += self._ratelimit_headers(err.status)
        else:
            obj = openai_error_body(err.err_type, err.message, err.param,
                                    err.code, err.details)
        data = to_json(obj).encode("utf-8")
        headers = self._merge_headers(
            [("Content-Type", JSON_CONTENT_TYPE)] + headers, err.headers)
        self._start(err.status, headers + [("Content-Length", str(len(data)))])
        self.wfile.write(data)

    def _send_whole(self, status, data, base, item):
        """Send a non-streamed JSON reply, applying split and faults."""
        fault = item.get("fault")
        full_length = len(data)
        if fault in ("malformed_json", "malformed_sse"):
            data = data[:max(1, len(data) // 2)]
            full_length = len(data)
        headers = self._merge_headers(
            [("Content-Type", JSON_CONTENT_TYPE)] + base, item.get("headers"))
        self._start(status, headers + [("Content-Length", str(full_length))])
        writer = BodyWriter(self.wfile, item.get("split"),
                            item.get("chunk_delay_ms", 0) / 1000.0)
        if fault in ("drop", "reset", "stall"):
            writer.write(data[:len(data) // 2])
            writer.flush()
            self._fault_end(fault, item)
            return
        writer.write(data)
        writer.finish()

    def _send_anthropic_stream(self, status, reply, base):
        item = reply.item
        error = {"type": "error",
                 "error": {"type": item.get("fault_error_type",
                                            "overloaded_error"),
                           "message": item.get("fault_error_message",
                                               "Overloaded")}}
        self._stream(status, base, item, reply.anthropic_events(),
                     ping=b'event: ping\ndata: {"type": "ping"}\n\n',
                     error_event=(b"event: error\ndata: "
                                  + to_json(error).encode("utf-8") + b"\n\n"),
                     malformed=(b"event: content_block_delta\ndata: "
                                b'{"type":"content_block_delta","index":0,'
                                b'"delta":{"type":"text_del\n\n'))

    def _send_openai_stream(self, status, reply, base):
        item = reply.item
        error = {"error": {"message": item.get("fault_error_message",
                                               "Overloaded"),
                           "type": item.get("fault_error_type",
                                            "server_error")}}
        self._stream(status, base, item, reply.openai_events(),
                     ping=b": ping\n\n",
                     error_event=(b"data: " + to_json(error).encode("utf-8")
                                  + b"\n\n"),
                     malformed=(b'data: {"id":"chatcmpl-fake%d",'
                                b'"object":"chat.completion.chunk",'
                                b'"choices":[{"index":0,"delta":{"cont\n\n'
                                % reply.number))

    def _stream(self, status, base, item, events, ping, error_event,
                malformed):
        """Send SSE events, with pings, split writes and a fault if asked."""
        chunked = item.get("chunked", False)
        framing = [("Transfer-Encoding", "chunked")] if chunked \
            else [("Connection", "close")]
        headers = self._merge_headers(
            [("Content-Type", SSE_CONTENT_TYPE),
             ("Cache-Control", "no-cache")] + base + framing,
            item.get("headers"))
        self._start(status, headers)
        if not chunked:
            self.close_connection = True
        writer = BodyWriter(self.wfile, item.get("split"),
                            item.get("chunk_delay_ms", 0) / 1000.0, chunked)
        fault = item.get("fault")
        fault_at = min(item.get("fault_after", 3), len(events) - 1) \
            if fault else -1
        for k, event in enumerate(events):
            if k == fault_at:
                if fault == "error_event":
                    writer.write(error_event)
                    writer.finish()
                    self.close_connection = True
                    return
                if fault in ("malformed_sse", "malformed_json"):
                    writer.write(malformed)
                else:
                    writer.flush()
                    self._fault_end(fault, item)
                    return
            writer.write(event)
            if item.get("pings") and k < len(events) - 1:
                writer.write(ping)
            # What a proxy sends to keep a quiet stream open: an event
            # whose data is empty, which the SDKs skip.
            if item.get("keepalive") and k < len(events) - 1:
                writer.write(b"data:\n\n" if k % 2 else b"data: \n\n")
        writer.finish()

    # -- connection faults --------------------------------------------------

    def _fault_end(self, fault, item):
        """End a response early: drop, reset, or stall then close."""
        if fault == "stall":
            self._idle_wait(item.get("stall_s", 30))
            self._hang_up()
        elif fault == "reset":
            self._reset_connection()
        else:
            self._hang_up()

    def _hang_up(self):
        """Shut the connection down now (FIN), whatever was sent."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _reset_connection(self):
        """Abort the connection with a TCP RST."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            fd = self.connection.detach()
            os.close(fd)
        except OSError:
            pass

    def _wait_for_requests(self, wait, timeout=30.0):
        """Holds the answer until another agent has sent that many
        requests (an order a test needs, not a time it guesses)."""
        state = self.server.state
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            seen = sum(1 for r in state.records()
                       if r.get("agent") == wait["agent"])
            if seen >= wait["requests"]:
                return
            time.sleep(0.01)

    def _client_gone(self):
        """True when the client has closed its end of the connection."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and \
                self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _idle_wait(self, seconds):
        """Sleep for seconds, returning early if the client hangs up."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                readable, _, _ = select.select([self.connection], [], [],
                                               min(left, 0.5))
                if readable:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return          # the client closed its end
                    time.sleep(min(left, 0.1))
            except (OSError, ValueError):
                return


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def write_port_file(path, port):
    """Write the port number to path atomically (PATH.tmp, then rename)."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="ascii") as handle:
        handle.write(f"{port}\n")
    os.replace(tmp, path)


def _watch_parent(pid):
    """Stop the server (as if by SIGTERM) once process pid has gone."""
    while True:
        time.sleep(0.5)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os.kill(os.getpid(), signal.SIGTERM)
            return
        except PermissionError:
            pass


def _stop(signum, frame):
    raise SystemExit(0)


def main(argv=None):
    """Run the server until SIGTERM or SIGINT; return the exit status."""
    parser = argparse.ArgumentParser(
        description="Scriptable fake Anthropic/OpenAI LLM server for tests.")
    parser.add_argument("--port-file", required=True,
                        help="write the chosen port number here")
    parser.add_argument("--api-key", default=DEFAULT_API_KEY,
                        help="the API key clients must send "
                             f"(default {DEFAULT_API_KEY})")
    parser.add_argument("--script", help="JSON file of scripted responses")
    parser.add_argument("--log", help="append each request as a JSON line")
    parser.add_argument("--parent-pid", type=int,
                        help="exit when this process no longer exists")
    parser.add_argument("--verbose", action="store_true",
                        help="log each HTTP request to stderr")
    parser.add_argument("--thinking", choices=("on", "off"), default="on",
                        help="reply as today's thinking models (default on)")
    parser.add_argument("--reasoning", choices=("on", "off"), default="off",
                        help="OpenAI route: reply as a reasoning server")
    parser.add_argument("--cache-min-tokens", type=int, default=None,
                        help="the shortest prefix the prompt cache keeps "
                             "(default: the model's, as its pages say)")
    parser.add_argument("--context-window", type=int, default=0,
                        help="refuse prompts longer than this many tokens "
                             "(0: no limit)")
    args = parser.parse_args(argv)

    state = FakeState(args.api_key, args.log, args.verbose, {
        "thinking": args.thinking, "reasoning": args.reasoning,
        "cache_min_tokens": args.cache_min_tokens,
        "context_window": args.context_window})
    if args.script:
        try:
            with open(args.script, encoding="utf-8") as handle:
                state.add_script(parse_script(handle.read(), args.script))
        except (OSError, ValueError) as exc:
            print(f"fakellm: {exc}", file=sys.stderr)
            return 2

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    server = FakeLLMServer(state)
    try:
        write_port_file(args.port_file, server.server_address[1])
        if args.parent_pid:
            threading.Thread(target=_watch_parent, args=(args.parent_pid,),
                             daemon=True).start()
        server.serve_forever(poll_interval=0.2)
    except (SystemExit, KeyboardInterrupt):
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
