/*
 * The definitions of huddle's tools (see toolset.h): the contract with
 * the models, one table.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/toolset.h"

static const struct tool_def toolset_defs[TOOL_COUNT] = {
	[TOOL_BASH] = { "bash", FOR_BOTH, 1,
	  "Run a shell command (/bin/sh -c) in the working directory. Output "
	  "and exit status come back; long output is cut. Every process the "
	  "command starts, in the background or not, is stopped when it ends. "
	  "Risky commands wait for the person's permission.",
	  "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":"
	  "\"string\",\"description\":\"the command line\"}},"
	  "\"required\":[\"command\"]}" },
	[TOOL_READ_FILE] = { "read_file", FOR_BOTH, 0,
	  "Read a text file inside the working directory: at most 256 KiB "
	  "a call; offset and limit page through a longer one.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	  "\"offset\":{\"type\":\"integer\",\"description\":\"the first "
	  "line to read, from 1\"},"
	  "\"limit\":{\"type\":\"integer\",\"description\":\"read at most "
	  "this many lines\"}},\"required\":[\"path\"]}" },
	[TOOL_WRITE_FILE] = { "write_file", FOR_BOTH, 1,
	  "Create or replace a file inside the working directory.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	  "\"content\":{\"type\":\"string\"}},\"required\":[\"path\","
	  "\"content\"]}" },
	[TOOL_EDIT_FILE] = { "edit_file", FOR_BOTH, 1,
	  "Replace one exact occurrence of old_text by new_text in a file.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	  "\"old_text\":{\"type\":\"string\"},\"new_text\":{\"type\":"
	  "\"string\"}},\"required\":[\"path\",\"old_text\",\"new_text\"]}" },
	[TOOL_SEND_MESSAGE] = { "send_message", FOR_BOTH, 0,
	  "Send a message to a member of the team (\"lead\" or a teammate's "
	  "name).",
	  "{\"type\":\"object\",\"properties\":{\"to\":{\"type\":\"string\"},"
	  "\"content\":{\"type\":\"string\"}},\"required\":[\"to\","
	  "\"content\"]}" },
	[TOOL_READ_INBOX] = { "read_inbox", FOR_BOTH, 0,
	  "Take the messages that arrived since your last model call now.",
	  "{\"type\":\"object\",\"properties\":{}}" },
	[TOOL_SPAWN_TEAMMATE] = { "spawn_teammate", FOR_LEAD, 0,
	  "Start a teammate: an agent with its own thread that begins on your "
	  "prompt. With plan_required it must have a plan approved before it "
	  "may run commands or change files. With autonomous, whenever it is "
	  "idle it claims the next ready task of the task board and works on "
	  "it.",
	  "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
	  "\"description\":\"lowercase, e.g. alice\"},\"role\":{\"type\":"
	  "\"string\"},\"prompt\":{\"type\":\"string\",\"description\":\"the "
	  "task\"},\"plan_required\":{\"type\":\"boolean\"},"
	  "\"autonomous\":{\"type\":\"boolean\",\"description\":\"it "
	  "takes tasks from the board when idle\"},\"isolation\":{\"type\":"
	  "\"string\",\"enum\":[\"none\",\"worktree\"],\"description\":"
	  "\"worktree: it works on a git branch of its own\"},\"base\":{"
	  "\"type\":\"string\",\"description\":\"the commit or branch its "
	  "worktree starts from (default HEAD)\"},\"model\":{"
	  "\"type\":\"string\",\"description\":\"a model id; leave it out "
	  "for the team's default\"}},"
	  "\"required\":[\"name\",\"role\",\"prompt\"]}" },
	[TOOL_LIST_TEAMMATES] = { "list_teammates", FOR_LEAD, 0,
	  "List the teammates with their roles and statuses.",
	  "{\"type\":\"object\",\"properties\":{}}" },
	[TOOL_BROADCAST] = { "broadcast", FOR_LEAD, 0,
	  "Send a message to every live teammate.",
	  "{\"type\":\"object\",\"properties\":{\"content\":{\"type\":"
	  "\"string\"}},\"required\":[\"content\"]}" },
	[TOOL_REQUEST_SHUTDOWN] = { "request_shutdown", FOR_LEAD, 0,
	  "Ask a teammate to finish up and stop. It answers with a "
	  "shutdown_response carrying the same request_id.",
	  "{\"type\":\"object\",\"properties\":{\"teammate\":{\"type\":"
	  "\"string\"},\"reason\":{\"type\":\"string\"}},"
	  "\"required\":[\"teammate\"]}" },
	[TOOL_REVIEW_PLAN] = { "review_plan", FOR_LEAD, 0,
	  "Approve or reject a teammate's plan (a plan_approval_request), "
	  "with feedback.",
	  "{\"type\":\"object\",\"properties\":{\"request_id\":{\"type\":"
	  "\"string\"},\"approve\":{\"type\":\"boolean\"},\"feedback\":"
	  "{\"type\":\"string\"}},\"required\":[\"request_id\","
	  "\"approve\"]}" },
	[TOOL_SUBMIT_PLAN] = { "submit_plan", FOR_TEAMMATE, 0,
	  "Submit your plan for approval and wait for the decision.",
	  "{\"type\":\"object\",\"properties\":{\"plan\":{\"type\":\"string\","
	  "\"description\":\"the numbered steps you will take\"}},"
	  "\"required\":[\"plan\"]}" },
	[TOOL_SHUTDOWN_RESPONSE] = { "shutdown_response", FOR_TEAMMATE, 0,
	  "Answer a shutdown_request: approve (after wrapping up) to stop, or "
	  "refuse with a reason. Use the request's request_id.",
	  "{\"type\":\"object\",\"properties\":{\"request_id\":{\"type\":"
	  "\"string\"},\"approve\":{\"type\":\"boolean\"},\"reason\":"
	  "{\"type\":\"string\"}},\"required\":[\"request_id\","
	  "\"approve\"]}" },
	/* The task board's. */
	[TOOL_TASK_CREATE] = { "task_create", FOR_BOTH, 0,
	  "Add a task to the team's task board. blocked_by lists the tasks "
	  "that must be completed before it can start. verify is a shell "
	  "command that must exit 0 before the task counts as completed; "
	  "one the risk policy flags waits for the person's permission each "
	  "time it runs. "
	  "worktree names a git worktree (on branch huddle/NAME, made from "
	  "the person's HEAD when first needed) the task is done in: whoever "
	  "holds the task works there, one teammate at a time, and the "
	  "person reviews and merges it; tasks that build on each other can "
	  "share one.",
	  "{\"type\":\"object\",\"properties\":{\"subject\":{\"type\":"
	  "\"string\",\"description\":\"a few words on what is to be done\"},"
	  "\"description\":{\"type\":\"string\"},\"blocked_by\":{\"type\":"
	  "\"array\",\"items\":{\"type\":\"string\"},\"description\":\"task "
	  "ids such as t1\"},\"verify\":{\"type\":\"string\"},\"worktree\":"
	  "{\"type\":\"string\",\"description\":\"a name such as "
	  "parser-fix: a-z, 0-9, _ and -\"}},"
	  "\"required\":[\"subject\"]}" },
	[TOOL_TASK_LIST] = { "task_list", FOR_BOTH, 0,
	  "List the tasks of the board (optionally of one status) with their "
	  "owners and what they wait for; [ready] marks those anyone may "
	  "claim.",
	  "{\"type\":\"object\",\"properties\":{\"status\":{\"type\":"
	  "\"string\",\"enum\":[\"pending\",\"in_progress\",\"completed\","
	  "\"cancelled\"]}}}" },
	[TOOL_TASK_GET] = { "task_get", FOR_BOTH, 0,
	  "Read one task whole: its description, result and check.",
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},"
	  "\"required\":[\"id\"]}" },
	[TOOL_TASK_CLAIM] = { "task_claim", FOR_TEAMMATE, 0,
	  "Take a task: the one named, or without an id the next ready one "
	  "(yours first, then the lowest id). It becomes yours and in "
	  "progress; no one else can take it.",
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":"
	  "\"string\"}}}" },
	[TOOL_TASK_UPDATE] = { "task_update", FOR_BOTH, 0,
	  "Change a task you own (the lead: any task). status completed "
	  "finishes it (after its check passes), pending gives it back, "
	  "cancelled (lead) drops it; result says what was done. The lead "
	  "may add tasks to wait for with blocked_by.",
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
	  "\"status\":{\"type\":\"string\",\"enum\":[\"pending\","
	  "\"in_progress\",\"completed\",\"cancelled\"]},\"result\":{"
	  "\"type\":\"string\"},\"blocked_by\":{\"type\":\"array\",\"items\":"
	  "{\"type\":\"string\"}}},\"required\":[\"id\"]}" },
	[TOOL_TASK_ASSIGN] = { "task_assign", FOR_LEAD, 0,
	  "Give a task to a teammate: it is sent the task and owns it.",
	  "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
	  "\"teammate\":{\"type\":\"string\"}},\"required\":[\"id\","
	  "\"teammate\"]}" },
};

const struct tool_def *
toolset_find(const char *name, enum tool_id *id)
{
	size_t i;

	for (i = 0; i < TOOL_COUNT; i++) {
		if (strcmp(toolset_defs[i].name, name) == 0) {
			if (id != NULL)
				*id = (enum tool_id)i;
			return &toolset_defs[i];
		}
	}
	return NULL;
}

json_t *
toolset_for(int is_lead)
{
	const struct tool_def *d;
	json_t *list = json_array();
	size_t i;

	/* Built afresh for each call: a JSON value shared between agent
	 * threads would race on its reference count. */
	for (i = 0; i < TOOL_COUNT; i++) {
		json_t *schema;

		d = &toolset_defs[i];
		if (!(d->who & (is_lead ? FOR_LEAD : FOR_TEAMMATE)))
			continue;
		if ((schema = json_loads(d->schema, 0, NULL)) == NULL)
			abort();	/* a typo in the table above */
		json_array_append_new(list, json_pack("{s:s, s:s, s:o}", "name",
		    d->name, "description", d->description, "input_schema",
		    schema));
	}
	return list;
}

int
toolset_known(const char *name)
{
	return toolset_find(name, NULL) != NULL;
}
