/*
 * A turn assembles one assistant message from a provider's pieces, each
 * keyed by the provider's block index, and keeps every block exactly as
 * the model sent it: today's models sign their thinking, and a thinking
 * block must go back unchanged, in its place, on the next request.
 *
 * Text and thinking arrive as deltas; tool calls as an id and name and
 * then their JSON input in fragments. Blocks of any other type (redacted
 * thinking, types yet unknown) are kept as their start event gave them,
 * with string deltas appended to the field of the same name. Text,
 * thinking and tool starts are reported to the caller's llm_event_fn as
 * they arrive. At the end the turn builds the Messages-API message
 * {"role":"assistant","content":[…]}, in the order the blocks began, with
 * empty text blocks left out and each tool input parsed (empty is {}).
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

/*
 * On a model that puts the words it writes between tool calls in thinking
 * blocks: each thinking block is reported when it ends, as text when a
 * tool call follows it (those are the words), else as thinking.
 */
void turn_words_in_thinking(struct llm_turn *t, int on);

/* Appends text to the text block at index (creating it). */
void turn_text(struct llm_turn *t, long index, const char *text, size_t len);

/* Appends to the thinking text of the thinking block at index (creating
 * it), and to its signature. */
void turn_thinking(struct llm_turn *t, long index, const char *text,
    size_t len);
void turn_signature(struct llm_turn *t, long index, const char *sig,
    size_t len);

/*
 * Starts a block at index from the block the stream announced (copied):
 * text and tool_use blocks go to turn_text/turn_tool_start, any other
 * type is kept whole. A non-streamed reply passes each finished block
 * here too.
 */
void turn_block(struct llm_turn *t, long index, json_t *block);

/*
 * Applies a delta of a type the provider does not interpret to the block
 * at index: each string field other than "type" is appended to the
 * block's field of the same name. Unknown deltas for a block that does
 * not exist are ignored.
 */
void turn_block_delta(struct llm_turn *t, long index, json_t *delta);

/*
 * Appends reasoning text from an OpenAI-compatible server (`field` is the
 * name it used: "reasoning_content" or "reasoning"). It becomes one block
 * {"type":"reasoning","field":…,"reasoning":…} at the front of the
 * message, so it can be sent back with the message's tool calls.
 */
void turn_reasoning(struct llm_turn *t, const char *field, const char *text,
    size_t len);

/* Reports a piece of the model's thinking that belongs to no block of
 * its own (a reasoning summary kept inside a block the provider made). */
void turn_report_thinking(struct llm_turn *t, const char *text, size_t len);

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

/* Adds a streamed citation (a citations_delta's) to the text block at
 * index. */
void turn_citation(struct llm_turn *t, long index, json_t *citation);

/* Marks the reply a refusal, whatever stop reason is recorded: a
 * provider that says so beside the reason (OpenAI's "refusal" text). */
void turn_refused(struct llm_turn *t);

/* Records usage: each count >= 0 replaces the one held (the API's counts
 * are cumulative); counts < 0 are left unchanged. */
void turn_usage(struct llm_turn *t, const struct llm_usage *u);

/* Number of blocks so far (for tests). */
size_t turn_block_count(const struct llm_turn *t);

/*
 * Moves the finished message, stop reason and usage into res. Returns 0,
 * or -1 with res->status LLM_ERR_PARSE and error_message set when a tool
 * input is not a JSON object.
 */
int turn_finish(struct llm_turn *t, struct llm_result *res);

#endif
