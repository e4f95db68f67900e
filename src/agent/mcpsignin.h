/*
 * The person's sign-in to an HTTP MCP server (mcp/oauth.h), put to them
 * as a permission request from huddle (`from: system`) whose body begins
 * with MCPSIGNIN_PREFIX: "sign in: SERVER (scopes)". The lead's model is
 * not told of it and no agent can answer it. Approving it opens the
 * sign-in page with $BROWSER (else xdg-open, else a notice shows its
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
 * to sign in to server name for scopes (may be "") at `url`, huddle's
 * loopback page that sends the browser on to the authorization server's
 * page at `at`; waits for the answer or cancel, withdrawing the request
 * when cancel fires first. Returns 1 (approved: the page was opened, or
 * shown in a notice), 0 (rejected) or -1 (expired, withdrawn), with
 * *why a sentence when not 1.
 */
int mcpsignin_ask(void *ud, const char *name, const char *scopes,
    const char *url, const char *at, struct cancel *cancel, char **why);

/* Withdraws the sign-in requests a previous run left waiting: nothing
 * waits on them any more (a server asks again at its next 401). */
void mcpsignin_recall(struct team *t);

#endif
