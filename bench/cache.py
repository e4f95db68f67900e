#!/usr/bin/env python3
"""bench/cache.py: how much of a long tool loop is read from the prompt
cache (doc/benchmarks.md).

The lead spawns one teammate that runs ROUNDS model calls in one turn (a
tool call in each but the last) against the fake LLM server, thinking on
and cache accounting on. From huddle's own usage events it reports, for
the teammate's requests after the first, the share of input tokens read
from the cache — once as huddle runs by default, once with --no-cache.

usage: bench/cache.py [ROUNDS]   (default 40; runs $top_builddir/src/huddle,
top_builddir defaulting to build/)
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
os.environ.setdefault("top_builddir", os.path.join(HERE, "..", "build"))
os.environ.setdefault("top_srcdir", os.path.join(HERE, ".."))

from fakellm_client import FakeLLM  # noqa: E402
from team_driver import Huddle, ev  # noqa: E402


def script(rounds):
    items = [{"agent": "lead", "kind": "tool_use",
              "calls": [{"name": "spawn_teammate",
                         "input": {"name": "alice", "role": "coder",
                                   "prompt": "Check the files one by one."}}]}]
    items += [{"agent": "lead", "kind": "text", "text": "Noted."}] * 4
    for i in range(rounds - 1):
        items.append({"agent": "alice", "kind": "tool_use",
                      "calls": [{"name": "bash",
                                 "input": {"command": "echo file %d; seq 1 40" % i}}]})
    items.append({"agent": "alice", "kind": "text", "text": "All checked."})
    items.append({"agent": "alice", "kind": "tool_use",
                  "calls": [{"name": "shutdown_response",
                             "input": {"request_id": "{{request_id}}",
                                       "approve": True}}]})
    return items


def run(fake, rounds, args):
    """alice's input tokens after her first request: (cache read, all)."""
    fake.reset()
    fake.script(*script(rounds))
    with Huddle(fake, args=args) as h:
        h.send("go")
        h.wait(ev("message", "lead", type="idle_notification"), 120,
               what="alice's idle notice")
        usage = [e for e in h.events
                 if e.get("event") == "usage" and e.get("agent") == "alice"]
        h.send("/quit")
        h.wait_exit()
    first, last = usage[0], usage[-1]

    def total(u):
        return (u["input_tokens"] + u["cache_write_tokens"] +
                u["cache_read_tokens"])
    return (last["cache_read_tokens"] - first["cache_read_tokens"],
            total(last) - total(first), len(usage))


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    with FakeLLM() as fake:
        for label, args in (("huddle (caching)", []),
                            ("--no-cache", ["--no-cache"])):
            read, total, calls = run(fake, rounds, args)
            print("%-18s %d calls: %d of %d input tokens after the first "
                  "call read from cache: %.1f %%"
                  % (label, calls, read, total, 100.0 * read / max(total, 1)))


if __name__ == "__main__":
    main()
