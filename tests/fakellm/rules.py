"""Each model's published rules, as the fake server applies them on the
Anthropic route: which thinking settings it refuses, whether it takes a
thinking budget, sampling parameters or a forced tool choice, what
`thinking.display` defaults to, and whether the words a model writes
between tool calls come back inside thinking blocks.

The table is the fake's own, written from the platform's pages (cited
beside each rule); it never reads huddle's catalog, so a catalog that
says the wrong thing fails the tests. Messages marked "verbatim" are the
pages' own; the others are close approximations (tests match the status
and type, and these words only where verbatim).
"""


class Refusal(Exception):
    """A request the model refuses with 400: the message to send."""


# "Thinking can't be disabled", What's new in Claude Opus 5.5
# (https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5):
# on Opus 5.5 (and Fable 5.1, "the first three also apply") both
# "disabled" and "enabled" are a 400 with these words (verbatim).
ALWAYS_ON = ('"thinking.type.{kind}" is not supported for this model. Use '
             '"thinking.type.adaptive" and "output_config.effort" to control '
             'thinking behavior.')

# "Turn off up-front thinking with between_tools", What's new in Claude
# Sonnet 5.5 (https://platform.claude.com/docs/en/models/sonnet-5-5/
# whats-new-sonnet-5-5): "disabled" is a 400 invalid_request_error whose
# message points to between_tools (the words as a user met them).
USE_BETWEEN_TOOLS = ('"thinking.type.disabled" is not supported for this '
                     'model. Use "between_tools" to turn off up-front '
                     'thinking.')

# "Troubleshooting thinking" (https://platform.claude.com/docs/en/
# build-with-claude/thinking-troubleshooting): extended thinking
# (type "enabled" with budget_tokens) is refused with a 400 on Claude 4.7
# and later; on 4.5 and earlier it is the only mode. Same wording as the
# Opus 5.5 page's.
NO_BUDGET = ALWAYS_ON.format(kind="enabled")

# Approximations.
NOT_ADAPTIVE = ('"thinking.type.adaptive" is not supported for this model. '
                'Use "thinking.type.enabled" with "budget_tokens".')
NOT_BETWEEN_TOOLS = ('"thinking.type.between_tools" is not supported for '
                     'this model.')
FORCED = ('tool_choice: forced tool use ("any" or "tool") is not supported '
          'for this model. Use "auto" or "none".')
# Extended thinking, "Feature compatibility": thinking is not compatible
# with forced tool use (the words as the API has said them).
FORCED_THINKING = "Thinking may not be enabled when tool_choice forces tool use."
SAMPLING = "{name}: sampling parameters are not supported by this model; " \
           "leave them out"
DISPLAY = "thinking.display: Input should be 'summarized' or 'omitted'"


def _rules(off, budget, sampling, forced, display, words, default_on=True,
           adaptive=True):
    return {
        # How up-front thinking is turned off: "disabled",
        # "between_tools", or None (it cannot be).
        "off": off,
        "adaptive": adaptive,      # takes {"type": "adaptive"}
        "budget": budget,          # takes {"type": "enabled", budget_tokens}
        "sampling": sampling,      # takes temperature / top_p / top_k
        "forced": forced,          # takes tool_choice any / tool
        "display": display,        # what thinking.display defaults to
        "words": words,            # words between tool calls in thinking
        "default_on": default_on,  # thinks when the request says nothing
    }


MODELS = {
    # What's new in Claude Opus 5.5 (above): thinking always on; forced
    # tool use returns an error; "text between tool calls comes back in
    # thinking blocks whose text is empty at the default display
    # setting". Sampling: Sonnet 5 and later refuse non-default sampling
    # parameters (Troubleshooting thinking; the Haiku 5.5 page lists it
    # as a breaking change too).
    "claude-opus-5-5": _rules(None, False, False, False, "omitted", True),
    # "The first three also apply on Claude Fable 5.1" (Opus 5.5 page);
    # the models overview lists Fable 5.1 as "Adaptive (always on)".
    "claude-fable-5-1": _rules(None, False, False, False, "omitted", True),
    # Fable 5.2 (released 2026-11-09) is of the same family: always on.
    "claude-fable-5-2": _rules(None, False, False, False, "omitted", True),
    # Introducing Claude Fable 5 and Claude Mythos 5 (https://platform.
    # claude.com/docs/en/models/fable-5/introducing-claude-fable-5-and-
    # claude-mythos-5) and their migration guide: adaptive thinking is the
    # only mode, "disabled" and a budget are 400s, so are non-default
    # sampling parameters; thinking text only when a display asks for it.
    # Always thinking, they take no forced tool choice (Extended thinking,
    # "Feature compatibility", below). Mythos 5 shares Fable 5's
    # specifications (the Fable 5 overview).
    "claude-fable-5": _rules(None, False, False, False, "omitted", False),
    "claude-mythos-5": _rules(None, False, False, False, "omitted", False),
    # What's new in Claude Sonnet 5.5 (above): between_tools instead of
    # disabled ("only Claude Sonnet 5.5 accepts between_tools",
    # Troubleshooting thinking); forced tool use returns an error; text
    # between tool calls comes back in thinking blocks.
    "claude-sonnet-5-5": _rules("between_tools", False, False, False,
                                "omitted", True),
    # What's new in Claude Haiku 5.5 (https://platform.claude.com/docs/en/
    # models/haiku-5-5/whats-new-haiku-5-5) and its migration guide:
    # manual extended thinking and sampling parameters return an error;
    # "thinking text is omitted by default" (set display "summarized");
    # forced tool use and between_tools are not among its changes, and
    # thinking can be turned off with "disabled".
    "claude-haiku-5-5": _rules("disabled", False, False, True, "omitted",
                               False),
    # What's new in Claude Opus 5.5: "On Claude Opus 5, thinking is on by
    # default and thinking: {"type": "disabled"} is accepted at effort
    # high or below." Sonnet 5 likewise (adaptive, disabled accepted; the
    # display default omitted: Opus 4.7 and later).
    "claude-opus-5": _rules("disabled", False, False, True, "omitted", False),
    "claude-sonnet-5": _rules("disabled", False, False, True, "omitted",
                              False),
    # Opus 4.8 and 4.7: adaptive thinking, off unless asked ("thinking is
    # on by default" is among Opus 5's breaking changes for code running
    # on Opus 4.8, the Opus 5 overview) and turned off with "disabled";
    # a budget is refused from 4.7 on (Troubleshooting thinking; the
    # Bedrock model card of Opus 4.7: "thinking.type: adaptive only");
    # the display defaults to "omitted" from Opus 4.7 on. Sampling
    # parameters as on the 5.x models (not confirmed on a page; huddle
    # sends none).
    "claude-opus-4-8": _rules("disabled", False, False, True, "omitted",
                              False, default_on=False),
    "claude-opus-4-7": _rules("disabled", False, False, True, "omitted",
                              False, default_on=False),
    # Troubleshooting thinking: extended thinking is deprecated on the 4.6
    # models (requests using it still succeed); display defaults to
    # "summarized" on Opus 4.6 and earlier. Thinking is off unless asked.
    "claude-opus-4-6": _rules("disabled", True, True, True, "summarized",
                              False, default_on=False),
    "claude-sonnet-4-6": _rules("disabled", True, True, True, "summarized",
                                False, default_on=False),
    # Claude 4.5 and earlier: extended thinking is the only mode (the
    # Opus 4.5 overview: "Thinking: Extended").
    "claude-sonnet-4-5": _rules("disabled", True, True, True, "summarized",
                                False, default_on=False, adaptive=False),
    "claude-opus-4-5": _rules("disabled", True, True, True, "summarized",
                              False, default_on=False, adaptive=False),
    "claude-haiku-4-5": _rules("disabled", True, True, True, "summarized",
                               False, default_on=False, adaptive=False),
}


def rules_for(model):
    """The rules of a model the table knows (a dated id counts as its
    base), or None."""
    if not isinstance(model, str):
        return None
    if model in MODELS:
        return MODELS[model]
    base, _, date = model.rpartition("-")
    if len(date) == 8 and date.isdigit():
        return MODELS.get(base)
    return None


def check(body, rules):
    """Refuses what the model's rules refuse."""
    for name in ("temperature", "top_p", "top_k"):
        if name in body and not rules["sampling"]:
            raise Refusal(SAMPLING.format(name=name))
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if thinking is not None and kind not in (
            "adaptive", "disabled", "enabled", "between_tools"):
        raise Refusal("thinking.type: Input should be 'adaptive', "
                      "'between_tools', 'disabled' or 'enabled'")
    if kind == "disabled" and rules["off"] != "disabled":
        raise Refusal(USE_BETWEEN_TOOLS if rules["off"] == "between_tools"
                      else ALWAYS_ON.format(kind="disabled"))
    if kind == "between_tools" and rules["off"] != "between_tools":
        raise Refusal(NOT_BETWEEN_TOOLS)
    if kind == "enabled" and not rules["budget"]:
        raise Refusal(ALWAYS_ON.format(kind="enabled"))
    if kind == "adaptive" and not rules["adaptive"]:
        raise Refusal(NOT_ADAPTIVE)
    display = thinking.get("display") if isinstance(thinking, dict) else None
    if display is not None and display not in ("summarized", "omitted"):
        raise Refusal(DISPLAY)
    choice = body.get("tool_choice")
    forced = isinstance(choice, dict) and choice.get("type") in ("any",
                                                                  "tool")
    if forced and not rules["forced"]:
        raise Refusal(FORCED)
    if forced and thinks(body, rules):
        raise Refusal(FORCED_THINKING)


def thinks(body, rules):
    """Whether the reply starts with up-front thinking."""
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind in ("disabled", "between_tools"):
        return False
    if kind in ("adaptive", "enabled"):
        return True
    return rules["default_on"]


def between_tools(body):
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and \
        thinking.get("type") == "between_tools"


def shows_thinking(body, rules):
    """Whether thinking blocks carry their text: display "summarized"
    asked for, or the model's default."""
    thinking = body.get("thinking")
    display = thinking.get("display") if isinstance(thinking, dict) else None
    return (display or rules["display"]) == "summarized"


def shows_words(body, rules):
    """Whether the words written between tool calls come back readable.
    With between_tools they come as thinking blocks with their text (the
    Sonnet 5.5 page); otherwise per display."""
    return between_tools(body) or shows_thinking(body, rules)
