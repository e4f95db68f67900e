/*
 * The history is what an agent sends a model: its stored transcript made
 * valid for the Messages API. Consecutive turns of one role are merged,
 * tool_result blocks lead their user message, empty text blocks and empty
 * messages are dropped, a tool_use that was never answered (a crash in the
 * middle of a tool call) gets an error result, and a long history is cut
 * from the front — only ever before a user message that answers no tool
 * call, so a tool_use is never separated from its tool_result.
 */
#ifndef HUDDLE_AGENT_HISTORY_H
#define HUDDLE_AGENT_HISTORY_H

#include <jansson.h>
#include <stddef.h>

/*
 * Returns a new array of messages built from `transcript` (an array of
 * {role, content} entries, not modified), at most about max_chars of JSON
 * long (0: no limit). The result always starts with a user message; it is
 * empty when the transcript has nothing to say.
 */
json_t *history_build(json_t *transcript, size_t max_chars);

/*
 * Returns the tool_use blocks of the last entry of a transcript when it
 * is an assistant turn whose tool calls have no results yet (a new array,
 * possibly empty).
 */
json_t *history_unanswered(json_t *transcript);

#endif
