/*
 * One agent's loop (loop.c): the thread body of the lead and of every
 * teammate.
 */
#ifndef HUDDLE_AGENT_LOOP_H
#define HUDDLE_AGENT_LOOP_H

/* The thread body of every agent. */
void *loop_main(void *arg);

#endif
