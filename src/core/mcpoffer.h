/*
 * The person's answers to the MCP servers a project's .mcp.json offers,
 * remembered per team: by the server's name and its exact configuration
 * (its entry as canonical JSON), so that a server whose entry was edited
 * since is a new question, never covered by an answer given to what it
 * was before.
 */
#ifndef HUDDLE_CORE_MCPOFFER_H
#define HUDDLE_CORE_MCPOFFER_H

#include <jansson.h>

#include "core/store.h"

enum mcpoffer_answer {
	MCPOFFER_NONE = -1,	/* never answered (for this configuration) */
	MCPOFFER_REJECTED = 0,
	MCPOFFER_APPROVED = 1
};

/* A server's configuration as it is remembered (malloc'd): its JSON with
 * keys sorted and no spaces, the same however the file lays it out. */
char *mcpoffer_entry(json_t *config);

/* The answer recorded for server name with this entry. */
enum mcpoffer_answer mcpoffer_get(struct store *s, const char *name,
    const char *entry);

/* Records (or replaces) the answer for name and entry. Returns 0 or -1
 * with *err. */
int mcpoffer_set(struct store *s, const char *name, const char *entry,
    int approved, char **err);

#endif
