/*
 * The task board's tools: task_create, task_list, task_get, task_claim,
 * task_update and task_assign. The board (core/task.h) decides who may do
 * what; these read a call's input, complete a task through its check
 * (tasks.c), and say what came of it in words a model can act on.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/internal.h"
#include "agent/permit.h"
#include "agent/places.h"
#include "agent/tasks.h"
#include "agent/tasktools.h"
#include "agent/teamstate.h"
#include "agent/toolarg.h"
#include "agent/toolset.h"
#include "core/taskboard.h"
#include "tools/tool.h"
#include "util/xmalloc.h"

/* Reads an optional array of task ids into ids (at most max). */
static int
tasktools_ids(json_t *in, const char *key, const char **ids, size_t max,
    size_t *n, struct tool_output *o)
{
	json_t *v = json_object_get(in, key), *e;
	size_t i;

	*n = 0;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return tool_error(o, "field '%s' must be an array of task ids "
		    "such as [\"t1\", \"t2\"]", key);
	if (json_array_size(v) > max)
		return tool_error(o, "field '%s' lists more than %zu tasks",
		    key, max);
	json_array_foreach(v, i, e) {
		if (!json_is_string(e))
			return tool_error(o, "field '%s' must hold task ids "
			    "as strings, such as \"t1\"", key);
		ids[(*n)++] = json_string_value(e);
	}
	return 0;
}

static void
tool_task_create(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *ids[TASK_MAX_BLOCKERS];
	struct task_new n = { NULL, NULL, ids, 0, NULL, NULL };
	struct task k;
	char *err = NULL, *line, *risk;

	if (toolarg_str(in, "subject", 1, &n.subject, o) == -1 ||
	    toolarg_str(in, "description", 0, &n.description, o) == -1 ||
	    tasktools_ids(in, "blocked_by", ids, TASK_MAX_BLOCKERS, &n.nblocked_by,
	    o) == -1 || toolarg_str(in, "verify", 0, &n.verify, o) == -1 ||
	    toolarg_str(in, "worktree", 0, &n.worktree, o) == -1)
		return;
	if (n.worktree != NULL && places_for_tasks(a->team, &err) ==
	    -1) {
		tool_error(o, "not created: %s; leave worktree out", err);
		free(err);
		return;
	}
	if ((err = tasks_check_refused(a, n.verify)) != NULL) {
		tool_error(o, "not created: %s; leave verify out", err);
		free(err);
		return;
	}
	if (taskboard_create(a->team->core.tasks, a->name, &n, &k,
	    &err) == -1) {
		tool_error(o, "not created: %s", err);
		free(err);
		return;
	}
	line = task_line(&k);
	risk = n.verify != NULL && *n.verify != '\0' ? permit_risk(a->team,
	    a->team->home.workdir, n.verify) : NULL;
	tool_ok(o, "created %s%s%s%s%s", line, k.blocked ? "; it becomes ready "
	    "when what it waits for is completed" : "", risk ? "; its check "
	    "waits for the person's permission each time it runs (" : "",
	    risk ? risk : "", risk ? ")" : "");
	free(risk);
	free(line);
	task_clear(&k);
}

/* The most closed tasks task_list shows without a status, and the most
 * of one status. */
#define TASKS_LIST_CLOSED	20
#define TASKS_LIST_MOST		200

static void
tool_task_list(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *name;
	struct task *list;
	size_t n, i, len = 0, cap = 0, shown = 0, closed = 0, skip = 0;
	int status = -1, open;
	char *text = NULL, *line;

	if (toolarg_str(in, "status", 0, &name, o) == -1)
		return;
	if (name != NULL && (status = task_status_parse(name)) < 0) {
		tool_error(o, "status must be pending, in_progress, completed "
		    "or cancelled");
		return;
	}
	n = taskboard_list(a->team->core.tasks, status, &list);
	/* Every open task; of the closed ones (or of one status), the
	 * latest. */
	for (i = 0; i < n; i++)
		closed += list[i].status == TASK_COMPLETED ||
		    list[i].status == TASK_CANCELLED;
	if (status < 0 && closed > TASKS_LIST_CLOSED)
		skip = closed - TASKS_LIST_CLOSED;
	else if (status >= 0 && n > TASKS_LIST_MOST)
		skip = n - TASKS_LIST_MOST;
	text = xappend(text, &len, &cap, "", 0);
	for (i = 0; i < n; i++) {
		open = list[i].status == TASK_PENDING ||
		    list[i].status == TASK_IN_PROGRESS;
		if (skip > 0 && (status >= 0 || !open)) {
			skip--;
			continue;
		}
		line = task_line(&list[i]);
		text = xappend(text, &len, &cap, line, strlen(line));
		if (list[i].status == TASK_PENDING && !list[i].blocked &&
		    !list[i].owner)
			text = xappend(text, &len, &cap, " [ready]", 8);
		text = xappend(text, &len, &cap, "\n", 1);
		free(line);
		shown++;
	}
	if (shown < n) {
		line = xasprintf("(%zu older %s not shown; task_get reads any "
		    "task)\n", n - shown, status < 0 ? "closed tasks" :
		    "tasks");
		text = xappend(text, &len, &cap, line, strlen(line));
		free(line);
	}
	task_free_array(list, n);
	if (n == 0)
		tool_ok(o, "%s", status < 0 ? "the board has no tasks" :
		    "no task has that status");
	else
		tool_ok(o, "%s", text);
	free(text);
}

static void
tool_task_get(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *id;
	struct task k;
	char *text;

	if (toolarg_str(in, "id", 1, &id, o) == -1)
		return;
	if (taskboard_get(a->team->core.tasks, id, &k) == -1) {
		tool_error(o, "there is no task '%s'", id);
		return;
	}
	text = task_render(&k);
	tool_ok(o, "%s", text);
	free(text);
	task_clear(&k);
}

static void
tool_task_claim(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *id;
	struct task k;
	char *err = NULL, *text;
	int rc;

	if (toolarg_str(in, "id", 0, &id, o) == -1)
		return;
	rc = taskboard_claim(a->team->core.tasks, a->name, id, &k, NULL, &err);
	if (rc == -1) {
		tool_error(o, "not claimed: %s", err);
		free(err);
		return;
	}
	if (rc == 0) {
		tool_ok(o, "no task is ready: every pending task waits for "
		    "another or belongs to someone (task_list shows them)");
		return;
	}
	a->turn.reminded = k.num;
	text = task_handover(&k, "claimed by you", "It is yours now and in "
	    "progress.");
	tool_ok(o, "%s", text);
	free(text);
	task_clear(&k);
}

static void
tool_task_update(struct agent *a, json_t *in, struct tool_output *o)
{
	struct task_change c = TASK_CHANGE_NONE;
	const char *ids[TASK_MAX_BLOCKERS], *id, *status;
	struct task k;
	char *err = NULL, *msg = NULL, *line;
	int rc;

	if (toolarg_str(in, "id", 1, &id, o) == -1 ||
	    toolarg_str(in, "status", 0, &status, o) == -1 ||
	    toolarg_str(in, "result", 0, &c.result, o) == -1 ||
	    tasktools_ids(in, "blocked_by", ids, TASK_MAX_BLOCKERS,
	    &c.nblocked_by, o) == -1)
		return;
	c.blocked_by = ids;
	if (status != NULL && (c.status = task_status_parse(status)) < 0) {
		tool_error(o, "status must be pending, in_progress, completed "
		    "or cancelled");
		return;
	}
	/* Completing runs the task's check first. */
	if (c.status == TASK_COMPLETED) {
		if (c.nblocked_by > 0) {
			tool_error(o, "a task being completed waits for "
			    "nothing: leave blocked_by out");
			return;
		}
		rc = tasks_complete(a->team, a, id, c.result, &a->run.cancel,
		    &msg);
		if (rc == -1)
			tool_error(o, "not completed: %s", msg);
		else
			tool_ok(o, "%s", msg);
		free(msg);
		return;
	}
	if (taskboard_update(a->team->core.tasks, a->name, id, &c, &k, &err) ==
	    -1) {
		tool_error(o, "not changed: %s", err);
		free(err);
		return;
	}
	line = task_line(&k);
	tool_ok(o, "%s", line);
	free(line);
	task_clear(&k);
}

static void
tool_task_assign(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *id, *teammate;
	struct task k;
	char *err = NULL, *line;

	if (toolarg_str(in, "id", 1, &id, o) == -1 ||
	    toolarg_str(in, "teammate", 1, &teammate, o) == -1)
		return;
	/* The lead hears when the teammate is done with it. */
	team_lead_waits(a->team, teammate);
	if (taskboard_assign(a->team->core.tasks, a->name, id, teammate, &k,
	    &err) == -1) {
		tool_error(o, "not assigned: %s", err);
		free(err);
		return;
	}
	line = task_line(&k);
	tool_ok(o, "%s; %s was sent the task%s", line, teammate, k.blocked ?
	    " and will be told when it may start" : "");
	free(line);
	task_clear(&k);
}

void
tasktools_run(struct agent *a, enum tool_id id, json_t *in,
    struct tool_output *o)
{
	switch (id) {
	case TOOL_TASK_CREATE:
		tool_task_create(a, in, o);
		break;
	case TOOL_TASK_LIST:
		tool_task_list(a, in, o);
		break;
	case TOOL_TASK_GET:
		tool_task_get(a, in, o);
		break;
	case TOOL_TASK_CLAIM:
		tool_task_claim(a, in, o);
		break;
	case TOOL_TASK_UPDATE:
		tool_task_update(a, in, o);
		break;
	case TOOL_TASK_ASSIGN:
		tool_task_assign(a, in, o);
		break;
	default:
		abort();	/* tools_run sends only the board's tools */
	}
}
