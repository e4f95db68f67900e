/*
 * Running the input line's commands (execute_command in command.h): one
 * executor for the screen and --headless, which only show its result.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/command.h"
#include "agent/team.h"
#include "core/roster.h"
#include "core/taskboard.h"
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
execute_team_report(struct team *t)
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
execute_requests_report(struct team *t)
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
		event_request_fields(o, &r[i]);
		json_array_append_new(list, o);
	}
	request_free_array(r, n);
	return json_pack("{s:o}", "requests", list);
}

/* /tasks: every task, by id. */
static json_t *
execute_tasks_report(struct team *t)
{
	struct task *k;
	size_t n = taskboard_list(team_taskboard(t), -1, &k), i;
	json_t *list = json_array();

	for (i = 0; i < n; i++)
		json_array_append_new(list, event_task_json(&k[i]));
	task_free_array(k, n);
	return json_pack("{s:o}", "tasks", list);
}

/* The executor's part of one command (COMMAND_LIST names them). */
typedef void execute_fn(struct team *t, const struct command *c,
    const char *focus, const char *selected, struct command_result *res);

/* The report of a CMDF_REPORT command. */
static void
execute_report(struct command_result *res, json_t *data)
{
	res->outcome = OUTCOME_REPORT;
	res->data = data;
}

/* /team, /requests, /tasks, /worktrees. */
static void
execute_team(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	(void)c, (void)focus, (void)selected;
	execute_report(res, execute_team_report(t));
}

/* /roles: the roles read when the team opened (agent/roles.h). */
static void
execute_roles(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	(void)c, (void)focus, (void)selected;
	execute_report(res, team_roles_json(t));
}

static void
execute_requests(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	(void)c, (void)focus, (void)selected;
	execute_report(res, execute_requests_report(t));
}

static void
execute_tasks(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	(void)c, (void)focus, (void)selected;
	execute_report(res, execute_tasks_report(t));
}

static void
execute_worktrees(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	(void)c, (void)focus, (void)selected;
	execute_report(res, places_list(t));
}

static void
execute_diff(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	char *msg = NULL;
	json_t *data = places_diff(t, c->name, &msg);

	(void)focus, (void)selected;
	if (data != NULL)
		execute_report(res, data);
	else
		execute_done(res, 0, msg);
}

/* Text to the focused agent, or /msg's to the one named. */
static void
execute_say(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int ok = team_say(t, c->kind == CMD_MSG ? c->name : focus, c->text,
	    &msg) == 0;

	(void)selected;
	execute_done(res, ok, msg);
}

/* /approve and /reject: the request named, else the selected one. */
static void
execute_decide(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	const char *target = c->target ? c->target : selected;
	char *msg = NULL;
	enum proto_verdict v;

	(void)focus;
	if (target != NULL && *target == '\0') {
		execute_done(res, 0, xstrdup("no pending request is selected; "
		    "name one (/requests lists them)"));
		return;
	}
	v = team_decide(t, target, c->kind == CMD_APPROVE, c->text, &msg);
	execute_done(res, v == PROTO_DECIDED, msg);
}

/* /reject-all NAME [text]: every request of NAME's waiting for the
 * person. */
static void
execute_reject_all(struct team *t, const struct command *c,
    const char *focus, const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int n = team_reject_all(t, c->name, c->text, &msg);

	(void)focus, (void)selected;
	execute_done(res, n > 0, msg);
}

/* A team call's result: its error, or what was done. */
static void
execute_named(struct command_result *res, int rc, char *msg, char *done)
{
	if (rc == 0) {
		free(msg);
		execute_done(res, 1, done);
	} else {
		free(done);
		execute_done(res, 0, msg);
	}
}

static void
execute_shutdown(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int rc = team_request_shutdown(t, c->name, &msg);

	(void)focus, (void)selected;
	execute_named(res, rc, msg, xasprintf("asked %s to shut down",
	    c->name));
}

static void
execute_stop(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int rc = team_force_stop(t, c->name, &msg);

	(void)focus, (void)selected;
	execute_named(res, rc, msg, xasprintf("stopping %s", c->name));
}

static void
execute_interrupt(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int rc = team_interrupt(t, c->name, &msg);

	(void)focus, (void)selected;
	execute_named(res, rc, msg, xasprintf("interrupting %s", c->name));
}

static void
execute_budget(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	(void)focus, (void)selected;
	if (c->amount >= 0)
		team_set_budget(t, c->amount);
	execute_done(res, 1, team_budget_text(t));
}

/* The member /compact and /context mean: the one named, else the
 * focused one. */
static const char *
execute_who(const struct command *c, const char *focus)
{
	return c->name ? c->name : focus ? focus : ROSTER_LEAD;
}

static void
execute_compact(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	const char *name = execute_who(c, focus);
	char *msg = NULL;
	int rc = team_compact(t, name, &msg);

	(void)selected;
	execute_named(res, rc, msg, xasprintf("compacting %s's "
	    "conversation", name));
}

static void
execute_context(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	const char *name = execute_who(c, focus);
	char *msg = team_context_text(t, name);

	(void)selected;
	execute_done(res, msg != NULL, msg != NULL ? msg :
	    xasprintf("no running member is called '%s'", name));
}

static void
execute_mcp(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int rc;

	(void)focus, (void)selected;
	if (c->target == NULL) {
		execute_done(res, 1, mcptools_text(t));
		return;
	}
	if (strcmp(c->target, "logout") != 0 || c->text == NULL ||
	    strchr(c->text, ' ') != NULL) {
		execute_done(res, 0, xstrdup("usage: /mcp [logout SERVER]"));
		return;
	}
	rc = mcptools_logout(t, c->text, &msg);
	execute_done(res, rc == 0, msg);
}

/* /task add SUBJECT [after IDS]: the ids split at their commas. */
static void
execute_task_add(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	const char *ids[TASK_MAX_BLOCKERS + 1];
	char *copy = xstrdup(c->target ? c->target : ""), *p, *save = NULL;
	char *msg = NULL;
	size_t n = 0;
	int rc;

	(void)focus, (void)selected;
	for (p = strtok_r(copy, ", ", &save); p != NULL && n < TASK_MAX_BLOCKERS
	    + 1; p = strtok_r(NULL, ", ", &save))
		ids[n++] = p;
	rc = team_task_add(t, c->text, ids, n, c->name, &msg);
	free(copy);
	execute_done(res, rc == 0, msg);
}

static void
execute_task_assign(struct team *t, const struct command *c,
    const char *focus, const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int rc = team_task_assign(t, c->target, c->name, &msg);

	(void)focus, (void)selected;
	execute_done(res, rc == 0, msg);
}

static void
execute_task_done(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int rc = team_task_done(t, c->target, &msg);

	(void)focus, (void)selected;
	execute_done(res, rc == 0, msg);
}

/* /task cancel and /task reopen. */
static void
execute_task_move(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int rc = team_task_move(t, c->target, c->kind == CMD_TASK_CANCEL ?
	    TASK_CANCELLED : TASK_PENDING, &msg);

	(void)focus, (void)selected;
	execute_done(res, rc == 0, msg);
}

static void
execute_merge(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int rc = places_merge(t, c->name, &msg);

	(void)focus, (void)selected;
	execute_done(res, rc == 0, msg);
}

static void
execute_discard(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	char *msg = NULL;
	int rc = places_discard(t, c->name, c->text != NULL, &msg);

	(void)focus, (void)selected;
	execute_done(res, rc == 0, msg);
}

/* Each command's executor, by kind, from COMMAND_LIST. */
static execute_fn *const execute_table[] = {
#define EXECUTE_RUN(id, words, usage, args, flags, run, help)		\
	[CMD_##id] = run,
	COMMAND_LIST(EXECUTE_RUN)
#undef EXECUTE_RUN
	[CMD_SAY] = execute_say,
	[CMD_BAD] = NULL,
};

void
execute_command(struct team *t, const struct command *c, const char *focus,
    const char *selected, struct command_result *res)
{
	memset(res, 0, sizeof *res);
	if (c->kind == CMD_BAD)
		execute_done(res, 0, xstrdup(c->error));
	else if (execute_table[c->kind] != NULL)
		execute_table[c->kind](t, c, focus, selected, res);
	else
		res->outcome = OUTCOME_FRONT;
}

void
execute_result_clear(struct command_result *res)
{
	free(res->message);
	json_decref(res->data);
	memset(res, 0, sizeof *res);
}
