/*
 * A bare team for the unit tests of the agent layer's lower files: a
 * struct team (agent/internal.h) with only its store, bus, protocol
 * engine, task board, event queue, locks, options and a working folder,
 * in temporary folders. No thread runs, no model is called, no sandbox
 * is set up: a test adds what its file needs (agents, a netgate, a
 * sandbox) and the fixture frees what it made.
 */
#ifndef HUDDLE_TESTS_AGENTFIX_H
#define HUDDLE_TESTS_AGENTFIX_H

#include "agent/internal.h"
#include "testutil.h"

struct agentfix {
	struct tu_team	 tu;		/* store, bus, protocol, board; the
					 * members lead, alice and bob */
	struct team	 team;		/* points at tu's parts */
	char		*workdir;	/* canonical; empty at first */
};

/* Opens the bare team: the store's members, the default options and
 * risk policy, the sandbox on (nothing confines yet). */
void af_open(struct agentfix *f);

/* An agent of the team, as the spawn would make it but with no thread:
 * its name, role, empty transcript and cancel token; listed in the team
 * (team_find sees it). name must be a member of the store. */
struct agent *af_agent(struct agentfix *f, const char *name);

/* Takes every queued event (event_free_list). */
struct event *af_events(struct agentfix *f);

/* How many of the events in list are of type (and about agent, unless
 * agent is NULL); the last of them in *last when last is not NULL. */
size_t af_count(struct event *list, enum event_type type, const char *agent,
    struct event **last);

/* Waits, up to a deadline of 10 s, for a pending request of type to
 * `to` and copies its id; fails the test when none comes. Safe from any
 * thread that is not the one that will ask. */
void af_wait_request(struct agentfix *f, enum req_type type, const char *to,
    char id[PROTO_ID_SIZE]);

/* Frees the agents, the events, the roles, what af_open made, and the
 * folders. */
void af_close(struct agentfix *f);

#endif
