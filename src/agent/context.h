/*
 * An agent's context window (context.c): how big it is, how full, and
 * when and how its conversation is compacted to stay inside it.
 */
#ifndef HUDDLE_AGENT_CONTEXT_H
#define HUDDLE_AGENT_CONTEXT_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct agent;
struct llm_result;
struct llm_usage;
struct tool_output;

/*
 * The state of one agent's window (struct agent's win). context_init
 * sets it before the agent's thread starts; the atomics are read by
 * /context (team.c) and /compact sets compact_asked. ctx_known and
 * ctx_mark are owned by the agent's thread.
 */
struct context_window {
	_Atomic int64_t		 window;	/* tokens; 0 when unknown */
	int64_t			 compact_at;	/* compact past this; 0: never */
	atomic_int		 server_compaction; /* the API compacts */
	atomic_int		 compact_asked;	/* /compact */
	atomic_llong		 ctx_tokens;	/* the last count */
	atomic_llong		 last_before;	/* the last compaction */
	atomic_llong		 last_after;
	atomic_llong		 last_at;	/* wall-clock ms */
	atomic_int		 compactions;

	/* Owned by the agent's thread. */
	int64_t			 ctx_known;	/* the last call's count */
	size_t			 ctx_mark;	/* the transcript's length then */
};

/* Sets the agent's window and how it compacts, from its model and the
 * team's options. */
void context_init(struct agent *a);

/* The compaction trigger to give the LLM client (0: none). */
int64_t context_trigger(struct agent *a);

/* The tokens the next request would hold: the last call's count and an
 * estimate of what was appended since. */
int64_t context_tokens(struct agent *a);

/* Records a model call's count (before its reply is recorded). */
void context_counted(struct agent *a, const struct llm_usage *u);

/* Notes a compaction the server did in a reply. */
void context_server_compacted(struct agent *a, const struct llm_usage *u);

/*
 * Compacts on the client when the next request would pass the threshold,
 * when asked (/compact), or when `force` (the API refused a prompt too
 * long; `why` says so). Returns 0 (done, or not needed) or -1 when the
 * summary could not be had (the agent's pane says why).
 */
int context_compact(struct agent *a, int force, const char *why);

/* Learns the window from a refusal that names it ("prompt is too long:
 * N tokens > M maximum", "maximum context length is M tokens") when it is
 * smaller than the one assumed. */
void context_learn_window(struct agent *a, const struct llm_result *r);

/* Forgets, in memory, the entries before the model's view (the store
 * keeps them): a long session's memory does not grow with its rounds. */
void context_trim(struct agent *a);

/* Cuts a tool result larger than a tenth of the window to its head and
 * tail, with a note of what was left out and how to read it. */
void context_cut_result(struct agent *a, struct tool_output *o);

/*
 * Keeps a tool result's images within what one request may carry with
 * the images of the agent's view and of `pending` (this turn's results
 * so far, tool_result blocks): those past it are withheld, their lines
 * saying why (doc/mcp.md, "Images").
 */
void context_fit_images(struct agent *a, json_t *pending,
    struct tool_output *o);

#endif
