/*
 * The person's answers to the MCP servers a project's .mcp.json offers,
 * remembered per team: by the server's name and a digest of its exact
 * configuration, so that a server whose entry was edited since is a new
 * question, never covered by an answer given to what it was before.
 */
#ifndef HUDDLE_CORE_MCPOFFER_H
#define HUDDLE_CORE_MCPOFFER_H

#include <jansson.h>

#include "core/store.h"

/* 64 hex digits and a NUL. */
#define MCPOFFER_DIGEST_SIZE	65

enum mcpoffer_answer {
	MCPOFFER_NONE = -1,	/* never answered (for this configuration) */
	MCPOFFER_REJECTED = 0,
	MCPOFFER_APPROVED = 1
};

/* The digest of a server's configuration: SHA-256 of its JSON with keys
 * sorted and no spaces, so the same entry digests the same however the
 * file lays it out. */
void mcpoffer_digest(json_t *config, char out[MCPOFFER_DIGEST_SIZE]);

/* The answer recorded for server name with this digest. */
enum mcpoffer_answer mcpoffer_get(struct store *s, const char *name,
    const char *digest);

/* Records (or replaces) the answer for name and digest. Returns 0 or -1
 * with *err. */
int mcpoffer_set(struct store *s, const char *name, const char *digest,
    int approved, char **err);

#endif
