"""What the fake server adds to speak as today's models do (doc/models.md):
thinking blocks signed and bound to everything before them, the rules a
request's history must keep, prompt-cache accounting, and reasoning on the
OpenAI route. fakellm.py calls these; they know nothing of HTTP.
"""

import base64
import hashlib
import hmac
import json
import os
import threading
import time


class Refusal(Exception):
    """A request the real service refuses with 400: the message to send."""


# -- canonical forms ---------------------------------------------------------

def strip_cache_marks(value):
    """A copy of value without cache_control keys: cache markers are not
    content, so moving a breakpoint never breaks a binding."""
    if isinstance(value, dict):
        return {k: strip_cache_marks(v) for k, v in value.items()
                if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_marks(v) for v in value]
    return value


def canonical(value):
    """The bytes a value is hashed and counted by."""
    return json.dumps(strip_cache_marks(value), sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False).encode()


def tokens_of(value):
    """The fake's token estimate: four bytes of canonical JSON a token."""
    return len(canonical(value)) // 4


def _blocks(content):
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def prefix_digest(body, n, m):
    """The digest of everything before block m of message n: the system
    prompt, the tools, messages 0..n-1 and the first m blocks of n (a
    reply's first block is bound to the whole request)."""
    messages = body.get("messages", [])
    head = [{"role": msg.get("role"), "content": _blocks(msg.get("content"))}
            for msg in messages[:n]]
    if 0 < m and n < len(messages):
        head.append({"role": messages[n].get("role"),
                     "content": _blocks(messages[n].get("content"))[:m]})
    return hashlib.sha256(canonical({
        "system": body.get("system"), "tools": body.get("tools"),
        "messages": head})).hexdigest()


# -- signatures --------------------------------------------------------------

class Signer:
    """Signs thinking blocks the way the service does, as far as a client
    can tell: an opaque string that binds the block's text to the digest
    of the conversation before it."""

    def __init__(self):
        self._key = os.urandom(32)

    def _mac(self, digest, payload):
        return hmac.new(self._key, (digest + "\0" + payload).encode(),
                        hashlib.sha256).hexdigest()

    def sign(self, digest, payload):
        token = json.dumps({"v": 1, "p": digest,
                            "m": self._mac(digest, payload)})
        return base64.b64encode(token.encode()).decode()

    def bound_digest(self, signature, payload):
        """The digest a signature binds payload to, or None when the
        signature is not one of ours or does not match the payload."""
        try:
            token = json.loads(base64.b64decode(signature, validate=True))
            digest, mac = token["p"], token["m"]
        except (ValueError, TypeError, KeyError):
            return None
        if not isinstance(digest, str) or not isinstance(mac, str) or \
                not hmac.compare_digest(mac, self._mac(digest, payload)):
            return None
        return digest

    def redacted_data(self, digest, number):
        """The opaque data of a redacted_thinking block: the encrypted
        thought stands in as a sealed counter."""
        return self.sign(digest, "redacted:%d" % number) + "." + \
            base64.b64encode(b"redacted:%d" % number).decode()

    def redacted_digest(self, data):
        signature, _, sealed = data.partition(".") if isinstance(data, str) \
            else ("", "", "")
        try:
            payload = base64.b64decode(sealed, validate=True).decode()
        except (ValueError, UnicodeDecodeError):
            return None
        return self.bound_digest(signature, payload)


# -- the rules of a request ---------------------------------------------------

def thinking_requested(body, mode_on):
    """Whether this request's reply thinks: the server's mode, unless the
    request turned thinking off."""
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "disabled":
        return False
    return mode_on


def check_request_settings(body):
    """Today's models take neither sampling parameters nor the manual
    thinking mode."""
    for name in ("temperature", "top_p", "top_k"):
        if name in body:
            raise Refusal(f"{name}: sampling parameters are not supported "
                          "by this model; leave them out")
    thinking = body.get("thinking")
    if thinking is None:
        return
    if not isinstance(thinking, dict) or thinking.get("type") not in (
            "adaptive", "disabled", "enabled"):
        raise Refusal("thinking.type: Input should be 'adaptive', "
                      "'disabled' or 'enabled'")
    if thinking["type"] == "enabled":
        raise Refusal("thinking.type.enabled is not supported for this "
                      "model. Use thinking.type.adaptive and the effort "
                      "parameter to control thinking behavior.")


def _is_result_turn(msg):
    return msg.get("role") == "user" and any(
        isinstance(b, dict) and b.get("type") == "tool_result"
        for b in _blocks(msg.get("content")))


def _uses_tools(msg):
    return msg.get("role") == "assistant" and any(
        isinstance(b, dict) and b.get("type") == "tool_use"
        for b in _blocks(msg.get("content")))


def check_thinking_blocks(body, signer):
    """Every thinking and redacted_thinking block must carry a valid
    signature bound to exactly what precedes it in this request."""
    for n, msg in enumerate(body.get("messages", [])):
        if msg.get("role") != "assistant":
            continue
        for m, block in enumerate(_blocks(msg.get("content"))):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "thinking":
                bound = signer.bound_digest(block.get("signature", ""),
                                            block.get("thinking", ""))
            elif kind == "redacted_thinking":
                bound = signer.redacted_digest(block.get("data"))
            else:
                continue
            where = f"messages.{n}.content.{m}"
            if bound is None:
                raise Refusal(f"{where}: Invalid `signature` in `{kind}` "
                              "block")
            if bound != prefix_digest(body, n, m):
                raise Refusal(f"{where}: Invalid `signature` in `{kind}` "
                              "block. The block is bound to a different "
                              "conversation.")


def check_tool_loop(body):
    """While a tool loop runs, each of its assistant messages must start
    with its thinking: the loop is the assistant tool_use turns at the end
    of the conversation, each answered by tool results."""
    messages = body.get("messages", [])
    n = len(messages) - 1
    while n >= 1 and _is_result_turn(messages[n]) and \
            _uses_tools(messages[n - 1]):
        # A compaction block stands for what came before the turn.
        blocks = [b for b in _blocks(messages[n - 1].get("content"))
                  if not (isinstance(b, dict) and
                          b.get("type") == "compaction")]
        first = blocks[0] if blocks else {}
        kind = first.get("type") if isinstance(first, dict) else "?"
        if kind not in ("thinking", "redacted_thinking"):
            raise Refusal(f"messages.{n - 1}.content.0.type: Expected "
                          "`thinking` or `redacted_thinking`, but found "
                          f"`{kind}`. When `thinking` is enabled, a final "
                          "`assistant` message must start with a thinking "
                          "block (preceeding the lastmost set of "
                          "`tool_use` and `tool_result` blocks).")
        n -= 2


# -- prompt caching -----------------------------------------------------------

LOOKBACK = 20           # blocks a breakpoint looks back for a hit

# The shortest prompt the cache keeps, per model, as the platform's pages
# gave it in November 2026: 512 tokens on the 5.x models (the Fable 5.1
# overview and "What's new in Claude Fable 5.1",
# https://platform.claude.com/docs/en/models/fable-5-1/whats-new-fable-5-1,
# and the model pages of the 5.5 generation); Sonnet 5 is listed at 1,024;
# 4,096 for Opus 4.5/4.6 and Haiku 4.5 and 1,024 for the Sonnets 4.5/4.6
# ("Prompt caching",
# https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
# Longest prefix first; a model none matches gets DEFAULT_CACHE_MIN.
CACHE_MIN_BY_MODEL = (
    ("claude-sonnet-5-5", 512), ("claude-opus-5-5", 512),
    ("claude-haiku-5-5", 512), ("claude-fable-5", 512),
    ("claude-mythos-5", 512), ("claude-opus-5", 512),
    ("claude-sonnet-5", 1024),
    ("claude-opus-4-6", 4096), ("claude-opus-4-5", 4096),
    ("claude-haiku-4-5", 4096),
    ("claude-sonnet-4-6", 1024), ("claude-sonnet-4-5", 1024),
)
DEFAULT_CACHE_MIN = 1024


def cache_min_tokens(model, setting=None):
    """The cache minimum for a request to model: the server's setting
    when one was given (--cache-min-tokens, /_config), else the model's."""
    if setting is not None:
        return setting
    model = model if isinstance(model, str) else ""
    for prefix, tokens in CACHE_MIN_BY_MODEL:
        if model.startswith(prefix):
            return tokens
    return DEFAULT_CACHE_MIN
TTL = {"5m": 300.0, "1h": 3600.0}


def _cacheable(body):
    """The request's cacheable blocks in order (tools, system, messages),
    each with the cache_control marked on it, if any."""
    out = []
    for tool in body.get("tools") or []:
        out.append((tool, tool.get("cache_control")))
    system = body.get("system")
    if isinstance(system, str):
        out.append(({"type": "text", "text": system}, None))
    elif isinstance(system, list):
        out.extend((b, b.get("cache_control")) for b in system)
    for msg in body.get("messages", []):
        for block in _blocks(msg.get("content")):
            out.append(({"role": msg.get("role"), "block": block},
                        block.get("cache_control")
                        if isinstance(block, dict) else None))
    return out


def count_breakpoints(body):
    """Block-level markers plus the top-level one; more than 4 is a 400."""
    marks = sum(1 for _, mark in _cacheable(body) if mark)
    top = body.get("cache_control")
    total = marks + (1 if top else 0)
    if total > 4:
        raise Refusal("A maximum of 4 blocks with cache_control may be "
                      f"provided. Found {total}.")
    return total


class PromptCache:
    """The prefixes cached per API key and model, with their expiry."""

    def __init__(self):
        self._lock = threading.Lock()
        self._entries = {}

    def reset(self):
        with self._lock:
            self._entries.clear()

    def account(self, body, key, min_tokens):
        """Usage for this request as the service bills it: the part of the
        prompt read from the cache, the part written to it and the rest.
        Returns (input, cache_read, write_5m, write_1h)."""
        blocks = _cacheable(body)
        digests, totals = [], []
        running = hashlib.sha256((key + "\0" + str(body.get("model"))).encode())
        count = 0
        for block, _ in blocks:
            running.update(canonical(block))
            digests.append(running.hexdigest())
            count += tokens_of(block)
            totals.append(count)
        total = max(1, count + 8)      # the request's framing
        top = body.get("cache_control")
        points = [(i, mark) for i, (_, mark) in enumerate(blocks) if mark]
        if top and blocks:
            points.append((len(blocks) - 1, top))
        if not points:
            return total, 0, 0, 0
        now = time.monotonic()
        read_at = -1
        with self._lock:
            for point, _ in points:
                for j in range(point, max(-1, point - LOOKBACK - 1), -1):
                    if self._entries.get(digests[j], 0) > now and j > read_at:
                        read_at = j
                        break
            read = totals[read_at] if read_at >= 0 else 0
            write = {"5m": 0, "1h": 0}
            upto = read_at
            for point, mark in sorted(points):
                ttl = mark.get("ttl", "5m") if isinstance(mark, dict) \
                    else "5m"
                ttl = ttl if ttl in TTL else "5m"
                if totals[point] < min_tokens:
                    continue
                self._entries[digests[point]] = now + TTL[ttl]
                if point > upto:
                    write[ttl] += totals[point] - (totals[upto]
                                                   if upto >= 0 else 0)
                    upto = point
            if read_at >= 0:
                self._entries[digests[read_at]] = now + TTL["5m"]
        rest = total - read - write["5m"] - write["1h"]
        return max(rest, 0), read, write["5m"], write["1h"]

    def openai_cached(self, body, key, min_tokens):
        """Automatic prefix caching on the OpenAI route: the longest prefix
        of the messages seen before, counted when it is long enough."""
        running = hashlib.sha256((key + "\0" + str(body.get("model"))).encode())
        now, cached, count = time.monotonic(), 0, 0
        with self._lock:
            for msg in body.get("messages", []):
                running.update(canonical(msg))
                count += tokens_of(msg)
                digest = "oai:" + running.hexdigest()
                if self._entries.get(digest, 0) > now:
                    cached = count
                if count >= min_tokens:
                    self._entries[digest] = now + TTL["5m"]
        return cached if cached >= min_tokens else 0


# -- the OpenAI route -----------------------------------------------------------

def check_reasoning_returned(body):
    """A reasoning server refuses an assistant tool-call message that comes
    back without the reasoning it was sent with."""
    for msg in body.get("messages", []):
        if msg.get("role") == "assistant" and msg.get("tool_calls") and \
                not (msg.get("reasoning_content") or msg.get("reasoning")):
            raise Refusal("The `reasoning_content` in the thinking mode "
                          "must be passed back to the API.")
