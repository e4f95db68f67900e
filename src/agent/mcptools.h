/*
 * The team's MCP servers as tools of its agents (mcptools.c), and the
 * servers a project's .mcp.json offers (mcpoffers.c).
 */
#ifndef HUDDLE_AGENT_MCPTOOLS_H
#define HUDDLE_AGENT_MCPTOOLS_H

#include <jansson.h>

struct agent;
struct mcp_launch;
struct mcp_set;
struct mcpoffers;
struct profile;
struct team;
struct tool_output;

/*
 * The team's MCP servers (struct team's mcp): made by mcptools_open
 * when the team opens and freed by mcptools_close, each NULL when there
 * are none. No team lock guards them: the set locks inside.
 */
struct mcptools {
	struct mcp_set		*set;
	struct mcp_launch	*launch;	/* how a stdio server starts */
	struct profile		*profile;	/* the servers' sandbox */
	struct mcpoffers	*offers;	/* a project's .mcp.json
						 * (mcpoffers.c); NULL: none */
	char			*tokens;	/* the person's store of
						 * sign-ins (mcp/tokens.h) */
};

/*
 * One agent's MCP part (struct agent's mcp), owned by its thread: the
 * servers it may use (NULL-terminated; NULL: all), and the tools its
 * requests list, fixed until its next compaction (at: the count of
 * compactions then).
 */
struct agent_mcp {
	char			**servers;
	json_t			*tools;
	int			 at;
};

/* Makes the team's MCP servers from its options (none start yet).
 * Returns 0 or -1 with *err. */
int mcptools_open(struct team *t, char **err);

/* Stops the servers. */
void mcptools_close(struct team *t);

/* Appends the MCP tools agent a may call to list (a model request's
 * tools); a server not started yet starts now. */
void mcptools_list(struct agent *a, json_t *list);

/* Agent a's whole tool list: frame_tools's and the MCP tools, the latter
 * as they were at its first request since its last compaction. Called
 * from a's thread only. */
json_t *mcptools_for(struct agent *a);

/* Runs MCP tool `name` ("mcp__S__T") for a: asks the person unless the
 * settings allow it, then calls it. */
void mcptools_run(struct agent *a, const char *name, json_t *input,
    struct tool_output *out);

#endif
