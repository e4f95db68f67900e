/*
 * The history is what an agent sends a model: its stored transcript made
 * valid for the Messages API. Consecutive turns of one role are merged,
 * tool_result blocks lead their user message, empty text blocks and empty
 * messages are dropped, a tool_use that was never answered (a crash in the
 * middle of a tool call) gets an error result, and every other block —
 * thinking, redacted thinking, types yet unknown — goes back exactly as it
 * was stored.
 *
 * It is append-only: the history of a transcript with entries appended
 * starts with the history of the transcript before (only its last message
 * may grow, when more user entries join it). Today's models bind each
 * thinking block to everything before it, so nothing that was sent may
 * change; the one deliberate cut is compaction. Nothing is ever left out
 * from the front to fit a window.
 *
 * Compaction moves where the model's view starts; the transcript itself
 * keeps everything. The view starts at the last entry huddle marked
 * compacted (HISTORY_COMPACTED: a user entry with the summary, written by
 * the client), or at the last compaction block the server wrote (the
 * blocks before it in its entry are left out, as the API ignores them),
 * whichever is later. From there on it is append-only again.
 */
#ifndef HUDDLE_AGENT_HISTORY_H
#define HUDDLE_AGENT_HISTORY_H

#include <jansson.h>
#include <stddef.h>

/*
 * Returns a new array of messages built from `transcript` (an array of
 * {role, content} entries, not modified). The result always starts with a
 * user message; it is empty when the transcript has nothing to say.
 */
json_t *history_build(json_t *transcript);

/* The key of a transcript entry that starts a compacted view: {kind,
 * before, after, at} (never sent: messages carry only role and content). */
#define HISTORY_COMPACTED "compaction"

/* The index of the entry the model's view starts at; *block is the
 * index of the server's compaction block in it, or -1. */
size_t history_view_start(json_t *transcript, long *block);

/*
 * Returns the tool_use blocks of the last entry of a transcript when it
 * is an assistant turn whose tool calls have no results yet (a new array,
 * possibly empty).
 */
json_t *history_unanswered(json_t *transcript);

#endif
