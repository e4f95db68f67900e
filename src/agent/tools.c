/*
 * How a tool call runs (the tools' definitions are toolset.c's, the
 * task board's tools tasktools.c's). Two gates live here because they must hold whatever the model
 * says: a teammate whose plan must be approved cannot run bash,
 * write_file or edit_file before it is, and a teammate's risky command
 * waits for the person's permission.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/frame.h"
#include "agent/mcptools.h"
#include "agent/permit.h"
#include "agent/places.h"
#include "agent/tasktools.h"
#include "agent/teamroles.h"
#include "agent/teamstate.h"
#include "agent/tools.h"
#include "tools/bash.h"
#include "tools/ccrules.h"
#include "tools/fstools.h"
#include "agent/internal.h"
#include "agent/netgate.h"
#include "agent/roles.h"
#include "agent/toolarg.h"
#include "agent/toolset.h"
#include "mcp/set.h"
#include "tools/profile.h"
#include "tools/tool.h"
#include "util/xmalloc.h"

/* Lines of an output a pane keeps to show (ui/pane.h: its first 200 and
 * last 800): one longer is kept whole for the pager, as is one cut for
 * the model. */
#define TOOLS_KEEP_LINES 1000

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

	if (places_update(a, &err) == 0) {
		/* In a worktree, nothing starts while huddle merges one (or
		 * makes or removes one): places_merge judges whether its holder
		 * works under this lock. */
		if (strcmp(places_root(a), a->team->home.workdir) != 0) {
			pthread_mutex_lock(&a->team->places.git_lock);
			pthread_mutex_unlock(&a->team->places.git_lock);
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

	if (toolarg_str(in, "command", 1, &command, o) == -1 ||
	    tool_place(a, o) == -1)
		return;
	/* The lead's commands too: one policy for every command. */
	if (permit_command(t, a, "bash", command, places_root(a),
	    &a->run.cancel,
	    &why) == -1) {
		tool_error(o, "not run: %s", why);
		free(why);
		return;
	}
	team_bash_options(t, places_profile(a), &a->run.cancel, &bo);
	/* An output longer than the model or a pane takes is kept whole
	 * for the person (teamoutputs.c). */
	bo.keep_dir = t->home.outputs;
	bo.keep_lines = TOOLS_KEEP_LINES;
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
		    strcmp(places_root(a), t->home.workdir) != 0 ?
		    "your worktree (and reads none of "
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

/* The rule of the project's Claude Code settings of kind k that matches
 * tool on path (malloc'd), or NULL. The path is tried as written and,
 * when it exists, as its links lead, so a link to a file a rule names
 * is caught too. */
static char *
tool_file_rule(struct agent *a, enum ccrules_list k, const char *tool,
    const char *path)
{
	const struct ccrules *rules = a->team->opts.claude_rules;
	const char *root = places_root(a);
	char *rule, *full, *real;

	if (ccrules_count(rules, k) == 0)
		return NULL;
	rule = ccrules_file(rules, k, tool, root, path);
	if (rule == NULL) {
		full = *path == '/' ? xstrdup(path) : xasprintf("%s/%s", root,
		    path);
		if ((real = realpath(full, NULL)) != NULL)
			rule = ccrules_file(rules, k, tool, root, real);
		free(real);
		free(full);
	}
	return rule;
}

/* The gate the project's Claude Code rules put on a file tool's path: a
 * deny rule refuses it (never put to the person), an ask rule asks the
 * person first. -1 after a tool error saying why not. */
static int
tool_file_gate(struct agent *a, const char *tool, const char *path,
    struct tool_output *o)
{
	char *rule, *why = NULL;

	if ((rule = tool_file_rule(a, CCRULES_DENY, tool, path)) != NULL) {
		tool_error(o, "not run: %s of %s is refused by the deny rule "
		    "%s", tool, path, rule);
		free(rule);
		return -1;
	}
	if ((rule = tool_file_rule(a, CCRULES_ASK, tool, path)) == NULL)
		return 0;
	if (permit_file(a, tool, path, rule, &why) == -1) {
		tool_error(o, "not run: %s of %s (the ask rule %s): %s", tool,
		    path, rule, why);
		free(why);
		free(rule);
		return -1;
	}
	free(rule);
	return 0;
}

/* Where the file tools of agent a work (after tool_place). */
static struct fstools_ctx
tool_fs(struct agent *a)
{
	struct fstools_ctx c = { places_root(a), &a->run.cancel,
	    places_profile(a) };

	return c;
}

static void
tool_read_file(struct agent *a, json_t *in, struct tool_output *o)
{
	struct fstools_ctx c;
	const char *path;
	long offset = 0, limit = 0;

	if (toolarg_str(in, "path", 1, &path, o) == -1 ||
	    toolarg_int(in, "offset", &offset, o) == -1 ||
	    toolarg_int(in, "limit", &limit, o) == -1 ||
	    tool_place(a, o) == -1 ||
	    tool_file_gate(a, "read_file", path, o) == -1)
		return;
	c = tool_fs(a);
	fstools_read(&c, path, offset, limit, o);
}

static void
tool_write_file(struct agent *a, json_t *in, struct tool_output *o)
{
	struct fstools_ctx c;
	const char *path, *content;

	if (toolarg_str(in, "path", 1, &path, o) == -1 ||
	    toolarg_str(in, "content", 1, &content, o) == -1 ||
	    tool_place(a, o) == -1 ||
	    tool_file_gate(a, "write_file", path, o) == -1)
		return;
	c = tool_fs(a);
	fstools_write(&c, path, content, o);
}

static void
tool_edit_file(struct agent *a, json_t *in, struct tool_output *o)
{
	struct fstools_ctx c;
	const char *path, *old_text, *new_text;

	if (toolarg_str(in, "path", 1, &path, o) == -1 ||
	    toolarg_str(in, "old_text", 1, &old_text, o) == -1 ||
	    toolarg_str(in, "new_text", 1, &new_text, o) == -1 ||
	    tool_place(a, o) == -1 ||
	    tool_file_gate(a, "edit_file", path, o) == -1)
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

	if (toolarg_str(in, "to", 1, &to, o) == -1 ||
	    toolarg_str(in, "content", 1, &content, o) == -1)
		return;
	if (strcmp(to, a->name) == 0) {
		tool_error(o, "you cannot send a message to yourself");
		return;
	}
	/* Waiting first: a crash between the two can only make the lead
	 * hear one idle notice it did not need. */
	if (a->is_lead)
		team_lead_waits(a->team, to);
	if (bus_send(a->team->core.bus, a->name, to, MSG_MESSAGE, content, NULL,
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

	if (toolarg_str(in, "content", 1, &content, o) == -1)
		return;
	if ((n = bus_broadcast(a->team->core.bus, a->name, content,
	    &err)) < 0) {
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

	if (toolarg_str(in, "name", 1, &s.name, o) == -1 ||
	    toolarg_str(in, "role", 1, &s.role, o) == -1 ||
	    toolarg_str(in, "prompt", 1, &s.prompt, o) == -1 ||
	    toolarg_bool(in, "plan_required", 0, &s.plan_required, o) == -1 ||
	    toolarg_bool(in, "autonomous", 0, &s.autonomous, o) == -1 ||
	    toolarg_str(in, "model", 0, &s.model, o) == -1 ||
	    toolarg_str(in, "isolation", 0, &isolation, o) == -1 ||
	    toolarg_str(in, "base", 0, &s.base, o) == -1)
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
		notice = info.family ? xasprintf("; %s is not in the model "
		    "catalog, so it runs with the limits and rules of %s, the "
		    "nearest of its family", model, info.family) :
		    xasprintf("; %s is not in the model catalog, so it runs "
		    "with cautious limits", model);
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

	n = roster_list(a->team->core.store, &m);
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

	if (toolarg_str(in, "teammate", 1, &name, o) == -1 ||
	    toolarg_str(in, "reason", 0, &reason, o) == -1)
		return;
	if (strcmp(name, ROSTER_LEAD) == 0) {
		tool_error(o, "the lead cannot be shut down this way");
		return;
	}
	team_lead_waits(a->team, name);
	if (protocol_request(a->team->core.proto, REQ_SHUTDOWN, a->name, name,
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

	if (toolarg_str(in, "request_id", 1, &id, o) == -1 ||
	    toolarg_bool(in, "approve", 1, &approve, o) == -1 ||
	    toolarg_str(in, "feedback", 0, &feedback, o) == -1)
		return;
	v = protocol_respond(a->team->core.proto, id,
	    MSG_PLAN_APPROVAL_RESPONSE,
	    a->name, approve, feedback ? feedback : "", &msg);
	/* As when the person decides (team_decide): the lead hears the
	 * teammate's next idle notice. */
	if (v == PROTO_DECIDED && (r = protocol_get(a->team->core.proto, id)) !=
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

	if (toolarg_str(in, "plan", 1, &plan, o) == -1)
		return;
	if (*plan == '\0') {
		tool_error(o, "the plan is empty: write the steps you intend "
		    "to take");
		return;
	}
	if (protocol_request(a->team->core.proto, REQ_PLAN_APPROVAL, a->name,
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

	if (toolarg_str(in, "request_id", 1, &id, o) == -1 ||
	    toolarg_bool(in, "approve", 1, &approve, o) == -1 ||
	    toolarg_str(in, "reason", 0, &reason, o) == -1)
		return;
	/* The quit's request: stop, but stay a member for --resume. */
	if ((r = protocol_get(a->team->core.proto, id)) != NULL) {
		quit = r->type == REQ_SHUTDOWN && strcmp(r->from, MSG_SYSTEM) ==
		    0;
		request_free(r);
	}
	v = protocol_respond(a->team->core.proto, id, MSG_SHUTDOWN_RESPONSE,
	    a->name, approve, reason ? reason : "", &msg);
	if (v != PROTO_DECIDED) {
		tool_error(o, "%s", msg);
		free(msg);
		return;
	}
	free(msg);
	if (approve) {
		a->turn.leaving = 1;
		a->turn.pausing = quit;
		free(a->turn.leave_reason);
		a->turn.leave_reason = xasprintf("approved shutdown %s%s%s", id,
		    reason && *reason ? ": " : "", reason ? reason : "");
		tool_ok(o, quit ? "stopping for the quit after this tool "
		    "call; when the team is resumed, you continue from here" :
		    "shutdown approved; you stop after this tool call");
	} else
		tool_ok(o, "shutdown refused; keep working");
}

/* --- running a call ------------------------------------------------------------- */

void
tools_run(struct agent *a, const char *name, json_t *input,
    struct tool_output *out)
{
	const struct tool_def *d;
	enum tool_id id;

	/* An MCP server's tool (mcptools.c). */
	if (mcp_set_is_tool_name(name) && json_is_object(input)) {
		mcptools_run(a, name, input, out);
		return;
	}
	d = toolset_find(name, &id);
	if (d == NULL || !(d->who & (a->is_lead ? FOR_LEAD : FOR_TEAMMATE)) ||
	    !role_allows_tool(a->role_def, name) || !frame_offers(a, name)) {
		tool_error(out, "there is no tool named '%s' for you", name);
		return;
	}
	if (!json_is_object(input)) {
		tool_error(out, "the input of %s must be a JSON object", name);
		return;
	}
	if (d->gated && !a->is_lead && agent_plan_blocks(a)) {
		tool_error(out, "plan not approved yet: call submit_plan with "
		    "your plan and wait for its approval before using bash, "
		    "write_file or edit_file");
		return;
	}
	switch (id) {
	case TOOL_BASH:
		tool_bash(a, input, out);
		break;
	case TOOL_READ_FILE:
		tool_read_file(a, input, out);
		break;
	case TOOL_WRITE_FILE:
		tool_write_file(a, input, out);
		break;
	case TOOL_EDIT_FILE:
		tool_edit_file(a, input, out);
		break;
	case TOOL_SEND_MESSAGE:
		tool_send_message(a, input, out);
		break;
	case TOOL_READ_INBOX:
		tool_read_inbox(a, input, out);
		break;
	case TOOL_SPAWN_TEAMMATE:
		tool_spawn_teammate(a, input, out);
		break;
	case TOOL_LIST_TEAMMATES:
		tool_list_teammates(a, input, out);
		break;
	case TOOL_BROADCAST:
		tool_broadcast(a, input, out);
		break;
	case TOOL_REQUEST_SHUTDOWN:
		tool_request_shutdown(a, input, out);
		break;
	case TOOL_REVIEW_PLAN:
		tool_review_plan(a, input, out);
		break;
	case TOOL_SUBMIT_PLAN:
		tool_submit_plan(a, input, out);
		break;
	case TOOL_SHUTDOWN_RESPONSE:
		tool_shutdown_response(a, input, out);
		break;
	case TOOL_TASK_CREATE:
	case TOOL_TASK_LIST:
	case TOOL_TASK_GET:
	case TOOL_TASK_CLAIM:
	case TOOL_TASK_UPDATE:
	case TOOL_TASK_ASSIGN:
		tasktools_run(a, id, input, out);
		break;
	case TOOL_COUNT:
		abort();
	}
}
