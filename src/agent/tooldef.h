/*
 * What a table of tools is made of, shared by the general tools
 * (tools.c) and the task board's (tasktools.c): each tool's name, who may
 * call it, whether the plan gate holds it, how it runs, its description
 * and input schema; and the readers of a call's input. Nothing outside
 * src/agent/ includes this.
 */
#ifndef HUDDLE_AGENT_TOOLDEF_H
#define HUDDLE_AGENT_TOOLDEF_H

#include <jansson.h>
#include <stddef.h>

struct agent;
struct tool_output;

#define FOR_LEAD	0x1
#define FOR_TEAMMATE	0x2
#define FOR_BOTH	(FOR_LEAD | FOR_TEAMMATE)

typedef void (*tool_fn)(struct agent *a, json_t *in, struct tool_output *o);

struct tool_def {
	const char	*name;
	unsigned	 who;
	int		 gated;		/* needs an approved plan */
	tool_fn		 run;
	const char	*description;
	const char	*schema;	/* input_schema, as JSON */
};

/* The task board's tools (tasktools.c). */
extern const struct tool_def task_tool_defs[];
extern const size_t task_tool_count;

/*
 * Read one field of a call's input. Each returns 0 (a missing optional
 * field leaves *out alone, or NULL for a string), or -1 after setting a
 * tool error the model can act on.
 */
int tools_arg_str(json_t *in, const char *key, int required, const char **out,
    struct tool_output *o);
int tools_arg_bool(json_t *in, const char *key, int required, int *out,
    struct tool_output *o);
int tools_arg_int(json_t *in, const char *key, long *out,
    struct tool_output *o);

/* Whether teammate a must still get its plan approved. */
int tools_plan_blocks(struct agent *a);

#endif
