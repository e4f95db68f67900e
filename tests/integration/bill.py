#!/usr/bin/env python3
"""The bill and the catalog, end to end: the real binary against the fake
LLM server.

Covers --models (status, window, prices and where each came from, with a
person's own catalog merged in), a broken user catalog, a retired model
refused before any request and a retiring one warned about, the gateway
variables (ANTHROPIC_AUTH_TOKEN sent as a Bearer, ANTHROPIC_MODEL and
OPENAI_MODEL after --model and HUDDLE_MODEL), and the recorded session of
doc/models.md: huddle's reported cost equals the figure the doc works out
from the published rates.
"""

import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "fakellm"))
from fakellm_client import API_KEY, HUDDLE, TOP_SRCDIR, FakeLLM, Results  # noqa: E402
from team_driver import Huddle, call, ev, expect, say  # noqa: E402

DOC = os.path.join(TOP_SRCDIR, "doc", "models.md")
DATA = os.path.join(TOP_SRCDIR, "data", "models.json")


def config_home(models):
    """An XDG_CONFIG_HOME whose huddle/models.json is `models` (a dict,
    or text written as is)."""
    home = tempfile.mkdtemp(prefix="huddle-config-")
    os.makedirs(os.path.join(home, "huddle"))
    path = os.path.join(home, "huddle", "models.json")
    with open(path, "w") as f:
        f.write(models if isinstance(models, str) else json.dumps(models))
    return home, path


def run(args, env=None, timeout=30):
    """The binary with a clean environment plus env; (status, out, err)."""
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "OPENAI_", "HUDDLE_",
                                 "XDG_CONFIG_HOME"))}
    base["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="huddle-noconfig-")
    base.update(env or {})
    p = subprocess.run([HUDDLE] + args, env=base, capture_output=True,
                       timeout=timeout, text=True)
    return p.returncode, p.stdout, p.stderr


def test_models_listing(fake):
    home, path = config_home({"models": [
        {"id": "claude-sonnet-5-5", "prices": {"cache_read": 0.05}},
        {"id": "my-local-model", "provider": "openai",
         "context_window": 32768, "max_output": 4096, "thinking": "none",
         "prices": {"input": 0, "output": 0},
         "source": {"title": "my notes", "url": "file:///notes"}}]})
    status, out, err = run(["--models"], {"XDG_CONFIG_HOME": home})
    expect(status == 0, err)
    blocks = {}
    for line in out.splitlines()[1:]:
        if not line.startswith(" "):
            name = line.split()[0]
            blocks[name] = [line]
        else:
            blocks[name].append(line.strip())
    sonnet = blocks["claude-sonnet-5-5"]
    expect(" 1000000 " in sonnet[0] and "current" in sonnet[0], sonnet)
    expect("from: built-in, changed by user file" in sonnet, sonnet)
    expect(("prices: your model catalog <%s>" % path) in sonnet, sonnet)
    expect(re.search(r"\s0\.05\s", sonnet[0]), sonnet)
    mine = blocks["my-local-model"]
    expect("from: user file" in mine, mine)
    expect("model: my notes <file:///notes>" in mine, mine)
    opus = blocks["claude-opus-5-5"]
    expect("from: built-in" in opus, opus)
    expect(any(line.startswith("prices: Pricing <https://platform.claude.com/"
                               "docs/en/about-claude/pricing>, checked 20")
               for line in opus), opus)
    expect(re.search(r"\s0\.2\s", opus[0]), opus)
    haiku = blocks["claude-haiku-5-5"]
    expect(any(line.startswith("prompts above 100000 tokens: 0.5 2.5")
               for line in haiku), haiku)
    expect("claude-fable-5-2" in blocks, sorted(blocks))
    expect("retires 2026-11-30; replacement claude-sonnet-5-5"
           in blocks["claude-sonnet-4-5"], blocks["claude-sonnet-4-5"])


def test_broken_user_catalog(fake):
    for text, why in (('{"models": [', "line 1"),
                      ('{"models": [{"id": "x"}]}', "context_window"),
                      ('{"model": []}', 'unknown field "model"')):
        home, path = config_home(text)
        status, out, err = run(["--models"], {"XDG_CONFIG_HOME": home})
        expect(status == 2, "status %d for %r" % (status, text))
        expect(path in err and why in err, err)


def ask(fake, args, env):
    """huddle --ask against the fake; returns (status, stderr, requests)."""
    fake.reset()
    fake.script({"kind": "text", "text": "pong"})
    full = {"ANTHROPIC_BASE_URL": fake.anthropic_url}
    full.update(env)
    status, out, err = run(["--ask", "ping"] + args, full)
    return status, out + err, fake.requests()


def test_retired_model_refused(fake):
    home, _ = config_home({"models": [
        {"id": "claude-opus-4-6", "retires": "2026-01-01",
         "replacement": "claude-opus-5-5"}]})
    env = {"ANTHROPIC_API_KEY": API_KEY, "XDG_CONFIG_HOME": home}
    status, err, reqs = ask(fake, ["--model", "claude-opus-4-6"], env)
    expect(status == 2, "status %d: %s" % (status, err))
    expect("retired on 2026-01-01" in err and "claude-opus-5-5" in err, err)
    expect(reqs == [], "a request went out: %r" % reqs)
    # The team too: refused at start, nothing sent.
    fake.reset()
    with Huddle(fake, args=["--model", "claude-opus-4-6"],
                env={"XDG_CONFIG_HOME": home}) as h:
        expect(h.wait_exit() == 2, "the team started on a retired model")
        expect(b"claude-opus-5-5" in h.stderr, h.stderr)
    expect(fake.requests() == [], "a request went out")
    # The built-in date of Sonnet 4.5: warned about before it, refused
    # from it on.
    today = datetime.datetime.now(datetime.timezone.utc).date()
    status, err, reqs = ask(fake, ["--model", "claude-sonnet-4-5"],
                            {"ANTHROPIC_API_KEY": API_KEY})
    if today < datetime.date(2026, 11, 30):
        expect(status == 0 and len(reqs) == 1, err)
        expect("warning: claude-sonnet-4-5 retires on 2026-11-30" in err and
               "claude-sonnet-5-5" in err, err)
    else:
        expect(status == 2 and reqs == [], err)
    # No warning for a model with no date near.
    status, err, reqs = ask(fake, [], {"ANTHROPIC_API_KEY": API_KEY})
    expect(status == 0 and "warning" not in err, err)
    # A team on a model retiring soon is told so where the person looks
    # (a notice, on the screen as here), not only on stderr before it.
    soon = (today + datetime.timedelta(days=10)).isoformat()
    home, _ = config_home({"models": [
        {"id": "claude-opus-4-6", "retires": soon,
         "replacement": "claude-opus-5-5"}]})
    fake.reset()
    with Huddle(fake, args=["--model", "claude-opus-4-6"],
                env={"XDG_CONFIG_HOME": home}) as h:
        h.wait(lambda e: e.get("event") == "notice" and
               ("retires on " + soon) in e.get("message", "") and
               "claude-opus-5-5" in e.get("message", ""), timeout=20,
               what="a notice that the model retires soon")
        h.send("/quit")
        h.wait_exit()


def test_fable_5_2_is_known(fake):
    """Fable 5.2 is in the catalog: a thinking budget or thinking off is
    refused before any request, not by the server."""
    for choice in ("2048", "off"):
        status, err, reqs = ask(fake, ["--model", "claude-fable-5-2",
                                       "--thinking", choice],
                                {"ANTHROPIC_API_KEY": API_KEY})
        expect(status == 2 and reqs == [], "--thinking %s: %d %s %r"
               % (choice, status, err, reqs))
    status, out, err = run(["--models"])
    line = [x for x in out.splitlines() if x.startswith("claude-fable-5-2 ")]
    expect(line and " 1000000 " in line[0] and " always " in line[0], line)


def test_gateway_variables(fake):
    # A token alone: sent as a Bearer, no x-api-key; ANTHROPIC_MODEL names
    # the model.
    status, err, reqs = ask(fake, [], {
        "ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": API_KEY,
        "ANTHROPIC_MODEL": "claude-opus-5-5"})
    expect(status == 0 and len(reqs) == 1, err)
    headers = reqs[0]["headers"]
    expect(headers.get("authorization") == "Bearer " + API_KEY, headers)
    expect("x-api-key" not in headers, headers)
    expect(reqs[0]["body"]["model"] == "claude-opus-5-5", reqs[0]["body"])
    # Both set: both sent, as the SDKs do.
    status, err, reqs = ask(fake, [], {"ANTHROPIC_API_KEY": API_KEY,
                                       "ANTHROPIC_AUTH_TOKEN": API_KEY})
    expect(status == 0, err)
    headers = reqs[0]["headers"]
    expect(headers.get("x-api-key") == API_KEY and
           headers.get("authorization") == "Bearer " + API_KEY, headers)
    # HUDDLE_MODEL before ANTHROPIC_MODEL, --model before both.
    env = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_MODEL": "claude-opus-5-5",
           "HUDDLE_MODEL": "claude-haiku-5-5"}
    status, err, reqs = ask(fake, [], env)
    expect(reqs[0]["body"]["model"] == "claude-haiku-5-5", reqs[0]["body"])
    status, err, reqs = ask(fake, ["--model", "claude-fable-5-2"], env)
    expect(reqs[0]["body"]["model"] == "claude-fable-5-2", reqs[0]["body"])
    # Neither key nor token: a clear sentence naming both.
    status, err, reqs = ask(fake, [], {})
    expect(status == 2 and "ANTHROPIC_AUTH_TOKEN" in err, err)
    # OPENAI_MODEL for the OpenAI provider.
    fake.reset()
    fake.script({"kind": "text", "text": "pong"})
    status, out, err = run(["--ask", "ping", "--provider", "openai"], {
        "OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": API_KEY,
        "OPENAI_MODEL": "gpt-from-env"})
    reqs = fake.requests()
    expect(reqs and reqs[0]["body"]["model"] == "gpt-from-env",
           "%s %r" % (err, reqs[:1]))


def test_token_never_reaches_a_tool(fake):
    """The gateway token is taken out of huddle's environment at start:
    a command the lead runs does not see it."""
    fake.reset()
    fake.script(call("lead", "bash", command="env"),
                say("lead", "Looked."))
    with Huddle(fake, env={"ANTHROPIC_AUTH_TOKEN": "gateway-secret-value",
                           "XDG_CONFIG_HOME": tempfile.mkdtemp()}) as h:
        h.send("Look around.")
        res = h.wait(ev("tool_result", "lead", tool="bash"),
                     what="the command's result")
        expect("PATH=" in res["output"], res["output"][:300])
        expect("gateway-secret-value" not in res["output"] and
               "ANTHROPIC_AUTH_TOKEN" not in res["output"],
               "the token reached a command")
        h.wait_text("lead", "Looked.")
        h.quit()
    headers = fake.requests()[0]["headers"]
    expect(headers.get("authorization") == "Bearer gateway-secret-value",
           headers)


def recorded_session():
    """The recorded session's calls and total from doc/models.md."""
    with open(DOC) as f:
        text = f.read()
    m = re.search(r"<!-- recorded-session -->\n(.*?)<!-- /recorded-session"
                  r" -->", text, re.S)
    expect(m, "doc/models.md has no recorded session")
    model = re.search(r"model `([^`]+)`", m.group(1)).group(1)
    rows, total = [], None
    for line in m.group(1).splitlines():
        cells = [c.strip().replace(",", "") for c in line.strip("|").split("|")]
        if len(cells) != 8 or not re.match(r"^(\d+|total)$", cells[0]):
            continue
        figures = [int(c) for c in cells[2:7]]
        cost = float(cells[7].lstrip("$"))
        if cells[0] == "total":
            total = cost
        else:
            rows.append((cells[1], figures, cost))
    expect(rows and total is not None, "the session table did not parse")
    return model, rows, total


def test_recorded_session_cost(fake):
    model, rows, total = recorded_session()
    with open(DATA) as f:
        prices = {m["id"]: m["prices"] for m in json.load(f)["models"]}[model]
    items = []
    for what, (inp, w5, w1, read, out), cost in rows:
        # The doc's arithmetic is the catalog's published rates.
        figured = (inp * prices["input"] + w5 * prices["cache_write_5m"] +
                   w1 * prices["cache_write_1h"] +
                   read * prices["cache_read"] + out * prices["output"]) / 1e6
        expect(abs(figured - cost) < 5e-10,
               "the doc says %r for %s, the rates give %r" % (cost, what,
                                                            figured))
        usage = {"input_tokens": inp, "output_tokens": out,
                 "cache_creation_input_tokens": w5 + w1,
                 "cache_creation": {"ephemeral_5m_input_tokens": w5,
                                    "ephemeral_1h_input_tokens": w1},
                 "cache_read_input_tokens": read}
        if what.startswith("read_file"):
            item = call("lead", "read_file", path="notes.txt")
        elif what.startswith("bash"):
            item = call("lead", "bash", command="wc -l notes.txt")
        else:
            item = say("lead", "notes.txt has three lines.")
        item["usage"] = usage
        items.append(item)
    expect(abs(sum(r[2] for r in rows) - total) < 5e-10, "the doc's total")
    fake.reset()
    fake.script(*items)
    work = tempfile.mkdtemp(prefix="huddle-bill-")
    with open(os.path.join(work, "notes.txt"), "w") as f:
        f.write("one\ntwo\nthree\n")
    with Huddle(fake, workdir=work, args=["--model", model],
                env={"XDG_CONFIG_HOME": work}) as h:
        h.send("How long is notes.txt?")
        h.wait_text("lead", "three lines")
        last = None
        while True:
            u = h.wait(ev("usage", "lead"), since=0 if last is None else
                       h.events.index(last) + 1, what="the lead's usage")
            last = u
            if u["input_tokens"] == sum(r[1][0] for r in rows):
                break
        print("  huddle reports $%.7f; doc/models.md works out $%.7f"
              % (u["team_cost_usd"], total))
        expect(abs(u["team_cost_usd"] - total) < 5e-10,
               "huddle reports %r, the doc %r" % (u["team_cost_usd"], total))
        h.quit()


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("--models: status, window, prices and their sources",
              test_models_listing, fake)
        r.run("a broken user catalog is a clear error",
              test_broken_user_catalog, fake)
        r.run("a retired model is refused before any request",
              test_retired_model_refused, fake)
        r.run("Fable 5.2 is known: its rules apply before any request",
              test_fable_5_2_is_known, fake)
        r.run("ANTHROPIC_AUTH_TOKEN, ANTHROPIC_MODEL, OPENAI_MODEL",
              test_gateway_variables, fake)
        r.run("the gateway token never reaches a command",
              test_token_never_reaches_a_tool, fake)
        r.run("the recorded session of doc/models.md costs what it says",
              test_recorded_session_cost, fake)
    r.finish()


if __name__ == "__main__":
    main()
