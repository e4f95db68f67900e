/*
 * What an agent keeps of itself (agent.c): its status, its errors, its
 * transcript, its inbox taken into the transcript, its spend, and its
 * waits on a request's decision.
 */
#ifndef HUDDLE_AGENT_AGENT_H
#define HUDDLE_AGENT_AGENT_H

#include <jansson.h>
#include <stdatomic.h>

#include "core/roster.h"

struct agent;
struct llm_usage;
struct request;

/* Sets the agent's status in the store and tells the front end. */
void agent_set_status(struct agent *a, enum member_status status,
    const char *detail);

/* Takes the inbox into the transcript now (read_inbox). Returns the
 * number of messages the model will see. */
int agent_take_inbox(struct agent *a);

/* Takes the inbox into the transcript; between_turns says the agent is
 * not in a turn. Returns the number recorded; *wakes (when not NULL) gets
 * how many of them ask for an answer: not the answer to a permission the
 * agent asked for, which its tool call already had (read between turns,
 * it is left over from a turn the person interrupted). */
int agent_drain(struct agent *a, int between_turns, int *wakes);

/* The agent cannot go on until a new message comes: shows why (stolen)
 * and keeps it for the idle notice to the lead. */
void agent_fail(struct agent *a, char *why);

/*
 * Blocks until request `id` is decided, the agent is stopped, or — when
 * early is set — other messages arrive. Returns the request (free it), or
 * NULL when the agent was stopped.
 */
struct request *agent_await(struct agent *a, const char *id, int early);

/* agent_await that also gives up (NULL) once *give_up is set and the
 * agent's inbox woken (bus_wake). */
struct request *agent_await_or(struct agent *a, const char *id,
    atomic_int *give_up);

/* Shows an error in the agent's pane (and the log). */
void agent_error(struct agent *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Stores a transcript entry (stolen) and keeps it in memory. Returns 0,
 * or -1 with the agent failed. */
int agent_record(struct agent *a, json_t *entry);

/* Adds a call's usage and its price to the agent's sums. */
void agent_count_usage(struct agent *a, const struct llm_usage *u);

/* Frees an agent whose thread has ended (or never started). */
void agent_free(struct agent *a);

/* Whether teammate a must still get its plan approved. */
int agent_plan_blocks(struct agent *a);

#endif
