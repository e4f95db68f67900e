/*
 * Running git for huddle itself (see git.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bash.h"
#include "tools/git.h"
#include "util/xmalloc.h"

/* How long a git command may take. */
#define GIT_TIMEOUT_S	120

/* git's path (the first word, filled in), then the settings that keep a
 * repository from making git run anything of its own. */
static const char *const git_safe[] = {
	NULL,
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "diff.external=",
	"-c", "core.quotePath=false",
	"-c", "submodule.recurse=false",
	"-c", "protocol.allow=never",
};

/*
 * What the shell runs before git: the names of every filter, text
 * conversion, diff and merge driver the configuration defines, listed by
 * the same git in the same environment (so from the same files), each
 * emptied with -c in "$@" for the git that follows. A name -c cannot
 * carry (one holding '=') stops it all.
 */
static const char git_prelude[] =
    "set --\n"
    "n=$(exec %s config --name-only --get-regexp "
    "'^(filter|diff|merge)\\.' 2>/dev/null) || n=\n"
    "while IFS= read -r k; do case $k in\n"
    "*=*) echo 'huddle: a git filter or driver name holds \"=\": "
    "huddle does not run git here' >&2; exit 125;;\n"
    "filter.*.clean|filter.*.smudge|filter.*.process|diff.*.textconv|"
    "diff.*.command|merge.*.driver) set -- \"$@\" -c \"$k=\";;\n"
    "filter.*.required) set -- \"$@\" -c \"$k=false\";;\n"
    "esac; done <<EOF\n"
    "$n\n"
    "EOF\n";

int
git_pin(struct git *g, const char *common, char **err)
{
	struct stat st;

	if (stat(common, &st) == -1) {
		*err = xasprintf("%s: %s", common, strerror(errno));
		return -1;
	}
	free(g->common);
	g->common = xstrdup(common);
	g->common_dev = st.st_dev;
	g->common_ino = st.st_ino;
	return 0;
}

void
git_clear(struct git *g)
{
	free(g->path);
	free(g->common);
	g->path = g->common = NULL;
}

void
git_confine(struct git *g, const struct bash_options *bo)
{
	g->sandboxed = bo->sandboxed;
	g->sandbox_fd = bo->sandbox_fd;
	g->ruleset = bo->ruleset;
	g->confine = bo->confine;
	g->pinned = bo->pinned;
	g->pin_fd = bo->pin_fd;
}

/* Why the pinned git directory is not to be read (malloc'd), or NULL. */
static char *
git_moved(const struct git *g)
{
	struct stat st;

	if (g->common == NULL)
		return NULL;
	if (stat(g->common, &st) == 0 && st.st_dev == g->common_dev &&
	    st.st_ino == g->common_ino)
		return NULL;
	return xasprintf("%s is not the git directory huddle found at start "
	    "any more (it was moved or replaced): huddle's git does not read "
	    "it; look at it before you run git there", g->common);
}

int
git_find(struct git *g)
{
	const char *env = getenv("PATH"), *p, *end;
	char *dir, *file;

	free(g->path);
	g->path = NULL;
	for (p = env ? env : "/usr/bin:/bin"; g->path == NULL && *p != '\0';
	    p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		if (*p != '/')
			continue;
		dir = xasprintf("%.*s", (int)(end - p), p);
		file = xasprintf("%s/git", dir);
		if (access(file, X_OK) == 0)
			g->path = file;
		else
			free(file);
		free(dir);
	}
	return g->path != NULL ? 0 : -1;
}

/* s in single quotes for the shell, each ' as '\'' (malloc'd). */
static char *
git_quote(const char *s)
{
	char *out = NULL;
	size_t len = 0, cap = 0;

	out = xappend(out, &len, &cap, "'", 1);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			out = xappend(out, &len, &cap, "'\\''", 4);
		else
			out = xappend(out, &len, &cap, s, 1);
	}
	return xappend(out, &len, &cap, "'", 1);
}

/* Appends one word, quoted, after a space. */
static char *
git_word(char *cmd, size_t *len, size_t *cap, const char *word)
{
	char *q = git_quote(word);

	cmd = xappend(cmd, len, cap, " ", 1);
	cmd = xappend(cmd, len, cap, q, strlen(q));
	free(q);
	return cmd;
}

/* The shell command: the prelude, then git with the safe settings, the
 * emptied drivers ("$@") and args (malloc'd). */
static char *
git_command(const struct git *g, int flags, const char *const *args)
{
	char *q = git_quote(g->path), *pre = xasprintf(git_prelude, q);
	char *cmd = NULL;
	size_t len = 0, cap = 0, i;

	free(q);
	cmd = xappend(cmd, &len, &cap, pre, strlen(pre));
	free(pre);
	cmd = xappend(cmd, &len, &cap, "exec", 4);
	for (i = 0; i < sizeof git_safe / sizeof *git_safe; i++)
		cmd = git_word(cmd, &len, &cap, i == 0 ? g->path :
		    git_safe[i]);
	cmd = xappend(cmd, &len, &cap, " \"$@\"", 5);
	for (i = 0; args[i] != NULL; i++)
		cmd = git_word(cmd, &len, &cap, args[i]);
	if (flags & GIT_QUIET)
		cmd = xappend(cmd, &len, &cap, " 2>/dev/null", 12);
	return cmd;
}

/* The exit status of what bash_run returned, its status line dropped
 * from o->text; -1 when git did not end by itself. */
static int
git_status(int status, struct tool_output *o)
{
	char *tail;

	if (status == -1 || !WIFEXITED(status))
		return -1;
	/* The status line bash adds is ours to drop. */
	for (tail = o->text ? strstr(o->text, "[exit status ") : NULL;
	    tail != NULL && strstr(tail + 1, "[exit status ") != NULL;
	    tail = strstr(tail + 1, "[exit status "))
		;
	if (tail != NULL && strchr(tail, '\n') == NULL)
		*tail = '\0';
	return WEXITSTATUS(status);
}

int
git_run_at(const struct git *g, const char *dir, const char *admin,
    int flags, size_t cap, char **out, const char *const *args)
{
	struct bash_options bo = { 0 };
	struct tool_output o = { 0 };
	const char *env[8];
	char *cmd, *why, *gd = NULL, *cd = NULL, *wt = NULL;
	size_t n = 0;
	int status = -1, rc;

	why = g->path == NULL ? xstrdup("git is not installed (not found in "
	    "$PATH)") : git_moved(g);
	if (why != NULL) {
		if (out != NULL)
			*out = why;
		else
			free(why);
		return -1;
	}
	env[n++] = "LC_ALL=C";
	env[n++] = "GIT_TERMINAL_PROMPT=0";
	env[n++] = "GIT_OPTIONAL_LOCKS=0";
	if (g->common != NULL || admin != NULL) {
		env[n++] = gd = xasprintf("GIT_DIR=%s", admin != NULL ?
		    admin : g->common);
		env[n++] = wt = xasprintf("GIT_WORK_TREE=%s", dir);
	}
	if (g->common != NULL)
		env[n++] = cd = xasprintf("GIT_COMMON_DIR=%s", g->common);
	env[n] = NULL;
	cmd = git_command(g, flags, args);
	bo.program = g->program;
	bo.workdir = dir;
	bo.timeout_s = GIT_TIMEOUT_S;
	bo.output_cap = cap ? cap : 4 * 1024 * 1024;
	bo.tmpdir = g->tmpdir;
	bo.sandboxed = g->sandboxed;
	bo.sandbox_fd = g->sandbox_fd;
	bo.ruleset = g->ruleset;
	bo.confine = g->confine;
	bo.pinned = g->pinned;
	bo.pin_fd = g->pin_fd;
	bo.extra_env = env;
	bo.status_out = &status;
	bash_run(cmd, &bo, &o);
	free(cmd);
	free(gd);
	free(cd);
	free(wt);
	rc = git_status(status, &o);
	if (out != NULL)
		*out = o.text ? o.text : xstrdup("");
	else
		free(o.text);
	return rc;
}

int
git_run(const struct git *g, const char *dir, int flags, size_t cap,
    char **out, const char *const *args)
{
	return git_run_at(g, dir, NULL, flags, cap, out, args);
}
