/*
 * Whole outputs (teamoutputs.c): a command's output the model sees cut,
 * kept whole in the team's state for the person to read.
 */
#ifndef HUDDLE_AGENT_TEAMOUTPUTS_H
#define HUDDLE_AGENT_TEAMOUTPUTS_H

struct team;

/* The folder whole outputs are kept in (t->home.outputs), made at the
 * team's start, what a killed huddle left half written there removed:
 * 0, or -1 with *err; and a kept output's file, tmp, moved
 * to its name for agent's call id (team_output_path) with the oldest
 * beyond the team's count removed: the path (malloc'd), or NULL with tmp
 * removed. */
int team_outputs_open(struct team *t, char **err);
char *team_output_keep(struct team *t, const char *agent, const char *id,
    const char *tmp);

#endif
