/*
 * The person's sign-in to an HTTP MCP server (mcp/oauth.h), put to them
 * as a permission request from huddle (`from: system`) whose body begins
 * with MCPSIGNIN_PREFIX: "sign in: SERVER (scopes) for RESOURCE — the
 * token goes to ORIGIN; …". Neither the lead's model nor a compacted
 * conversation is told of it and no agent can answer it. Approving it
 * opens the sign-in page with $BROWSER (else xdg-open, else a notice shows its
 * address); rejecting it gives the calls that wait a sentence.
 */
#ifndef HUDDLE_AGENT_MCPSIGNIN_H
#define HUDDLE_AGENT_MCPSIGNIN_H

#include "util/cancel.h"

struct team;

/* What starts the body of a sign-in request. */
#define MCPSIGNIN_PREFIX "sign in: "

/*
 * The launch's signin (mcp/transport.h), ud the team: asks the person
 * to sign in to server name (whose origin receives the token) for
 * resource with scopes (may be "") at the authorization server's page
 * `at`; waits for the answer or cancel, withdrawing the request when
 * cancel fires first. Returns 1 (approved), 0 (rejected) or -1
 * (expired, withdrawn), with *why a sentence when not 1.
 */
int mcpsignin_ask(void *ud, const char *name, const char *origin,
    const char *resource, const char *scopes, const char *at,
    struct cancel *cancel, char **why);

/* The launch's open: opens url, huddle's loopback start page, in the
 * person's browser, and says so in a notice; or, when no browser can be
 * opened, shows url in the notice. */
void mcpsignin_open(void *ud, const char *name, const char *url);

/* Withdraws the sign-in requests a previous run left waiting: nothing
 * waits on them any more (a server asks again at its next 401). */
void mcpsignin_recall(struct team *t);

#endif
