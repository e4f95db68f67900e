/*
 * What an agent lends an MCP server while one of its calls runs
 * (mcp/server.h's struct mcp_caller): the server's questions asked of
 * the person, and the call's progress shown in the agent's pane.
 *
 * A question (elicitation) is a permission request in the person's
 * table, from the calling agent, with body tool "elicitation": the form
 * shown whole in the detail view. Approving it accepts — with the
 * form's defaults, or with the values the person gives as feedback
 * ("name=value; …" or a JSON object); rejecting it declines; a request
 * that expires, is withdrawn or is left when the agent stops cancels.
 * Only the person answers permission requests: an agent never sees the
 * question's answer before the server does, nor can it give one.
 */
#ifndef HUDDLE_AGENT_MCPASK_H
#define HUDDLE_AGENT_MCPASK_H

#include <stdatomic.h>
#include <stdint.h>

#include "mcp/server.h"

struct agent;

/* The tool of a question's permission body. */
#define MCPASK_TOOL "elicitation"

struct mcpask {
	struct mcp_caller	 caller;	/* give &caller to the call */
	struct agent		*agent;
	atomic_llong		 shown_ms;	/* the last progress shown */
	atomic_int		 abandoned;	/* the call is over: a question
						 * still open is cancelled */
};

/* Makes m ready for one call of agent a. */
void mcpask_init(struct mcpask *m, struct agent *a);

#endif
