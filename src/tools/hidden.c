/*
 * What no command and no file tool may read (see hidden.h).
 *
 * The table names each store where programs put it: beneath the home
 * directory, beneath the person's configuration or data directory (the
 * usual ~/.config and ~/.local/share, and the XDG variables' folders
 * as well when they are set), or at an absolute
 * place, where a pattern may stand for several files.
 */
#include "config.h"

#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hidden.h"
#include "util/xmalloc.h"

enum hidden_base {
	HIDDEN_HOME,		/* beneath the home directory */
	HIDDEN_CONFIG,		/* beneath $XDG_CONFIG_HOME or ~/.config */
	HIDDEN_DATA,		/* beneath $XDG_DATA_HOME or ~/.local/share */
	HIDDEN_STATE,		/* beneath $XDG_STATE_HOME or ~/.local/state */
	HIDDEN_ROOT		/* absolute, a glob(3) pattern */
};

static const struct {
	enum hidden_base	 base;
	const char		*path;
} hidden_table[] = {
	/* Keys and agents' material. */
	{ HIDDEN_HOME, ".ssh" },
	{ HIDDEN_HOME, ".gnupg" },
	{ HIDDEN_HOME, ".pki" },
	{ HIDDEN_HOME, ".password-store" },
	{ HIDDEN_DATA, "keyrings" },
	{ HIDDEN_CONFIG, "op" },
	/* Clouds and clusters. */
	{ HIDDEN_HOME, ".aws" },
	{ HIDDEN_HOME, ".azure" },
	{ HIDDEN_CONFIG, "gcloud" },
	{ HIDDEN_HOME, ".kube" },
	{ HIDDEN_HOME, ".docker" },
	{ HIDDEN_HOME, ".terraform.d" },
	{ HIDDEN_HOME, ".vault-token" },
	{ HIDDEN_HOME, ".s3cfg" },
	{ HIDDEN_HOME, ".boto" },
	{ HIDDEN_CONFIG, "rclone" },
	/* Credentials of tools that fetch and publish. */
	{ HIDDEN_HOME, ".netrc" },
	{ HIDDEN_HOME, ".git-credentials" },
	{ HIDDEN_CONFIG, "git/credentials" },
	{ HIDDEN_CONFIG, "gh" },
	{ HIDDEN_CONFIG, "hub" },
	{ HIDDEN_CONFIG, "glab-cli" },
	{ HIDDEN_HOME, ".npmrc" },
	{ HIDDEN_HOME, ".pypirc" },
	{ HIDDEN_HOME, ".cargo/credentials" },
	{ HIDDEN_HOME, ".cargo/credentials.toml" },
	{ HIDDEN_HOME, ".gem/credentials" },
	{ HIDDEN_CONFIG, "huddle" },
	/* huddle's sign-ins to MCP servers (mcp/tokens.h), where they are
	 * kept by default; the whole state folder is hidden as well. */
	{ HIDDEN_STATE, "huddle/mcp-auth.json" },
	/* What the person typed. */
	{ HIDDEN_HOME, ".bash_history" },
	{ HIDDEN_HOME, ".zsh_history" },
	{ HIDDEN_HOME, ".histfile" },
	{ HIDDEN_HOME, ".local/share/fish" },
	{ HIDDEN_HOME, ".python_history" },
	{ HIDDEN_HOME, ".psql_history" },
	{ HIDDEN_HOME, ".mysql_history" },
	{ HIDDEN_HOME, ".sqlite_history" },
	{ HIDDEN_HOME, ".node_repl_history" },
	{ HIDDEN_HOME, ".lesshst" },
	/* Browsers and mail. */
	{ HIDDEN_HOME, ".mozilla" },
	{ HIDDEN_HOME, ".thunderbird" },
	{ HIDDEN_CONFIG, "google-chrome" },
	{ HIDDEN_CONFIG, "chromium" },
	{ HIDDEN_CONFIG, "BraveSoftware" },
	{ HIDDEN_CONFIG, "microsoft-edge" },
	/* The system's. */
	{ HIDDEN_ROOT, "/etc/shadow" },
	{ HIDDEN_ROOT, "/etc/gshadow" },
	{ HIDDEN_ROOT, "/etc/ssh/ssh_host_*_key" },
	{ HIDDEN_ROOT, "/root/.ssh" },
};

struct hidden_list {
	char	**v;
	size_t	 n, cap;
};

/* Whether the list holds path already. */
static int
hidden_has(const struct hidden_list *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], path) == 0)
			return 1;
	return 0;
}

/* Adds path, and its canonical form where that differs; once each. */
static void
hidden_add(struct hidden_list *l, const char *path)
{
	char real[PATH_MAX];
	size_t k;

	for (k = 0; k < 2; k++) {
		if (k == 1 && (realpath(path, real) == NULL ||
		    strcmp(real, path) == 0))
			break;
		if (hidden_has(l, k == 0 ? path : real))
			continue;
		if (l->n + 2 > l->cap) {
			l->cap = l->cap ? l->cap * 2 : 64;
			l->v = xrealloc(l->v, l->cap * sizeof *l->v);
		}
		l->v[l->n++] = xstrdup(k == 0 ? path : real);
	}
	l->v[l->n] = NULL;
}

/* A directory from an XDG variable (absolute only; NULL when it is not
 * set), else home/fallback; canonical where it exists. */
static char *
hidden_dir(const char *var, const char *home, const char *fallback)
{
	const char *v = var != NULL ? getenv(var) : NULL;
	char real[PATH_MAX], *dir;

	if (var != NULL && (v == NULL || *v != '/'))
		return NULL;
	dir = v != NULL ? xstrdup(v) : xasprintf("%s/%s", home, fallback);
	if (realpath(dir, real) != NULL) {
		free(dir);
		dir = xstrdup(real);
	}
	return dir;
}

/* Adds what lies at path beneath base (NULL: nothing). */
static void
hidden_add_under(struct hidden_list *l, const char *base, const char *path)
{
	char *full;

	if (base == NULL)
		return;
	full = xasprintf("%s/%s", strcmp(base, "/") == 0 ? "" : base, path);
	hidden_add(l, full);
	free(full);
}

char **
hidden_paths(const char *home, const char *state)
{
	struct hidden_list l = { NULL, 0, 0 };
	char real[PATH_MAX], *h, *config[2], *data[2], *st[2];
	glob_t g;
	size_t i, j;

	if (home == NULL)
		home = getenv("HOME");
	h = home != NULL && *home == '/' ? xstrdup(home) : NULL;
	if (h != NULL && realpath(h, real) != NULL) {
		free(h);
		h = xstrdup(real);
	}
	/* A store is hidden where its program looks for it: beneath the
	 * XDG folder when the variable is set, and beneath the usual one
	 * too, where it may have been made before the variable was. */
	config[0] = h ? hidden_dir(NULL, h, ".config") : NULL;
	config[1] = h ? hidden_dir("XDG_CONFIG_HOME", h, NULL) : NULL;
	data[0] = h ? hidden_dir(NULL, h, ".local/share") : NULL;
	data[1] = h ? hidden_dir("XDG_DATA_HOME", h, NULL) : NULL;
	st[0] = h ? hidden_dir(NULL, h, ".local/state") : NULL;
	st[1] = h ? hidden_dir("XDG_STATE_HOME", h, NULL) : NULL;
	for (i = 0; i < sizeof hidden_table / sizeof *hidden_table; i++) {
		const char *path = hidden_table[i].path;

		switch (hidden_table[i].base) {
		case HIDDEN_HOME:
			hidden_add_under(&l, h, path);
			continue;
		case HIDDEN_CONFIG:
			hidden_add_under(&l, config[0], path);
			hidden_add_under(&l, config[1], path);
			continue;
		case HIDDEN_DATA:
			hidden_add_under(&l, data[0], path);
			hidden_add_under(&l, data[1], path);
			continue;
		case HIDDEN_STATE:
			hidden_add_under(&l, st[0], path);
			hidden_add_under(&l, st[1], path);
			continue;
		case HIDDEN_ROOT:
			if (strchr(hidden_table[i].path, '*') == NULL) {
				hidden_add(&l, hidden_table[i].path);
				continue;
			}
			if (glob(hidden_table[i].path, GLOB_NOSORT, NULL,
			    &g) == 0) {
				for (j = 0; j < g.gl_pathc; j++)
					hidden_add(&l, g.gl_pathv[j]);
			}
			globfree(&g);
			continue;
		}
	}
	if (state != NULL)
		hidden_add(&l, state);
	free(h);
	for (i = 0; i < 2; i++) {
		free(config[i]);
		free(data[i]);
		free(st[i]);
	}
	if (l.v == NULL)
		l.v = xcalloc(1, sizeof *l.v);
	return l.v;
}

void
hidden_free(char **paths)
{
	size_t i;

	if (paths == NULL)
		return;
	for (i = 0; paths[i] != NULL; i++)
		free(paths[i]);
	free(paths);
}

size_t
hidden_count(char *const *paths)
{
	size_t n = 0;

	while (paths != NULL && paths[n] != NULL)
		n++;
	return n;
}

const char *
hidden_covers(char *const *paths, const char *path)
{
	size_t i, n;

	for (i = 0; paths != NULL && paths[i] != NULL; i++) {
		n = strlen(paths[i]);
		if (strncmp(path, paths[i], n) == 0 && (path[n] == '\0' ||
		    path[n] == '/'))
			return paths[i];
	}
	return NULL;
}
