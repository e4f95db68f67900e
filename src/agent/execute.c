/*
 * Running the input line's commands (command_run in command.h): one
 * executor for the screen and --headless, which only show its result.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/command.h"
#include "agent/team.h"
#include "core/roster.h"
#include "util/xmalloc.h"

/* The most requests /requests reports. */
#define EXECUTE_REQUESTS 40

static void
execute_done(struct command_result *res, int ok, char *msg)
{
	res->outcome = ok ? OUTCOME_DONE : OUTCOME_ERROR;
	res->message = msg;
}

/* /team: the members as they are in one read of the store, and the team's
 * spend summed from that same read (so the figures always add up). */
static json_t *
execute_team(struct team *t)
{
	struct member *m;
	size_t n = roster_list(team_store(t), &m), i;
	json_t *list = json_array(), *report, *o;
	char *sandbox;
	double spent = 0;
	int64_t tokens, window;

	for (i = 0; i < n; i++)
		spent += m[i].cost;
	for (i = 0; i < n; i++) {
		o = json_pack("{s:s, s:s, s:s, s:b, "
		    "s:b, s:I, s:I, s:I, s:I, s:f, s:s}", "name", m[i].name,
		    "role", m[i].role, "status", member_status_name(
		    m[i].status), "plan_required", m[i].plan_required,
		    "plan_approved", m[i].plan_approved, "input_tokens",
		    (json_int_t)m[i].tokens_in, "output_tokens",
		    (json_int_t)m[i].tokens_out, "cache_write_tokens",
		    (json_int_t)m[i].cache_write, "cache_read_tokens",
		    (json_int_t)m[i].cache_read, "cost_usd", m[i].cost,
		    "model", team_model_of(t, &m[i]));
		/* How full its window is, while it runs. */
		if (team_context(t, m[i].name, &tokens, &window) == 0) {
			json_object_set_new(o, "context_tokens",
			    json_integer(tokens));
			json_object_set_new(o, "context_window",
			    json_integer(window));
		}
		json_array_append_new(list, o);
	}
	member_free_array(m, n);
	sandbox = team_sandbox_text(t);
	report = json_pack("{s:o, s:f, s:f, s:s}", "members", list,
	    "team_cost_usd", spent, "max_cost_usd", team_budget(t), "sandbox",
	    sandbox);
	free(sandbox);
	return report;
}

/* /requests: pending first, oldest first, then the latest decided. */
static json_t *
execute_requests(struct team *t)
{
	struct request *r;
	size_t n = protocol_list(team_protocol(t), EXECUTE_REQUESTS, &r), i;
	json_t *list = json_array(), *o;

	for (i = 0; i < n; i++) {
		o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "id", r[i].id,
		    "type", req_type_name(r[i].type), "from", r[i].from, "to",
		    r[i].to, "status", req_status_name(r[i].status), "body",
		    r[i].body ? r[i].body : "");
		if (r[i].decided_by != NULL)
			json_object_set_new(o, "decided_by",
			    json_string(r[i].decided_by));
		team_request_fields(o, &r[i]);
		json_array_append_new(list, o);
	}
	request_free_array(r, n);
	return json_pack("{s:o}", "requests", list);
}

/* /tasks: every task, by id. */
static json_t *
execute_tasks(struct team *t)
{
	struct task *k;
	size_t n = taskboard_list(team_taskboard(t), -1, &k), i;
	json_t *list = json_array();

	for (i = 0; i < n; i++)
		json_array_append_new(list, team_task_json(&k[i]));
	task_free_array(k, n);
	return json_pack("{s:o}", "tasks", list);
}

/* /task add SUBJECT [after IDS]: the ids split at their commas. */
static int
execute_task_add(struct team *t, const struct command *c, char **msg)
{
	const char *ids[TASK_MAX_BLOCKERS + 1];
	char *copy = xstrdup(c->target ? c->target : ""), *p, *save = NULL;
	size_t n = 0;
	int rc;

	for (p = strtok_r(copy, ", ", &save); p != NULL && n < TASK_MAX_BLOCKERS
	    + 1; p = strtok_r(NULL, ", ", &save))
		ids[n++] = p;
	rc = team_task_add(t, c->text, ids, n, c->name, msg);
	free(copy);
	return rc;
}

/* /approve and /reject: the request named, else the selected one. */
static void
execute_decide(struct team *t, const struct command *c, const char *selected,
    struct command_result *res)
{
	const char *target = c->target ? c->target : selected;
	char *msg = NULL;
	enum proto_verdict v;

	if (target != NULL && *target == '\0') {
		execute_done(res, 0, xstrdup("no pending request is selected; "
		    "name one (/requests lists them)"));
		return;
	}
	v = team_decide(t, target, c->kind == CMD_APPROVE, c->text, &msg);
	execute_done(res, v == PROTO_DECIDED, msg);
}

void
command_run(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	const char *name;
	char *msg = NULL;
	int ok;

	memset(res, 0, sizeof *res);
	switch (c->kind) {
	case CMD_SAY:
	case CMD_MSG:
		ok = team_say(t, c->kind == CMD_MSG ? c->name : focus, c->text,
		    &msg) == 0;
		execute_done(res, ok, msg);
		break;
	case CMD_APPROVE:
	case CMD_REJECT:
		execute_decide(t, c, selected, res);
		break;
	case CMD_SHUTDOWN:
		ok = team_request_shutdown(t, c->name, &msg) == 0;
		execute_done(res, ok, ok ? xasprintf("asked %s to shut down",
		    c->name) : msg);
		break;
	case CMD_STOP:
		ok = team_force_stop(t, c->name, &msg) == 0;
		execute_done(res, ok, ok ? xasprintf("stopping %s", c->name) :
		    msg);
		break;
	case CMD_INTERRUPT:
		ok = team_interrupt(t, c->name, &msg) == 0;
		execute_done(res, ok, ok ? xasprintf("interrupting %s",
		    c->name) : msg);
		break;
	case CMD_BUDGET:
		if (c->amount >= 0)
			team_set_budget(t, c->amount);
		execute_done(res, 1, team_budget_text(t));
		break;
	case CMD_COMPACT:
		name = c->name ? c->name : focus ? focus : ROSTER_LEAD;
		ok = team_compact(t, name, &msg) == 0;
		execute_done(res, ok, ok ? xasprintf("compacting %s's "
		    "conversation", name) : msg);
		break;
	case CMD_CONTEXT:
		name = c->name ? c->name : focus ? focus : ROSTER_LEAD;
		msg = team_context_text(t, name);
		execute_done(res, msg != NULL, msg != NULL ? msg :
		    xasprintf("no running member is called '%s'", name));
		break;
	case CMD_TASK_ADD:
		ok = execute_task_add(t, c, &msg) == 0;
		execute_done(res, ok, msg);
		break;
	case CMD_TASK_ASSIGN:
		ok = team_task_assign(t, c->target, c->name, &msg) == 0;
		execute_done(res, ok, msg);
		break;
	case CMD_TASK_DONE:
		ok = team_task_done(t, c->target, &msg) == 0;
		execute_done(res, ok, msg);
		break;
	case CMD_TASK_CANCEL:
	case CMD_TASK_REOPEN:
		ok = team_task_move(t, c->target, c->kind == CMD_TASK_CANCEL ?
		    TASK_CANCELLED : TASK_PENDING, &msg) == 0;
		execute_done(res, ok, msg);
		break;
	case CMD_TASKS:
		res->outcome = OUTCOME_TASKS;
		res->data = execute_tasks(t);
		break;
	case CMD_DIFF:
		if ((res->data = team_diff(t, c->name, &msg)) != NULL)
			res->outcome = OUTCOME_DIFF;
		else
			execute_done(res, 0, msg);
		break;
	case CMD_MERGE:
		ok = team_merge(t, c->name, &msg) == 0;
		execute_done(res, ok, msg);
		break;
	case CMD_DISCARD:
		ok = team_discard(t, c->name, c->text != NULL, &msg) == 0;
		execute_done(res, ok, msg);
		break;
	case CMD_WORKTREES:
		res->outcome = OUTCOME_WORKTREES;
		res->data = team_worktrees(t);
		break;
	case CMD_TEAM:
		res->outcome = OUTCOME_TEAM;
		res->data = execute_team(t);
		break;
	case CMD_REQUESTS:
		res->outcome = OUTCOME_REQUESTS;
		res->data = execute_requests(t);
		break;
	case CMD_BAD:
		execute_done(res, 0, xstrdup(c->error));
		break;
	case CMD_EMPTY:
	case CMD_ZOOM:
	case CMD_HELP:
	case CMD_QUIT:
		res->outcome = OUTCOME_FRONT;
		break;
	}
}

void
command_result_clear(struct command_result *res)
{
	free(res->message);
	json_decref(res->data);
	memset(res, 0, sizeof *res);
}
