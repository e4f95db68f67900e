#!/usr/bin/env python3
"""The model catalog against the providers' SDKs: the official SDKs list
the model ids their providers serve, and a model they list that the
catalog lacks runs unpriced (--max-cost cannot count it) and with
guessed limits. This test lists both differences:

* the ids the SDKs know that the catalog lacks: Anthropic's `Model`
  union (@anthropic-ai/sdk, resources/messages/messages.d.ts) and
  OpenAI's `ChatModel` and `ResponsesModel` unions (openai,
  resources/shared.d.ts), read from the installed .d.ts files;
* the catalog's ids no SDK knows (for information: a provider may serve
  a model before its SDK names it).

A dated snapshot (claude-x-20250101, gpt-5.4-2026-03-05) counts as its
base id where the catalog lists that, as huddle looks it up. An id the
catalog lacks fails the test unless EXCLUDED below names it (or its base)
with the reason: models retired or being retired, those no stored page
of the provider gives figures for (the catalog takes no figure from
elsewhere), and specialised ones huddle is not for. The list is checked
too: an exclusion the SDKs no longer list, or the catalog now has, is
stale and fails, and so does an id the catalog files under the other
provider.

The SDKs are the pinned ones of package.json (sdkinstall.py, shared with
sdktypes.py); without node or npm the test is skipped (status 77).
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sdkinstall import MODULES, install_sdks, versions  # noqa: E402

TOP_SRCDIR = os.environ.get("top_srcdir", ".")

# Where each provider's SDK spells its model ids: (file, type names).
UNIONS = {
    "anthropic": ("@anthropic-ai/sdk/resources/messages/messages.d.ts",
                  ("Model",)),
    "openai": ("openai/resources/shared.d.ts",
               ("ChatModel", "ResponsesModel")),
}

DATE = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")


def _every(reason, *ids):
    """Each of ids with the same reason."""
    return {i: reason for i in ids}


# The SDKs' ids the catalog leaves out, each with why (checked
# 2026-11-28). An id stands for its dated snapshots too. The shutdown
# dates are those the SDKs' own comments give ("Deprecated values",
# openai resources/shared.d.ts; DEPRECATED_MODELS, @anthropic-ai/sdk
# internal/data/deprecated-models.ts).
EXCLUDED = {}
# -- Anthropic --
# Served by invitation only (verification programmes), and no stored page
# gives what the catalog needs: the Pricing page lists Mythos 5.1's rates
# ($10/$50, cache read $0.25) but no page its window or output; Amazon
# Bedrock's model card gives Mythos 5.2's window and output (1M, 128K,
# the model of Fable 5.2) but no page its prices.
EXCLUDED.update(_every("by invitation only; no stored page gives its "
                       "window and output", "claude-mythos-5-1"))
EXCLUDED.update(_every("by invitation only; no stored page gives its "
                       "prices", "claude-mythos-5-2"))
# Retired.
EXCLUDED.update(_every("retired: end of life June 30th, 2026 (the SDK's "
                       "deprecation table)", "claude-mythos-preview"))
# -- OpenAI: current, but no page of OpenAI's stored gives its prices --
# GPT-6.2 Astra: the Models page gives $8/$40, 1.05M, 128K and efforts
# low to max, but its own page (the cached input, the long-context band)
# is not stored; huddle gives it the rules of gpt-6-astra, its family's.
EXCLUDED.update(_every("no stored OpenAI page gives its cached-input price "
                       "and long-context band", "gpt-6.2-astra"))
EXCLUDED.update(_every("no stored OpenAI page gives its figures (only "
                       "resellers' pages)", "gpt-5.5", "gpt-5.4-mini"))
EXCLUDED.update(_every("deprecated, shutdown 2027-04-01; no stored OpenAI "
                       "page gives its figures", "gpt-5.4-nano"))
# -- OpenAI: deprecated, shutdown ahead --
EXCLUDED.update(_every("deprecated, shutdown 2026-12-11", "gpt-5",
                       "gpt-5-mini", "gpt-5-nano", "o3"))
EXCLUDED.update(_every("deprecated, shutdown 2027-01-14", "gpt-4.1",
                       "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini"))
EXCLUDED.update(_every("deprecated, shutdown 2027-04-01", "gpt-5.1"))
EXCLUDED.update(_every("deprecated, shutdown 2027-01-20; an audio model",
                       "gpt-audio-mini"))
# -- OpenAI: shut down --
EXCLUDED.update(_every("shut down 2026-10-23", "gpt-4.1-nano", "o4-mini",
                       "o3-mini", "o1", "gpt-4-turbo", "gpt-4-1106-preview",
                       "gpt-4", "gpt-4-0613", "gpt-3.5-turbo",
                       "gpt-3.5-turbo-0125"))
EXCLUDED.update(_every("shut down 2026-09-28", "gpt-3.5-turbo-1106"))
EXCLUDED.update(_every("shut down 2026-08-10", "gpt-5.3-chat-latest",
                       "gpt-5.2-chat-latest"))
EXCLUDED.update(_every("shut down 2026-07-23", "gpt-5.1-codex",
                       "gpt-5.1-chat-latest", "gpt-5-chat-latest",
                       "gpt-4o-search-preview",
                       "gpt-4o-mini-search-preview"))
EXCLUDED.update(_every("shut down 2026-05-07; an audio model",
                       "gpt-4o-audio-preview", "gpt-4o-mini-audio-preview"))
EXCLUDED.update(_every("shut down 2026-03-26", "gpt-4-0125-preview",
                       "gpt-4-turbo-preview", "gpt-4-0314"))
EXCLUDED.update(_every("shut down 2026-02-17", "chatgpt-4o-latest"))
EXCLUDED.update(_every("shut down 2026-02-12", "codex-mini-latest"))
EXCLUDED.update(_every("shut down 2025-10-27", "o1-mini"))
EXCLUDED.update(_every("shut down 2025-07-28", "o1-preview"))
EXCLUDED.update(_every("shut down 2025-06-06", "gpt-4-32k", "gpt-4-32k-0314",
                       "gpt-4-32k-0613"))
EXCLUDED.update(_every("shut down 2024-12-06", "gpt-4-vision-preview"))
EXCLUDED.update(_every("shut down 2024-09-13", "gpt-3.5-turbo-16k",
                       "gpt-3.5-turbo-0301", "gpt-3.5-turbo-0613",
                       "gpt-3.5-turbo-16k-0613"))
EXCLUDED.update(_every("shut down (its model page says so)", "gpt-5-codex"))
EXCLUDED.update(_every("not a supported model id (the SDK keeps it for "
                       "compatibility)", "gpt-5.1-mini"))
# -- OpenAI: older generations the SDK still lists, superseded by GPT-5.4
# and later and off the Models page's list --
EXCLUDED.update(_every("an older generation (GPT-5.2, GPT-5.1), superseded; "
                       "no page read", "gpt-5.2", "gpt-5.1-codex-max"))
# -- OpenAI: Responses-only high-compute tiers, research and tool models
# huddle's agents are not for (no page of theirs read) --
EXCLUDED.update(_every("a Responses-only pro tier of many times the price; "
                       "no page read", "gpt-5.5-pro", "gpt-5.2-pro",
                       "gpt-5-pro", "o3-pro", "o1-pro"))
EXCLUDED.update(_every("a deep-research model, not a coding agent's",
                       "o3-deep-research", "o4-mini-deep-research"))
EXCLUDED.update(_every("the computer-use tool's model",
                       "computer-use-preview"))
# -- OpenAI: specialised models behind access programmes --
EXCLUDED.update(_every("a cybersecurity model for trusted-access "
                       "organisations", "gpt-5.6-cyber", "gpt-6-cyber"))
EXCLUDED.update(_every("a life-sciences research model (the Models page's "
                       "specialised models)", "gpt-rosalind-research",
                       "gpt-6-rosalind"))
EXCLUDED.update(_every("a model for legal work", "gpt-6.2-astra-law"))
EXCLUDED.update(_every("no page of OpenAI's describes it; the SDK lists it "
                       "among the Responses-only models",
                       "gpt-daybreak-blue-latest",
                       "gpt-daybreak-red-latest"))


def sdk_ids(provider):
    """The model ids the provider's installed SDK lists, in its order."""
    path, types = UNIONS[provider]
    with open(os.path.join(MODULES, path)) as f:
        text = f.read()
    out = []
    for name in types:
        m = re.search(r"export type %s = (.*?);\n" % name, text, re.S)
        if m is None:
            print("FAIL: %s: no type %s in %s" % (provider, name, path))
            sys.exit(1)
        out += [i for i in re.findall(r"'([^']+)'", m.group(1))
                if i not in out]
    return out


def catalog():
    """{id or alias: the catalog entry} of data/models.json."""
    with open(os.path.join(TOP_SRCDIR, "data", "models.json")) as f:
        models = json.load(f)["models"]
    out = {}
    for m in models:
        for i in [m["id"]] + m.get("aliases", []):
            out[i] = m
    return out


def base(mid):
    """id without a snapshot date at its end."""
    return DATE.sub("", mid)


def main():
    install_sdks("catalog")
    print("catalog: %s" % versions())
    cat = catalog()
    failures = 0
    known = set()
    for provider in sorted(UNIONS):
        ids = sdk_ids(provider)
        listed, missing, left = [], [], []
        for i in ids:
            entry = cat.get(i) or cat.get(base(i))
            known.update((i, base(i)))
            if entry is not None:
                listed.append(i)
                if entry.get("provider", "anthropic") != provider:
                    print("FAIL: %s: the catalog files %s under %s"
                          % (provider, i, entry.get("provider")))
                    failures += 1
            elif i in EXCLUDED or base(i) in EXCLUDED:
                left.append(i)
            else:
                missing.append(i)
        print("catalog: %s: the SDK lists %d ids, %d in the catalog (%s)"
              % (provider, len(ids), len(listed), " ".join(listed)))
        for i in missing:
            print("FAIL: %s: %s is in the SDK but not in the catalog (add "
                  "it from the provider's pages, or exclude it with the "
                  "reason)" % (provider, i))
        failures += len(missing)
        for i in left:
            print("catalog: %s: left out: %s: %s"
                  % (provider, i, EXCLUDED.get(i) or EXCLUDED[base(i)]))
    for i in sorted(EXCLUDED):
        if i not in known:
            print("FAIL: %s is excluded, but no SDK lists it any more "
                  "(drop the exclusion)" % i)
            failures += 1
        elif i in cat:
            print("FAIL: %s is excluded, but the catalog has it (drop the "
                  "exclusion)" % i)
            failures += 1
    unknown = sorted({m["id"] for m in cat.values()} - known)
    print("catalog: ids the SDKs do not know: %s"
          % (" ".join(unknown) if unknown else "none"))
    print("catalog: %s" % ("%d failures" % failures if failures else
                           "every model the SDKs list is in the catalog "
                           "or left out with its reason"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
