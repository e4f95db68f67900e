"""OpenAI's Responses API on the fake server (POST /v1/responses), and the
one rule of OpenAI's reasoning models on the chat completions route.

What the real service does, and where it says so:

* "Reasoning models" (https://developers.openai.com/api/docs/guides/reasoning):
  reasoning models (gpt-5.x and later, the o-series) work better with the
  Responses API; a request names `reasoning: {effort, summary}`.
* "Better performance from reasoning models using the Responses API"
  (https://cookbook.openai.com/examples/responses_api/reasoning_items):
  a stateless client (`store: false`) asks for
  `include: ["reasoning.encrypted_content"]` and sends each reasoning item
  back, unchanged, with the function calls that followed it.
* The API reference (https://platform.openai.com/docs/api-reference/responses,
  as quoted on community.openai.com "How to use reasoning.encrypted_content
  with store=False"): `instructions`, `input` items (`message`,
  `function_call`, `function_call_output`, `reasoning`), function tools
  `{type, name, parameters}`, `max_output_tokens`; the streaming events
  (`response.created`, `response.output_item.added/done`,
  `response.output_text.delta`, `response.function_call_arguments.delta/
  done`, `response.reasoning_summary_text.delta`, `response.completed`
  with `usage.input_tokens_details.cached_tokens`), and no `[DONE]`.
* A function_call_output's `output` is a string or a list of input parts
  (`input_text`, `input_image` with its `image_url` or `file_id`,
  `input_file`), as the SDK's ResponseFunctionCallOutputItemList declares.
* The refusals are the service's own words as users met them:
  "Item 'fc_…' of type 'function_call' was provided without its required
  'reasoning' item: 'rs_…'." (cline/cline#12242, continuedev/continue#10018),
  "Item 'rs_…' of type 'reasoning' was provided without its required
  following item." (continuedev/continue#8933), "The encrypted content …
  could not be verified." with code invalid_encrypted_content
  (openai/codex#8119).
* Model pages: gpt-6.2-sol "rejects requests that set reasoning effort to
  none" (https://developers.openai.com/api/docs/models/gpt-6.2-sol).
* Chat completions: a reasoning model refuses `max_tokens` with "Unsupported
  parameter: 'max_tokens' is not supported with this model. Use
  'max_completion_tokens' instead." (param max_tokens, code
  unsupported_parameter; pydantic/pydantic-ai#1205, and for gpt-5.4
  autohandai/code-cli#77). The API reference calls max_tokens "not
  compatible with o-series models".

fakellm.py calls these; they know nothing of HTTP.
"""

import json
import re
import time

# gpt-5 and later, the o-series; "openai/" as routers spell it.
REASONING_MODEL_RE = re.compile(r"^(?:openai/)?(?:gpt-(?:[5-9]|[1-9]\d)|o\d)")
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
SUMMARIES = ("auto", "concise", "detailed")
# Models whose page gives another default effort than medium: gpt-5.4
# "Reasoning.effort supports: none (default), low, medium, high and xhigh"
# (https://developers.openai.com/api/docs/models/gpt-5.4): asked nothing,
# it does not reason.
DEFAULT_EFFORT = {"gpt-5.4": "none", "gpt-5.1": "none"}
# Models whose page says they refuse some efforts, or lists the efforts
# they take without these (the Models page: GPT-6 Astra takes low to max).
REFUSED_EFFORTS = {"gpt-6.1-sol": ("none", "minimal"),
                   "gpt-6.2-sol": ("none", "minimal"),
                   "gpt-6-astra": ("none", "minimal")}
ENCRYPTED_INCLUDE = "reasoning.encrypted_content"
MIN_OUTPUT_TOKENS = 16


class Bad(Exception):
    """A request the service refuses: 400 invalid_request_error unless
    told otherwise."""

    def __init__(self, message, param=None, code=None, status=400,
                 err_type="invalid_request_error"):
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code
        self.status = status
        self.err_type = err_type


def is_reasoning_model(model):
    """Whether model reasons: the gpt-5 family and later and the o-series,
    but not their chat snapshots (gpt-5-chat-latest), which do not."""
    return isinstance(model, str) and bool(REASONING_MODEL_RE.match(model)) \
        and "-chat" not in model


def json_type_name(value, integer="integer"):
    """Names a JSON value's type the way OpenAI's error messages do; the
    Responses API's call an integer a number (integer="number")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return integer
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


# -- chat completions ----------------------------------------------------------

def check_chat_max_tokens(body):
    """Reasoning models refuse max_tokens on chat completions."""
    if is_reasoning_model(body.get("model")) and "max_tokens" in body:
        raise Bad("Unsupported parameter: 'max_tokens' is not supported "
                  "with this model. Use 'max_completion_tokens' instead.",
                  param="max_tokens", code="unsupported_parameter")


# -- the request -----------------------------------------------------------------

def _missing(param):
    return Bad(f"Missing required parameter: '{param}'.", param=param,
               code="missing_required_parameter")


def _invalid_type(param, expected, value):
    return Bad(f"Invalid type for '{param}': expected {expected}, but got "
               f"{json_type_name(value, 'number')} instead.", param=param,
               code="invalid_type")


def _invalid_value(param, value, allowed):
    names = ", ".join(f"'{a}'" for a in allowed[:-1])
    names = f"{names}, and '{allowed[-1]}'" if names else f"'{allowed[-1]}'"
    return Bad(f"Invalid value: '{value}'. Supported values are: {names}.",
               param=param, code="invalid_value")


def _check_tools(tools):
    if not isinstance(tools, list):
        raise _invalid_type("tools", "an array", tools)
    for n, tool in enumerate(tools):
        where = f"tools[{n}]"
        if not isinstance(tool, dict):
            raise _invalid_type(where, "an object", tool)
        if tool.get("type") != "function":
            raise _invalid_value(f"{where}.type", tool.get("type"),
                                 ["function", "custom", "web_search"])
        # A chat-completions tool ({type, function: {...}}) lacks the name.
        if not isinstance(tool.get("name"), str):
            raise _missing(f"{where}.name")
        if not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tool["name"]):
            raise Bad(f"Invalid '{where}.name': string does not match "
                      "pattern. Expected a string that matches the pattern "
                      "'^[a-zA-Z0-9_-]+$'.", param=f"{where}.name",
                      code="invalid_value")
        # The SDK's FunctionTool requires strict (a boolean or null):
        # left out, the service may make the schema strict on its own.
        if "strict" not in tool:
            raise _missing(f"{where}.strict")
        if tool["strict"] is not None and not isinstance(tool["strict"],
                                                         bool):
            raise _invalid_type(f"{where}.strict", "a boolean",
                                tool["strict"])
        params = tool.get("parameters")
        if not isinstance(params, dict) or params.get("type") != "object":
            raise Bad(f"Invalid schema for function '{tool['name']}': schema "
                      "must be a JSON Schema of 'type: \"object\"'.",
                      param=f"{where}.parameters",
                      code="invalid_function_parameters")


def _check_reasoning_param(body):
    reasoning = body.get("reasoning")
    if reasoning is None:
        return
    if not isinstance(reasoning, dict):
        raise _invalid_type("reasoning", "an object", reasoning)
    effort = reasoning.get("effort")
    if effort is not None:
        if effort not in EFFORTS:
            raise _invalid_value("reasoning.effort", effort, list(EFFORTS))
        if not is_reasoning_model(body["model"]):
            raise Bad(f"Unsupported parameter: 'reasoning.effort' is not "
                      "supported with this model.", param="reasoning.effort",
                      code="unsupported_parameter")
        refused = REFUSED_EFFORTS.get(body["model"], ())
        if effort in refused:
            allowed = [e for e in EFFORTS if e not in refused]
            raise Bad(f"Unsupported value: '{effort}' is not supported with "
                      f"the '{body['model']}' model. Supported values are: "
                      + ", ".join(f"'{e}'" for e in allowed) + ".",
                      param="reasoning.effort", code="unsupported_value")
    summary = reasoning.get("summary")
    if summary is not None and summary not in SUMMARIES:
        raise _invalid_value("reasoning.summary", summary, list(SUMMARIES))


def validate(headers, raw, api_key):
    """Check a /v1/responses request as the service does; return its body."""
    if headers.get("authorization") != f"Bearer {api_key}":
        raise Bad("Incorrect API key provided", code="invalid_api_key",
                  status=401)
    try:
        body = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise Bad("We could not parse the JSON body of your request. "
                  "(HINT: This likely means you aren't using your HTTP "
                  "library correctly. The OpenAI API expects a JSON payload, "
                  "but what was sent was not valid JSON.)") from None
    if not isinstance(body, dict):
        raise Bad("Invalid type for request body: expected an object, but "
                  f"got {json_type_name(body, 'number')} instead.",
                  code="invalid_type")
    if not isinstance(body.get("model"), str):
        raise _missing("model") if "model" not in body else \
            _invalid_type("model", "a string", body["model"])
    for name in ("messages", "max_tokens", "max_completion_tokens",
                 "stream_options"):
        if name in body:
            raise Bad(f"Unknown parameter: '{name}'.", param=name,
                      code="unknown_parameter")
    if "input" not in body:
        raise _missing("input")
    if not isinstance(body["input"], (str, list)):
        raise _invalid_type("input", "a string or an array", body["input"])
    if "instructions" in body and body["instructions"] is not None and \
            not isinstance(body["instructions"], str):
        raise _invalid_type("instructions", "a string", body["instructions"])
    for name in ("stream", "store"):
        if name in body and not isinstance(body[name], bool):
            raise _invalid_type(name, "a boolean", body[name])
    limit = body.get("max_output_tokens")
    if limit is not None:
        if not isinstance(limit, int) or isinstance(limit, bool):
            raise _invalid_type("max_output_tokens", "an integer", limit)
        if limit < MIN_OUTPUT_TOKENS:
            raise Bad("Invalid 'max_output_tokens': integer below minimum "
                      f"value. Expected a value >= {MIN_OUTPUT_TOKENS}, but "
                      f"got {limit} instead.", param="max_output_tokens",
                      code="integer_below_min_value")
    include = body.get("include", [])
    if not isinstance(include, list) or \
            not all(isinstance(i, str) for i in include):
        raise _invalid_type("include", "an array of strings", include)
    if ENCRYPTED_INCLUDE in include and not is_reasoning_model(body["model"]):
        raise Bad("Encrypted content is not supported with this model.",
                  param="include", code="unsupported_parameter")
    if body.get("tools") is not None:
        _check_tools(body["tools"])
    _check_reasoning_param(body)
    return body


# -- the input items -------------------------------------------------------------

USER_PARTS = ["input_text", "input_image", "input_file"]
ASSISTANT_PARTS = ["output_text", "refusal"]
FAKE_ITEM_RE = re.compile(r"^(?:fc|msg)_fake(\d+)")


def seal(signer, item_id):
    """The encrypted_content of a reasoning item: opaque, and bound to it."""
    return "gAAAAA" + signer.sign(item_id, "reasoning:" + item_id)


def _verify(signer, item_id, content):
    if not isinstance(content, str) or not content.startswith("gAAAAA"):
        return False
    return signer.bound_digest(content[6:], "reasoning:" + item_id) == item_id


def _quote(content):
    text = content if isinstance(content, str) else json.dumps(content)
    return text if len(text) <= 12 else f"{text[:4]}...{text[-4:]}"


def _check_message(item, where):
    role = item.get("role")
    if role not in ("user", "assistant", "system", "developer"):
        raise _invalid_value(f"{where}.role", role,
                             ["assistant", "system", "developer", "user"])
    content = item.get("content")
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise _missing(f"{where}.content") if content is None else \
            _invalid_type(f"{where}.content", "a string or an array", content)
    allowed = ASSISTANT_PARTS if role == "assistant" else USER_PARTS
    for k, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in allowed:
            raise _invalid_value(f"{where}.content[{k}].type", kind, allowed)
        if kind in ("input_text", "output_text") and \
                not isinstance(part.get("text"), str):
            raise _missing(f"{where}.content[{k}].text")
        # The SDK's ResponseOutputText requires annotations.
        if kind == "output_text" and \
                not isinstance(part.get("annotations"), list):
            raise _missing(f"{where}.content[{k}].annotations")


def check_input(body, signer, reasoned):
    """The rules of a stateless tool loop. `reasoned` maps the number of a
    reply the fake sent to the id of the reasoning item it began with."""
    items = body["input"]
    if isinstance(items, str):
        return
    calls, answered, seen = {}, set(), set()
    for i, item in enumerate(items):
        where = f"input[{i}]"
        if not isinstance(item, dict):
            raise _invalid_type(where, "an object", item)
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message":
            _check_message(item, where)
        elif kind == "reasoning":
            if not isinstance(item.get("summary"), list):
                raise _missing(f"{where}.summary")
            rid = item.get("id")
            content = item.get("encrypted_content")
            if content is None:
                raise Bad(f"Item with id '{rid}' not found. Items are not "
                          "persisted when `store` is set to false. Try again "
                          "with `store` set to true, or remove this item "
                          "from your input.", param="input")
            if not _verify(signer, rid, content):
                raise Bad(f"The encrypted content {_quote(content)} could "
                          "not be verified.",
                          code="invalid_encrypted_content")
            nxt = items[i + 1] if i + 1 < len(items) else None
            if not isinstance(nxt, dict) or nxt.get("type", "message") \
                    not in ("message", "function_call") or \
                    nxt.get("role", "assistant") != "assistant":
                raise Bad(f"Item '{rid}' of type 'reasoning' was provided "
                          "without its required following item.",
                          param="input")
            seen.add(rid)
        elif kind == "function_call":
            for key in ("call_id", "name", "arguments"):
                if not isinstance(item.get(key), str):
                    raise _missing(f"{where}.{key}")
            calls[item["call_id"]] = i
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if not isinstance(call_id, str):
                raise _missing(f"{where}.call_id")
            if call_id not in calls:
                raise Bad("No tool call found for function call output with "
                          f"call_id {call_id}.", param="input")
            output = item.get("output")
            if not isinstance(output, (str, list)):
                raise _missing(f"{where}.output")
            for k, part in enumerate(output if isinstance(output, list)
                                     else []):
                kind = part.get("type") if isinstance(part, dict) else None
                if kind not in USER_PARTS:
                    raise _invalid_value(f"{where}.output[{k}].type", kind,
                                         USER_PARTS)
                if kind == "input_image" and not \
                        isinstance(part.get("image_url"), str) and not \
                        isinstance(part.get("file_id"), str):
                    raise _missing(f"{where}.output[{k}].image_url")
            answered.add(call_id)
            continue
        else:
            raise _invalid_value(f"{where}.type", kind,
                                 ["message", "reasoning", "function_call",
                                  "function_call_output"])
        # An output item sent back with its id needs the reasoning item
        # the reply began with.
        found = FAKE_ITEM_RE.match(item.get("id") or "")
        rid = reasoned.get(int(found.group(1))) if found else None
        if rid is not None and rid not in seen:
            raise Bad(f"Item '{item['id']}' of type '{kind}' was provided "
                      f"without its required 'reasoning' item: '{rid}'.",
                      param="input")
    for call_id in calls:
        if call_id not in answered:
            raise Bad(f"No tool output found for function call {call_id}.",
                      param="input")


def cache_view(body):
    """The request as the prompt cache sees it: instructions, tools, then
    each input item, as chat messages are counted."""
    items = body["input"] if isinstance(body["input"], list) else \
        [{"role": "user", "content": body["input"]}]
    head = [{"instructions": body.get("instructions"),
             "tools": body.get("tools")}]
    return {"model": body.get("model"), "messages": head + items}


def reasoning_wanted(body):
    """(reasons, summary, encrypted): what the reply's reasoning item holds."""
    effort = (body.get("reasoning") or {}).get("effort") or \
        DEFAULT_EFFORT.get(body["model"], "medium")
    reasons = is_reasoning_model(body["model"]) and effort != "none"
    summary = (body.get("reasoning") or {}).get("summary") in SUMMARIES
    encrypted = ENCRYPTED_INCLUDE in body.get("include", [])
    return reasons, summary, encrypted


# -- the reply -------------------------------------------------------------------

def output_items(reply, extras):
    """The output items of a reply (fakellm.Reply) in order."""
    n = reply.number
    items = []
    if extras.get("reasons"):
        rid = f"rs_fake{n}"
        item = {"id": rid, "type": "reasoning", "summary": []}
        if extras.get("summary") and reply.thinking:
            item["summary"] = [{"type": "summary_text",
                                "text": reply.thinking}]
        if extras.get("encrypted"):
            item["encrypted_content"] = seal(extras["signer"], rid)
        items.append(item)
    if reply._has_text_block():
        # A refusal is a part of its own in the message ("refusal").
        part = {"type": "refusal", "refusal": reply.text} \
            if reply.stop_reason == "refusal" else \
            {"type": "output_text", "text": reply.text, "annotations": []}
        items.append({"id": f"msg_fake{n}", "type": "message",
                      "status": "completed", "role": "assistant",
                      "content": [part]})
    for k, call in enumerate(reply.calls):
        items.append({"id": f"fc_fake{n}_{k}", "type": "function_call",
                      "status": "completed", "call_id": call["id"],
                      "name": call["name"], "arguments": call["json"]})
    return items


def usage(reply):
    return {"input_tokens": reply.input_tokens,
            "input_tokens_details": {"cached_tokens": reply.cached_tokens},
            "output_tokens": reply.output_tokens,
            "output_tokens_details": {"reasoning_tokens":
                                      len(reply.thinking or "") // 4},
            "total_tokens": reply.input_tokens + reply.output_tokens}


def response_object(reply, extras, body, done=True):
    """The Response object: whole, or as response.created shows it."""
    incomplete = reply.stop_reason == "max_tokens"
    obj = {"id": f"resp_fake{reply.number}", "object": "response",
           "created_at": int(time.time()),
           "status": "in_progress",
           "error": None, "incomplete_details": None,
           "instructions": body.get("instructions"),
           "max_output_tokens": body.get("max_output_tokens"),
           "model": reply.model, "output": [],
           "parallel_tool_calls": True,
           "reasoning": body.get("reasoning") or {"effort": None,
                                                  "summary": None},
           "store": body.get("store", True),
           "tool_choice": body.get("tool_choice", "auto"),
           "tools": body.get("tools") or [], "usage": None}
    if done:
        obj["status"] = "incomplete" if incomplete else "completed"
        if incomplete:
            obj["incomplete_details"] = {"reason": "max_output_tokens"}
        obj["output"] = output_items(reply, extras)
        obj["usage"] = usage(reply)
    return obj


def _pieces(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)]


def events(reply, extras, body):
    """The SSE events of a streamed response, as a list of bytes."""
    out = []

    def event(payload):
        payload["sequence_number"] = len(out)
        out.append(f"event: {payload['type']}\ndata: "
                   f"{json.dumps(payload, ensure_ascii=False)}\n\n"
                   .encode("utf-8"))

    event({"type": "response.created",
           "response": response_object(reply, extras, body, done=False)})
    event({"type": "response.in_progress",
           "response": response_object(reply, extras, body, done=False)})
    for index, item in enumerate(output_items(reply, extras)):
        iid = item["id"]
        where = {"item_id": iid, "output_index": index}
        if item["type"] == "reasoning":
            event({"type": "response.output_item.added",
                   "output_index": index,
                   "item": {"id": iid, "type": "reasoning", "summary": []}})
            for s, part in enumerate(item["summary"]):
                event(dict(where, type="response.reasoning_summary_part."
                           "added", summary_index=s,
                           part={"type": "summary_text", "text": ""}))
                for piece in _pieces(part["text"], reply.delta_chars):
                    event(dict(where, type="response.reasoning_summary_text."
                               "delta", summary_index=s, delta=piece))
                event(dict(where, type="response.reasoning_summary_text."
                           "done", summary_index=s, text=part["text"]))
                event(dict(where, type="response.reasoning_summary_part."
                           "done", summary_index=s, part=part))
        elif item["type"] == "message":
            event({"type": "response.output_item.added",
                   "output_index": index,
                   "item": dict(item, status="in_progress", content=[])})
            part = item["content"][0]
            if part["type"] == "refusal":
                event(dict(where, type="response.content_part.added",
                           content_index=0, part={"type": "refusal",
                                                  "refusal": ""}))
                for piece in _pieces(part["refusal"], reply.delta_chars):
                    event(dict(where, type="response.refusal.delta",
                               content_index=0, delta=piece))
                event(dict(where, type="response.refusal.done",
                           content_index=0, refusal=part["refusal"]))
            else:
                event(dict(where, type="response.content_part.added",
                           content_index=0, part={"type": "output_text",
                                                  "text": "",
                                                  "annotations": []}))
                for piece in _pieces(part["text"], reply.delta_chars):
                    event(dict(where, type="response.output_text.delta",
                               content_index=0, delta=piece, logprobs=[]))
                event(dict(where, type="response.output_text.done",
                           content_index=0, text=part["text"], logprobs=[]))
            event(dict(where, type="response.content_part.done",
                       content_index=0, part=item["content"][0]))
        else:
            event({"type": "response.output_item.added",
                   "output_index": index,
                   "item": dict(item, status="in_progress", arguments="")})
            for piece in _pieces(item["arguments"], reply.json_chars):
                event(dict(where, type="response.function_call_arguments."
                           "delta", delta=piece))
            event(dict(where, type="response.function_call_arguments.done",
                       arguments=item["arguments"]))
        event({"type": "response.output_item.done", "output_index": index,
               "item": item})
    final = response_object(reply, extras, body)
    event({"type": "response.incomplete" if final["status"] == "incomplete"
           else "response.completed", "response": final})
    return out


def error_event(message, err_type):
    """A stream's error event (the stream then ends)."""
    return (b"event: error\ndata: " + json.dumps(
        {"type": "error", "code": err_type, "message": message,
         "param": None, "sequence_number": 0}).encode("utf-8") + b"\n\n")


MALFORMED = (b'event: response.output_text.delta\ndata: {"type":"response.'
             b'output_text.delta","item_id":"msg_x","delt\n\n')
