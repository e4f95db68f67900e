/*
 * An agent's frame (frame.c): what its system prompt and tools hold
 * beyond huddle's own text, kept for --resume.
 */
#ifndef HUDDLE_AGENT_FRAME_H
#define HUDDLE_AGENT_FRAME_H

#include <jansson.h>

struct agent;

/*
 * An agent's frame, owned by its thread: its role's prompt and the
 * instructions (added to its system prompt), the lead's roles text, the
 * names of the tools its role leaves it (NULL: all); and the instruction
 * files it holds, for /context, which the team's lock guards.
 */
struct agent_frame {
	char		*extras;
	char		*roles;
	json_t		*tools;
	char		*sources;
};

/* Builds agent a's frame afresh from the files (a notice when the
 * instructions were cut) and keeps it. For a new conversation, and after
 * a compaction. */
void frame_build(struct agent *a);

/* At the agent's start, its transcript loaded: the frame kept for it
 * when its conversation is bound to one (--resume), else a new one. */
void frame_open(struct agent *a);

/* The tools agent a is given: toolset_for's, narrowed by its frame; for
 * the lead, spawn_teammate's description lists the team's roles. The
 * same for the whole of a's life (the prompt cache needs it). */
json_t *frame_tools(struct agent *a);

/* Whether a's frame offers tool name (all, when it names none). MCP
 * tools come and go with their servers: the role alone decides. */
int frame_offers(struct agent *a, const char *name);

/* Keeps the MCP tools (the definitions, a reference taken) that a's
 * conversation is now bound to, in a->mcp.tools and in its frame's file:
 * a resumed agent is offered them again, ready or not, until its next
 * compaction. */
void frame_keep_mcp(struct agent *a, json_t *tools);

#endif
