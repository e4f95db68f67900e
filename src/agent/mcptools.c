/*
 * The team's MCP servers as tools of its agents: the servers are made
 * when the team opens (stdio ones start in a sandbox profile of their
 * own, at first use), their tools are added to each agent's list, and a
 * call of one asks the person first unless the settings allow that tool
 * (a permission request, decided like a risky command's).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/internal.h"
#include "agent/roles.h"
#include "core/permbody.h"
#include "mcp/set.h"
#include "tools/bash.h"
#include "tools/profile.h"
#include "util/log.h"
#include "util/xmalloc.h"

int
mcptools_open(struct team *t, char **err)
{
	char *why = NULL;
	size_t offered = mcpoffers_open(t);
	const char *name;
	json_t *cfg;

	if (json_object_size(t->opts.mcp_servers) == 0 && offered == 0)
		return 0;
	/* The servers' own profile: the working tree as commands see it
	 * (what they read, write and reach), built apart from any
	 * agent's so that none of theirs is shared. A project's servers
	 * get the same. */
	if ((t->mcp_profile = team_sandbox_profile(t, t->workdir, 0,
	    &why)) == NULL) {
		*err = xasprintf("MCP servers: %s", why);
		free(why);
		return -1;
	}
	t->mcp_launch = xcalloc(1, sizeof *t->mcp_launch);
	team_bash_options(t, t->mcp_profile, NULL, &t->mcp_launch->bo);
	if ((t->mcp = mcp_set_new(NULL, t->mcp_launch, team_on_notice, t,
	    err)) == NULL)
		return -1;
	if (t->opts.mcp_servers != NULL &&
	    !json_is_object(t->opts.mcp_servers)) {
		*err = xstrdup("\"mcpServers\" must be an object of servers "
		    "by name");
		return -1;
	}
	json_object_foreach(t->opts.mcp_servers, name, cfg) {
		if (mcp_set_add(t->mcp, name, cfg, t->opts.mcp_origin,
		    t->mcp_launch, team_on_notice, t, err) == -1)
			return -1;
	}
	/* The project's servers the person approved before. */
	mcpoffers_start(t);
	return 0;
}

void
mcptools_close(struct team *t)
{
	/* A decision made just before the quit is kept. */
	mcpoffers_settle(t);
	mcpoffers_close(t);
	mcp_set_free(t->mcp);
	t->mcp = NULL;
	free(t->mcp_launch);
	t->mcp_launch = NULL;
	profile_free(t->mcp_profile);
	t->mcp_profile = NULL;
}

/* The servers agent a may use, its role's (roles.h) as a NULL-terminated
 * list made once; NULL: all of them. */
static const char *const *
mcptools_only(struct agent *a)
{
	size_t n, i;
	char *const *names = role_mcp_servers(a->role_def, &n);

	if (names == NULL)
		return NULL;
	if (a->mcp_servers == NULL) {
		a->mcp_servers = xcalloc(n + 1, sizeof *a->mcp_servers);
		for (i = 0; i < n; i++)
			a->mcp_servers[i] = xstrdup(names[i]);
	}
	return (const char *const *)a->mcp_servers;
}

void
mcptools_list(struct agent *a, json_t *list)
{
	json_t *all, *tool;
	size_t i;

	if (a->team->mcp == NULL)
		return;
	mcpoffers_settle(a->team);
	all = json_array();
	mcp_set_tools(a->team->mcp, mcptools_only(a), all);
	/* A role that lists tools narrows its servers' tools too. */
	json_array_foreach(all, i, tool) {
		if (role_allows_tool(a->role_def, json_string_value(
		    json_object_get(tool, "name"))))
			json_array_append(list, tool);
	}
	json_decref(all);
}

json_t *
mcptools_for(struct agent *a)
{
	json_t *list = frame_tools(a), *t;
	int at = atomic_load(&a->compactions);
	size_t i;

	if (a->team->mcp == NULL)
		return list;
	/* A request's tools are part of what its model's earlier thoughts
	 * are bound to (and of its cached prefix): the MCP tools an agent
	 * sees are taken once and kept until its conversation is
	 * compacted, whatever the servers list meanwhile. */
	if (a->mcp_tools == NULL || a->mcp_tools_at != at) {
		json_decref(a->mcp_tools);
		a->mcp_tools = json_array();
		mcptools_list(a, a->mcp_tools);
		a->mcp_tools_at = at;
	}
	json_array_foreach(a->mcp_tools, i, t)
		json_array_append_new(list, json_deep_copy(t));
	return list;
}

/* Asks the person to let a call run. Returns 0 when approved, or -1
 * with out saying why not. */
static int
mcptools_permit(struct agent *a, const char *server, const char *tool,
    const char *name, json_t *input, struct tool_output *out)
{
	struct team *t = a->team;
	char id[PROTO_ID_SIZE], *body, *args, *detail, *err = NULL;
	struct permbody b;
	struct request *r;
	int rc;

	args = json_dumps(input, JSON_COMPACT | JSON_SORT_KEYS);
	detail = xasprintf("calls tool %s of MCP server %s", tool, server);
	memset(&b, 0, sizeof b);
	b.tool = (char *)name;
	b.command = args != NULL ? args : (char *)"{}";
	b.reason = (char *)"MCP tool";
	b.detail = detail;
	b.directory = t->workdir;
	b.who = a->name;
	body = permbody_make(&b);
	free(detail);
	free(args);
	rc = protocol_request(t->proto, REQ_PERMISSION, a->name, ROSTER_LEAD,
	    body, id, &err);
	free(body);
	if (rc == -1) {
		tool_error(out, "could not ask for permission: %s", err);
		free(err);
		return -1;
	}
	if ((r = agent_await(a, id, 0)) == NULL) {
		if (protocol_cancel(t->proto, id, "stopped before the "
		    "decision; the tool was not called", &err) == -1)
			free(err);
		return tool_error(out, "stopped while waiting for permission "
		    "(%s)", id);
	}
	rc = r->status == REQ_APPROVED ? 0 : -1;
	if (rc == -1)
		tool_error(out, "permission %s was %s%s%s%s%s: %s was not "
		    "called", id, req_status_name(r->status), r->decided_by ?
		    " by " : "", r->decided_by ? r->decided_by : "",
		    r->response && *r->response ? ": " : "", r->response ?
		    r->response : "", name);
	request_free(r);
	return rc;
}

void
mcptools_run(struct agent *a, const char *name, json_t *input,
    struct tool_output *out)
{
	struct team *t = a->team;
	struct mcp_server *s;
	char *tool = NULL;

	s = role_allows_tool(a->role_def, name) ? mcp_set_find(t->mcp,
	    mcptools_only(a), name, &tool) : NULL;
	if (s == NULL) {
		tool_error(out, "there is no tool named '%s' for you", name);
		return;
	}
	if (!a->is_lead && agent_plan_blocks(a)) {
		tool_error(out, "plan not approved yet: call submit_plan with "
		    "your plan and wait for its approval before using MCP "
		    "tools");
	} else if ((mcp_set_allowed(t->opts.mcp_allow, s->name, name) &&
	    !mcpoffers_is_project(t, s->name)) ||
	    mcptools_permit(a, s->name, tool, name, input, out) == 0) {
		log_printf("%s: MCP %s", a->name, name);
		mcp_server_call(s, tool, input, &a->cancel,
		    t->opts.bash_timeout_s, BASH_OUTPUT_CAP, out);
	}
	free(tool);
}

char *
mcptools_text(struct team *t)
{
	char *text, *offers, *both;

	mcpoffers_settle(t);
	text = mcp_set_text(t->mcp);
	if ((offers = mcpoffers_text(t)) == NULL)
		return text;
	if (mcp_set_count(t->mcp) == 0) {
		free(text);
		text = xstrdup("no MCP server is in use");
	}
	both = xasprintf("%s\n%s", text, offers);
	free(text);
	free(offers);
	while (*both != '\0' && both[strlen(both) - 1] == '\n')
		both[strlen(both) - 1] = '\0';
	return both;
}
