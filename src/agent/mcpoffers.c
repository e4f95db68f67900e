/*
 * A project's own MCP servers: the "mcpServers" of .mcp.json at the
 * working tree's root, a file the project or any teammate may write. Each
 * server is offered to the person once — a permission request huddle
 * itself asks — and the answer is kept in the team's store by the
 * server's name and its exact entry (core/mcpoffer.h). An
 * approved server joins the team's set, confined like the person's own;
 * a rejected one is not offered again while its entry stays the same.
 *
 * Decisions are read back from the protocol engine (mcpoffers_settle)
 * whenever the servers are listed or shown and when the team closes,
 * so nothing here runs under the store's lock.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/internal.h"
#include "agent/mcpoffers.h"
#include "agent/netgate.h"
#include "agent/teamstate.h"
#include "mcp/server.h"
#include "core/mcpoffer.h"
#include "core/permbody.h"
#include "mcp/set.h"
#include "util/log.h"
#include "util/safefile.h"
#include "util/xmalloc.h"

/* The most of .mcp.json read. */
#define MCPOFFERS_FILE_MAX	(256 * 1024)
#define MCPOFFERS_FILE		".mcp.json"
/* Where /mcp says an approved one came from. */
#define MCPOFFERS_ORIGIN	".mcp.json in the working tree, approved by " \
	"the person"

struct mcpoffer_item {
	char			*name;
	json_t			*config;
	char			*entry;		/* as remembered */
	char			 id[PROTO_ID_SIZE];	/* "" until asked */
	enum mcpoffer_answer	 answer;	/* NONE: not decided */
};

struct mcpoffers {
	pthread_mutex_t		 lock;
	struct mcpoffer_item	*items;
	size_t			 n, cap;
};

static void
mcpoffers_notice(struct team *t, char *text)
{
	evq_notice(&t->core.events, text);
	free(text);
}

/* The project's "mcpServers" (a new reference), NULL when there is no
 * file or it cannot be used (a notice says why). */
static json_t *
mcpoffers_read(struct team *t)
{
	char *text, *err = NULL;
	json_error_t je;
	json_t *root, *servers;
	size_t size;
	int dir;

	if ((dir = open(t->home.workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1)
		return NULL;
	/* Beneath the working tree: a link that leads out of it is refused,
	 * and so are FIFOs, devices and huge files. */
	text = safefile_read(dir, MCPOFFERS_FILE, 1, MCPOFFERS_FILE_MAX,
	    &size, &err);
	close(dir);
	if (text == NULL) {
		if (errno != ENOENT)
			mcpoffers_notice(t, xasprintf("%s/%s was not read: %s; "
			    "its MCP servers are not offered", t->home.workdir,
			    MCPOFFERS_FILE, err));
		free(err);
		return NULL;
	}
	if (size > MCPOFFERS_FILE_MAX) {
		mcpoffers_notice(t, xasprintf("%s/%s is larger than %d KiB; "
		    "its MCP servers are not offered", t->home.workdir,
		    MCPOFFERS_FILE, MCPOFFERS_FILE_MAX / 1024));
		free(text);
		return NULL;
	}
	root = json_loads(text, 0, &je);
	free(text);
	servers = json_object_get(root, "mcpServers");
	if (root == NULL || !json_is_object(servers)) {
		mcpoffers_notice(t, root == NULL ? xasprintf("%s/%s:%d: %s; "
		    "its MCP servers are not offered", t->home.workdir,
		    MCPOFFERS_FILE, je.line, je.text) : xasprintf("%s/%s has "
		    "no \"mcpServers\" object; no MCP server is offered",
		    t->home.workdir, MCPOFFERS_FILE));
		json_decref(root);
		return NULL;
	}
	json_incref(servers);
	json_decref(root);
	return servers;
}

/* Why server name's entry cannot be offered, or NULL: the server code's
 * own rules (a name, an absolute cwd, a command), not the person's own
 * server's name, and stdio only. */
static char *
mcpoffers_unusable(struct team *t, const char *name, json_t *cfg)
{
	char *why = NULL;
	int http;

	if (json_object_get(t->opts.mcp_servers, name) != NULL)
		return xasprintf("the person's own configuration (%s) defines "
		    "an MCP server \"%s\": it is used, and the project's entry "
		    "is ignored", t->opts.mcp_origin ? t->opts.mcp_origin :
		    "settings", name);
	/* What the server code would refuse is never offered. */
	if (mcp_server_check(name, cfg, &http, &why) == -1)
		return why;
	/* An HTTP server would be reached by huddle itself, outside the
	 * sandbox and the proxy: only the person may configure one. */
	if (http || json_object_get(cfg, "url") != NULL)
		return xasprintf("the MCP server \"%s\" is not a stdio server: "
		    "a project may offer only servers huddle starts in the "
		    "sandbox (configure an HTTP server in your own settings)",
		    name);
	return NULL;
}

size_t
mcpoffers_open(struct team *t)
{
	struct mcpoffers *o;
	struct mcpoffer_item *it;
	json_t *servers = mcpoffers_read(t), *cfg;
	const char *name;
	char *why;
	size_t n = 0;

	if (servers == NULL)
		return 0;
	o = xcalloc(1, sizeof *o);
	pthread_mutex_init(&o->lock, NULL);
	json_object_foreach(servers, name, cfg) {
		if ((why = mcpoffers_unusable(t, name, cfg)) != NULL) {
			mcpoffers_notice(t, xasprintf("%s: %s", MCPOFFERS_FILE,
			    why));
			free(why);
			continue;
		}
		o->items = xgrow(o->items, &o->cap, o->n + 1, sizeof *o->items);
		it = &o->items[o->n++];
		memset(it, 0, sizeof *it);
		it->name = xstrdup(name);
		it->config = json_deep_copy(cfg);
		/* A project's server runs in the working tree unless its
		 * entry says where: what its offer shows is where it runs
		 * (its entry is the team's words already, and so are the
		 * files it reads there). */
		if (json_object_get(it->config, "cwd") == NULL)
			json_object_set_new(it->config, "cwd",
			    json_string(t->home.workdir));
		it->entry = mcpoffer_entry(cfg);
		it->answer = mcpoffer_get(t->core.store, name, it->entry);
		if (it->answer != MCPOFFER_REJECTED)
			n++;
	}
	json_decref(servers);
	t->mcp.offers = o;
	return n;
}

/* Adds approved item it to the team's set; a notice when it cannot. */
static void
mcpoffers_join(struct team *t, struct mcpoffer_item *it)
{
	char *err = NULL;

	if (mcp_set_add(t->mcp.set, it->name, it->config, MCPOFFERS_ORIGIN,
	    t->mcp.launch, team_on_notice, t, &err) == -1) {
		mcpoffers_notice(t, xasprintf("%s: MCP server %s: %s",
		    MCPOFFERS_FILE, it->name, err));
		free(err);
		return;
	}
	/* It starts now, in the background, like the others. */
	mcp_set_start(t->mcp.set);
}

void
mcpoffers_start(struct team *t)
{
	struct mcpoffers *o = t->mcp.offers;
	size_t i;

	for (i = 0; o != NULL && i < o->n; i++)
		if (o->items[i].answer == MCPOFFER_APPROVED)
			mcpoffers_join(t, &o->items[i]);
}

/* Shell-like quoting of one word for the person to read. */
static char *
mcpoffers_quote(const char *s)
{
	const char *p;
	char *out = NULL;
	size_t len = 0, cap = 0;

	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-") == strlen(s))
		return xstrdup(s);
	out = xappend(out, &len, &cap, "'", 1);
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			out = xappend(out, &len, &cap, "'\\''", 4);
		else
			out = xappend(out, &len, &cap, p, 1);
	}
	return xappend(out, &len, &cap, "'", 1);
}

/* What would run: "env K=V … command args…" (every value shown: the
 * environment changes what runs). */
static char *
mcpoffers_command(json_t *cfg)
{
	char *out = NULL, *w;
	size_t len = 0, cap = 0, i;
	const char *k;
	json_t *v, *env = json_object_get(cfg, "env");

	if (json_object_size(env) > 0)
		out = xappend(out, &len, &cap, "env ", 4);
	json_object_foreach(env, k, v) {
		char *pair = xasprintf("%s=%s", k, json_is_string(v) ?
		    json_string_value(v) : "");

		w = mcpoffers_quote(pair);
		out = xappend(out, &len, &cap, w, strlen(w));
		out = xappend(out, &len, &cap, " ", 1);
		free(w);
		free(pair);
	}
	w = mcpoffers_quote(json_string_value(json_object_get(cfg,
	    "command")));
	out = xappend(out, &len, &cap, w, strlen(w));
	free(w);
	json_array_foreach(json_object_get(cfg, "args"), i, v) {
		w = mcpoffers_quote(json_is_string(v) ? json_string_value(v) :
		    "");
		out = xappend(out, &len, &cap, " ", 1);
		out = xappend(out, &len, &cap, w, strlen(w));
		free(w);
	}
	return out;
}

/* Opens the permission request that offers item it. */
static void
mcpoffers_ask_one(struct team *t, struct mcpoffer_item *it)
{
	const char *dir = json_string_value(json_object_get(it->config,
	    "cwd"));
	char *command = mcpoffers_command(it->config), *detail, *tool;
	char *body, *err = NULL;
	struct permbody b;

	tool = xasprintf("MCP server %s", it->name);
	detail = xasprintf("%s in the working tree, written by the project or "
	    "a teammate, offers the MCP server \"%s\": approve to start it "
	    "(sandboxed, as commands are) and give the team's agents its "
	    "tools; reject and it is not offered again until its entry "
	    "changes", MCPOFFERS_FILE, it->name);
	memset(&b, 0, sizeof b);
	b.tool = tool;
	b.command = command;
	b.reason = (char *)MCPOFFERS_FILE;
	b.detail = detail;
	b.directory = (char *)dir;
	b.who = (char *)MSG_SYSTEM;
	body = permbody_make(&b);
	if (protocol_request(t->core.proto, REQ_PERMISSION, MSG_SYSTEM,
	    ROSTER_LEAD, body, it->id, &err) == -1) {
		mcpoffers_notice(t, xasprintf("%s: MCP server %s could not be "
		    "offered: %s", MCPOFFERS_FILE, it->name, err));
		free(err);
		it->id[0] = '\0';
	} else
		log_printf("%s: offered MCP server %s (%s)", MCPOFFERS_FILE,
		    it->name, it->id);
	free(body);
	free(tool);
	free(detail);
	free(command);
}

void
mcpoffers_ask(struct team *t)
{
	struct mcpoffers *o = t->mcp.offers;
	struct request *list;
	char *err = NULL;
	size_t i, n;

	/* An offer a previous run left undecided is asked again, afresh:
	 * the file may have changed since. huddle's other requests, its
	 * servers' network (netgate.h), may already be this run's. */
	n = protocol_list(t->core.proto, 0, &list);
	for (i = 0; i < n; i++) {
		if (list[i].type != REQ_PERMISSION || list[i].status !=
		    REQ_PENDING || strcmp(list[i].from, MSG_SYSTEM) != 0 ||
		    strncmp(list[i].body, NETGATE_PREFIX,
		    strlen(NETGATE_PREFIX)) == 0)
			continue;
		if (protocol_cancel(t->core.proto, list[i].id,
		    "huddle restarted "
		    "before the decision; the offer is asked again", &err) ==
		    -1) {
			log_printf("mcp offers: %s", err);
			free(err);
			err = NULL;
		}
	}
	request_free_array(list, n);
	if (o == NULL)
		return;
	pthread_mutex_lock(&o->lock);
	for (i = 0; i < o->n; i++)
		if (o->items[i].answer == MCPOFFER_NONE)
			mcpoffers_ask_one(t, &o->items[i]);
	pthread_mutex_unlock(&o->lock);
}

void
mcpoffers_settle(struct team *t)
{
	struct mcpoffers *o = t->mcp.offers;
	struct mcpoffer_item *it;
	struct request *r;
	char *err = NULL;
	size_t i;

	if (o == NULL || t->core.proto == NULL)
		return;
	pthread_mutex_lock(&o->lock);
	for (i = 0; i < o->n; i++) {
		it = &o->items[i];
		if (it->answer != MCPOFFER_NONE || it->id[0] == '\0' ||
		    (r = protocol_get(t->core.proto, it->id)) == NULL)
			continue;
		if (r->status == REQ_APPROVED || r->status == REQ_REJECTED) {
			it->answer = r->status == REQ_APPROVED ?
			    MCPOFFER_APPROVED : MCPOFFER_REJECTED;
			if (mcpoffer_set(t->core.store, it->name, it->entry,
			    it->answer == MCPOFFER_APPROVED, &err) == -1) {
				mcpoffers_notice(t, xasprintf("the answer to "
				    "MCP server %s was not kept: %s", it->name,
				    err));
				free(err);
				err = NULL;
			}
			if (it->answer == MCPOFFER_APPROVED) {
				mcpoffers_join(t, it);
				mcpoffers_notice(t, xasprintf("MCP server %s "
				    "(%s) approved: a teammate spawned from now "
				    "on, or an agent after its next compaction, "
				    "gets its tools", it->name,
				    MCPOFFERS_FILE));
			}
		} else if (r->status != REQ_PENDING) {
			/* Expired or withdrawn: asked again next start. */
			it->id[0] = '\0';
		}
		request_free(r);
	}
	pthread_mutex_unlock(&o->lock);
}

int
mcpoffers_is_project(struct team *t, const char *name)
{
	struct mcpoffers *o = t->mcp.offers;
	size_t i;
	int is = 0;

	if (o == NULL)
		return 0;
	pthread_mutex_lock(&o->lock);
	for (i = 0; i < o->n && !is; i++)
		is = o->items[i].answer == MCPOFFER_APPROVED &&
		    strcmp(o->items[i].name, name) == 0;
	pthread_mutex_unlock(&o->lock);
	return is;
}

char *
mcpoffers_text(struct team *t)
{
	struct mcpoffers *o = t->mcp.offers;
	char *out = NULL, *line;
	size_t len = 0, cap = 0, i;

	if (o == NULL)
		return NULL;
	pthread_mutex_lock(&o->lock);
	for (i = 0; i < o->n; i++) {
		struct mcpoffer_item *it = &o->items[i];

		if (it->answer == MCPOFFER_APPROVED)
			continue;
		line = xasprintf("%s (%s, not approved): %s\n", it->name,
		    MCPOFFERS_FILE, it->answer == MCPOFFER_REJECTED ?
		    "rejected; not offered again until its entry changes" :
		    it->id[0] != '\0' ? "offered, waiting for the person" :
		    "left undecided; offered again at the next start");
		out = xappend(out, &len, &cap, line, strlen(line));
		free(line);
	}
	pthread_mutex_unlock(&o->lock);
	return out;
}

void
mcpoffers_close(struct team *t)
{
	struct mcpoffers *o = t->mcp.offers;
	size_t i;

	if (o == NULL)
		return;
	for (i = 0; i < o->n; i++) {
		free(o->items[i].name);
		free(o->items[i].entry);
		json_decref(o->items[i].config);
	}
	free(o->items);
	pthread_mutex_destroy(&o->lock);
	free(o);
	t->mcp.offers = NULL;
}
