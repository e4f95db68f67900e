"""The "outage" responder: a scripted stretch during which the service
refuses every request with a transient error, the way a busy day looks
to a client, before the next scripted response is served.

    {"kind": "outage", "status": 529, "count": 10}
        the next 10 requests (of its agent's queue) are refused
    {"kind": "outage", "status": 529, "seconds": 90}
        every request is refused for 90 s from the first one refused

What the refusals look like follows the platform's pages:

* "Claude API errors" (https://platform.claude.com/docs/en/api/errors):
  529 `overloaded_error` when the API is temporarily overloaded across
  all users; 429 `rate_limit_error` when the organisation hits a rate
  limit, with a `retry-after` header saying how long to wait; the body is
  `{"type": "error", "error": {"type", "message"}, "request_id"}`.
* "Anthropic 529 overloaded_error: what it means and how to handle it"
  (Microsoft Learn, Dev Proxy,
  https://learn.microsoft.com/en-us/microsoft-cloud/dev/dev-proxy/concepts/anthropic-529-overloaded-error):
  a 529 carries `retry-after` only sometimes ("use it if it is there"),
  a rate-limit 429 always does; the message of a 529 is `Overloaded`.

So a 429 refusal always carries `retry-after` (whole seconds, 1 unless
`retry_after_ms` says otherwise), and a 529 one only when the item asks
for it with `retry_after_ms`. `retry_after_ms` (as the official SDKs read
it, in milliseconds) is sent as `retry-after-ms` with a `retry-after` of
the same wait rounded up to whole seconds, so tests need not wait whole
seconds per attempt.

fakellm.py calls this under its lock; it knows nothing of HTTP.
"""

import math
import time

STATUSES = (429, 500, 502, 503, 504, 529)


def check(item, where, fail):
    """Validate an outage item; fail(message) raises."""
    count, seconds = item.get("count"), item.get("seconds")
    if (count is None) == (seconds is None):
        fail(f"{where}: kind outage needs one of \"count\" or \"seconds\"")
    if count is not None and not (isinstance(count, int) and
                                  not isinstance(count, bool) and count >= 1):
        fail(f"{where}: count must be an integer >= 1")
    if seconds is not None and not (isinstance(seconds, (int, float)) and
                                    not isinstance(seconds, bool) and
                                    seconds > 0):
        fail(f"{where}: seconds must be a number > 0")
    if item.get("status", 529) not in STATUSES:
        fail(f"{where}: an outage's status is one of "
             f"{', '.join(map(str, STATUSES))}")
    ms = item.get("retry_after_ms")
    if ms is not None and not (isinstance(ms, int) and
                               not isinstance(ms, bool) and ms >= 1):
        fail(f"{where}: retry_after_ms must be an integer >= 1")


def _refusal(item):
    status = item.get("status", 529)
    headers = dict(item.get("headers") or {})
    ms = item.get("retry_after_ms")
    if ms is not None:
        headers.setdefault("retry-after-ms", str(ms))
        headers.setdefault("retry-after", str(math.ceil(ms / 1000)))
    elif status == 429:
        headers.setdefault("retry-after", "1")
    step = {"agent": item.get("agent"), "kind": "error", "status": status,
            "headers": headers}
    for key in ("type", "message"):
        if key in item:
            step[key] = item[key]
    return step


def step(item, now=None):
    """The refusal for this request, or None when the outage is over
    (the caller then drops the item and serves the next response)."""
    now = time.monotonic() if now is None else now
    if "count" in item:
        if item.setdefault("_refused", 0) >= item["count"]:
            return None
        item["_refused"] += 1
        return _refusal(item)
    began = item.setdefault("_began", now)
    if now - began >= item["seconds"]:
        return None
    item["_refused"] = item.get("_refused", 0) + 1
    return _refusal(item)
