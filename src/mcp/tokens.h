/*
 * The person's sign-ins to MCP servers, kept between runs: one JSON file
 * in the person's own state (doc/mcp.md, "Servers that sign in"), mode
 * 0600, an entry per server keyed by the server's URL. An entry holds
 * the tokens the server's authorization server gave and the client huddle
 * used to get them (its id, and its secret when it has one), so that a
 * token can be refreshed without asking again. Nothing else of huddle
 * reads the file; commands cannot (it is among the stores the sandbox
 * hides, src/tools/hidden.c).
 */
#ifndef HUDDLE_MCP_TOKENS_H
#define HUDDLE_MCP_TOKENS_H

#include <jansson.h>

/* The store's file name beneath the person's state directory. */
#define MCP_TOKENS_FILE	"mcp-auth.json"

/* Server url's entry in the store at path: a new reference, or NULL
 * when there is none (or no readable store: mcp_tokens_put then refuses
 * to write over it). */
json_t *mcp_tokens_get(const char *path, const char *url);

/* As mcp_tokens_get, telling the cases apart: 1 with *entry (a new
 * reference), 0 when the store has none, -1 when there is no readable
 * store at path (a file that is not one, or cannot be read). */
int mcp_tokens_find(const char *path, const char *url, json_t **entry);

/*
 * Sets server url's entry to entry (not stolen), or removes it (entry
 * NULL). The file is written whole, mode 0600, through a temporary file
 * renamed over it, under a lock that other huddles honour. Returns 0, or
 * -1 with *err.
 */
int mcp_tokens_put(const char *path, const char *url, json_t *entry,
    char **err);

/*
 * As mcp_tokens_put, but only while url's entry still holds the access
 * token was (NULL: whatever it holds): returns 1 without writing when it
 * holds another, or none. A store that cannot be read (but for there
 * being none) is never written over: -1 with *err.
 */
int mcp_tokens_swap(const char *path, const char *url, json_t *entry,
    const char *was, char **err);

/* Waits for the lock under which one refresh at a time is made of the
 * sign-ins in the store at path, among every huddle and thread: its
 * descriptor for mcp_tokens_unlock, or -1 (go on without it). */
int mcp_tokens_lock_refresh(const char *path);
void mcp_tokens_unlock(int fd);

#endif
