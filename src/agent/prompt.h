/*
 * The system prompts (prompt.c): what each agent is told before its
 * conversation begins.
 */
#ifndef HUDDLE_AGENT_PROMPT_H
#define HUDDLE_AGENT_PROMPT_H

struct agent;
struct team;

/* The system prompt of an agent (malloc'd). */
char *prompt_system(struct team *t, struct agent *a);

#endif
