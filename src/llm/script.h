/*
 * The script provider plays a JSON scenario of model turns instead of
 * calling a model: no network, no key. `huddle --demo` and the tests use
 * it. Each agent (by name, or "*" for any other) has its own list of
 * turns, played in order, one per call; text streams in chunks with
 * optional delays, and tool calls come out as a model's would. The format
 * is described in doc/script.md.
 */
#ifndef HUDDLE_LLM_SCRIPT_H
#define HUDDLE_LLM_SCRIPT_H

#include "util/cancel.h"
#include "llm/llm.h"

struct script;

/* Parses a scenario. Returns NULL with *err on a malformed one. */
struct script *script_parse(const char *json, char **err);

/* Reads and parses a scenario file. */
struct script *script_load(const char *path, char **err);

void script_free(struct script *s);

/*
 * Plays agent's next turn as the reply to req (thread-safe: agents share
 * one script). Delays are cut short by `cancel`. When the agent has no
 * turn left the call fails with an API error saying so. Returns 0 when
 * res->status is LLM_OK, else -1.
 */
int script_play(struct script *s, const char *agent,
    const struct llm_request *req, struct cancel *cancel, llm_event_fn fn,
    void *ud, struct llm_result *res);

#endif
