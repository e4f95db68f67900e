/*
 * The team's MCP servers as tools of its agents (mcptools.c), and the
 * servers a project's .mcp.json offers (mcpoffers.c).
 */
#ifndef HUDDLE_AGENT_MCPTOOLS_H
#define HUDDLE_AGENT_MCPTOOLS_H

struct mcp_launch;
struct mcp_set;
struct mcpoffers;
struct profile;

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
};

#endif
