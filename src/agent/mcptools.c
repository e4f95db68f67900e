/*
 * The team's MCP servers as tools of its agents: the servers are made
 * when the team opens and start at once in the background, all together
 * (nobody waits for them); an agent's list takes the tools of those ready
 * then (mcptools_for says when it is taken again), and a call of one asks
 * the person first unless the settings allow that tool (a permission
 * request, decided like a risky command's).
 *
 * A stdio server starts like a command: through the reaper, in a sandbox
 * profile of its own (the working tree as commands see it, plus its
 * cache), with its network through huddle's proxy under a pass of its
 * own (each new host a request in the person's table from huddle, "for
 * MCP server NAME"), and with a cache of its own that outlives it: a
 * folder in the team's state folder, which commands cannot see, named
 * after the server and what it runs, where npm, uv, pip and XDG caches
 * point.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/frame.h"
#include "agent/internal.h"
#include "agent/mcpask.h"
#include "agent/mcpoffers.h"
#include "agent/mcpsignin.h"
#include "agent/mcptools.h"
#include "agent/netgate.h"
#include "agent/roles.h"
#include "agent/teamsandbox.h"
#include "agent/teamstate.h"
#include "core/permbody.h"
#include "core/statedir.h"
#include "mcp/set.h"
#include "mcp/tokens.h"
#include "tools/bash.h"
#include "tools/profile.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* The folder of its own a stdio server's caches live in (malloc'd):
 * <state folder>/mcp/<name>-<hash of its command and arguments>, so a
 * server renamed, or another program under the same name, starts from
 * an empty cache. */
static char *
mcptools_cache_dir(struct team *t, const char *name, json_t *config)
{
	json_t *what = json_pack("{s:O?, s:O?}", "command", json_object_get(
	    config, "command"), "args", json_object_get(config, "args"));
	char *text = json_dumps(what, JSON_COMPACT | JSON_SORT_KEYS), *dir;
	uint64_t h = 14695981039346656037ULL;
	const char *p;

	/* FNV-1a: a name, not a secret. */
	for (p = text != NULL ? text : ""; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	dir = xasprintf("%s/mcp/%s-%08llx", t->home.state, name,
	    (unsigned long long)(h & 0xffffffffULL));
	free(text);
	json_decref(what);
	return dir;
}

/* The variables that point a server's tools at its cache folder: npm
 * (npx), uv (uvx), pip and pipx, bun, Go, and the XDG folders the rest
 * follow; NULL: the variable is "false" (npm's update check). */
static const char *const mcptools_cache_vars[][2] = {
	{ "npm_config_cache", "npm" },
	{ "npm_config_update_notifier", NULL },
	{ "UV_CACHE_DIR", "uv" },
	{ "UV_TOOL_DIR", "uv-tools" },
	{ "UV_PYTHON_INSTALL_DIR", "uv-python" },
	{ "PIP_CACHE_DIR", "pip" },
	{ "PIPX_HOME", "pipx" },
	{ "BUN_INSTALL_CACHE_DIR", "bun" },
	{ "GOCACHE", "go-build" },
	{ "GOMODCACHE", "go-mod" },
	{ "XDG_CACHE_HOME", "cache" },
	{ "XDG_DATA_HOME", "data" },
	{ "XDG_CONFIG_HOME", "config" },
};
#define MCPTOOLS_NCACHE	(sizeof mcptools_cache_vars / \
	sizeof *mcptools_cache_vars)

/* What one start of a stdio server holds until its process ends. */
struct mcptools_start {
	struct profile		*profile;
	struct netgate_pass	*pass;
	char			**env;
};

/* After a stdio server's process ended: its pass (its pending network
 * requests withdrawn), its profile. */
static void
mcptools_end(void *ud, void *handle)
{
	struct team *t = ud;
	struct mcptools_start *h = handle;
	size_t i;

	if (h == NULL)
		return;
	netgate_pass_end(t->netgate, h->pass);
	profile_free(h->profile);
	for (i = 0; h->env != NULL && h->env[i] != NULL; i++)
		free(h->env[i]);
	free(h->env);
	free(h);
}

/* Whether the person is asked, now, to let a stdio server's start reach
 * a host (its clock stands still meanwhile). */
static int
mcptools_asking(void *ud, void *handle)
{
	struct team *t = ud;
	struct mcptools_start *h = handle;

	return h != NULL && netgate_pass_asking(t->netgate, h->pass);
}

/* Before a stdio server starts: its cache folder (made), a profile that
 * may write it, a network pass in huddle's name (MSG_SYSTEM) labelled
 * with the server's, and the variables of both (HUDDLE_MCP_CACHE names
 * the folder). */
static int
mcptools_begin(void *ud, const char *name, json_t *config,
    struct bash_options *bo, void **handle, char **err)
{
	struct team *t = ud;
	struct mcptools_start *h;
	const char *const *pass_env;
	char *dir, *real = NULL, *why = NULL, *label;
	size_t n = 0, i;

	dir = mcptools_cache_dir(t, name, config);
	if (statedir_make(dir, 1, &why) == -1 ||
	    (real = realpath(dir, NULL)) == NULL) {
		*err = xasprintf("its cache %s: %s", dir, why != NULL ? why :
		    strerror(errno));
		free(why);
		free(dir);
		return -1;
	}
	free(dir);
	h = xcalloc(1, sizeof *h);
	if ((h->profile = team_sandbox_profile_also(t, t->home.workdir, 0, real,
	    &why)) == NULL) {
		*err = xasprintf("its sandbox: %s", why);
		free(why);
		free(real);
		free(h);
		return -1;
	}
	/* In huddle's name, as a project's offers are: the person answers,
	 * and no agent's model is woken for a request none of them made. */
	h->pass = netgate_pass_new(t->netgate, MSG_SYSTEM);
	label = xasprintf("for MCP server %s", name);
	netgate_pass_label(t->netgate, h->pass, label);
	free(label);
	pass_env = netgate_pass_env(h->pass);
	for (i = 0; pass_env != NULL && pass_env[i] != NULL; i++)
		;
	h->env = xcalloc(i + MCPTOOLS_NCACHE + 3, sizeof *h->env);
	for (i = 0; pass_env != NULL && pass_env[i] != NULL; i++)
		h->env[n++] = xstrdup(pass_env[i]);
	for (i = 0; i < MCPTOOLS_NCACHE; i++)
		h->env[n++] = mcptools_cache_vars[i][1] != NULL ?
		    xasprintf("%s=%s/%s", mcptools_cache_vars[i][0], real,
		    mcptools_cache_vars[i][1]) : xasprintf("%s=false",
		    mcptools_cache_vars[i][0]);
	/* Without the network npm uses its cache alone: it asks the
	 * registry for a package's metadata at every npx start, pinned
	 * version or not, and would retry for about 70 s before falling
	 * back to the cache, longer than a server's start may take. What
	 * the cache lacks fails at once (ENOTCACHED), in the server's
	 * stderr. */
	if (t->opts.network == TEAM_NET_NONE)
		h->env[n++] = xstrdup("npm_config_offline=true");
	h->env[n++] = xasprintf("HUDDLE_MCP_CACHE=%s", real);
	h->env[n] = NULL;
	free(real);
	team_bash_options(t, h->profile, NULL, bo);
	bo->extra_env = (const char *const *)h->env;
	*handle = h;
	return 0;
}

/* Whether the team's servers come from the person's settings file. */
static int
mcptools_from_settings(struct team *t)
{
	return t->opts.mcp_origin != NULL &&
	    strcmp(t->opts.mcp_origin, "the person's settings") == 0;
}

int
mcptools_open(struct team *t, char **err)
{
	char *why = NULL, *state;
	size_t offered = mcpoffers_open(t);
	const char *name;
	json_t *cfg;

	if (json_object_size(t->opts.mcp_servers) == 0 && offered == 0)
		return 0;
	/* The servers' own profile: the working tree as commands see it
	 * (what they read, write and reach), built apart from any
	 * agent's so that none of theirs is shared. A project's servers
	 * get the same. */
	if ((t->mcp.profile = team_sandbox_profile(t, t->home.workdir, 0,
	    &why)) == NULL) {
		*err = xasprintf("MCP servers: %s", why);
		free(why);
		return -1;
	}
	t->mcp.launch = xcalloc(1, sizeof *t->mcp.launch);
	team_bash_options(t, t->mcp.profile, NULL, &t->mcp.launch->bo);
	t->mcp.launch->begin = mcptools_begin;
	t->mcp.launch->end = mcptools_end;
	t->mcp.launch->asking = mcptools_asking;
	/* HTTP servers that ask for a sign-in ask the person; the tokens
	 * are kept in the person's own state, beside every team's. */
	t->mcp.launch->signin = mcpsignin_ask;
	t->mcp.launch->open = mcpsignin_open;
	mcpsignin_recall(t);
	if ((state = statedir_base(t->opts.state_base, &why)) != NULL) {
		t->mcp.tokens = xasprintf("%s/%s", state, MCP_TOKENS_FILE);
		free(state);
	} else {
		free(why);
		why = NULL;
	}
	t->mcp.launch->tokens = t->mcp.tokens;
	t->mcp.launch->ud = t;
	if ((t->mcp.set = mcp_set_new(NULL, t->mcp.launch, team_on_notice, t,
	    err)) == NULL)
		return -1;
	if (t->opts.mcp_servers != NULL &&
	    !json_is_object(t->opts.mcp_servers)) {
		*err = xstrdup("\"mcpServers\" must be an object of servers "
		    "by name");
		return -1;
	}
	json_object_foreach(t->opts.mcp_servers, name, cfg) {
		json_t *own = json_deep_copy(cfg);
		int rc;

		/* A client of the person's own, with its secret, is taken
		 * from the person's settings only: not from a file named
		 * on the command line, which may lie in the working tree. */
		if (json_object_get(own, "oauth") != NULL &&
		    !mcptools_from_settings(t)) {
			json_object_del(own, "oauth");
			evq_notice(&t->core.events, "MCP servers: an \"oauth\" "
			    "client is taken from your settings only, not "
			    "from --mcp-config: it was left out");
		}
		rc = mcp_set_add(t->mcp.set, name, own, t->opts.mcp_origin,
		    t->mcp.launch, team_on_notice, t, err);
		json_decref(own);
		if (rc == -1)
			return -1;
	}
	/* The project's servers the person approved before. */
	mcpoffers_start(t);
	/* All of them now, in the background: the agents' first requests
	 * do not wait for them. */
	mcp_set_start(t->mcp.set);
	return 0;
}

void
mcptools_close(struct team *t)
{
	/* A decision made just before the quit is kept. */
	mcpoffers_settle(t);
	mcpoffers_close(t);
	mcp_set_free(t->mcp.set);
	t->mcp.set = NULL;
	free(t->mcp.launch);
	t->mcp.launch = NULL;
	profile_free(t->mcp.profile);
	t->mcp.profile = NULL;
	free(t->mcp.tokens);
	t->mcp.tokens = NULL;
}

int
mcptools_logout(struct team *t, const char *name, char **msg)
{
	struct mcp_server *s = t->mcp.set != NULL ? mcp_set_get(t->mcp.set,
	    name) : NULL;
	int had;

	if (s == NULL) {
		*msg = xasprintf("no MCP server is called %s", name);
		return -1;
	}
	if ((had = mcp_server_logout(s)) == -1) {
		*msg = xasprintf("MCP server %s does not sign in (it is not an "
		    "HTTP server)", name);
		return -1;
	}
	*msg = had ? xasprintf("MCP server %s: its sign-in is forgotten; the "
	    "next request it refuses asks you to sign in again", name) :
	    xasprintf("MCP server %s: there was no sign-in to forget", name);
	return 0;
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
	if (a->mcp.servers == NULL) {
		a->mcp.servers = xcalloc(n + 1, sizeof *a->mcp.servers);
		for (i = 0; i < n; i++)
			a->mcp.servers[i] = xstrdup(names[i]);
	}
	return (const char *const *)a->mcp.servers;
}

void
mcptools_list(struct agent *a, json_t *list)
{
	json_t *all, *tool;
	size_t i;

	if (a->team->mcp.set == NULL)
		return;
	mcpoffers_settle(a->team);
	all = json_array();
	mcp_set_tools(a->team->mcp.set, mcptools_only(a), all);
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
	int at = atomic_load(&a->win.compactions);
	size_t i;

	if (a->team->mcp.set == NULL)
		return list;
	/* A request's tools are part of what its model's earlier thoughts
	 * are bound to (and of its cached prefix): the MCP tools an agent
	 * sees are taken once and kept until its conversation is
	 * compacted, whatever the servers list meanwhile, and kept in its
	 * frame for --resume (frame.c). Servers start in the background:
	 * those ready by then are in; one ready later joins at the agent's
	 * next compaction (and a teammate spawned after sees it at once). */
	if (a->mcp.tools == NULL || a->mcp.at != at) {
		json_t *now = json_array();

		mcptools_list(a, now);
		a->mcp.at = at;
		frame_keep_mcp(a, now);
		json_decref(now);
	}
	json_array_foreach(a->mcp.tools, i, t)
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
	b.directory = t->home.workdir;
	b.who = a->name;
	body = permbody_make(&b);
	free(detail);
	free(args);
	rc = protocol_request(t->core.proto, REQ_PERMISSION, a->name,
	    ROSTER_LEAD,
	    body, id, &err);
	free(body);
	if (rc == -1) {
		tool_error(out, "could not ask for permission: %s", err);
		free(err);
		return -1;
	}
	if ((r = agent_await(a, id, 0)) == NULL) {
		if (protocol_cancel(t->core.proto, id, "stopped before the "
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
	struct mcpask ask;
	char *tool = NULL;

	s = role_allows_tool(a->role_def, name) ? mcp_set_find(t->mcp.set,
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
		mcpask_init(&ask, a);
		mcp_server_call(s, tool, input, &ask.caller, &a->run.cancel,
		    t->opts.bash_timeout_s, BASH_OUTPUT_CAP, out);
	}
	free(tool);
}

char *
mcptools_text(struct team *t)
{
	char *text, *offers, *both;

	mcpoffers_settle(t);
	text = mcp_set_text(t->mcp.set);
	if ((offers = mcpoffers_text(t)) == NULL)
		return text;
	if (mcp_set_count(t->mcp.set) == 0) {
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
