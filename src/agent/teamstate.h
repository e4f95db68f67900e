/*
 * What the team's parts read of it (teamstate.c): its agents by name,
 * the options of its commands, the lead's waits, and the notices of parts
 * that keep the team as their user data.
 */
#ifndef HUDDLE_AGENT_TEAMSTATE_H
#define HUDDLE_AGENT_TEAMSTATE_H

struct agent;
struct bash_options;
struct cancel;
struct profile;
struct team;

/* The running agent called name, or NULL. Its thread may end at any
 * time after; only what the agent struct keeps for its life is safe to
 * read. */
struct agent *team_find(struct team *t, const char *name);

/* The options of a command run for the team (bash, a task's check) in
 * the place of profile p: its working directory, sandbox, timeout and
 * temp dir; `cancel` stops it. */
void team_bash_options(struct team *t, const struct profile *p,
    struct cancel *cancel, struct bash_options *bo);

/* Notes, in the store, that the lead waits for `name`: its next idle
 * notice will be fed to the lead's model. Call it before the message the
 * lead waits on an answer to is sent. Safe from any thread. */
void team_lead_waits(struct team *t, const char *name);

/* A notice on the screen, from a part that keeps the team as its user
 * data (ud): an MCP server stopped or failed. */
void team_on_notice(void *ud, const char *text);

#endif
