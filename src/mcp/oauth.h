/*
 * Signing in to an MCP server over HTTP, as the specification's
 * authorization page describes it (2025-11-25, with the 2025-03-26
 * fallbacks): an OAuth 2.1 client of the server's authorization server.
 *
 * When the server answers 401 (or 403 insufficient_scope), huddle finds
 * its protected resource metadata (RFC 9728: the WWW-Authenticate
 * header's resource_metadata, else the well-known paths, path-based
 * first), the authorization server's metadata (RFC 8414, then OpenID
 * discovery), a client (pre-registered in the person's settings, a
 * client ID metadata document, or dynamic registration, RFC 7591, in
 * that order), and asks the person to sign in: the authorization code
 * flow with PKCE (S256), the `resource` parameter (RFC 8707) and the
 * scopes the specification chooses. The code comes back to a loopback
 * listener (redirect.h); the tokens go to the person's store (tokens.h)
 * and into the Authorization header of later requests, refreshed shortly
 * before they end and before the person is asked again.
 *
 * Nothing here talks to the person: the one who lends the server its
 * launch (transport.h, `signin` and `open`) does. Tokens, codes, verifiers and
 * states never leave this file but in the requests to the servers and
 * the store; no error names them.
 */
#ifndef HUDDLE_MCP_OAUTH_H
#define HUDDLE_MCP_OAUTH_H

#include <jansson.h>
#include <stdatomic.h>

#include "util/cancel.h"

struct mcp_launch;
struct mcp_oauth;

/* How long the person's browser may take to come back once they said
 * yes, and how many times one exchange may sign in again for more
 * scopes. */
#define MCP_OAUTH_BROWSER_MS	300000
#define MCP_OAUTH_STEP_UPS	2

/* The longest token put into a header. */
#define MCP_OAUTH_TOKEN_MAX	8192

/*
 * Server name's sign-in state, for its configuration (its "url", and the
 * "oauth" object of the person's settings: "clientId", "clientSecret",
 * "clientMetadataUrl"), reaching the person through launch (may be NULL:
 * nobody can be asked). Tokens stored before for its URL are taken up.
 */
struct mcp_oauth *mcp_oauth_new(const char *name, json_t *config,
    const struct mcp_launch *launch);
void mcp_oauth_free(struct mcp_oauth *o);

/* The header line to send, "Authorization: Bearer …" (malloc'd), or
 * NULL when there is no token (yet). */
char *mcp_oauth_header(struct mcp_oauth *o);

/*
 * The server answered status (401, or 403 with insufficient_scope) with
 * the WWW-Authenticate header www (may be NULL): gets a token worth
 * trying again with — a refreshed one, or the person's sign-in (asked
 * through the launch, waiting as long as they take: *asking is raised
 * meanwhile and the time added to *asked_ms, so that the request's clock
 * stands still). step_ups is how many times this exchange has asked for
 * more scopes already. Returns 0 to try again, or -1 with *err, a
 * sentence that names no secret.
 */
int mcp_oauth_answer(struct mcp_oauth *o, long status, const char *www,
    int step_ups, struct cancel *cancel, atomic_int *asking,
    atomic_llong *asked_ms, char **err);

/* Before a request: refreshes a token about to end (within 30 s) when
 * it can, so that the request need not meet a 401. Says nothing when it
 * cannot. */
void mcp_oauth_prepare(struct mcp_oauth *o, struct cancel *cancel);

/* What /mcp says of the sign-in (malloc'd), or NULL when the server
 * never asked for one. */
char *mcp_oauth_text(struct mcp_oauth *o);

/* Forgets the server's tokens, in memory and in the store, and a refusal
 * of the person's. Returns 1 when there was a sign-in to forget. */
int mcp_oauth_logout(struct mcp_oauth *o);

/* --- the pure parts, for tests --------------------------------------- */

/* The value of auth-param name of the Bearer challenge in a
 * WWW-Authenticate header (malloc'd), or NULL. */
char *mcp_oauth_challenge(const char *www, const char *name);

/* Where to look for the protected resource metadata of server url, in
 * order: from (the header's resource_metadata; may be NULL), then the
 * path-based well-known URL, then the root one. A new array. */
json_t *mcp_oauth_prm_urls(const char *url, const char *from);

/* Where to look for the metadata of authorization server issuer, in
 * order (RFC 8414 section 3.1, then OpenID discovery). A new array. */
json_t *mcp_oauth_as_urls(const char *issuer);

/* The scopes to ask for (malloc'd), or NULL to leave scope out: the
 * challenge's, else the resource's scopes_supported (an array; may be
 * NULL); offline_access added when the authorization server lists it
 * (as_supported; may be NULL) and some scope is asked for. */
char *mcp_oauth_scopes(const char *challenge, json_t *prm_supported,
    json_t *as_supported);

/* Whether the protected resource metadata's resource may stand for
 * server url: the same origin, and url's path beneath its path. */
int mcp_oauth_resource_ok(const char *resource, const char *url);

/* The S256 code challenge of verifier: base64url without padding of its
 * SHA-256 (43 characters and a NUL in out). */
void mcp_oauth_s256(const char *verifier, char out[44]);

/* Whether url may carry a code, a secret or a token: https, or http
 * to this machine (localhost, 127.0.0.0/8, [::1]), without a user and
 * without a space or control character. Every URL of a sign-in is held
 * to it: the server's, the metadata's and the endpoints'. */
int mcp_oauth_url_ok(const char *url);

/* Whether the issuer got in an authorization server's metadata is the
 * issuer want it was fetched for (RFC 8414 section 3.3; a trailing
 * slash aside). */
int mcp_oauth_issuer_ok(const char *got, const char *want);

/* Whether the metadata's code_challenge_methods_supported (may be NULL)
 * lists S256, without which the specification forbids a sign-in. */
int mcp_oauth_pkce_ok(json_t *methods);

/* Whether token may go into a header: RFC 6750's b64token, at most
 * MCP_OAUTH_TOKEN_MAX characters. */
int mcp_oauth_token_ok(const char *token);

/* The scope-tokens of scopes (RFC 6749 section 3.3) separated by one
 * space, others left out (malloc'd), or NULL when none is left. */
char *mcp_oauth_scope_clean(const char *scopes);

/* At most max bytes of s with all but printable ASCII as '?'
 * (malloc'd): what a server says, fit for an error. */
char *mcp_oauth_printable(const char *s, size_t max);

/* When a token given at now for expires_in seconds ends (0: unsaid),
 * its life capped at ten years. */
json_int_t mcp_oauth_expiry(json_int_t now, json_int_t expires_in);

/* How to authenticate at the token endpoint: "client_secret_basic",
 * "client_secret_post" or "none", from what the authorization server
 * supports (an array; NULL: RFC 8414's default, basic) and whether the
 * client has a secret. */
const char *mcp_oauth_auth_method(json_t *supported, int has_secret);

#endif
