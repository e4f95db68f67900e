/*
 * One agent's loop (loop.c): the thread body of the lead and of every
 * teammate.
 */
#ifndef HUDDLE_AGENT_LOOP_H
#define HUDDLE_AGENT_LOOP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/protocol.h"

/* Where an agent's turns stand (struct agent's turn): owned by its
 * thread, set before it starts. */
struct agent_turn {
	char			*task;		/* its first message, kept when
						 * the transcript is trimmed */
	char			*system;	/* its system prompt, fixed */
	json_t			*transcript;
	size_t			 answered;	/* transcript length when the
						 * model last ended a turn */
	int			 errored;	/* last call failed */
	char			*failure;	/* why, for the lead */
	int			 unfinished;	/* the turn was cut short by
					 * --max-rounds: failure says so */
	char			 quit_seen[PROTO_ID_SIZE]; /* the quit's
						 * request, found idle */
	int			 leaving;	/* approved its shutdown */
	int			 pausing;	/* that shutdown was the quit's:
						 * it is kept for --resume */
	char			*leave_reason;
	int			 worked;	/* a turn ran since idle */
	int			 autonomous;	/* takes tasks from the board */
	int64_t			 reminded;	/* the task it was last
						 * reminded of (tasks.c) */
};


/* The thread body of every agent. */
void *loop_main(void *arg);

#endif
