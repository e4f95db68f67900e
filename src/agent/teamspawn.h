/*
 * Agents join the team (teamspawn.c): a teammate's thread starts.
 */
#ifndef HUDDLE_AGENT_TEAMSPAWN_H
#define HUDDLE_AGENT_TEAMSPAWN_H

struct team;

/* Starts a new teammate's thread (the member exists in the store).
 * Returns 0 or -1 with *err. Safe from any thread. */
int team_launch(struct team *t, const char *name, const char *role,
    char **err);

#endif
