"""The fake server's context window and server-side compaction, as the
platform describes them (Context windows, Compaction): a prompt longer
than the window is refused; a request with the compact_20260112 edit over
its trigger gets a compaction block first, and later requests are read
from the last compaction block on. Also the "rounds" responder, a fake
model that works through numbered rounds and keeps its count only in the
conversation it is sent, so a test can tell whether compaction kept it.
fakellm.py calls these; they know nothing of HTTP.
"""

import re

import today

COMPACT_BETA = "compact-2026-01-12"
COMPACT_EDIT = "compact_20260112"
MIN_TRIGGER = 50000
DEFAULT_TRIGGER = 150000

ROUND_RE = re.compile(r"round (\d+) done")


# -- what the API reads -------------------------------------------------------

def effective_messages(messages):
    """The messages the API reads: everything before the last compaction
    block is ignored."""
    for i in range(len(messages) - 1, -1, -1):
        blocks = today._blocks(messages[i].get("content"))
        for j in range(len(blocks) - 1, -1, -1):
            if isinstance(blocks[j], dict) and \
                    blocks[j].get("type") == "compaction":
                first = dict(messages[i], content=blocks[j:])
                return [first] + list(messages[i + 1:])
    return messages


def effective_body(body):
    return dict(body, messages=effective_messages(body.get("messages", [])))


def prompt_tokens(body):
    """What the prompt counts, as the cache accounting counts it."""
    return sum(today.tokens_of(block) for block, _ in today._cacheable(body)) \
        + 8


def check_compaction_blocks(body):
    for n, msg in enumerate(body.get("messages", [])):
        for m, block in enumerate(today._blocks(msg.get("content"))):
            if not isinstance(block, dict) or \
                    block.get("type") != "compaction":
                continue
            where = f"messages.{n}.content.{m}"
            if msg.get("role") != "assistant":
                raise today.Refusal(f"{where}: compaction blocks may only "
                                    "appear in assistant messages")
            content = block.get("content")
            if content is not None and (not isinstance(content, str) or
                                        content == ""):
                raise today.Refusal(f"{where}.content: compaction content "
                                    "must be a non-empty string or null")


def too_long(body, window):
    """The refusal of a prompt over the window, or None."""
    if not window:
        return None
    n = prompt_tokens(body)
    if n <= window:
        return None
    return f"prompt is too long: {n} tokens > {window} maximum"


def openai_too_long(body, window):
    if not window:
        return None
    n = sum(today.tokens_of(m) for m in body.get("messages", [])) + \
        sum(today.tokens_of(t) for t in body.get("tools") or []) + 8
    if n <= window:
        return None
    return (f"This model's maximum context length is {window} tokens. "
            f"However, your messages resulted in {n} tokens. Please reduce "
            "the length of the messages.")


def compaction_edit(body, beta_header):
    """The request's compact_20260112 edit (its trigger in tokens), or
    None; a malformed one is refused."""
    cm = body.get("context_management")
    if cm is None:
        return None
    if not isinstance(cm, dict) or not isinstance(cm.get("edits"), list):
        raise today.Refusal("context_management.edits: Field required")
    for n, edit in enumerate(cm["edits"]):
        where = f"context_management.edits.{n}"
        if not isinstance(edit, dict) or edit.get("type") != COMPACT_EDIT:
            raise today.Refusal(f"{where}.type: Input tag does not match "
                                f"any of the expected tags: '{COMPACT_EDIT}'")
        betas = [b.strip() for b in (beta_header or "").split(",")]
        if COMPACT_BETA not in betas:
            raise today.Refusal(f"{where}: the {COMPACT_EDIT} edit needs "
                                f"the beta header {COMPACT_BETA}")
        trigger = edit.get("trigger", {"type": "input_tokens",
                                       "value": DEFAULT_TRIGGER})
        if not isinstance(trigger, dict) or \
                trigger.get("type") != "input_tokens" or \
                not isinstance(trigger.get("value"), int) or \
                isinstance(trigger.get("value"), bool):
            raise today.Refusal(f"{where}.trigger: Input should be "
                                "{\"type\": \"input_tokens\", \"value\": N}")
        if trigger["value"] < MIN_TRIGGER:
            raise today.Refusal(f"{where}.trigger.value: Input should be "
                                f"greater than or equal to {MIN_TRIGGER}")
        return trigger["value"]
    return None


def _text_of(messages):
    return today.canonical(messages).decode("utf-8", "replace")


def summary_of(messages):
    """What the fake writes when it summarises: how many messages and the
    last round it saw done, so a model that reads only the summary still
    knows its count. Like a forgetful model, it keeps no request id: what
    a client must not lose, it has to restate itself."""
    text = _text_of(messages)
    rounds = [int(n) for n in ROUND_RE.findall(text)]
    parts = [f"{len(messages)} earlier messages summarised."]
    if rounds:
        parts.append(f"Work so far: round {max(rounds)} done.")
    return "<summary>" + " ".join(parts) + "</summary>"


# -- the rounds responder ----------------------------------------------------

def is_summary_request(body):
    """Whether the last text of the last user message asks for a summary
    of the conversation for the model's own continuation (how huddle
    compacts on the client)."""
    messages = body.get("messages", [])
    if not messages or messages[-1].get("role") != "user":
        return False
    texts = [b.get("text", "") for b in today._blocks(
        messages[-1].get("content")) if isinstance(b, dict) and
        b.get("type") == "text"]
    last = texts[-1].lower() if texts else ""
    return "summarise the conversation so far for your own continuation" \
        in last or "summarize the conversation so far for your own " \
        "continuation" in last


def rounds_step(item, body):
    """The concrete response of a rounds item to this request, and
    whether the item is done. The model counts only from what it is sent:
    the highest "round N done" in the conversation (or its summary)."""
    messages = effective_messages(body.get("messages", []))
    if is_summary_request(body):
        return {"agent": item.get("agent"), "kind": "text",
                "delay_ms": item.get("summary_delay_ms", 0),
                "text": summary_of(messages)}, False
    seen = [int(n) for n in ROUND_RE.findall(_text_of(messages))]
    done = max(seen) if seen else 0
    if done >= item["rounds"]:
        return {"agent": item.get("agent"), "kind": "text",
                "text": f"All {item['rounds']} rounds are done; the last "
                        f"was round {done}."}, True
    if item.get("round_tool") == "write_file":
        # The cheap round: no process to start, the count in the call.
        return {"agent": item.get("agent"), "kind": "tool_use",
                "calls": [{"name": "write_file", "input": {
                    "path": "rounds.txt",
                    "content": f"round {done + 1} done\n"
                               + "x" * item["bytes"]}}]}, False
    command = (f"echo 'round {done + 1} done'; head -c {item['bytes']} "
               "/dev/zero | tr '\\0' x; echo")
    return {"agent": item.get("agent"), "kind": "tool_use",
            "calls": [{"name": "bash", "input": {"command": command}}]}, False
