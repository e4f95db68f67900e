/*
 * How one tool call of an agent runs (tools.c), through the gates that
 * hold whatever the model says.
 */
#ifndef HUDDLE_AGENT_TOOLS_H
#define HUDDLE_AGENT_TOOLS_H

#include <jansson.h>

struct agent;
struct tool_output;

/* Runs one tool call for agent a. Bad input is a tool error. */
void tools_run(struct agent *a, const char *name, json_t *input,
    struct tool_output *out);

#endif
