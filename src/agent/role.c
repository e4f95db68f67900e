/*
 * One teammate role (see roles.h): a definition file parsed and checked
 * against huddle's tools and the person's MCP servers, and what it lets
 * a teammate use.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/roles.h"
#include "agent/toolset.h"
#include "util/frontmatter.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* Claude Code's tool names that have a huddle tool of the same use (the
 * team's own, messages and the task board, are given to every teammate
 * anyway). */
static const char *const role_claude_map[][2] = {
	{ "Read", "read_file" }, { "Write", "write_file" },
	{ "Edit", "edit_file" }, { "MultiEdit", "edit_file" },
	{ "Bash", "bash" }, { "SendMessage", "send_message" },
	{ "TaskCreate", "task_create" }, { "TaskList", "task_list" },
	{ "TaskGet", "task_get" }, { "TaskUpdate", "task_update" },
};

/* Claude Code's search and listing tools: huddle has none, and bash would
 * be wider (it writes); a role that asks for them reads with read_file,
 * never more. */
static const char *const role_claude_read[] = { "Grep", "Glob", "LS" };

/* Claude Code's tools that huddle lacks: left out of a role, with a
 * note, never an error (its files are read as they are). */
static const char *const role_claude_only[] = {
	"WebFetch", "WebSearch", "NotebookEdit", "NotebookRead",
	"TodoWrite", "TodoRead", "Task", "Agent", "TeamCreate", "TeamDelete",
	"BashOutput", "KillShell", "KillBash", "SlashCommand", "ExitPlanMode",
	"Skill",
};

/* The tools a role's list gates; the team's own are always given. */
static const char *const role_gated[] = {
	"bash", "read_file", "write_file", "edit_file",
};

#define NELEM(a) (sizeof (a) / sizeof *(a))

const char *
role_origin_name(enum role_origin o)
{
	return o == ROLE_PERSON ? "the person's" : o == ROLE_PROJECT ?
	    "the project's" : "Claude Code's";
}

static void
role_push(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

void
role_note(struct role *r, const char *what)
{
	char *next = r->note ? xasprintf("%s; %s", r->note, what) :
	    xstrdup(what);

	free(r->note);
	r->note = next;
}

static int
role_fail(char **err, const char *path, int line, const char *what,
    const char *arg)
{
	*err = xasprintf("%s:%d: %s%s%s", path, line, what, arg ? " " : "",
	    arg ? arg : "");
	return -1;
}

/* A field's values: a list's items, or a scalar split at commas. The
 * strings belong to the field or to *owned (free it). */
static size_t
role_values(const struct fm_field *f, char ***owned, const char ***out)
{
	char *copy, *p, *save = NULL;
	size_t n = 0, i;

	*owned = NULL;
	if (f->is_list) {
		*out = (const char **)f->items;
		return f->nitems;
	}
	copy = xstrdup(f->value);
	for (p = strtok_r(copy, ",", &save); p != NULL; p = strtok_r(NULL,
	    ",", &save)) {
		while (*p == ' ' || *p == '\t')
			p++;
		for (i = strlen(p); i > 0 && (p[i - 1] == ' ' ||
		    p[i - 1] == '\t'); i--)
			p[i - 1] = '\0';
		if (*p != '\0')
			role_push(owned, &n, p);
	}
	free(copy);
	*out = (const char **)*owned;
	return n;
}

static void
role_free_values(char **owned, size_t n)
{
	size_t i;

	if (owned == NULL)
		return;
	for (i = 0; i < n; i++)
		free(owned[i]);
	free(owned);
}

/* Whether s is a name of the form [a-z0-9_-], 1–64, not starting with
 * - or _. */
static int
role_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 64 && *s != '-' && *s != '_' && strspn(s,
	    "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/* The server of an MCP tool name or pattern (malloc'd), or NULL when
 * name is not one. */
static char *
role_mcp_server_of(const char *name)
{
	const char *s, *e;

	if (strncmp(name, "mcp__", 5) != 0)
		return NULL;
	s = name + 5;
	e = strstr(s, "__");
	if (e == NULL)
		e = s + strlen(s);
	return e > s ? xasprintf("%.*s", (int)(e - s), s) : NULL;
}

/* Checks one name of tools or disallowedTools and adds what it maps to
 * (nothing for a tool huddle lacks, with a note). */
static int
role_tool(struct role *r, const struct fm_field *f, const char *name,
    const json_t *mcp_servers, char ***list, size_t *n, char **err)
{
	char *server, *why;
	size_t i;

	for (i = 0; i < NELEM(role_claude_map); i++) {
		if (strcmp(name, role_claude_map[i][0]) == 0)
			name = role_claude_map[i][1];
	}
	for (i = 0; i < NELEM(role_claude_read) && list == &r->tools; i++) {
		if (strcmp(name, role_claude_read[i]) == 0) {
			why = xasprintf("%s read as read_file (huddle has no "
			    "search or listing tool, and bash would write)",
			    name);
			role_note(r, why);
			free(why);
			name = "read_file";
		}
	}
	if (toolset_known(name)) {
		for (i = 0; i < *n; i++)
			if (strcmp((*list)[i], name) == 0)
				return 0;
		role_push(list, n, name);
		return 0;
	}
	if ((server = role_mcp_server_of(name)) != NULL) {
		/* A server the person lacks gives nothing: left out, which
		 * only narrows the role. */
		if (json_object_get(mcp_servers, server) == NULL) {
			why = xasprintf("%s left out (the person's settings "
			    "list no MCP server '%s')", name, server);
			role_note(r, why);
			free(why);
			free(server);
			return 0;
		}
		free(server);
		role_push(list, n, name);
		return 0;
	}
	for (i = 0; i < NELEM(role_claude_only); i++) {
		size_t k = strlen(role_claude_only[i]);

		if (strncmp(name, role_claude_only[i], k) == 0 &&
		    (name[k] == '\0' || name[k] == '(')) {
			why = xasprintf("%s left out (huddle has no such tool)",
			    name);
			role_note(r, why);
			free(why);
			return 0;
		}
	}
	/* Claude's Bash(git diff:*) and the like: narrower than bash, so
	 * not bash. */
	if (strchr(name, '(') != NULL) {
		why = xasprintf("%s left out (huddle does not limit a tool "
		    "by its arguments)", name);
		role_note(r, why);
		free(why);
		return 0;
	}
	/* A tool nobody knows: left out with a note, never the whole
	 * file (the role is only narrower for it). */
	(void)f;
	(void)err;
	why = xasprintf("%s left out (no such tool)", name);
	role_note(r, why);
	free(why);
	return 0;
}

static int
role_tools(struct role *r, const struct fm_field *f,
    const json_t *mcp_servers, int deny, char **err)
{
	char **owned;
	const char **v;
	size_t n = role_values(f, &owned, &v), i;
	int rc = 0;

	if (!f->is_list && *f->value == '\0') {
		role_free_values(owned, n);
		return 0;	/* empty: as if left out */
	}
	if (!deny)
		r->has_tools = 1;
	for (i = 0; i < n && rc == 0; i++)
		rc = role_tool(r, f, v[i], mcp_servers, deny ? &r->denied :
		    &r->tools, deny ? &r->ndenied : &r->ntools, err);
	role_free_values(owned, n);
	return rc;
}

static int
role_servers(struct role *r, const struct fm_field *f,
    const json_t *mcp_servers, char **err)
{
	char **owned, *why;
	const char **v;
	size_t n = role_values(f, &owned, &v), i;

	(void)f;
	(void)err;
	r->has_mcp = 1;
	for (i = 0; i < n; i++) {
		/* Left out, the role is narrower: never an error. */
		if (json_object_get(mcp_servers, v[i]) == NULL) {
			why = xasprintf("MCP server '%s' left out (the person's "
			    "settings do not list it)", v[i]);
			role_note(r, why);
			free(why);
			continue;
		}
		role_push(&r->mcp, &r->nmcp, v[i]);
	}
	role_free_values(owned, n);
	return 0;
}

static int
role_bool(struct role *r, const struct fm_field *f, int *out, char **err)
{
	if (!f->is_list && strcmp(f->value, "true") == 0)
		*out = 1;
	else if (!f->is_list && strcmp(f->value, "false") == 0)
		*out = 0;
	else {
		char *why = xasprintf("%s is true or false", f->key);

		role_fail(err, r->path, f->line, why, NULL);
		free(why);
		return -1;
	}
	return 0;
}

static int
role_scalar(struct role *r, const struct fm_field *f, char **out,
    char **err)
{
	char *why;

	if (f->is_list) {
		why = xasprintf("%s is one value, not a list", f->key);
		role_fail(err, r->path, f->line, why, NULL);
		free(why);
		return -1;
	}
	free(*out);
	*out = xstrdup(f->value);
	return 0;
}

/* Trims blank lines and spaces around the body. */
static char *
role_trim(const char *s)
{
	size_t n;

	while (*s == '\n' || *s == '\r' || *s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
	    s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return xasprintf("%.*s", (int)n, s);
}

/* Notes a key of the file that huddle reads past, and why. */
static void
role_field_note(struct role *r, const char *key, const char *why)
{
	char *what = xasprintf("%s ignored (%s)", key, why);

	role_note(r, what);
	free(what);
}

static int
role_field(struct role *r, const struct fm_field *f,
    const json_t *mcp_servers, char **err)
{
	const char *k = f->key;

	if (strcmp(k, "name") == 0)
		return role_scalar(r, f, &r->name, err);
	if (strcmp(k, "description") == 0)
		return role_scalar(r, f, &r->description, err);
	if (strcmp(k, "model") == 0)
		return role_scalar(r, f, &r->model, err);
	if (strcmp(k, "tools") == 0)
		return role_tools(r, f, mcp_servers, 0, err);
	if (strcmp(k, "disallowedTools") == 0)
		return role_tools(r, f, mcp_servers, 1, err);
	if (strcmp(k, "mcpServers") == 0)
		return role_servers(r, f, mcp_servers, err);
	if (strcmp(k, "plan_required") == 0)
		return role_bool(r, f, &r->plan_required, err);
	if (strcmp(k, "autonomous") == 0)
		return role_bool(r, f, &r->autonomous, err);
	if (strcmp(k, "permissionMode") == 0) {
		/* Claude's plan mode is a plan gate; no other mode relaxes
		 * anything here. */
		if (!f->is_list && strcmp(f->value, "plan") == 0)
			r->plan_required = 1;
		else
			role_field_note(r, k, "a role never relaxes the "
			    "person's permission rules");
		return 0;
	}
	if (strcmp(k, "maxTurns") == 0)
		role_field_note(r, k, "huddle bounds a turn's rounds for the "
		    "whole team (--max-rounds)");
	else if (strcmp(k, "effort") == 0)
		role_field_note(r, k, "the model's effort is the team's "
		    "(--reasoning-effort, --thinking)");
	else if (strcmp(k, "color") == 0)
		role_field_note(r, k, "panes take no colour from a role");
	else
		role_field_note(r, k, "huddle has no such setting");
	return 0;
}

int
role_parse(const char *text, const char *path, const char *file_name,
    enum role_origin origin, const json_t *mcp_servers, struct role *out,
    char **err)
{
	struct frontmatter fm;
	const struct fm_field *f;
	char *clean;
	size_t i;
	int rc;

	memset(out, 0, sizeof *out);
	out->origin = origin;
	out->path = xstrdup(path);
	/* Shown and sent as JSON: valid UTF-8 only. */
	clean = utf8_sanitize(text);
	rc = frontmatter_parse(clean, path, &fm, err);
	free(clean);
	if (rc == -1) {
		role_clear(out);
		return -1;
	}
	for (i = 0; i < fm.nfields; i++) {
		if (role_field(out, &fm.fields[i], mcp_servers, err) == -1)
			goto fail;
	}
	out->file_name = xstrdup(file_name);
	if (out->name == NULL)
		out->name = xstrdup(file_name);
	if (!role_name_ok(out->name)) {
		f = frontmatter_get(&fm, "name");
		role_fail(err, path, f ? f->line : 1, "a role's name is 1 to "
		    "64 of a-z, 0-9, _ and -:", out->name);
		goto fail;
	}
	if (out->model != NULL && (*out->model == '\0' ||
	    strcmp(out->model, "inherit") == 0)) {
		free(out->model);
		out->model = NULL;
	}
	if (out->model != NULL && (strlen(out->model) > 100 ||
	    strspn(out->model, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
	    "TUVWXYZ0123456789._:/@-") != strlen(out->model))) {
		f = frontmatter_get(&fm, "model");
		role_fail(err, path, f->line, "a model id is up to 100 "
		    "letters, digits and ._:/@-:", out->model);
		goto fail;
	}
	if (out->description == NULL)
		out->description = xstrdup("");
	out->prompt = role_trim(fm.body);
	frontmatter_free(&fm);
	return 0;
fail:
	frontmatter_free(&fm);
	role_clear(out);
	return -1;
}

/* Whether tool name matches entry: a name, mcp__S__* or mcp__S. */
static int
role_match(const char *entry, const char *name)
{
	size_t n = strlen(entry);

	if (strcmp(entry, name) == 0)
		return 1;
	if (n > 1 && strcmp(entry + n - 1, "*") == 0)
		return strncmp(entry, name, n - 1) == 0;
	if (strncmp(entry, "mcp__", 5) == 0 && strstr(entry + 5, "__") ==
	    NULL)
		return strncmp(entry, name, n) == 0 && strncmp(name + n, "__",
		    2) == 0;
	return 0;
}

int
role_allows_tool(const struct role *r, const char *name)
{
	char *server;
	size_t i;
	int gated = 0, ok = 1;

	if (r == NULL)
		return 1;
	for (i = 0; i < r->ndenied; i++) {
		if (role_match(r->denied[i], name))
			return 0;
	}
	for (i = 0; i < NELEM(role_gated); i++)
		gated |= strcmp(name, role_gated[i]) == 0;
	if ((server = role_mcp_server_of(name)) != NULL) {
		gated = 1;
		if (r->has_mcp) {
			ok = 0;
			for (i = 0; i < r->nmcp; i++)
				ok |= strcmp(r->mcp[i], server) == 0;
		}
		free(server);
	}
	if (!ok)
		return 0;
	if (!gated || !r->has_tools)
		return 1;
	for (i = 0; i < r->ntools; i++) {
		if (role_match(r->tools[i], name))
			return 1;
	}
	return 0;
}

char *const *
role_mcp_servers(const struct role *r, size_t *n)
{
	*n = r != NULL && r->has_mcp ? r->nmcp : 0;
	return r != NULL && r->has_mcp ? r->mcp : NULL;
}

void
role_clear(struct role *r)
{
	free(r->name);
	free(r->description);
	free(r->model);
	free(r->prompt);
	free(r->path);
	free(r->note);
	free(r->file_name);
	role_free_values(r->tools, r->ntools);
	role_free_values(r->denied, r->ndenied);
	role_free_values(r->mcp, r->nmcp);
	memset(r, 0, sizeof *r);
}
