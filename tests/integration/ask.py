#!/usr/bin/env python3
"""huddle --ask against the fake LLM server over real HTTP on 127.0.0.1.

Each provider is driven through every fault the fake server scripts (tests/fakellm/README.md); the checks
are what a person sees (exit status, stdout, the one-line error on stderr)
and what the server saw (the number of attempts and the delays between
them). Cancellation is checked end to end with SIGINT.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakellm_client import API_KEY, SLOW, FakeLLM, Results, run_huddle  # noqa: E402


def anthropic(fake, *extra, env=None):
    e = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.anthropic_url}
    e.update(env or {})
    return ["--ask", "Say hello"] + list(extra), e


def openai(fake, *extra):
    return (["--provider", "openai-chat", "--ask", "Say hello"] + list(extra),
            {"OPENAI_API_KEY": API_KEY, "OPENAI_BASE_URL": fake.openai_url})


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def gaps(reqs):
    return [b["time"] - a["time"] for a, b in zip(reqs, reqs[1:])]


def case_text_streamed(fake, api):
    fake.reset()
    text = "h\u00e9llo \u2713 \U0001F600 from the fake"
    fake.script({"kind": "text", "text": text, "split": 3, "pings": True,
                 "chunk_delay_ms": 1})
    args, env = api(fake)
    code, out, err, _, _ = run_huddle(args, env)
    expect(code == 0, "status %d, stderr %r" % (code, err))
    expect(out == text + "\n", "stdout %r" % out)
    reqs = fake.requests()
    expect(len(reqs) == 1, "%d requests" % len(reqs))
    body = reqs[0]["body"]
    expect(body["stream"] is True, "not streamed: %r" % body)
    expect(API_KEY not in out + err, "the key was printed")


def case_text_whole(fake, api):
    fake.reset()
    fake.script({"kind": "text", "text": "whole reply"})
    args, env = api(fake, "--no-stream")
    code, out, err, _, _ = run_huddle(args, env)
    expect(code == 0 and out == "whole reply\n", "status %d %r %r" % (code, out, err))
    expect(fake.requests()[0]["body"].get("stream") in (False, None), "streamed")


def case_model_and_headers(fake):
    fake.reset()
    fake.script({"kind": "text", "text": "ok"})
    args, env = anthropic(fake, "--model", "claude-test-1")
    code, _, err, _, _ = run_huddle(args, env)
    expect(code == 0, err)
    req = fake.requests()[0]
    expect(req["body"]["model"] == "claude-test-1", req["body"])
    expect(req["headers"].get("anthropic-version") == "2023-06-01", req["headers"])
    expect(req["headers"].get("x-api-key") == API_KEY, "no key header")
    expect(req["path"] == "/v1/messages", req["path"])
    # HUDDLE_MODEL is the default when --model is absent.
    fake.reset()
    fake.script({"kind": "text", "text": "ok"})
    args, env = anthropic(fake, env={"HUDDLE_MODEL": "from-env"})
    run_huddle(args, env)
    expect(fake.requests()[0]["body"]["model"] == "from-env", "HUDDLE_MODEL ignored")


def case_auth_error(fake, api, words):
    fake.reset()
    args, env = api(fake)
    env = dict(env)
    for k in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        if k in env:
            env[k] = "wrong-key"
    code, out, err, _, _ = run_huddle(args, env)
    expect(code == 1, "status %d" % code)
    expect(out == "", "stdout %r" % out)
    expect("HTTP 401" in err and words in err, "stderr %r" % err)
    expect(len(err.strip().splitlines()) == 1, "not one line: %r" % err)
    expect("wrong-key" not in err, "the key was printed")
    expect(len(fake.requests()) == 1, "401 was retried")


def case_retry_after_honoured(fake, api):
    fake.reset()
    fake.script({"kind": "error", "status": 429, "type": "rate_limit_error",
                 "message": "slow down", "headers": {"retry-after": "1"}},
                {"kind": "text", "text": "finally"})
    args, env = api(fake)
    code, out, err, _, _ = run_huddle(args, env)
    expect(code == 0 and out == "finally\n", "status %d %r %r" % (code, out, err))
    reqs = fake.requests()
    expect(len(reqs) == 2, "%d attempts" % len(reqs))
    gap = gaps(reqs)[0]
    expect(0.95 <= gap <= 1.8, "retry-after 1 s, waited %.2f s" % gap)
    expect("retrying in 1.0 s" in err and "rate_limit_error" in err, err)


def case_retry_count_header(fake):
    fake.reset()
    fake.script({"kind": "error", "status": 529, "type": "overloaded_error",
                 "message": "Overloaded"},
                {"kind": "text", "text": "ok"})
    args, env = anthropic(fake)
    code, _, err, _, _ = run_huddle(args, env)
    expect(code == 0, err)
    counts = [r["headers"].get("x-stainless-retry-count") for r in fake.requests()]
    expect(counts == ["0", "1"], "retry counts %r" % counts)


def case_spend_cap_not_retried(fake):
    fake.reset()
    fake.script({"kind": "error", "status": 429, "type": "rate_limit_error",
                 "message": "monthly spend limit reached",
                 "details": {"error_code": "enforced_spend_limit_reached"},
                 "headers": {"retry-after": None}})
    args, env = anthropic(fake)
    code, _, err, _, _ = run_huddle(args, env)
    expect(code == 1 and "spend limit" in err, err)
    expect(len(fake.requests()) == 1, "a spent budget was retried")


def case_keepalive_lines_are_skipped(fake):
    """A proxy's keep-alive (an event with empty data) between the
    events of each API's stream is skipped, not taken for a bad stream."""
    for name, api, extra in (("anthropic", anthropic, ()),
                             ("responses", openai, ("--model", "gpt-5.4")),
                             ("chat", openai, ())):
        fake.reset()
        fake.script({"kind": "text", "text": "Still here.",
                     "keepalive": True})
        args, env = api(fake, *extra)
        if name == "responses":
            args[1] = "openai"
        code, out, err, _, _ = run_huddle(args, env)
        expect(code == 0 and "Still here." in out, "%s: %s" % (name, err))
        expect(len(fake.requests()) == 1, "%s: retried" % name)


def case_no_credit_not_retried(fake):
    """OpenAI's 429 insufficient_quota: no credit left. Final at once,
    with a sentence that says what to do, on either OpenAI API."""
    for provider in ("openai", "openai-chat"):
        fake.reset()
        fake.script({"kind": "error", "status": 429,
                     "type": "insufficient_quota", "code":
                     "insufficient_quota", "message": "You exceeded your "
                     "current quota, please check your plan and billing "
                     "details."})
        args, env = openai(fake)
        args[1] = provider
        if provider == "openai":
            args += ["--model", "gpt-5.4"]
        t0 = time.monotonic()
        code, _, err, _, _ = run_huddle(args, env)
        expect(code == 1 and "no credit left" in err and
               "billing" in err, "%s: %s" % (provider, err))
        expect(len(fake.requests()) == 1, "%s: no credit was retried"
               % provider)
        expect(time.monotonic() - t0 < 5, "%s: it took %.1f s" % (
            provider, time.monotonic() - t0))


def case_no_retry_when_told(fake, api):
    fake.reset()
    fake.script({"kind": "error", "status": 500, "type": "api_error",
                 "message": "internal", "headers": {"x-should-retry": "false"}})
    args, env = api(fake)
    code, _, err, _, _ = run_huddle(args, env)
    expect(code == 1 and "HTTP 500" in err and "internal" in err, err)
    expect(len(fake.requests()) == 1, "retried despite x-should-retry: false")


def case_overloaded_backoff(fake, api):
    fake.reset()
    for _ in range(3):
        fake.script({"kind": "error", "status": 529, "type": "overloaded_error",
                     "message": "Overloaded"})
    # Two retries at most: by default the retries go on for minutes.
    args, env = api(fake, "--max-retries", "2")
    code, _, err, _, _ = run_huddle(args, env)
    expect(code == 1 and "HTTP 529" in err and "overloaded_error" in err, err)
    reqs = fake.requests()
    expect(len(reqs) == 3, "%d attempts, want 3" % len(reqs))
    g = gaps(reqs)
    # 0.5 s then 1 s, each shortened by up to 25 % jitter.
    expect(0.37 <= g[0] <= 0.9, "first backoff %.2f s" % g[0])
    expect(0.74 <= g[1] <= 1.4, "second backoff %.2f s" % g[1])


def case_retries_configurable(fake):
    fake.reset()
    fake.script({"kind": "error", "status": 503, "type": "api_error", "message": "x"})
    args, env = anthropic(fake, "--max-retries", "0")
    code, _, _, _, _ = run_huddle(args, env)
    expect(code == 1 and len(fake.requests()) == 1, "max-retries 0 not honoured")


def case_stall_timeout(fake):
    # Silence before the headers is a connection that failed: retried.
    fake.reset()
    fake.script(*[{"kind": "stall_headers", "stall_s": 20}] * 2,
                {"kind": "text", "text": "finally"})
    args, env = anthropic(fake, "--stall-timeout", "1")
    code, out, err, took, _ = run_huddle(args, env)
    expect(code == 0 and out == "finally\n", "status %d %r %r" % (code, out, err))
    reqs = fake.requests()
    expect(len(reqs) == 3, "%d attempts" % len(reqs))
    expect(all(1.0 <= g < 4.0 for g in gaps(reqs)), "gaps %r" % gaps(reqs))
    # Silence in the middle of a stream: the call fails after S seconds.
    fake.reset()
    fake.script({"kind": "text", "text": "partial reply then silence", "fault": "stall",
                 "fault_after": 4, "stall_s": 20})
    args, env = anthropic(fake, "--stall-timeout", "1")
    code, out, err, took, _ = run_huddle(args, env)
    expect(code == 1 and "no data from the server for 1 s" in err,
           "status %d, stderr %r" % (code, err))
    expect(len(fake.requests()) == 1 and took < 5,
           "%d attempts, %.1f s" % (len(fake.requests()), took))
    for bad in ("0", "x", "3601"):
        code, _, err, _, _ = run_huddle(["--stall-timeout", bad, "--ask", "hi"], env)
        expect(code == 2 and "--stall-timeout" in err, "%r: %d %r" % (bad, code, err))


def case_non_json_413(fake, api):
    fake.reset()
    fake.script({"kind": "raw", "status": 413,
                 "body": "<html><head><title>413 Request Entity Too Large</title></head>\n"
                         "<body>nginx</body></html>"})
    args, env = api(fake)
    code, _, err, _, _ = run_huddle(args, env)
    expect(code == 1 and "HTTP 413" in err and "Request Entity Too Large" in err, err)
    expect(len(fake.requests()) == 1, "413 was retried")


def case_stream_fault(fake, api, fault, words):
    fake.reset()
    fake.script({"kind": "text", "text": "a reply long enough to break in the middle",
                 "fault": fault, "fault_after": 3})
    args, env = api(fake)
    code, _, err, _, _ = run_huddle(args, env)
    expect(code == 1, "status %d, stderr %r" % (code, err))
    expect(any(w in err for w in words), "stderr %r lacks %r" % (err, words))
    # A stream that fails after its 200 is reported, not retried.
    expect(len(fake.requests()) == 1, "%d attempts" % len(fake.requests()))


def case_malformed_whole_reply(fake):
    fake.reset()
    fake.script({"kind": "text", "text": "x", "fault": "malformed_json"})
    args, env = anthropic(fake, "--no-stream")
    code, _, err, _, _ = run_huddle(args, env)
    expect(code == 1 and "invalid_response" in err, err)


def case_cancel(fake, item, started, what):
    fake.reset()
    fake.script(item)
    args, env = anthropic(fake)
    code, _, err, _, latency = run_huddle(args, env, interrupt_when=started(fake))
    expect(code == 130, "status %d after SIGINT (%s): %r" % (code, what, err))
    expect("cancelled" in err, err)
    # 100 ms for the call to end, plus the process's own exit; a
    # sanitizer's build is slower at both, and checks its heap at exit
    # (tests/run says how much slower: CK_TIMEOUT_MULTIPLIER).
    expect(latency <= 0.25 * SLOW,
           "%s: exit %.0f ms after SIGINT" % (what, latency * 1000))
    print("   %s: exited %.0f ms after SIGINT" % (what, latency * 1000))


def after_request(fake):
    return lambda out: len(fake.requests()) >= 1


def after_output(fake):
    return lambda out: len(out) > 0


def case_missing_key(fake):
    code, _, err, _, _ = run_huddle(["--ask", "hi"], {})
    expect(code == 2 and "ANTHROPIC_API_KEY" in err, "%d %r" % (code, err))


def case_bad_provider(fake):
    code, _, err, _, _ = run_huddle(["--provider", "nope", "--ask", "hi"], {})
    expect(code == 2 and "unknown provider" in err, "%d %r" % (code, err))


def main():
    r = Results()
    with FakeLLM() as fake:
        for name, api in (("anthropic", anthropic), ("openai", openai)):
            r.run(name + ": streamed text, split mid-UTF-8", case_text_streamed, fake, api)
            r.run(name + ": whole reply", case_text_whole, fake, api)
            r.run(name + ": 429 retry-after honoured", case_retry_after_honoured, fake, api)
            r.run(name + ": x-should-retry false", case_no_retry_when_told, fake, api)
            r.run(name + ": 413 with an HTML body", case_non_json_413, fake, api)
            r.run(name + ": error event mid-stream", case_stream_fault, fake, api,
                  "error_event", ["overloaded_error", "Overloaded", "server_error"])
            r.run(name + ": connection dropped mid-stream", case_stream_fault, fake, api,
                  "drop", ["connection_error", "stream"])
            r.run(name + ": malformed SSE", case_stream_fault, fake, api,
                  "malformed_sse", ["invalid_response"])
        r.run("anthropic: 401", case_auth_error, fake, anthropic, "authentication_error")
        r.run("openai: 401", case_auth_error, fake, openai, "Incorrect API key")
        r.run("anthropic: 529 backoff, 2 retries", case_overloaded_backoff, fake, anthropic)
        r.run("openai: 529 backoff, 2 retries", case_overloaded_backoff, fake, openai)
        r.run("--max-retries 0", case_retries_configurable, fake)
        r.run("--stall-timeout: retried before headers, fails mid-stream",
              case_stall_timeout, fake)
        r.run("x-stainless-retry-count on each attempt", case_retry_count_header, fake)
        r.run("a 429 for a spent budget is not retried", case_spend_cap_not_retried, fake)
        r.run("OpenAI's 429 with no credit left is final at once",
              case_no_credit_not_retried, fake)
        r.run("keep-alive lines with empty data are skipped",
              case_keepalive_lines_are_skipped, fake)
        r.run("model, headers, HUDDLE_MODEL", case_model_and_headers, fake)
        r.run("malformed JSON reply", case_malformed_whole_reply, fake)
        r.run("cancel while waiting for headers", case_cancel, fake,
              {"kind": "stall_headers", "stall_s": 30}, after_request, "waiting")
        r.run("cancel while streaming", case_cancel, fake,
              {"kind": "text", "text": "partial reply then silence", "fault": "stall",
               "thinking": "Hm.", "fault_after": 8, "stall_s": 30}, after_output,
              "streaming")
        r.run("cancel while waiting to retry", case_cancel, fake,
              {"kind": "error", "status": 429, "type": "rate_limit_error",
               "message": "later", "headers": {"retry-after": "30"}},
              after_request, "retry wait")
        r.run("missing key", case_missing_key, fake)
        r.run("unknown provider", case_bad_provider, fake)
    r.finish()


if __name__ == "__main__":
    main()
