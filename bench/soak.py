#!/usr/bin/env python3
"""bench/soak.py: a long session (issue 14's soak).

One teammate runs ROUNDS rounds of a command with a 7 KB output, each a
model call, against the fake LLM server with a 30,000-token context
window and thinking on; huddle compacts as it goes. Reports the rounds
completed (the teammate's own count, which it keeps only in what it is
sent), the requests refused (must be 0), the largest request, the
compactions, huddle's resident memory at round 100 and at the end, its
CPU time per round, and the share of input tokens read from the prompt
cache.

usage: bench/soak.py [ROUNDS]   (default 1000; runs $top_builddir/src/huddle,
top_builddir defaulting to build/)
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
os.environ.setdefault("top_builddir", os.path.join(HERE, "..", "build"))
os.environ.setdefault("top_srcdir", os.path.join(HERE, ".."))

from fakellm_client import FakeLLM  # noqa: E402
from team_driver import Huddle, contains, ev  # noqa: E402

WINDOW = 30000
BYTES = 7000


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    with FakeLLM() as fake:
        fake.reset()
        fake.configure(context_window=WINDOW)
        fake.script(
            {"agent": "lead", "kind": "tool_use", "calls": [
                {"name": "spawn_teammate", "input": {
                    "name": "sam", "role": "runner",
                    "prompt": "Run the numbered rounds until all are done."}}]},
            *[{"agent": "lead", "kind": "text", "text": "Noted."}] * 8,
            {"agent": "sam", "kind": "rounds", "rounds": rounds,
             "bytes": BYTES},
            # The quit asks sam to stop; it agrees.
            {"agent": "sam", "kind": "tool_use", "calls": [
                {"name": "shutdown_response", "input": {
                    "request_id": "{{request_id}}", "approve": True}}]})
        args = ["--max-rounds", str(rounds + 10), "--context-window",
                str(WINDOW)]
        with Huddle(fake, args=args) as h:
            pid = h.proc.pid
            start = time.monotonic()
            h.send("go")
            early = min(100, rounds)
            h.wait(ev("tool_result", "sam",
                      output=contains("round %d done" % early)),
                   timeout=600, what="round %d" % early)
            rss_early = rss_kib(pid)
            note = h.wait(ev("message", type="idle_notification",
                             content=contains("rounds are done"),
                             **{"from": "sam"}),
                          timeout=3600, what="the last round")
            seconds = time.monotonic() - start
            rss_end = rss_kib(pid)
            cpu = cpu_seconds(pid)
            usage = [e for e in h.events if e["event"] == "usage" and
                     e.get("agent") == "sam"]
            compactions = [e for e in h.events
                           if e["event"] == "compaction"]
            h.send("/quit")
            h.wait_exit(60)
        records = [r for r in fake.requests() if r.get("agent") == "sam"]
        refused = [r for r in records if r.get("response_status") != 200]
        too_long = [r for r in refused if r.get("response_status") == 400]
        largest = max(len(str(r.get("body"))) for r in records)
        last = usage[-1]
        cached = last["cache_read_tokens"]
        total = cached + last["input_tokens"] + last["cache_write_tokens"]
        print("soak: %d rounds of %d bytes, a %d-token window, thinking on"
              % (rounds, BYTES, WINDOW))
        print("  the teammate's last words: %s" % note["content"].split(
            ": ", 1)[-1])
        print("  requests: %d, refused: %d (prompt too long: %d)"
              % (len(records), len(refused), len(too_long)))
        for r in refused[:3]:
            print("    refused: HTTP %s %s" % (r.get("response_status"),
                                             r.get("error", "")))
        print("  largest request body: %d bytes (about %d tokens)"
              % (largest, largest // 4))
        print("  compactions: %d (%s)" % (len(compactions), ", ".join(
            sorted({c["kind"] for c in compactions})) or "none"))
        print("  huddle's RSS: %d KiB at round %d, %d KiB at round %d"
              % (rss_early, early, rss_end, rounds))
        print("  huddle's CPU: %.1f ms a round (%.1f s in all, %.1f s "
              "wall)" % (cpu * 1000 / rounds, cpu, seconds))
        print("  input tokens read from the cache: %.1f%%"
              % (100.0 * cached / total if total else 0))
        return 0 if not refused and "round %d." % rounds in note["content"] \
            else 1


if __name__ == "__main__":
    sys.exit(main())
