#!/usr/bin/env python3
"""The providers' own SDKs as an oracle for every request huddle sends.

The real binary runs scripted scenarios against the fake server: each
provider (Anthropic Messages, OpenAI Responses with --provider openai,
chat completions with --provider openai-chat), thinking adaptive, off and
with a budget, the display omitted, whole replies, a team whose lead
spawns a teammate that calls tools (a parallel pair, an error, a command)
and is compacted on demand, Anthropic's compaction on the server, reasoning
items carried across the tool loop on Responses, a lead whose MCP tool
answers with an image (tests/mcp/server.py's picture), and one request to
each model of the catalog that is still served. Every
request body the fake server recorded is then written into one TypeScript
file as an object literal assigned to its SDK's request type (the beta
type when the request carried an anthropic-beta header), and
`tsc --strict --noEmit` checks them all: an object literal may not hold a
property its type does not know, so a field the API does not take, a
value outside its enumeration or a missing required field fails. The
runs must also have shown each shape the test is there to check
(COVERAGE), so that a change cannot leave one unchecked unnoticed.

The SDKs and TypeScript are pinned in package.json and package-lock.json
beside this file (doc/conformance.md); `npm ci` installs them under the
build tree, once, and again when the pins change (sdkinstall.py, shared
with catalog.py). Without node or npm the test is skipped (status 77).

A self-test proves the oracle can fail: a copy of one body of each type
with a property no API has must be refused by tsc.
"""

import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
# Each run names its provider itself, whatever API the team tests are
# set to speak (fakellm_client reads this when it is imported).
os.environ["HUDDLE_TEST_API"] = "anthropic"
from fakellm_client import (API_KEY, SLOW, TOP_SRCDIR,  # noqa: E402
                            FakeLLM, run_huddle)
from team_driver import Huddle, call, ev, expect, notes, say  # noqa: E402

sys.path.insert(0, HERE)
from sdkinstall import SDK_DIR, TSC, install_sdks, versions  # noqa: E402

REQUESTS_TS = "requests.ts"
SELFTEST_TS = "selftest.ts"
UNKNOWN_FIELD = "huddle_unknown_field"

# The SDK request type of each endpoint: (type in the .ts file, import).
TYPES = {
    "anthropic": ("MessageCreateParams",
                  'import type { MessageCreateParams } from '
                  '"@anthropic-ai/sdk/resources/messages";'),
    "anthropic-beta": ("BetaMessageCreateParams",
                       'import type { MessageCreateParams as '
                       'BetaMessageCreateParams } from '
                       '"@anthropic-ai/sdk/resources/beta/messages";'),
    "responses": ("ResponseCreateParams",
                  'import type { ResponseCreateParams } from '
                  '"openai/resources/responses/responses";'),
    "chat": ("ChatCompletionCreateParams",
             'import type { ChatCompletionCreateParams } from '
             '"openai/resources/chat/completions";'),
}
PATHS = {"/v1/messages": "anthropic", "/v1/responses": "responses",
         "/v1/chat/completions": "chat"}


# -- the runs --------------------------------------------------------------

def anthropic_env(fake):
    return {"ANTHROPIC_API_KEY": API_KEY,
            "ANTHROPIC_BASE_URL": fake.anthropic_url}


def openai_env(fake):
    return {"OPENAI_API_KEY": API_KEY, "OPENAI_BASE_URL": fake.openai_url}


def catalog():
    """The catalog's models that are still served today (a retired one
    is refused before any request)."""
    with open(os.path.join(TOP_SRCDIR, "data", "models.json")) as f:
        models = json.load(f)["models"]
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    return [m for m in models if not m.get("retires") or m["retires"] > today]


def ask(fake, env, args):
    """One --ask run; it must succeed."""
    fake.script({"text": "Hello."})
    status, out, err, _, _ = run_huddle(args + ["--ask", "hello"], env=env,
                                        timeout=30 * SLOW)
    expect(status == 0 and "Hello." in out,
           "status %d: %s" % (status, err.strip()[-300:]))


def team(fake, env, args):
    """The lead spawns alice, who writes a file and reads a missing one in
    one turn (an error result), runs a command after a few words, reports,
    is compacted on demand (the summary request) and answers once more
    from the summary."""
    pair = {"agent": "alice", "kind": "tool_use",
            "calls": [{"name": "write_file",
                       "input": {"path": "hello.txt", "content": "hi\n"}},
                      {"name": "read_file", "input": {"path": "missing.txt"}}]}
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder",
             prompt="Write hello.txt saying hi, then check it."),
        say("lead", "Alice is on it."), *notes("lead"),
        pair,
        dict(call("alice", "bash", command="cat hello.txt"),
             text="Checking it."),
        say("alice", "Wrote hello.txt."),
        say("alice", "<summary>hello.txt is written and checked.</summary>"),
        say("alice", "Nothing is left."), *notes("alice"))
    with Huddle(fake, env=env, args=args) as h:
        h.send("go")
        h.wait(ev("tool_result", "alice", tool="bash", is_error=False),
               what="alice's command")
        h.wait(ev("message", type="idle_notification", **{"from": "alice"}),
               what="alice idle")
        mark = len(h.events)
        h.send("/compact alice")
        h.wait(ev("compaction", "alice", kind="client"), since=mark,
               what="alice's compaction")
        mark = len(h.events)
        h.send("/msg alice anything left?")
        h.wait_text("alice", "Nothing is left.", since=mark)
        h.quit()


def server_compaction(fake, env, args):
    """The lead works through rounds whose writes fill more than the
    trigger of an 80,000-token window: the server compacts, and the
    requests after it carry the compaction block."""
    n = 12
    fake.script({"agent": "lead", "kind": "rounds", "rounds": n,
                 "bytes": 30000, "round_tool": "write_file"},
                *notes("lead"))
    with Huddle(fake, env=env, args=args + ["--max-rounds", "1000",
                                            "--context-window",
                                            "80000"]) as h:
        h.send("Run the numbered rounds, one write each, until all %d are "
               "done." % n)
        h.wait_text("lead", "All %d rounds are done" % n, timeout=60 * SLOW)
        expect([e for e in h.events if e["event"] == "compaction" and
                e["kind"] == "server"], "the server did not compact")
        h.quit()


MCP_SERVER = os.path.realpath(os.path.join(HERE, "..", "mcp", "server.py"))


def picture(fake, env, args):
    """The lead calls an MCP tool whose result holds a PNG (passed to the
    model) and a TIFF (a line), then answers from it."""
    cfg = os.path.join(tempfile.mkdtemp(prefix="huddle-sdkmcp-"),
                       "mcp.json")
    with open(cfg, "w") as f:
        json.dump({"mcpServers": {"pics": {
            "command": "python3", "args": [MCP_SERVER, "--image-tool"]}}}, f)
    fake.script(call("lead", "mcp__pics__picture"), say("lead", "Seen."))
    with Huddle(fake, env=env, args=args + ["--mcp-config", cfg]) as h:
        deadline = time.monotonic() + 30 * SLOW
        while True:
            mark = len(h.events)
            h.send("/mcp")
            text = h.wait(ev("reply", command="mcp"), since=mark,
                          what="/mcp")["message"]
            if "pics (stdio): ready" in text:
                break
            expect(time.monotonic() < deadline, "the MCP server is not "
                   "ready: %s" % text)
            time.sleep(0.1)
        h.send("look")
        req = h.wait(ev("request", type="permission", status="pending"),
                     what="the permission request")
        h.send("/approve %s" % req["id"])
        h.wait(ev("tool_result", "lead", tool="mcp__pics__picture",
                  is_error=False), what="the picture")
        h.wait_text("lead", "Seen.")
        h.quit()


def runs():
    """(name, function, env maker, args) of every scripted run."""
    out = []
    models = catalog()
    a, o = anthropic_env, openai_env
    # Anthropic Messages.
    out += [
        ("anthropic ask", ask, a, []),
        ("anthropic ask --thinking off", ask, a, ["--thinking", "off"]),
        ("anthropic ask --thinking-display omitted --no-cache --no-stream",
         ask, a, ["--thinking-display", "omitted", "--no-cache",
                  "--no-stream"]),
        ("anthropic team", team, a, []),
        ("anthropic team --thinking off", team, a, ["--thinking", "off"]),
        ("anthropic server compaction", server_compaction, a, []),
        ("anthropic MCP picture", picture, a, []),
    ]
    for m in models:
        if m["provider"] != "anthropic":
            continue
        model = ["--model", m["id"]]
        out.append(("anthropic ask --model %s" % m["id"], ask, a, model))
        if not m.get("thinking_always_on") and \
                m.get("thinking_off") not in (None, "impossible"):
            out.append(("anthropic ask --model %s --thinking off" % m["id"],
                        ask, a, model + ["--thinking", "off"]))
        if m.get("thinking") == "manual" and m.get("thinking_budget"):
            out.append(("anthropic team --model %s --thinking 2048"
                        % m["id"], team, a, model + ["--thinking", "2048"]))
    # A model whose thinking turns off outright ("disabled"), with its
    # words between tool calls as text.
    off = [m for m in models if m["provider"] == "anthropic" and
           m.get("thinking_off") == "disabled" and m.get("thinking") ==
           "adaptive"]
    if off:
        out.append(("anthropic team --model %s --thinking off" % off[0]["id"],
                    team, a, ["--model", off[0]["id"], "--thinking", "off"]))
    # OpenAI Responses.
    resp = ["--provider", "openai"]
    out += [
        ("responses ask", ask, o, resp),
        ("responses ask --no-stream", ask, o, resp + ["--no-stream"]),
        ("responses ask --model gpt-4.1 (not in the catalog)", ask, o,
         resp + ["--model", "gpt-4.1"]),
        ("responses team --model gpt-5.4", team, o,
         resp + ["--model", "gpt-5.4"]),
        ("responses MCP picture --model gpt-5.4", picture, o,
         resp + ["--model", "gpt-5.4"]),
    ]
    for effort in ("none", "minimal", "low", "medium", "high", "xhigh",
                   "max"):
        out.append(("responses ask --model gpt-5.4 --reasoning-effort %s"
                    % effort, ask, o, resp + ["--model", "gpt-5.4",
                                              "--reasoning-effort", effort]))
    for m in models:
        if m["provider"] != "openai":
            continue
        model = resp + ["--model", m["id"]]
        out.append(("responses ask --model %s" % m["id"], ask, o, model))
        if not m.get("thinking_always_on"):
            out.append(("responses ask --model %s --thinking off" % m["id"],
                        ask, o, model + ["--thinking", "off"]))
    # Chat completions.
    chat = ["--provider", "openai-chat"]
    out += [
        ("chat ask", ask, o, chat),
        ("chat ask --no-stream", ask, o, chat + ["--no-stream"]),
        ("chat ask --model llama3.3", ask, o, chat + ["--model", "llama3.3"]),
        ("chat ask --model gpt-5.4 --thinking off", ask, o,
         chat + ["--model", "gpt-5.4", "--thinking", "off"]),
        ("chat team", team, o, chat),
        ("chat MCP picture", picture, o, chat),
    ]
    # Not here: the fake as a reasoning chat server. huddle sends
    # reasoning_content back only to a server whose replies carried it,
    # a field of those servers' own that OpenAI's types do not describe.
    return out


def capture(fake, plan):
    """Runs every scenario of plan; returns (bodies, problems): each
    recorded request as {run, agent, path, status, beta, body, raw}, and
    each run that did not go as scripted."""
    bodies, problems = [], []
    for name, fn, env, args in plan:
        fake.reset()
        try:
            fn(fake, env(fake), args)
        except Exception as e:  # a run that went wrong of any kind
            problems.append("%s: %s" % (name, e))
        for r in fake.requests():
            bodies.append({"run": name, "agent": r.get("agent"),
                           "path": r["path"], "status": r["response_status"],
                           "beta": r["headers"].get("anthropic-beta"),
                           "body": r["body"], "raw": r.get("raw")})
    return bodies, problems


def nodes(value):
    """Every object inside a JSON value, itself included."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from nodes(v)
    elif isinstance(value, list):
        for v in value:
            yield from nodes(v)


def has(b, kinds, **fields):
    """Whether b goes to one of kinds and holds an object with fields."""
    return endpoint(b) in kinds and any(
        all(n.get(k) == v for k, v in fields.items())
        for n in nodes(b["body"]))


def thinking(b, kind):
    """Whether b is a Messages request with thinking of that type."""
    return endpoint(b) in MESSAGES and \
        (b["body"].get("thinking") or {}).get("type") == kind


def items_in_order(b, *kinds):
    """Whether b's Responses input has items of kinds one after another."""
    types = [i.get("type") for i in b["body"].get("input", [])
             if isinstance(i, dict)]
    return endpoint(b) == "responses" and any(
        tuple(types[i:i + len(kinds)]) == kinds for i in range(len(types)))


MESSAGES = ("anthropic", "anthropic-beta")
# Shapes the runs must have produced: a change in huddle or the fake that
# left one out would leave it unchecked.
COVERAGE = [
    ("Messages: thinking adaptive", lambda b: thinking(b, "adaptive")),
    ("Messages: thinking between_tools",
     lambda b: thinking(b, "between_tools")),
    ("Messages: thinking disabled", lambda b: thinking(b, "disabled")),
    ("Messages: a thinking budget", lambda b: thinking(b, "enabled")),
    ("Messages: thinking shown as omitted",
     lambda b: has(b, MESSAGES, display="omitted")),
    ("Messages: top-level cache_control",
     lambda b: endpoint(b) in MESSAGES and "cache_control" in b["body"]),
    ("Messages: no cache_control (--no-cache)",
     lambda b: endpoint(b) in MESSAGES and "cache_control" not in b["body"]),
    ("Messages: a whole reply asked for",
     lambda b: endpoint(b) in MESSAGES and b["body"].get("stream") is False),
    ("Messages: the compaction beta",
     lambda b: endpoint(b) == "anthropic-beta" and
     "context_management" in b["body"]),
    ("Messages: a compaction block sent back",
     lambda b: has(b, MESSAGES, type="compaction")),
    ("Messages: a signed thinking block sent back",
     lambda b: has(b, MESSAGES, type="thinking") and
     any("signature" in n for n in nodes(b["body"]))),
    ("Messages: a tool_result that is an error",
     lambda b: has(b, MESSAGES, type="tool_result", is_error=True)),
    ("Messages: tool_choice none (a summary request)",
     lambda b: endpoint(b) in MESSAGES and
     b["body"].get("tool_choice") == {"type": "none"}),
    ("Responses: reasoning, then a call, then its output",
     lambda b: items_in_order(b, "reasoning", "function_call",
                              "function_call_output") or
     items_in_order(b, "reasoning", "message", "function_call",
                    "function_call_output")),
    ("Responses: function tools", lambda b: endpoint(b) == "responses" and
     b["body"].get("tools")),
    ("Responses: effort none",
     lambda b: has(b, ("responses",), effort="none")),
    ("Responses: tool_choice none (a summary request)",
     lambda b: endpoint(b) == "responses" and
     b["body"].get("tool_choice") == "none"),
    ("Chat: an assistant's tool_calls and the tool's answer",
     lambda b: has(b, ("chat",), role="tool") and
     any("tool_calls" in n for n in nodes(b["body"]))),
    ("Messages: a tool_result holding an image",
     lambda b: has(b, MESSAGES, type="tool_result") and
     has(b, MESSAGES, type="image") and has(b, MESSAGES, type="base64")),
    ("Responses: a function_call_output holding an input_image",
     lambda b: has(b, ("responses",), type="input_image")),
    ("Chat: an image_url part after the tool messages",
     lambda b: has(b, ("chat",), type="image_url")),
    ("Chat: max_tokens", lambda b: endpoint(b) == "chat" and
     "max_tokens" in b["body"]),
    ("Chat: max_completion_tokens", lambda b: endpoint(b) == "chat" and
     "max_completion_tokens" in b["body"]),
]


def uncovered(bodies):
    """The shapes of COVERAGE that no body shows."""
    ok = [b for b in bodies if isinstance(b["body"], dict) and endpoint(b)]
    return [what for what, seen in COVERAGE if not any(seen(b) for b in ok)]


# -- the TypeScript file ---------------------------------------------------

def endpoint(b):
    """The SDK type key of a recorded request, or None."""
    kind = PATHS.get(b["path"].split("?")[0])
    if kind == "anthropic" and b["beta"]:
        return "anthropic-beta"
    return kind


def describe(b):
    """Where a body came from, for the file and the log."""
    return "run %r, %s, agent %s, POST %s%s%s" % (
        b["run"], endpoint(b), b["agent"] or "-", b["path"],
        " (anthropic-beta: %s)" % b["beta"] if b["beta"] else "",
        "" if b["status"] == 200 else ", answered %s" % b["status"])


def write_ts(path, entries):
    """Writes entries [(comment, type key, body)] as one .ts file; returns
    the line range (first, last) of each entry, 1-based."""
    lines = ["// Generated by tests/conformance/sdktypes.py: request bodies "
             "huddle sent,", "// each assigned to its SDK's request type."]
    lines += [TYPES[k][1] for k in sorted(TYPES)]
    ranges = []
    for i, (comment, kind, body) in enumerate(entries):
        lines.append("")
        lines.append("// %d: %s" % (i + 1, comment.replace("\n", " ")))
        first = len(lines) + 1
        text = json.dumps(body, indent=1, ensure_ascii=False)
        lines += ("export const body%d: %s = %s;"
                  % (i + 1, TYPES[kind][0], text)).split("\n")
        ranges.append((first, len(lines)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return ranges


ERROR_RE = re.compile(r"^(.*?)\((\d+),(\d+)\): (error TS\d+: .*)$")


def tsc_errors(out):
    """tsc's --pretty false output as [(file, line, message lines)]."""
    errors = []
    for line in out.splitlines():
        m = ERROR_RE.match(line)
        if m:
            errors.append((os.path.basename(m.group(1)), int(m.group(2)),
                           [m.group(4)]))
        elif line.startswith(" ") and errors:
            errors[-1][2].append(line.strip())
        elif line.strip():
            errors.append(("", 0, [line]))
    return errors


def gist(message):
    """An error's root cause (its last line) with the object types tsc
    spells out left out, to tell errors of the same kind together."""
    return re.sub(r"'\{.*?'(?= but | is not |\.?$)", "'{...}'", message[-1])


def owner(ranges, line):
    """The index of the entry whose lines hold line, or None."""
    for i, (first, last) in enumerate(ranges):
        if first <= line <= last:
            return i
    return None


def typecheck(bodies):
    """Writes both files, runs tsc; returns the number of failures."""
    failures = 0
    unknown = [b for b in bodies if endpoint(b) is None or
               not isinstance(b["body"], dict)]
    for b in unknown:
        print("FAIL: not a JSON request to a known endpoint: %s: %r"
              % (describe(b), (b["raw"] or "")[:200]))
    failures += len(unknown)
    checked = [b for b in bodies if b not in unknown]
    entries = [(describe(b), endpoint(b), b["body"]) for b in checked]
    # The self-test: the first body of each type with a property no API
    # has; tsc must refuse every one.
    mutants = []
    for kind in sorted(TYPES):
        first = [b for b in checked if endpoint(b) == kind]
        if first:
            body = dict(first[0]["body"])
            body[UNKNOWN_FIELD] = True
            mutants.append(("self-test, %s with %s added"
                            % (describe(first[0]), UNKNOWN_FIELD),
                            kind, body))
    ranges = write_ts(os.path.join(SDK_DIR, REQUESTS_TS), entries)
    mutant_ranges = write_ts(os.path.join(SDK_DIR, SELFTEST_TS), mutants)
    with open(os.path.join(SDK_DIR, REQUESTS_TS)) as f:
        source = f.read().splitlines()
    start = time.monotonic()
    r = subprocess.run([TSC, "--strict", "--noEmit", "--pretty", "false",
                        "--skipLibCheck", "--target", "es2022", "--module",
                        "nodenext", "--moduleResolution", "nodenext",
                        "--types", "", REQUESTS_TS, SELFTEST_TS],
                       cwd=SDK_DIR, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600 * SLOW)
    print("conformance: tsc checked %d bodies (%d KB) in %.1f s"
          % (len(entries), os.path.getsize(os.path.join(SDK_DIR, REQUESTS_TS))
             // 1024, time.monotonic() - start))
    errors = tsc_errors(r.stdout.decode(errors="replace"))
    by_body, refused_mutants, distinct = {}, set(), {}
    for name, line, message in errors:
        if name == SELFTEST_TS:
            i = owner(mutant_ranges, line)
            if i is not None and UNKNOWN_FIELD in " ".join(message):
                refused_mutants.add(i)
            continue
        i = owner(ranges, line) if name == REQUESTS_TS else None
        if i is None:
            print("FAIL: tsc: %s" % "\n    ".join(message))
            failures += 1
            continue
        by_body.setdefault(i, []).append((line, message))
    for i in sorted(by_body):
        failures += 1
        print("FAIL: body %d, %s:" % (i + 1, entries[i][0]))
        seen = {}
        for line, message in by_body[i]:
            key = gist(message)
            if key in seen:
                seen[key] += 1
                continue
            seen[key] = 1
            print("    %s:%d: %s"
                  % (REQUESTS_TS, line, "\n      ".join(message)))
            at = source[line - 1].strip()
            if len(at) > 1:
                print("      at: %s" % at[:160])
            distinct.setdefault(key, set()).add(checked[i]["run"])
        for key, n in seen.items():
            if n > 1:
                print("    (%d more in this body: %s)" % (n - 1, key))
    if by_body:
        print("conformance: %d of %d bodies refused; distinct errors:"
              % (len(by_body), len(entries)))
        for key, runs_of in sorted(distinct.items()):
            print("  %s\n    in %d run(s): %s" % (key, len(runs_of),
                                                  "; ".join(sorted(runs_of))))
    for i, m in enumerate(mutants):
        if i in refused_mutants:
            print("ok: self-test: tsc refuses %s on %s" % (UNKNOWN_FIELD,
                                                          TYPES[m[1]][0]))
        else:
            failures += 1
            print("FAIL: self-test: tsc took %s (the oracle cannot fail)"
                  % m[0])
    if r.returncode != 0 and not errors:
        print("FAIL: tsc exited %d: %s" % (r.returncode,
                                            r.stdout.decode()[-2000:]))
        failures += 1
    return failures


def main():
    start = time.monotonic()
    install_sdks("conformance")
    print("conformance: %s" % versions())
    captured, plan = time.monotonic(), runs()
    with FakeLLM() as fake:
        bodies, problems = capture(fake, plan)
    for what in uncovered(bodies):
        problems.append("no run sent a request with %s" % what)
    for p in problems:
        print("FAIL: run: %s" % p)
    print("conformance: %d request bodies from %d runs in %.1f s"
          % (len(bodies), len(plan), time.monotonic() - captured))
    expect(bodies, "no request was recorded")
    failures = typecheck(bodies) + len(problems)
    print("conformance: %s in %.1f s" % ("%d failures" % failures if failures
                                         else "every body conforms",
                                         time.monotonic() - start))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
