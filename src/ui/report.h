/*
 * A command's report (agent/command.h's CMDF_REPORT commands: /team,
 * /requests, /tasks, /diff, /worktrees, /roles) shown on the screen.
 */
#ifndef HUDDLE_UI_REPORT_H
#define HUDDLE_UI_REPORT_H

#include <jansson.h>

#include "agent/command.h"

struct view;

/* Shows the report `data` of command kind in the view. */
void report_show(struct view *v, enum command_kind kind, json_t *data);

#endif
