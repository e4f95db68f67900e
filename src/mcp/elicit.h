/*
 * A server's question to the person (elicitation/create, form mode): the
 * form shown as text, and the person's answer made the content the
 * server asked for — each field's value typed as its schema says, the
 * schema's defaults for the fields the person left out, and the answer
 * checked against the schema first.
 *
 * A form is a flat object of fields of the primitive kinds the
 * specification allows: string (with minLength, maxLength), number and
 * integer (minimum, maximum), boolean, a single choice (a string "enum",
 * or "oneOf" of {"const", "title"}) and several choices (an "array"
 * whose "items" hold the "enum" or "anyOf"). The person answers either
 * with a JSON object, or with "name=value" pairs separated by ';' or line
 * ends (several choices: values separated by ','); an empty answer takes
 * every default. Pure logic: no I/O.
 */
#ifndef HUDDLE_MCP_ELICIT_H
#define HUDDLE_MCP_ELICIT_H

#include <jansson.h>

/*
 * Whether params (the request's) hold a form huddle can show: 0, or -1
 * with *err (a URL-mode request, a schema that is not a flat object of
 * the kinds above).
 */
int mcp_elicit_check(json_t *params, char **err);

/*
 * The question and its form for the person (malloc'd): the server's
 * message, then one line per field — its name, kind, whether it is
 * required, its choices, its default, its title or description.
 */
char *mcp_elicit_form(json_t *params);

/*
 * The content to accept with (a new object), from the person's answer
 * (NULL or "" takes the defaults), or NULL with *err saying what does
 * not fit the form.
 */
json_t *mcp_elicit_answer(json_t *params, const char *answer, char **err);

#endif
