/*
 * The threads of the checks the person's /task done starts (teamtasks.c;
 * the person's task commands themselves are team.h's).
 */
#ifndef HUDDLE_AGENT_TEAMTASKS_H
#define HUDDLE_AGENT_TEAMTASKS_H

struct team;

/* Joins the checker threads that have ended; with all set, cancels the
 * others and joins them too (team_free). */
void team_reap_checkers(struct team *t, int all);

#endif
