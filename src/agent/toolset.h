/*
 * The tools huddle gives its agents, as the models are told of them:
 * each tool's name, who may call it, whether the plan gate holds it, its
 * description and its input schema (toolset.c). How a call runs is
 * tools.c's (the task board's tools tasktools.c's): the definitions sit
 * below everything, so the frame, the roles and the MCP tools read them
 * without calling up to the tools that run. Nothing outside src/agent/
 * includes this.
 */
#ifndef HUDDLE_AGENT_TOOLSET_H
#define HUDDLE_AGENT_TOOLSET_H

#include <jansson.h>

#define FOR_LEAD	0x1
#define FOR_TEAMMATE	0x2
#define FOR_BOTH	(FOR_LEAD | FOR_TEAMMATE)

/* Every tool, by number: tools_run's switch must name each one (the
 * compiler says which it misses). */
enum tool_id {
	TOOL_BASH,
	TOOL_READ_FILE,
	TOOL_WRITE_FILE,
	TOOL_EDIT_FILE,
	TOOL_SEND_MESSAGE,
	TOOL_READ_INBOX,
	TOOL_SPAWN_TEAMMATE,
	TOOL_LIST_TEAMMATES,
	TOOL_BROADCAST,
	TOOL_REQUEST_SHUTDOWN,
	TOOL_REVIEW_PLAN,
	TOOL_SUBMIT_PLAN,
	TOOL_SHUTDOWN_RESPONSE,
	/* The task board's (tasktools.c). */
	TOOL_TASK_CREATE,
	TOOL_TASK_LIST,
	TOOL_TASK_GET,
	TOOL_TASK_CLAIM,
	TOOL_TASK_UPDATE,
	TOOL_TASK_ASSIGN,
	TOOL_COUNT
};

struct tool_def {
	const char	*name;
	unsigned	 who;
	int		 gated;		/* needs an approved plan */
	const char	*description;
	const char	*schema;	/* input_schema, as JSON */
};

/* The tool called name, with its number in *id; NULL when there is
 * none. */
const struct tool_def *toolset_find(const char *name, enum tool_id *id);

/* The tool definitions (name, description, input_schema) for a lead or a
 * teammate, as the API wants them (a new array of its own). */
json_t *toolset_for(int is_lead);

/* Whether huddle has a tool called name (for a role's list of tools). */
int toolset_known(const char *name);

#endif
