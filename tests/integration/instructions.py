#!/usr/bin/env python3
"""Project instructions, end to end: the real binary in --headless mode
against the fake LLM server.

AGENTS.md at the top of the working tree (CLAUDE.md only when there is no
AGENTS.md) and the person's own $XDG_CONFIG_HOME/huddle/AGENTS.md reach
the lead's and a teammate's first request; /context lists them; an edited
file takes effect at the next compaction, not before; the whole is cut at
32 KiB with a notice; a link out of the working tree is not followed; and
a long session's requests are still read from the prompt cache.
"""

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fakellm_client import FakeLLM, Results, wait_for  # noqa: E402
from team_driver import Huddle, call, contains, ev, expect, notes, say  # noqa: E402


def person_config(text=None):
    """An XDG_CONFIG_HOME whose huddle folder holds AGENTS.md with text
    (none when text is None)."""
    xdg = tempfile.mkdtemp(prefix="huddle-xdg-")
    os.makedirs(os.path.join(xdg, "huddle"))
    if text is not None:
        with open(os.path.join(xdg, "huddle", "AGENTS.md"), "w") as f:
            f.write(text)
    return {"XDG_CONFIG_HOME": xdg}


def workdir(**files):
    work = tempfile.mkdtemp(prefix="huddle-team-")
    for name, text in files.items():
        with open(os.path.join(work, name.replace("_", ".")), "w") as f:
            f.write(text)
    return work


def bodies(fake, agent):
    return [r["body"] for r in fake.requests()
            if r.get("agent") == agent and isinstance(r.get("body"), dict)]


def prompt_of(body):
    """Everything of a request but its conversation: the system prompt
    and tools, whichever API it speaks."""
    return json.dumps({k: v for k, v in body.items()
                       if k not in ("messages", "input")})


def next_request(fake, agent, send):
    """Calls send(), then waits for agent's next request and returns it."""
    calls = len(bodies(fake, agent))
    send()
    wait_for(lambda: len(bodies(fake, agent)) > calls, 15,
             "%s's next request" % agent)
    return bodies(fake, agent)[calls]


def leave(agent):
    return call(agent, "shutdown_response", request_id="{{request_id}}",
                approve=True)


def test_every_agent_and_compaction(fake):
    fake.reset()
    fake.script(
        call("lead", "spawn_teammate", name="alice", role="coder",
             prompt="Say hi."),
        *notes("lead", 12),
        say("alice", "Hi."),
        leave("alice"))
    work = workdir(AGENTS_md="Run make check before you say done. "
                   "AGENTS-MARK-1\n", CLAUDE_md="CLAUDE-MARK\n")
    env = person_config("Answer tersely. PERSON-MARK\n")
    with Huddle(fake, workdir=work, env=env) as h:
        h.send("go")
        h.wait(ev("message", "lead", type="idle_notification"),
               what="alice's idle notice")
        for agent in ("lead", "alice"):
            first = prompt_of(bodies(fake, agent)[0])
            for mark in ("AGENTS-MARK-1", "PERSON-MARK"):
                expect(mark in first, "%s's first request lacks %s"
                       % (agent, mark))
            expect("CLAUDE-MARK" in first,
                   "CLAUDE.md was not read beside AGENTS.md")
        h.wait(ev("status", "lead", status="idle"), what="the lead idle")
        mark = len(h.events)
        h.send("/context lead")
        line = h.wait(ev("reply", command="context"), since=mark)
        expect("instructions: " in line["message"] and
               "huddle/AGENTS.md (" in line["message"] and
               ", AGENTS.md (" in line["message"], line["message"])
        # An edit reaches no request before the next compaction: the
        # prompt the cache holds stays as it was.
        with open(os.path.join(work, "AGENTS.md"), "w") as f:
            f.write("AGENTS-MARK-2\n")
        text = prompt_of(next_request(fake, "lead",
                                      lambda: h.send("one more thing")))
        expect("AGENTS-MARK-1" in text and "AGENTS-MARK-2" not in text,
               "the edit reached the lead before a compaction")
        h.wait(ev("status", "lead", status="idle"), since=mark + 1,
               what="the lead idle again")
        mark = len(h.events)
        h.send("/compact lead")
        h.wait(ev("compaction", "lead", kind="client"), since=mark,
               what="the lead's compaction")
        text = prompt_of(next_request(fake, "lead",
                                      lambda: h.send("and now?")))
        expect("AGENTS-MARK-2" in text and "AGENTS-MARK-1" not in text,
               "the compaction did not take the edited AGENTS.md")
        h.quit()


def test_claude_md_without_agents_md(fake):
    fake.reset()
    fake.script(say("lead", "Hello."))
    work = workdir(CLAUDE_md="Use tabs. CLAUDE-MARK\n")
    with Huddle(fake, workdir=work, env=person_config()) as h:
        h.send("hi")
        h.wait_text("lead", "Hello.")
        first = prompt_of(bodies(fake, "lead")[0])
        expect("CLAUDE-MARK" in first, "CLAUDE.md did not reach the lead")
        h.quit()


def test_cap_and_links(fake):
    fake.reset()
    fake.script(say("lead", "Hello."))
    outside = tempfile.mkdtemp(prefix="huddle-outside-")
    with open(os.path.join(outside, "secret.md"), "w") as f:
        f.write("SECRET-MARK\n")
    big = "CAP-HEAD\n" + ("Keep lines short. " * 8 + "\n") * 800 + "CAP-TAIL\n"
    work = workdir(AGENTS_md=big)
    env = person_config()
    os.symlink(os.path.join(outside, "secret.md"),
               os.path.join(work, "CLAUDE.md"))
    with Huddle(fake, workdir=work, env=env) as h:
        h.send("hi")
        h.wait_text("lead", "Hello.")
        h.wait(ev("notice", "lead", message=contains("AGENTS.md was cut")),
               what="the notice of the cut")
        first = bodies(fake, "lead")[0]
        text = prompt_of(first)
        expect("CAP-HEAD" in text and "CAP-TAIL" not in text,
               "AGENTS.md was not cut")
        expect("huddle cut AGENTS.md here" in text, "no note where it was cut")
        system = json.dumps(first.get("system", first.get("instructions")))
        expect(len(system) < 32 * 1024 + 16000,
               "the system prompt holds %d bytes" % len(system))
        h.quit()
    # AGENTS.md a FIFO: left out, and huddle does not hang on it; then,
    # without AGENTS.md, CLAUDE.md a link out of the tree: not followed.
    for left_out in ("AGENTS.md left out", "CLAUDE.md left out"):
        fresh = workdir()
        os.symlink(os.path.join(outside, "secret.md"),
                   os.path.join(fresh, "CLAUDE.md"))
        if left_out.startswith("AGENTS"):
            os.mkfifo(os.path.join(fresh, "AGENTS.md"))
        fake.reset()
        fake.script(say("lead", "Hello."))
        with Huddle(fake, workdir=fresh, env=env) as h:
            h.send("hi")
            h.wait_text("lead", "Hello.")
            h.wait(ev("notice", "lead", message=contains(left_out)),
                   what="the notice: " + left_out)
            text = prompt_of(bodies(fake, "lead")[0])
            expect("SECRET-MARK" not in text, "a link out of the tree was read")
            h.quit()


def test_hidden_beneath_the_tree(fake):
    """A working tree that is the person's home holds ~/.ssh: an
    AGENTS.md that is a link to a key there (beneath the tree) is left
    out, as the file tools would refuse it."""
    work = workdir()
    os.makedirs(os.path.join(work, ".ssh"))
    with open(os.path.join(work, ".ssh", "id_ed25519"), "w") as f:
        f.write("SSH-KEY-MARK\n")
    os.symlink(os.path.join(".ssh", "id_ed25519"),
               os.path.join(work, "AGENTS.md"))
    env = dict(person_config(), HOME=work)
    fake.reset()
    fake.script(say("lead", "Hello."))
    with Huddle(fake, workdir=work, env=env) as h:
        h.send("hi")
        h.wait_text("lead", "Hello.")
        h.wait(ev("notice", "lead", message=contains("AGENTS.md left out")),
               what="the notice that AGENTS.md was left out")
        text = prompt_of(bodies(fake, "lead")[0])
        expect("SSH-KEY-MARK" not in text, "a hidden key reached the prompt")
        h.quit()


def test_resume_keeps_the_frame(fake):
    """The thinking of a conversation is bound to its system prompt: a
    resumed agent goes on with the instructions it began with."""
    fake.reset()
    fake.script(say("lead", "Hello."), say("lead", "Hello again."))
    work = workdir(AGENTS_md="RESUME-MARK-1\n")
    env = person_config()
    with Huddle(fake, workdir=work, env=env) as h:
        h.send("hi")
        h.wait_text("lead", "Hello.")
        # Its turn recorded: the conversation is bound to the prompt.
        h.wait(ev("status", "lead", status="idle"), what="the lead idle")
        h.quit()
    with open(os.path.join(work, "AGENTS.md"), "w") as f:
        f.write("RESUME-MARK-2\n")
    with Huddle(fake, workdir=work, env=env, resume=True) as h:
        h.send("hi again")
        h.wait_text("lead", "Hello again.")
        text = prompt_of(bodies(fake, "lead")[-1])
        expect("RESUME-MARK-1" in text and "RESUME-MARK-2" not in text,
               "the resumed lead's prompt changed")
        mark = len(h.events)
        h.send("/context lead")
        line = h.wait(ev("reply", command="context"), since=mark)
        expect("AGENTS.md (" in line["message"], line["message"])
        h.quit()
    refused = [r for r in fake.requests() if r["response_status"] != 200]
    expect(not refused, "requests refused: %s" % refused[:1])


def test_long_session_stays_cached(fake):
    rounds = 30
    fake.reset()
    items = [call("lead", "spawn_teammate", name="alice", role="coder",
                  prompt="Check the files one by one."), *notes("lead", 4)]
    items += [call("alice", "bash", command="echo file %d; seq 1 40" % i)
              for i in range(rounds - 1)]
    items += [say("alice", "All checked."), leave("alice")]
    fake.script(*items)
    work = workdir(AGENTS_md="# Conventions\n" +
                   "Write tests first; keep functions short.\n" * 150)
    with Huddle(fake, workdir=work, env=person_config("Be brief.\n")) as h:
        h.send("go")
        h.wait(ev("message", "lead", type="idle_notification"), 120,
               what="alice's idle notice")
        usage = [e for e in h.events
                 if e.get("event") == "usage" and e.get("agent") == "alice"]
        h.quit()
    first, last = usage[0], usage[-1]

    def total(u):
        return (u["input_tokens"] + u["cache_write_tokens"] +
                u["cache_read_tokens"])
    read = last["cache_read_tokens"] - first["cache_read_tokens"]
    share = read / max(total(last) - total(first), 1)
    print("  %d calls: %.1f %% of the input after the first read from the "
          "cache" % (len(usage), 100 * share))
    expect(len(usage) >= rounds, "only %d calls" % len(usage))
    expect(share > 0.8, "the cache share is %.1f %%" % (100 * share))


def main():
    r = Results()
    with FakeLLM() as fake:
        r.run("AGENTS.md and the person's reach every agent; edits wait "
              "for a compaction", test_every_agent_and_compaction, fake)
        r.run("CLAUDE.md without AGENTS.md", test_claude_md_without_agents_md,
              fake)
        r.run("the cap, links out and FIFOs", test_cap_and_links, fake)
        r.run("a hidden file beneath the tree is left out",
              test_hidden_beneath_the_tree, fake)
        r.run("--resume keeps the instructions it began with",
              test_resume_keeps_the_frame, fake)
        r.run("a long session stays cached", test_long_session_stays_cached,
              fake)
    r.finish()


if __name__ == "__main__":
    main()
