/*
 * Reading one field of a tool call's input (toolarg.c), for the tools of
 * tools.c and tasktools.c. Nothing outside src/agent/ includes this.
 */
#ifndef HUDDLE_AGENT_TOOLARG_H
#define HUDDLE_AGENT_TOOLARG_H

#include <jansson.h>

struct tool_output;

/*
 * Each returns 0 (a missing optional field leaves *out alone, or NULL
 * for a string), or -1 after setting a tool error the model can act on.
 */
int toolarg_str(json_t *in, const char *key, int required, const char **out,
    struct tool_output *o);
int toolarg_bool(json_t *in, const char *key, int required, int *out,
    struct tool_output *o);
int toolarg_int(json_t *in, const char *key, long *out,
    struct tool_output *o);

#endif
