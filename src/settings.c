/*
 * The settings files (see settings.h): each key checked against the
 * options table (options.h), its value read as the command line's would
 * be, and what goes wrong named with the file and the line.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/set.h"
#include "settings.h"
#include "util/configdir.h"
#include "util/safefile.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* The most a settings file may hold. */
#define SETTINGS_MAX_BYTES (1u << 20)

/* What one file is, while it is read. */
struct settings_file {
	const char	*path;
	char		*text;
	enum opt_source	 src;
};

int
settings_line(const char *text, const char *key, size_t from, size_t *end)
{
	size_t klen = strlen(key), i, j;
	int line = 1;

	for (i = 0; text[i] != '\0'; i++) {
		if (text[i] == '\n')
			line++;
		if (i < from || text[i] != '"' ||
		    strncmp(text + i + 1, key, klen) != 0 ||
		    text[i + 1 + klen] != '"')
			continue;
		j = i + 2 + klen;
		while (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' ||
		    text[j] == '\n')
			j++;
		if (text[j] == ':') {
			if (end != NULL)
				*end = j;
			return line;
		}
	}
	return 0;
}

/* Says what is wrong with key (inner: a key within it, or NULL), at its
 * line; returns -1. */
static int
settings_fail(const struct settings_file *f, const char *key,
    const char *inner, char **err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int
settings_fail(const struct settings_file *f, const char *key,
    const char *inner, char **err, const char *fmt, ...)
{
	size_t at = 0;
	char *what, *clean;
	va_list ap;
	int line, in;

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) == -1)
		abort();
	va_end(ap);
	line = settings_line(f->text, key, 0, &at);
	if (inner != NULL && line > 0 &&
	    (in = settings_line(f->text, inner, at, NULL)) > 0)
		line = in;
	/* Keys and values come from a file a teammate may have written:
	 * nothing of them reaches the terminal unprintable. */
	clean = utf8_clean(what, strlen(what), 1000);
	*err = xasprintf("%s:%d: %s", f->path, line > 0 ? line : 1, clean);
	free(clean);
	free(what);
	return -1;
}

/* Checks "mcpServers": name -> {command…} or {url…}. */
static int
settings_mcp(const struct settings_file *f, json_t *v, char **err)
{
	const char *name;
	json_t *s;

	if (!json_is_object(v))
		return settings_fail(f, "mcpServers", NULL, err, "\"mcpServers\""
		    " takes an object of servers, as .mcp.json's mcpServers");
	json_object_foreach(v, name, s) {
		json_t *cwd = json_object_get(s, "cwd");

		if (!mcp_server_name_ok(name))
			return settings_fail(f, "mcpServers", name, err,
			    "the MCP server name \"%.40s\" must be 1 to %d "
			    "letters, digits, '_' or '-', without \"__\"",
			    name, MCP_SERVER_NAME_MAX);
		if (cwd != NULL && (!json_is_string(cwd) ||
		    json_string_value(cwd)[0] != '/'))
			return settings_fail(f, "mcpServers", name, err,
			    "the MCP server \"%s\" needs an absolute \"cwd\": "
			    "a relative one would start in the working tree, "
			    "which teammates can write", name);
		if (!json_is_object(s) || (!json_is_string(json_object_get(s,
		    "command")) && !json_is_string(json_object_get(s,
		    "url"))))
			return settings_fail(f, "mcpServers", name, err,
			    "the MCP server \"%s\" needs a \"command\" or a "
			    "\"url\"", name);
	}
	return 0;
}

/* Checks "permissions": {"allow": ["mcp__S__T", "mcp__S__*"]}. */
static int
settings_permissions(const struct settings_file *f, json_t *v, char **err)
{
	const char *key;
	json_t *x, *allow;
	size_t i;

	if (!json_is_object(v))
		return settings_fail(f, "permissions", NULL, err,
		    "\"permissions\" takes an object: {\"allow\": "
		    "[\"mcp__SERVER__TOOL\", …]}");
	json_object_foreach(v, key, x) {
		if (strcmp(key, "allow") != 0)
			return settings_fail(f, "permissions", key, err,
			    "unknown key \"%s\" in \"permissions\" (it has "
			    "\"allow\")", key);
	}
	allow = json_object_get(v, "allow");
	if (allow == NULL)
		return 0;
	if (!json_is_array(allow))
		return settings_fail(f, "permissions", "allow", err,
		    "\"allow\" takes an array of MCP tool names");
	json_array_foreach(allow, i, x) {
		if (!json_is_string(x) || strncmp(json_string_value(x),
		    "mcp__", 5) != 0 || strstr(json_string_value(x) + 5,
		    "__") == NULL)
			return settings_fail(f, "permissions", "allow", err,
			    "\"allow\" takes MCP tool names, "
			    "\"mcp__SERVER__TOOL\" or \"mcp__SERVER__*\"");
	}
	return 0;
}

/* Checks "roles": name -> {"model": NAME}. */
static int
settings_roles(const struct settings_file *f, json_t *v, char **err)
{
	const char *name, *key;
	json_t *r, *x;

	if (!json_is_object(v))
		return settings_fail(f, "roles", NULL, err, "\"roles\" takes "
		    "an object of roles, each {\"model\": NAME}");
	json_object_foreach(v, name, r) {
		if (!json_is_object(r))
			return settings_fail(f, "roles", name, err, "the role "
			    "\"%s\" takes an object, {\"model\": NAME}", name);
		json_object_foreach(r, key, x) {
			if (strcmp(key, "model") != 0)
				return settings_fail(f, "roles", key, err,
				    "unknown key \"%s\" in the role \"%s\" "
				    "(a role here has \"model\")", key, name);
			if (!json_is_string(x) || *json_string_value(x) ==
			    '\0')
				return settings_fail(f, "roles", key, err,
				    "the role \"%s\" takes a model's name",
				    name);
		}
	}
	return 0;
}

/* Whether path names a file within the working tree: relative, with no
 * ".." among its parts. */
static int
settings_inside(const char *path)
{
	const char *p = path;
	size_t n;

	if (*path == '\0' || *path == '/')
		return 0;
	while (*p != '\0') {
		n = strcspn(p, "/");
		if (n == 2 && strncmp(p, "..", 2) == 0)
			return 0;
		p += n;
		p += *p == '/';
	}
	return 1;
}

/* Checks "instructions": files within the working tree. */
static int
settings_instructions(const struct settings_file *f, json_t *v, char **err)
{
	json_t *x;
	size_t i;

	if (!json_is_array(v))
		return settings_fail(f, "instructions", NULL, err,
		    "\"instructions\" takes an array of files in the working "
		    "tree");
	json_array_foreach(v, i, x) {
		if (!json_is_string(x) || !settings_inside(json_string_value(x)))
			return settings_fail(f, "instructions", NULL, err,
			    "\"instructions\" takes paths relative to the "
			    "working tree, without \"..\"");
	}
	return 0;
}

/* One scalar value as the command line would give it: malloc'd, or NULL
 * when v is none. */
static char *
settings_text(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		return xstrdup(json_string_value(v));
	case JSON_INTEGER:
		return xasprintf("%lld", (long long)json_integer_value(v));
	case JSON_REAL:
		return xasprintf("%.15g", json_real_value(v));
	case JSON_TRUE:
		return xstrdup("true");
	case JSON_FALSE:
		return xstrdup("false");
	default:
		return NULL;
	}
}

/* Gives option id the value v from file f. */
static int
settings_value(struct options *o, const struct settings_file *f,
    enum opt_id id, const char *key, json_t *v, char **err)
{
	const struct opt_def *d = &options_table[id];
	int list = d->type == OPTT_PATHS || d->type == OPTT_NAMES;
	int path = list ? d->type == OPTT_PATHS : d->type == OPTT_PATH;
	json_t *one = v;
	char *text, *why = NULL;
	size_t i = 0, n = 1;

	if (list && json_is_array(v))
		n = json_array_size(v);
	for (i = 0; i < n; i++) {
		if (list && json_is_array(v))
			one = json_array_get(v, i);
		text = settings_text(one);
		if (text == NULL || (json_is_boolean(one) &&
		    d->type != OPTT_FLAG && d->type != OPTT_ALIAS) ||
		    (!json_is_boolean(one) && (d->type == OPTT_FLAG ||
		    d->type == OPTT_ALIAS))) {
			free(text);
			return settings_fail(f, key, NULL, err, "\"%s\" %s",
			    key, d->type == OPTT_FLAG || d->type == OPTT_ALIAS ?
			    "takes true or false" : list ? "takes a string, or "
			    "an array of them" : "takes a string or a number");
		}
		if (path && *text != '/') {
			free(text);
			return settings_fail(f, key, NULL, err, "\"%s\" takes "
			    "an absolute path in a settings file", key);
		}
		if (options_set(o, id, text, NULL, f->src, f->path,
		    &why) == -1) {
			free(text);
			settings_fail(f, key, NULL, err, "\"%s\" %s", key, why);
			free(why);
			return -1;
		}
		free(text);
	}
	return 0;
}

/* Reads the whole file; 0 (*text NULL when there is none), or -1. The
 * project's file is the team's to write: a FIFO, a device or a huge file
 * there must not hang or flood the start (util/safefile.h). */
static int
settings_slurp(const char *path, char **text, char **err)
{
	size_t size = 0;
	char *why = NULL;

	*text = safefile_read(AT_FDCWD, path, 0, SETTINGS_MAX_BYTES, &size,
	    &why);
	if (*text == NULL && (errno == ENOENT || errno == ENOTDIR)) {
		free(why);
		return 0;
	}
	if (*text == NULL) {
		*err = why;
		return -1;
	}
	if (size > SETTINGS_MAX_BYTES) {
		*err = xasprintf("%s: larger than a megabyte", path);
		free(*text);
		*text = NULL;
		return -1;
	}
	return 0;
}

int
settings_load(struct options *o, const char *path, enum opt_source src,
    char **err)
{
	struct settings_file f = { path, NULL, src };
	json_error_t jerr;
	const char *key;
	json_t *root, *v;
	int id, rc = 0;

	if (settings_slurp(path, &f.text, err) == -1)
		return -1;
	if (f.text == NULL)
		return 0;
	root = json_loads(f.text, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL) {
		char *clean = utf8_clean(jerr.text, strlen(jerr.text), 200);

		*err = xasprintf("%s:%d: %s", path, jerr.line > 0 ? jerr.line :
		    1, clean);
		free(clean);
		free(f.text);
		return -1;
	}
	if (!json_is_object(root)) {
		*err = xasprintf("%s:1: settings are a JSON object, "
		    "{\"key\": value, …}", path);
		rc = -1;
	}
	json_object_foreach(root, key, v) {
		if (rc == -1)
			break;
		id = options_find(key);
		if (id == -1) {
			rc = settings_fail(&f, key, NULL, err, "unknown "
			    "setting \"%s\" (huddle --settings lists them)",
			    key);
		} else if (options_table[id].place == OPT_CLI_ONLY) {
			rc = settings_fail(&f, key, NULL, err, "\"%s\" is a "
			    "command-line option only, not a setting", key);
		} else if (src == OPT_FROM_PROJECT &&
		    options_table[id].place == OPT_GATE) {
			rc = settings_fail(&f, key, NULL, err, "the project's "
			    "settings may not set \"%s\": the team's commands "
			    "can write this file, so it can never open a gate "
			    "(set it in your own settings or on the command "
			    "line)", key);
		} else if (options_table[id].type != OPTT_JSON)
			rc = settings_value(o, &f, id, key, v, err);
		else if ((id == OPT_MCP_SERVERS && settings_mcp(&f, v, err) ==
		    -1) || (id == OPT_PERMISSIONS && settings_permissions(&f,
		    v, err) == -1) || (id == OPT_ROLES && settings_roles(&f, v,
		    err) == -1) || (id == OPT_INSTRUCTIONS &&
		    settings_instructions(&f, v, err) == -1))
			rc = -1;
		else
			rc = options_set(o, id, NULL, v, src, path, err);
	}
	json_decref(root);
	free(f.text);
	return rc;
}

/* --mcp-config FILE: its servers are the "mcpServers" key's, at the
 * command line's strength. */
static int
settings_mcp_config(struct options *o, char **err)
{
	json_t *servers = mcp_set_load(o->mcp_config, err);
	int rc;

	if (servers == NULL)
		return -1;
	rc = options_set(o, OPT_MCP_SERVERS, NULL, servers,
	    o->from[OPT_MCP_CONFIG], o->mcp_config, err);
	json_decref(servers);
	return rc;
}

int
settings_read(struct options *o, char **err)
{
	char *dir = configdir_path(), *path, *work;
	int rc = 0;

	if (dir != NULL) {
		path = xasprintf("%s/settings.json", dir);
		rc = settings_load(o, path, OPT_FROM_PERSON, err);
		free(path);
		free(dir);
	}
	if (rc == 0 && !(o->demo && o->workdir == NULL) &&
	    (work = realpath(o->workdir ? o->workdir : ".", NULL)) != NULL) {
		path = xasprintf("%s/.huddle/settings.json",
		    strcmp(work, "/") == 0 ? "" : work);
		rc = settings_load(o, path, OPT_FROM_PROJECT, err);
		free(path);
		free(work);
	}
	if (rc == 0 && o->mcp_config != NULL)
		rc = settings_mcp_config(o, err);
	if (rc == 0)
		options_env(o);
	return rc;
}
