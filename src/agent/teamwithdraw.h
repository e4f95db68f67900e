/*
 * What a quit withdraws (teamwithdraw.c): the permission requests that
 * wait for the person, named for the next start.
 */
#ifndef HUDDLE_AGENT_TEAMWITHDRAW_H
#define HUDDLE_AGENT_TEAMWITHDRAW_H

struct team;

/* At the quit's start: withdraws the permission requests that wait for
 * the person, and names them for the next start. */
void team_withdraw_pending(struct team *t);

/* At a start: a notice naming the requests the last quit withdrew,
 * once. */
void team_quit_told(struct team *t);

#endif
