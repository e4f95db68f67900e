/*
 * The team's MCP servers and the names of their tools (see set.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/set.h"
#include "util/xmalloc.h"

/* Servers are added, never removed, while agents read the set: the lock
 * guards the arrays, and readers work on a copy of the pointers. */
struct mcp_set {
	pthread_mutex_t		 lock;
	struct mcp_server	**servers;
	char			**origins;	/* each server's, or NULL */
	size_t			 n, cap;
};

/* The servers now (NULL-terminated copy; free it), under the lock. */
static struct mcp_server **
mcp_set_snapshot(struct mcp_set *set, size_t *n)
{
	struct mcp_server **out;

	*n = 0;
	if (set == NULL)
		return xcalloc(1, sizeof *out);
	pthread_mutex_lock(&set->lock);
	out = xcalloc(set->n + 1, sizeof *out);
	if (set->n > 0)
		memcpy(out, set->servers, set->n * sizeof *out);
	*n = set->n;
	pthread_mutex_unlock(&set->lock);
	return out;
}

struct mcp_set *
mcp_set_new(json_t *servers, const struct mcp_launch *launch,
    mcp_notice_fn notice, void *ud, char **err)
{
	struct mcp_set *set = xcalloc(1, sizeof *set);
	const char *name;
	json_t *cfg;

	pthread_mutex_init(&set->lock, NULL);
	if (servers != NULL && !json_is_object(servers)) {
		*err = xstrdup("\"mcpServers\" must be an object of servers "
		    "by name");
		mcp_set_free(set);
		return NULL;
	}
	json_object_foreach(servers, name, cfg) {
		if (mcp_set_add(set, name, cfg, NULL, launch, notice, ud,
		    err) == -1) {
			mcp_set_free(set);
			return NULL;
		}
	}
	return set;
}

int
mcp_set_add(struct mcp_set *set, const char *name, json_t *config,
    const char *origin, const struct mcp_launch *launch,
    mcp_notice_fn notice, void *ud, char **err)
{
	struct mcp_server *s;
	size_t i;

	pthread_mutex_lock(&set->lock);
	for (i = 0; i < set->n; i++) {
		if (strcmp(set->servers[i]->name, name) == 0) {
			pthread_mutex_unlock(&set->lock);
			*err = xasprintf("there is an MCP server named \"%s\" "
			    "already", name);
			return -1;
		}
	}
	pthread_mutex_unlock(&set->lock);
	if ((s = mcp_server_new(name, config, launch, notice, ud, err)) ==
	    NULL)
		return -1;
	pthread_mutex_lock(&set->lock);
	set->servers = xgrow(set->servers, &set->cap, set->n + 1,
	    sizeof *set->servers);
	set->origins = xrealloc(set->origins, set->cap *
	    sizeof *set->origins);
	set->servers[set->n] = s;
	set->origins[set->n++] = xstrdup_or_null(origin);
	pthread_mutex_unlock(&set->lock);
	return 0;
}

json_t *
mcp_set_load(const char *path, char **err)
{
	json_error_t je;
	json_t *o = json_load_file(path, 0, &je), *servers;

	if (o == NULL) {
		*err = xasprintf("%s:%d: %s", path, je.line, je.text);
		return NULL;
	}
	servers = json_object_get(o, "mcpServers");
	if (!json_is_object(servers)) {
		*err = xasprintf("%s: no \"mcpServers\" object", path);
		json_decref(o);
		return NULL;
	}
	json_incref(servers);
	json_decref(o);
	return servers;
}

void
mcp_set_free(struct mcp_set *set)
{
	size_t i;

	if (set == NULL)
		return;
	for (i = 0; i < set->n; i++) {
		mcp_server_free(set->servers[i]);
		free(set->origins[i]);
	}
	free(set->servers);
	free(set->origins);
	pthread_mutex_destroy(&set->lock);
	free(set);
}

size_t
mcp_set_count(struct mcp_set *set)
{
	size_t n;

	if (set == NULL)
		return 0;
	pthread_mutex_lock(&set->lock);
	n = set->n;
	pthread_mutex_unlock(&set->lock);
	return n;
}

void
mcp_set_start(struct mcp_set *set)
{
	size_t i, n;
	struct mcp_server **all = mcp_set_snapshot(set, &n);

	for (i = 0; i < n; i++)
		mcp_server_start(all[i]);
	free(all);
}

size_t
mcp_set_wait(struct mcp_set *set, int64_t deadline)
{
	size_t i, n, ready = 0;
	struct mcp_server **all = mcp_set_snapshot(set, &n);

	for (i = 0; i < n; i++)
		if (mcp_server_wait(all[i], deadline) == MCP_READY)
			ready++;
	free(all);
	return ready;
}

/* Appends s, made safe for a tool name, to out (of len bytes so far). */
static size_t
mcp_name_part(char *out, size_t len, const char *s)
{
	for (; *s != '\0' && len < MCP_NAME_MAX; s++, len++) {
		unsigned char c = (unsigned char)*s;

		out[len] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-' ? (char)c :
		    '_';
	}
	out[len] = '\0';
	return len;
}

void
mcp_set_tool_name(const char *server, const char *tool,
    char out[MCP_NAME_MAX + 1])
{
	size_t len = mcp_name_part(out, 0, "mcp__");

	len = mcp_name_part(out, len, server);
	len = mcp_name_part(out, len, "__");
	mcp_name_part(out, len, tool);
}

int
mcp_set_is_tool_name(const char *name)
{
	return strncmp(name, "mcp__", 5) == 0;
}

/* Whether server s is among `only`. */
static int
mcp_set_has(const char *const *only, const struct mcp_server *s)
{
	size_t i;

	if (only == NULL)
		return 1;
	for (i = 0; only[i] != NULL; i++)
		if (strcmp(only[i], s->name) == 0)
			return 1;
	return 0;
}

/* What a walk over the tools of a set calls for each: the server, the
 * tool as it listed it, and its name as agents see it. Nonzero stops
 * the walk. */
typedef int (*mcp_set_tool_fn)(void *ud, struct mcp_server *s, json_t *tool,
    const char *name);

/* Walks the tools of the servers in `only` (mcp_server_tools; start:
 * start a server not started yet in the background, and read a changed
 * list again).
 * Returns what stopped it, or 0. */
static int
mcp_set_walk(struct mcp_set *set, const char *const *only, int start,
    mcp_set_tool_fn fn, void *ud)
{
	char name[MCP_NAME_MAX + 1];
	size_t i, j, n;
	struct mcp_server **all = mcp_set_snapshot(set, &n);
	json_t *tools, *t;
	int stop = 0;

	for (i = 0; i < n && !stop; i++) {
		if (!mcp_set_has(only, all[i]) ||
		    (tools = mcp_server_tools(all[i], start)) == NULL)
			continue;
		json_array_foreach(tools, j, t) {
			mcp_set_tool_name(all[i]->name, json_string_value(
			    json_object_get(t, "name")), name);
			if ((stop = fn(ud, all[i], t, name)) != 0)
				break;
		}
		json_decref(tools);
	}
	free(all);
	return stop;
}

/* Appends a tool to the list (ud) in the API's form; of two tools that
 * come out under one name, the first keeps it. */
static int
mcp_set_list_one(void *ud, struct mcp_server *s, json_t *t, const char *name)
{
	json_t *list = ud, *e, *schema = json_object_get(t, "inputSchema");
	const char *d = json_string_value(json_object_get(t, "description"));
	size_t k;

	(void)s;
	json_array_foreach(list, k, e)
		if (strcmp(json_string_value(json_object_get(e, "name")),
		    name) == 0)
			return 0;
	json_array_append_new(list, json_pack("{s:s, s:s, s:o}", "name", name,
	    "description", d ? d : "(a tool of an MCP server)",
	    "input_schema", json_is_object(schema) ? json_incref(schema) :
	    json_pack("{s:s}", "type", "object")));
	return 0;
}

void
mcp_set_tools(struct mcp_set *set, const char *const *only, json_t *list)
{
	mcp_set_walk(set, only, 1, mcp_set_list_one, list);
}

/* What mcp_set_find looks for, and what it found. */
struct mcp_set_search {
	const char		*name;
	struct mcp_server	*server;
	char			*tool;
};

static int
mcp_set_match(void *ud, struct mcp_server *s, json_t *t, const char *name)
{
	struct mcp_set_search *q = ud;

	if (strcmp(name, q->name) != 0)
		return 0;
	q->server = s;
	q->tool = xstrdup(json_string_value(json_object_get(t, "name")));
	return 1;
}

struct mcp_server *
mcp_set_find(struct mcp_set *set, const char *const *only, const char *name,
    char **tool)
{
	struct mcp_set_search q = { name, NULL, NULL };

	if (mcp_set_walk(set, only, 0, mcp_set_match, &q) == 0)
		return NULL;
	*tool = q.tool;
	return q.server;
}

int
mcp_set_allowed(json_t *allow, const char *server, const char *name)
{
	char prefix[MCP_NAME_MAX + 1];
	size_t i, plen;
	json_t *v;

	mcp_set_tool_name(server, "", prefix);
	plen = strlen(prefix);
	json_array_foreach(allow, i, v) {
		const char *a = json_string_value(v);

		if (a == NULL)
			continue;
		if (strcmp(a, name) == 0)
			return 1;
		/* "mcp__S__*": every tool of S. */
		if (strlen(a) == plen + 1 && a[plen] == '*' &&
		    strncmp(a, prefix, plen) == 0)
			return 1;
	}
	return 0;
}

struct mcp_server *
mcp_set_get(struct mcp_set *set, const char *name)
{
	struct mcp_server *found = NULL;
	size_t i;

	pthread_mutex_lock(&set->lock);
	for (i = 0; i < set->n && found == NULL; i++)
		if (strcmp(set->servers[i]->name, name) == 0)
			found = set->servers[i];
	pthread_mutex_unlock(&set->lock);
	return found;
}

char *
mcp_set_text(struct mcp_set *set)
{
	char *out = NULL, *d, *origin, *nl;
	size_t len = 0, cap = 0, i, n, head;
	struct mcp_server **all = mcp_set_snapshot(set, &n);

	if (n == 0) {
		free(all);
		return xstrdup("no MCP servers are configured (--mcp-config, "
		    "or \"mcpServers\" in the settings)");
	}
	for (i = 0; i < n; i++) {
		d = mcp_server_describe(all[i]);
		/* Where it came from, under its first line. */
		nl = strchr(d, '\n');
		head = nl != NULL ? (size_t)(nl - d) + 1 : strlen(d);
		out = xappend(out, &len, &cap, d, head);
		pthread_mutex_lock(&set->lock);
		origin = set->origins[i] != NULL ? xasprintf("%s  from: %s\n",
		    nl != NULL ? "" : "\n", set->origins[i]) : NULL;
		pthread_mutex_unlock(&set->lock);
		if (origin != NULL) {
			out = xappend(out, &len, &cap, origin, strlen(origin));
			free(origin);
		}
		out = xappend(out, &len, &cap, d + head, strlen(d + head));
		free(d);
	}
	free(all);
	while (len > 0 && out[len - 1] == '\n')
		out[--len] = '\0';
	return out;
}
