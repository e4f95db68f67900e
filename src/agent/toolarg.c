/*
 * Reading one field of a tool call's input (see toolarg.h), with an
 * error the model can act on when it is missing or of the wrong type.
 */
#include "config.h"

#include "agent/toolarg.h"
#include "tools/tool.h"

int
toolarg_str(json_t *in, const char *key, int required, const char **out,
    struct tool_output *o)
{
	json_t *v = json_object_get(in, key);

	*out = NULL;
	if (v == NULL || json_is_null(v)) {
		if (required)
			return tool_error(o, "missing required field '%s' "
			    "(a string)", key);
		return 0;
	}
	if (!json_is_string(v))
		return tool_error(o, "field '%s' must be a string", key);
	*out = json_string_value(v);
	return 0;
}

int
toolarg_bool(json_t *in, const char *key, int required, int *out,
    struct tool_output *o)
{
	json_t *v = json_object_get(in, key);

	if (v == NULL || json_is_null(v)) {
		if (required)
			return tool_error(o, "missing required field '%s' "
			    "(true or false)", key);
		return 0;
	}
	if (!json_is_boolean(v))
		return tool_error(o, "field '%s' must be true or false", key);
	*out = json_is_true(v);
	return 0;
}

int
toolarg_int(json_t *in, const char *key, long *out, struct tool_output *o)
{
	json_t *v = json_object_get(in, key);

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return tool_error(o, "field '%s' must be a whole number >= 0",
		    key);
	*out = (long)json_integer_value(v);
	return 0;
}
