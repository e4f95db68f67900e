/*
 * The network gate: the team's side of huddle's proxy (tools/proxy.h).
 * Each command gets a pass — proxy credentials of its own, given to it in
 * HTTP_PROXY and friends — so that the proxy knows which agent asks. The
 * first connection of a command to a host:port the team has not allowed
 * becomes a permission request in the person's table ("network:
 * HOST:PORT"); the person allows it once (for that command), for the
 * whole team (approving with the word NETGATE_TEAM as feedback), or
 * denies it. Allowed for the team, the host is open to every command
 * at once, those already waiting on a request of their own included.
 * What the team allowed is read back from the stored decisions when the
 * team is resumed.
 */
#ifndef HUDDLE_AGENT_NETGATE_H
#define HUDDLE_AGENT_NETGATE_H

#include <stddef.h>

#include "core/protocol.h"

/* The feedback that approves a network request for the whole team. */
#define NETGATE_TEAM "team"

/* What starts the body of a network request. */
#define NETGATE_PREFIX "network: "

struct netgate;
struct netgate_pass;

/*
 * Starts the proxy and listens to proto's decisions (call before any
 * thread runs). Hosts approved for the team in the stored requests are
 * allowed again. `local` holds the nlocal "host:port" entries the person
 * lets lead to this machine or its link (--allow-local; never from the
 * project's settings): without one the proxy refuses those addresses
 * before anyone is asked. Returns NULL with *err.
 */
struct netgate *netgate_open(struct protocol *proto,
    const char *const *local, size_t nlocal, char **err);

/* The proxy's TCP port on 127.0.0.1 (0 for NULL). */
int netgate_port(const struct netgate *g);

/*
 * A pass for one command of agent `agent` (NULL when g is NULL). Its
 * environment sets HTTP_PROXY, HTTPS_PROXY, their lower-case twins, npm's
 * and pip's, and empties NO_PROXY. End it when the command has ended.
 */
struct netgate_pass *netgate_pass_new(struct netgate *g, const char *agent);

/* Says what the pass is for in its network requests ("for MCP server
 * memory", say), after the method. NULL p is ignored. */
void netgate_pass_label(struct netgate *g, struct netgate_pass *p,
    const char *label);

/* Whether a connection of pass p waits for the person's answer now (0
 * for NULL). */
int netgate_pass_asking(struct netgate *g, const struct netgate_pass *p);

/* The pass's "NAME=value" entries, NULL-terminated (NULL for NULL). */
const char *const *netgate_pass_env(const struct netgate_pass *p);

/* Ends a pass: its connections still waiting are refused and their
 * requests withdrawn; later connections with it are refused. NULL is
 * ignored. */
void netgate_pass_end(struct netgate *g, struct netgate_pass *p);

/* Whether `body` is a network request's; then its "host:port" is copied
 * to out (size bytes). */
int netgate_target(const char *body, char *out, size_t size);

/*
 * Withdraws the network requests an approval for the whole team made
 * moot: others asked for the same host:port, whose connections went on
 * when it was given. The protocol's listener, where the approval is
 * heard, may not decide requests, so whoever decided one calls this
 * after. NULL is ignored.
 */
void netgate_withdraw_moot(struct netgate *g);

/* How many host:port the whole team may reach without asking. */
size_t netgate_team_allowed(struct netgate *g);

/* Stops the proxy (ending every connection) and frees the gate. Call
 * after every thread that runs commands has ended. NULL is ignored. */
void netgate_close(struct netgate *g);

#endif
