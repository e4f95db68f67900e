/*
 * The task board's tools (tasktools.c), as an agent calls them.
 */
#ifndef HUDDLE_AGENT_TASKTOOLS_H
#define HUDDLE_AGENT_TASKTOOLS_H

#include <jansson.h>

#include "agent/toolset.h"

struct agent;
struct tool_output;

/* Runs one of the task board's tools (toolset.h) for agent a. */
void tasktools_run(struct agent *a, enum tool_id id, json_t *in,
    struct tool_output *o);

#endif
