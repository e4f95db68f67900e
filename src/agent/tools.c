/*
 * The tools an agent may call: their names, descriptions and input
 * schemas (the contract of DESIGN §4), who may use each, and how a call
 * runs. Two gates live here because they must hold whatever the model
 * says: a teammate whose plan must be approved cannot run bash,
 * write_file or edit_file before it is, and a teammate's risky command
 * waits for the person's permission.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tools/bash.h"
#include "tools/fstools.h"
#include "agent/internal.h"
#include "agent/netgate.h"
#include "agent/roles.h"
#include "agent/tooldef.h"
#include "mcp/set.h"
#include "tools/profile.h"
#include "tools/tool.h"
#include "util/xmalloc.h"

/* --- reading the input ---------------------------------------------------- */

int
tools_arg_str(json_t *in, const char *key, int required, const char **out,
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
tools_arg_bool(json_t *in, const char *key, int required, int *out,
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
tools_arg_int(json_t *in, const char *key, long *out, struct tool_output *o)
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

/* --- files and commands ----------------------------------------------------- */

/* Whether a command's output reads like the sandbox refused it. */
static int
tool_bash_refused(const char *text)
{
	return text != NULL && !strstr(text, "[exit status 0]") &&
	    (strstr(text, "Permission denied") != NULL ||
	    strstr(text, "Operation not permitted") != NULL ||
	    strstr(text, "Read-only file system") != NULL);
}

/* Whether a command's output reads like it ran into its limits. */
static int
tool_bash_limited(const char *text)
{
	static const char *const signs[] = { "Cannot allocate memory",
	    "ReserveShadowMemoryRange failed", "MemoryError", "out of memory",
	    "Resource temporarily unavailable", "fork: retry",
	    "File size limit exceeded" };
	size_t i;

	if (text == NULL || strstr(text, "[exit status 0]") != NULL)
		return 0;
	for (i = 0; i < sizeof signs / sizeof *signs; i++)
		if (strstr(text, signs[i]) != NULL)
			return 1;
	return 0;
}

/* Moves agent a to where its task is done before a tool that works in
 * a place; -1 after a tool error when it cannot get there. */
static int
tool_place(struct agent *a, struct tool_output *o)
{
	char *err = NULL;

	if (agent_place_update(a, &err) == 0) {
		/* In a worktree, nothing starts while huddle merges one (or
		 * makes or removes one): team_merge judges whether its holder
		 * works under this lock. */
		if (strcmp(agent_root(a), a->team->workdir) != 0) {
			pthread_mutex_lock(&a->team->git_lock);
			pthread_mutex_unlock(&a->team->git_lock);
		}
		return 0;
	}
	agent_error(a, "%s", err);
	tool_error(o, "not run: %s. Give the task back (task_update with "
	    "status pending) and tell the lead.", err);
	free(err);
	return -1;
}

static void
tool_bash(struct agent *a, json_t *in, struct tool_output *o)
{
	struct team *t = a->team;
	struct bash_options bo;
	struct netgate_pass *pass;
	const char *command;
	char *why = NULL;

	if (tools_arg_str(in, "command", 1, &command, o) == -1 ||
	    tool_place(a, o) == -1)
		return;
	/* The lead's commands too: one policy for every command. */
	if (permit_command(t, a, "bash", command, agent_root(a), &a->cancel,
	    &why) == -1) {
		tool_error(o, "not run: %s", why);
		free(why);
		return;
	}
	team_bash_options(t, agent_profile(a), &a->cancel, &bo);
	/* Its own proxy credentials, valid while it runs. */
	pass = netgate_pass_new(t->netgate, a->name);
	bo.extra_env = netgate_pass_env(pass);
	bash_run(command, &bo, o);
	netgate_pass_end(t->netgate, pass);
	if (bo.sandboxed && tool_bash_refused(o->text))
		tool_append(o, "\n[the sandbox lets commands write only in %s "
		    "and in $TMPDIR%s; ask the person to "
		    "restart huddle with --writable DIR (or without "
		    "--no-network) if this command needs more]",
		    strcmp(agent_root(a), t->workdir) != 0 ? "your worktree (and reads none of "
		    "the working tree outside it)" : "the working directory",
		    t->opts.no_network ? ", and gives them no network" : "");
	if (bo.confine != NULL && tool_bash_limited(o->text))
		tool_append(o, "\n[each command may start %lld processes, use "
		    "%lld MiB of memory per process and write files of up to "
		    "%lld MiB (0: no limit); a sanitizer build (ASan) needs "
		    "the memory limit off: ask the person to restart huddle "
		    "with --max-procs, --max-memory 0 or --max-file-size if "
		    "this command needs more]", bo.confine->max_procs,
		    bo.confine->max_memory >> 20,
		    bo.confine->max_file_size >> 20);
}

/* Where the file tools of agent a work (after tool_place). */
static struct fstools_ctx
tool_fs(struct agent *a)
{
	struct fstools_ctx c = { agent_root(a), &a->cancel,
	    agent_profile(a) };

	return c;
}

static void
tool_read_file(struct agent *a, json_t *in, struct tool_output *o)
{
	struct fstools_ctx c;
	const char *path;
	long offset = 0, limit = 0;

	if (tools_arg_str(in, "path", 1, &path, o) == -1 ||
	    tools_arg_int(in, "offset", &offset, o) == -1 ||
	    tools_arg_int(in, "limit", &limit, o) == -1 || tool_place(a, o) == -1)
		return;
	c = tool_fs(a);
	fstools_read(&c, path, offset, limit, o);
}

static void
tool_write_file(struct agent *a, json_t *in, struct tool_output *o)
{
	struct fstools_ctx c;
	const char *path, *content;

	if (tools_arg_str(in, "path", 1, &path, o) == -1 ||
	    tools_arg_str(in, "content", 1, &content, o) == -1 ||
	    tool_place(a, o) == -1)
		return;
	c = tool_fs(a);
	fstools_write(&c, path, content, o);
}

static void
tool_edit_file(struct agent *a, json_t *in, struct tool_output *o)
{
	struct fstools_ctx c;
	const char *path, *old_text, *new_text;

	if (tools_arg_str(in, "path", 1, &path, o) == -1 ||
	    tools_arg_str(in, "old_text", 1, &old_text, o) == -1 ||
	    tools_arg_str(in, "new_text", 1, &new_text, o) == -1 ||
	    tool_place(a, o) == -1)
		return;
	c = tool_fs(a);
	fstools_edit(&c, path, old_text, new_text, o);
}

/* --- messages ----------------------------------------------------------------- */

/* What the sender is told of a message cut to MSG_MAX_CONTENT: "" when
 * it was not (malloc'd). */
static char *
tool_cut_note(const char *content)
{
	size_t cut;

	free(message_cap(content, &cut));
	if (cut == 0)
		return xstrdup("");
	return xasprintf(", cut to its first %d KiB: the last %zu bytes were "
	    "left out (send long text as a file instead)",
	    MSG_MAX_CONTENT / 1024, cut);
}

static void
tool_send_message(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *to, *content;
	char *err = NULL, *cut;

	if (tools_arg_str(in, "to", 1, &to, o) == -1 ||
	    tools_arg_str(in, "content", 1, &content, o) == -1)
		return;
	if (strcmp(to, a->name) == 0) {
		tool_error(o, "you cannot send a message to yourself");
		return;
	}
	/* Waiting first: a crash between the two can only make the lead
	 * hear one idle notice it did not need. */
	if (a->is_lead)
		team_lead_waits(a->team, to);
	if (bus_send(a->team->bus, a->name, to, MSG_MESSAGE, content, NULL,
	    &err) < 0) {
		tool_error(o, "not sent: %s", err);
		free(err);
		return;
	}
	cut = tool_cut_note(content);
	tool_ok(o, "sent to %s%s", to, cut);
	free(cut);
}

static void
tool_read_inbox(struct agent *a, json_t *in, struct tool_output *o)
{
	int n = agent_take_inbox(a);

	if (n == 0)
		tool_ok(o, "no new messages");
	else
		tool_ok(o, "%d new message%s: %s follow these tool results", n,
		    n == 1 ? "" : "s", n == 1 ? "it" : "they");
}

static void
tool_broadcast(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *content;
	char *err = NULL, *cut;
	int n;

	if (tools_arg_str(in, "content", 1, &content, o) == -1)
		return;
	if ((n = bus_broadcast(a->team->bus, a->name, content, &err)) < 0) {
		tool_error(o, "not sent: %s", err);
		free(err);
		return;
	}
	cut = tool_cut_note(content);
	tool_ok(o, "sent to %d teammate%s%s", n, n == 1 ? "" : "s", cut);
	free(cut);
}

/* --- the team ------------------------------------------------------------------- */

static void
tool_spawn_teammate(struct agent *a, json_t *in, struct tool_output *o)
{
	struct spawn_request s = { 0 };
	const char *name, *role, *model, *isolation;
	char *err = NULL, *notice = NULL;
	struct model_info info;

	if (tools_arg_str(in, "name", 1, &s.name, o) == -1 ||
	    tools_arg_str(in, "role", 1, &s.role, o) == -1 ||
	    tools_arg_str(in, "prompt", 1, &s.prompt, o) == -1 ||
	    tools_arg_bool(in, "plan_required", 0, &s.plan_required, o) == -1 ||
	    tools_arg_bool(in, "autonomous", 0, &s.autonomous, o) == -1 ||
	    tools_arg_str(in, "model", 0, &s.model, o) == -1 ||
	    tools_arg_str(in, "isolation", 0, &isolation, o) == -1 ||
	    tools_arg_str(in, "base", 0, &s.base, o) == -1)
		return;
	/* Before anything else: a reserved name says so, whatever else is
	 * wrong. */
	if (roster_check_name(s.name, &err) == -1) {
		tool_error(o, "not spawned: %s", err);
		free(err);
		return;
	}
	if (isolation != NULL && strcmp(isolation, "worktree") != 0 &&
	    strcmp(isolation, "none") != 0) {
		tool_error(o, "not spawned: isolation is \"worktree\" or "
		    "\"none\"");
		return;
	}
	s.worktree = isolation != NULL && strcmp(isolation, "worktree") == 0;
	/* A base is a commit the person's repository names: no options. */
	if (s.base != NULL && (*s.base == '-' || strlen(s.base) > 200)) {
		tool_error(o, "not spawned: base names a commit or branch");
		return;
	}
	name = s.name;
	role = s.role;
	model = s.model;
	if (model != NULL && *model == '\0')
		model = NULL;
	if (model != NULL && (strlen(model) > 100 || strspn(model,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	    "._:/@-") != strlen(model))) {
		tool_error(o, "not spawned: a model id is up to 100 letters, "
		    "digits and ._:/@-");
		return;
	}
	s.model = model;
	if (team_spawn(a->team, &s, &err) == -1) {
		tool_error(o, "not spawned: %s", err);
		free(err);
		return;
	}
	/* What its role added (teamroles.c), for the lead to hear. */
	team_role_apply(a->team, &s, &s);
	model = s.model;
	if (model != NULL && !catalog_lookup(a->team->opts.catalog, model,
	    &info))
		notice = xasprintf("; %s is not in the model catalog, so it "
		    "runs with cautious limits", model);
	tool_ok(o, "spawned %s (%s)%s%s%s%s%s; it starts on your prompt now and "
	    "you will hear when it is idle", name, role, s.worktree ||
	    a->team->opts.worktrees ? " in its own worktree on branch huddle/" :
	    "", s.worktree || a->team->opts.worktrees ? name : "",
	    s.plan_required ?
	    "; it must have its plan approved before it may act" : "",
	    s.autonomous || a->team->opts.autonomous ? "; it is autonomous: "
	    "when idle it claims the next ready task of the board itself" :
	    "", notice ? notice : "");
	free(notice);
}

static void
tool_list_teammates(struct agent *a, json_t *in, struct tool_output *o)
{
	struct member *m;
	size_t n, i;
	char *text = xstrdup(""), *next;

	n = roster_list(a->team->store, &m);
	for (i = 0; i < n; i++) {
		if (m[i].is_lead)
			continue;
		next = xasprintf("%s%s (%s): %s%s\n", text, m[i].name,
		    m[i].role, member_status_name(m[i].status),
		    !m[i].plan_required ? "" : m[i].plan_approved ?
		    ", plan approved" : ", plan not approved yet");
		free(text);
		text = next;
	}
	member_free_array(m, n);
	if (*text == '\0')
		tool_ok(o, "no teammates yet");
	else
		tool_ok(o, "%s", text);
	free(text);
}

static void
tool_request_shutdown(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *name, *reason;
	char id[PROTO_ID_SIZE], *err = NULL;

	if (tools_arg_str(in, "teammate", 1, &name, o) == -1 ||
	    tools_arg_str(in, "reason", 0, &reason, o) == -1)
		return;
	if (strcmp(name, ROSTER_LEAD) == 0) {
		tool_error(o, "the lead cannot be shut down this way");
		return;
	}
	team_lead_waits(a->team, name);
	if (protocol_request(a->team->proto, REQ_SHUTDOWN, a->name, name,
	    reason ? reason : "", id, &err) == -1) {
		tool_error(o, "not sent: %s", err);
		free(err);
		return;
	}
	tool_ok(o, "asked %s to shut down (%s); it will answer with a "
	    "shutdown_response", name, id);
}

static void
tool_review_plan(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *id, *feedback;
	struct request *r;
	int approve = 0;
	char *msg = NULL;
	enum proto_verdict v;

	if (tools_arg_str(in, "request_id", 1, &id, o) == -1 ||
	    tools_arg_bool(in, "approve", 1, &approve, o) == -1 ||
	    tools_arg_str(in, "feedback", 0, &feedback, o) == -1)
		return;
	v = protocol_respond(a->team->proto, id, MSG_PLAN_APPROVAL_RESPONSE,
	    a->name, approve, feedback ? feedback : "", &msg);
	/* As when the person decides (team_decide): the lead hears the
	 * teammate's next idle notice. */
	if (v == PROTO_DECIDED && (r = protocol_get(a->team->proto, id)) !=
	    NULL) {
		team_lead_waits(a->team, r->from);
		request_free(r);
	}
	if (v == PROTO_DECIDED)
		tool_ok(o, "%s", msg);
	else
		tool_error(o, "%s", msg);
	free(msg);
}

static void
tool_submit_plan(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *plan;
	char id[PROTO_ID_SIZE], *err = NULL;
	struct request *r;

	if (tools_arg_str(in, "plan", 1, &plan, o) == -1)
		return;
	if (*plan == '\0') {
		tool_error(o, "the plan is empty: write the steps you intend "
		    "to take");
		return;
	}
	if (protocol_request(a->team->proto, REQ_PLAN_APPROVAL, a->name,
	    ROSTER_LEAD, plan, id, &err) == -1) {
		tool_error(o, "not submitted: %s", err);
		free(err);
		return;
	}
	/* Wait for the decision, but not past other messages: one may be
	 * a shutdown request that needs an answer. */
	if ((r = agent_await(a, id, 1)) == NULL) {
		tool_error(o, "stopped waiting for %s; a decision will still "
		    "come as a plan_approval_response message", id);
		return;
	}
	switch (r->status) {
	case REQ_APPROVED:
		tool_ok(o, "plan %s approved by %s%s%s. You may act on it now.",
		    id, r->decided_by, *r->response ? ": " : "", r->response);
		break;
	case REQ_REJECTED:
		tool_ok(o, "plan %s rejected by %s%s%s. Revise it and call "
		    "submit_plan again.", id, r->decided_by, *r->response ?
		    ": " : "", r->response);
		break;
	case REQ_PENDING:
		tool_ok(o, "plan %s is still pending; new messages arrived "
		    "and follow these tool results. The decision will come "
		    "as a plan_approval_response message.", id);
		break;
	default:
		tool_ok(o, "plan %s %s without a decision; submit it again "
		    "when you are ready", id, req_status_name(r->status));
		break;
	}
	request_free(r);
}

static void
tool_shutdown_response(struct agent *a, json_t *in, struct tool_output *o)
{
	const char *id, *reason;
	struct request *r;
	int approve = 0, quit = 0;
	char *msg = NULL;
	enum proto_verdict v;

	if (tools_arg_str(in, "request_id", 1, &id, o) == -1 ||
	    tools_arg_bool(in, "approve", 1, &approve, o) == -1 ||
	    tools_arg_str(in, "reason", 0, &reason, o) == -1)
		return;
	/* The quit's request: stop, but stay a member for --resume. */
	if ((r = protocol_get(a->team->proto, id)) != NULL) {
		quit = r->type == REQ_SHUTDOWN && strcmp(r->from, MSG_SYSTEM) ==
		    0;
		request_free(r);
	}
	v = protocol_respond(a->team->proto, id, MSG_SHUTDOWN_RESPONSE,
	    a->name, approve, reason ? reason : "", &msg);
	if (v != PROTO_DECIDED) {
		tool_error(o, "%s", msg);
		free(msg);
		return;
	}
	free(msg);
	if (approve) {
		a->leaving = 1;
		a->pausing = quit;
		free(a->leave_reason);
		a->leave_reason = xasprintf("approved shutdown %s%s%s", id,
		    reason && *reason ? ": " : "", reason ? reason : "");
		tool_ok(o, quit ? "stopping for the quit after this tool "
		    "call; when the team is resumed, you continue from here" :
		    "shutdown approved; you stop after this tool call");
	} else
		tool_ok(o, "shutdown refused; keep working");
}

/* --- the table ------------------------------------------------------------------ */

static const struct tool_def tool_defs[] = {
	{ "bash", FOR_BOTH, 1, tool_bash,
	  "Run a shell command (/bin/sh -c) in the working directory. Output "
	  "and exit status come back; long output is cut. Every process the "
	  "command starts, in the background or not, is stopped when it ends. "
	  "Risky commands wait for the person's permission.",
	  "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":"
	  "\"string\",\"description\":\"the command line\"}},"
	  "\"required\":[\"command\"]}" },
	{ "read_file", FOR_BOTH, 0, tool_read_file,
	  "Read a text file inside the working directory: at most 256 KiB "
	  "a call; offset and limit page through a longer one.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	  "\"offset\":{\"type\":\"integer\",\"description\":\"the first "
	  "line to read, from 1\"},"
	  "\"limit\":{\"type\":\"integer\",\"description\":\"read at most "
	  "this many lines\"}},\"required\":[\"path\"]}" },
	{ "write_file", FOR_BOTH, 1, tool_write_file,
	  "Create or replace a file inside the working directory.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	  "\"content\":{\"type\":\"string\"}},\"required\":[\"path\","
	  "\"content\"]}" },
	{ "edit_file", FOR_BOTH, 1, tool_edit_file,
	  "Replace one exact occurrence of old_text by new_text in a file.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	  "\"old_text\":{\"type\":\"string\"},\"new_text\":{\"type\":"
	  "\"string\"}},\"required\":[\"path\",\"old_text\",\"new_text\"]}" },
	{ "send_message", FOR_BOTH, 0, tool_send_message,
	  "Send a message to a member of the team (\"lead\" or a teammate's "
	  "name).",
	  "{\"type\":\"object\",\"properties\":{\"to\":{\"type\":\"string\"},"
	  "\"content\":{\"type\":\"string\"}},\"required\":[\"to\","
	  "\"content\"]}" },
	{ "read_inbox", FOR_BOTH, 0, tool_read_inbox,
	  "Take the messages that arrived since your last model call now.",
	  "{\"type\":\"object\",\"properties\":{}}" },
	{ "spawn_teammate", FOR_LEAD, 0, tool_spawn_teammate,
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
	{ "list_teammates", FOR_LEAD, 0, tool_list_teammates,
	  "List the teammates with their roles and statuses.",
	  "{\"type\":\"object\",\"properties\":{}}" },
	{ "broadcast", FOR_LEAD, 0, tool_broadcast,
	  "Send a message to every live teammate.",
	  "{\"type\":\"object\",\"properties\":{\"content\":{\"type\":"
	  "\"string\"}},\"required\":[\"content\"]}" },
	{ "request_shutdown", FOR_LEAD, 0, tool_request_shutdown,
	  "Ask a teammate to finish up and stop. It answers with a "
	  "shutdown_response carrying the same request_id.",
	  "{\"type\":\"object\",\"properties\":{\"teammate\":{\"type\":"
	  "\"string\"},\"reason\":{\"type\":\"string\"}},"
	  "\"required\":[\"teammate\"]}" },
	{ "review_plan", FOR_LEAD, 0, tool_review_plan,
	  "Approve or reject a teammate's plan (a plan_approval_request), "
	  "with feedback.",
	  "{\"type\":\"object\",\"properties\":{\"request_id\":{\"type\":"
	  "\"string\"},\"approve\":{\"type\":\"boolean\"},\"feedback\":"
	  "{\"type\":\"string\"}},\"required\":[\"request_id\","
	  "\"approve\"]}" },
	{ "submit_plan", FOR_TEAMMATE, 0, tool_submit_plan,
	  "Submit your plan for approval and wait for the decision.",
	  "{\"type\":\"object\",\"properties\":{\"plan\":{\"type\":\"string\","
	  "\"description\":\"the numbered steps you will take\"}},"
	  "\"required\":[\"plan\"]}" },
	{ "shutdown_response", FOR_TEAMMATE, 0, tool_shutdown_response,
	  "Answer a shutdown_request: approve (after wrapping up) to stop, or "
	  "refuse with a reason. Use the request's request_id.",
	  "{\"type\":\"object\",\"properties\":{\"request_id\":{\"type\":"
	  "\"string\"},\"approve\":{\"type\":\"boolean\"},\"reason\":"
	  "{\"type\":\"string\"}},\"required\":[\"request_id\","
	  "\"approve\"]}" },
};

#define TOOL_COUNT (sizeof tool_defs / sizeof *tool_defs)

/* The i-th tool of every table, or NULL past the last. */
static const struct tool_def *
tools_nth(size_t i)
{
	if (i < TOOL_COUNT)
		return &tool_defs[i];
	i -= TOOL_COUNT;
	return i < task_tool_count ? &task_tool_defs[i] : NULL;
}

json_t *
tools_for(int is_lead)
{
	const struct tool_def *d;
	json_t *list = json_array();
	size_t i;

	/* Built afresh for each call: a JSON value shared between agent
	 * threads would race on its reference count. */
	for (i = 0; (d = tools_nth(i)) != NULL; i++) {
		json_t *schema;

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

/* --- roles (roles.h) ------------------------------------------------------------ */

int
tools_known(const char *name)
{
	const struct tool_def *d;
	size_t i;

	for (i = 0; (d = tools_nth(i)) != NULL; i++) {
		if (strcmp(d->name, name) == 0)
			return 1;
	}
	return 0;
}

/* Whether a's frame offers tool name (all, when it names none). MCP
 * tools come and go with their servers: the role alone decides. */
static int
tools_offered(struct agent *a, const char *name)
{
	json_t *n;
	size_t i;

	if (strncmp(name, "mcp__", 5) == 0)
		return role_allows_tool(a->role_def, name);
	json_array_foreach(a->frame_tools, i, n) {
		if (strcmp(json_string_value(n), name) == 0)
			return 1;
	}
	return a->frame_tools == NULL;
}

json_t *
tools_of(struct agent *a)
{
	json_t *list = tools_for(a->is_lead), *tool;
	const char *roles = a->frame_roles;
	size_t i;

	/* Only the tools its frame names (frame.c), when it names them. */
	for (i = 0; i < json_array_size(list); i++) {
		tool = json_array_get(list, i);
		if (!tools_offered(a, json_string_value(json_object_get(tool,
		    "name"))))
			json_array_remove(list, i--);
	}
	json_array_foreach(list, i, tool) {
		if (a->is_lead && roles != NULL && *roles != '\0' &&
		    strcmp(json_string_value(json_object_get(tool, "name")),
		    "spawn_teammate") == 0)
			json_object_set_new(tool, "description", json_sprintf(
			    "%s%s", json_string_value(json_object_get(tool,
			    "description")), roles));
	}
	return list;
}

int
tools_plan_blocks(struct agent *a)
{
	struct member *m = roster_get(a->team->store, a->name);
	int blocked = m != NULL && m->plan_required && !m->plan_approved;

	member_free(m);
	return blocked;
}

void
tools_run(struct agent *a, const char *name, json_t *input,
    struct tool_output *out)
{
	const struct tool_def *d = NULL, *e;
	size_t i;

	/* An MCP server's tool (mcptools.c). */
	if (mcp_is_tool_name(name) && json_is_object(input)) {
		mcptools_run(a, name, input, out);
		return;
	}
	for (i = 0; (e = tools_nth(i)) != NULL && d == NULL; i++) {
		if (strcmp(e->name, name) == 0)
			d = e;
	}
	if (d == NULL || !(d->who & (a->is_lead ? FOR_LEAD : FOR_TEAMMATE)) ||
	    !role_allows_tool(a->role_def, name) || !tools_offered(a, name)) {
		tool_error(out, "there is no tool named '%s' for you", name);
		return;
	}
	if (!json_is_object(input)) {
		tool_error(out, "the input of %s must be a JSON object", name);
		return;
	}
	if (d->gated && !a->is_lead && tools_plan_blocks(a)) {
		tool_error(out, "plan not approved yet: call submit_plan with "
		    "your plan and wait for its approval before using bash, "
		    "write_file or edit_file");
		return;
	}
	d->run(a, input, out);
}
