"""The "worker" responder: a fake model that works the task board the
way a teammate does. Given a task (a "[task tN ..." header huddle
writes when it hands one over), it does the work with one bash command
that appends the task's id to a log file (after a command of the
item's "before", when it has one), then completes the task with
task_update; when huddle says the task's check failed, it does the work
again. A shutdown request is approved. It answers from the request alone,
so any number of teammates can share one worker item, on either API.
fakellm.py calls this; it knows nothing of HTTP.
"""

import json
import re

import context

TASK_RE = re.compile(r"\[task (t\d+) ")
REQUEST_RE = re.compile(r"\[shutdown_request from [^,\]]+, request_id "
                        r"(req_[0-9a-f]{8})")


def _text(value):
    return json.dumps(value, ensure_ascii=False)


def _last_calls(messages):
    """The tool names of the newest assistant message, and the messages
    after it (its results and anything that came with them)."""
    for i in range(len(messages) - 1, -1, -1):
        msg = messages[i]
        if msg.get("role") != "assistant":
            continue
        names = [b.get("name") for b in msg.get("content") or []
                 if isinstance(b, dict) and b.get("type") == "tool_use"]
        names += [c.get("function", {}).get("name")
                  for c in msg.get("tool_calls") or []]
        return names, messages[i + 1:]
    return [], messages


def worker_step(item, body):
    """The concrete response of a worker item to this request."""
    agent = item.get("agent")
    messages = context.effective_messages(body.get("messages", []))
    if context.is_summary_request(body):
        return {"agent": agent, "kind": "text",
                "text": context.summary_of(messages)}
    names, after = _last_calls(messages)
    after_text = _text(after)
    shutdown = REQUEST_RE.findall(after_text)
    if shutdown:
        return {"agent": agent, "kind": "tool_use", "calls": [
            {"name": "shutdown_response",
             "input": {"request_id": shutdown[-1], "approve": True}}]}
    tasks = TASK_RE.findall(_text(messages))
    task = tasks[-1] if tasks else None
    given = TASK_RE.findall(after_text)
    if given:
        task = given[-1]
    work = {"agent": agent, "kind": "tool_use", "calls": [
        {"name": "bash", "input": {"command": "%s%secho %s >> %s" % (
            item["before"] + "; " if item.get("before") else "",
            "sleep %.3f; " % (item["work_ms"] / 1000.0)
            if item.get("work_ms") else "", task,
            item.get("log", "work.log"))}}]}
    if given:
        return work
    if names and names[-1] == "bash" and task:
        return {"agent": agent, "kind": "tool_use", "calls": [
            {"name": "task_update", "input": {
                "id": task, "status": "completed",
                "result": "%s done" % task}}]}
    if names and names[-1] == "task_update" and task:
        if "is not completed" in after_text:
            return work
        return {"agent": agent, "kind": "text",
                "text": "Finished %s." % task}
    return {"agent": agent, "kind": "text", "text": "Nothing to do."}
