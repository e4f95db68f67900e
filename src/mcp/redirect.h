/*
 * The loopback listener of one sign-in: the place the person's browser is
 * sent back to once they signed in (RFC 8252, "Loopback Interface
 * Redirection"). It listens on 127.0.0.1 at a port the kernel picks, for
 * that one sign-in only, and takes the first request whose `state` is the
 * sign-in's, on its callback path exactly: its `code` (or the
 * authorization server's `error`). It also
 * serves, once, the start page that sends the browser on to the
 * authorization server. Anything else that knocks is answered 400 and
 * ignored.
 */
#ifndef HUDDLE_MCP_REDIRECT_H
#define HUDDLE_MCP_REDIRECT_H

#include <stdint.h>

#include "util/cancel.h"

/* The path the browser comes back to. */
#define MCP_REDIRECT_PATH	"/callback"

struct mcp_redirect;

/* Opens the listener, its port bound but refusing connections until
 * mcp_redirect_listen: NULL with *err when it cannot. */
struct mcp_redirect *mcp_redirect_open(char **err);

/* Takes connections from now on (once the person said yes): 0, or -1
 * with *err. */
int mcp_redirect_listen(struct mcp_redirect *r, char **err);

/* Its redirect URI, "http://127.0.0.1:PORT/callback" (the listener's). */
const char *mcp_redirect_uri(const struct mcp_redirect *r);

/* The page that sends the browser on to the authorization URL,
 * "http://127.0.0.1:PORT/start/NONCE": what the person is shown and the
 * browser given, so that the authorization URL's state is never written
 * anywhere else. It answers once. */
const char *mcp_redirect_start_uri(const struct mcp_redirect *r);

/*
 * Waits for the browser's return with `state`, until deadline (monotonic
 * ms) or cancel (may be NULL), sending it on to authorize (the whole
 * authorization URL) when it comes to the start page first. Returns 0
 * with *code (malloc'd), or -1 with *err: the authorization server's
 * error, the time, or the cancel.
 */
int mcp_redirect_wait(struct mcp_redirect *r, const char *authorize,
    const char *state, struct cancel *cancel, int64_t deadline,
    char **code, char **err);

/* Closes the listener (NULL is fine). */
void mcp_redirect_close(struct mcp_redirect *r);

/* The value of parameter name in query ("a=1&b=2", maybe after '?'),
 * percent-decoded (malloc'd), or NULL. */
char *mcp_redirect_param(const char *query, const char *name);

#endif
