/*
 * A turn assembles one assistant message from a provider's pieces: text
 * deltas and tool calls whose JSON input arrives in fragments, each keyed
 * by the provider's block index. It reports text and tool starts to the
 * caller's llm_event_fn as they arrive, and at the end builds the
 * Messages-API message {"role":"assistant","content":[…]}, with empty text
 * blocks left out and each tool input parsed (an empty input is {}).
 */
#ifndef HUDDLE_LLM_TURN_H
#define HUDDLE_LLM_TURN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "llm/llm.h"

struct llm_turn;

/* Creates an empty turn reporting to fn/ud (fn may be NULL). */
struct llm_turn *turn_new(llm_event_fn fn, void *ud);
void turn_free(struct llm_turn *t);

/* Appends text to the text block at index (creating it). */
void turn_text(struct llm_turn *t, long index, const char *text, size_t len);

/*
 * Starts a tool_use block at index. When a tool block already exists at
 * that index with a different id, a new block is started (some servers
 * reuse index 0 for parallel calls).
 */
void turn_tool_start(struct llm_turn *t, long index, const char *id,
    const char *name);

/* Appends a fragment of the JSON input of the tool block at index. */
void turn_tool_input(struct llm_turn *t, long index, const char *frag,
    size_t len);

/* Sets a tool block's whole input at once (non-streamed replies). */
void turn_tool_input_json(struct llm_turn *t, long index, json_t *input);

/* Records the stop reason (copied). */
void turn_stop_reason(struct llm_turn *t, const char *reason);

/* Records usage; counts < 0 are left unchanged (the last value wins). */
void turn_usage(struct llm_turn *t, int64_t input_tokens,
    int64_t output_tokens);

/* Number of blocks so far (for tests). */
size_t turn_block_count(const struct llm_turn *t);

/*
 * Moves the finished message, stop reason and usage into res. Returns 0,
 * or -1 with res->status LLM_ERR_PARSE and error_message set when a tool
 * input is not a JSON object.
 */
int turn_finish(struct llm_turn *t, struct llm_result *res);

#endif
