/*
 * The team's MCP servers, and their tools as models see them: each tool
 * T of server S is offered as "mcp__S__T", with the characters a model
 * API refuses in a tool name (anything but letters, digits, '_' and '-')
 * made '_' and the whole cut to 64 bytes. The name is worked out again
 * from the server's list whenever it is needed, so a call finds its tool
 * by the same rule that named it.
 */
#ifndef HUDDLE_MCP_SET_H
#define HUDDLE_MCP_SET_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/server.h"

/* The longest tool name model APIs take. */
#define MCP_NAME_MAX	64

struct mcp_set;

/*
 * The servers of `servers` (name -> configuration, the shape of
 * .mcp.json's "mcpServers"; NULL or {}: none). Nothing starts yet.
 * Returns NULL with *err naming a server whose configuration is unusable.
 */
struct mcp_set *mcp_set_new(json_t *servers, const struct mcp_launch *launch,
    mcp_notice_fn notice, void *ud, char **err);

/*
 * Adds server name (configuration as mcp_set_new's; copied) to the set,
 * noting where it came from (origin, for /mcp; may be NULL). Agents see
 * it from their next listing. Returns 0, or -1 with *err for a name
 * taken already or a configuration it cannot use.
 */
int mcp_set_add(struct mcp_set *set, const char *name, json_t *config,
    const char *origin, const struct mcp_launch *launch,
    mcp_notice_fn notice, void *ud, char **err);

/* The "mcpServers" object of the JSON file at path (.mcp.json's shape),
 * a new reference; NULL with *err naming the file. */
json_t *mcp_set_load(const char *path, char **err);

/* Stops every server and frees the set (NULL is fine). */
void mcp_set_free(struct mcp_set *set);

/* How many servers there are. */
size_t mcp_set_count(struct mcp_set *set);

/* Starts every server not started yet, in the background, all at once
 * (mcp_server_start); returns at once. */
void mcp_set_start(struct mcp_set *set);

/* Waits until no server is starting, or until deadline (monotonic ms).
 * Returns how many are ready. */
size_t mcp_set_wait(struct mcp_set *set, int64_t deadline);

/*
 * The tools of the servers named in `only` (NULL-terminated; NULL: all)
 * as a model request lists them: {"name", "description",
 * "input_schema"}, appended to `list`: those of the servers ready now.
 * A server not started yet is started in the background; nobody waits
 * for it.
 */
void mcp_set_tools(struct mcp_set *set, const char *const *only,
    json_t *list);

/*
 * The server and tool an offered name stands for, among the servers of
 * `only` (as above). Returns the server, with the tool's own name in
 * *tool (malloc'd), or NULL.
 */
struct mcp_server *mcp_set_find(struct mcp_set *set, const char *const *only,
    const char *name, char **tool);

/* The name tool T of server S is offered as (out holds MCP_NAME_MAX+1). */
void mcp_set_tool_name(const char *server, const char *tool,
    char out[MCP_NAME_MAX + 1]);

/* Whether a name is an MCP tool's ("mcp__…"). */
int mcp_set_is_tool_name(const char *name);

/* Whether `allow` (an array of "mcp__S__T" or "mcp__S__*" names) lets
 * the tool offered as name, of server `server`, run without asking. */
int mcp_set_allowed(json_t *allow, const char *server, const char *name);

/* Server name of the set, or NULL. It lives as long as the set. */
struct mcp_server *mcp_set_get(struct mcp_set *set, const char *name);

/* What /mcp shows: every server, its state and tools (malloc'd). */
char *mcp_set_text(struct mcp_set *set);

#endif
