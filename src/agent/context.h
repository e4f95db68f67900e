/*
 * An agent's context window (context.c): how big it is, how full, and
 * when and how its conversation is compacted to stay inside it.
 */
#ifndef HUDDLE_AGENT_CONTEXT_H
#define HUDDLE_AGENT_CONTEXT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
