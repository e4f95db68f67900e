/*
 * Running git for huddle itself (see git.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
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

int
git_run(const struct git *g, const char *dir, int flags, size_t cap,
    char **out, const char *const *args)
{
	struct bash_options bo = { 0 };
	struct tool_output o = { 0, NULL };
	char *cmd = NULL, *q, *tail;
	size_t len = 0, ccap = 0, i;
	int status = -1, rc;

	if (g->path == NULL) {
		if (out != NULL)
			*out = xstrdup("git is not installed (not found in "
			    "$PATH)");
		return -1;
	}
	cmd = xappend(cmd, &len, &ccap, "LC_ALL=C GIT_TERMINAL_PROMPT=0 "
	    "GIT_OPTIONAL_LOCKS=0 exec", 56);
	for (i = 0; i < sizeof git_safe / sizeof *git_safe; i++) {
		q = git_quote(i == 0 ? g->path : git_safe[i]);
		cmd = xappend(cmd, &len, &ccap, " ", 1);
		cmd = xappend(cmd, &len, &ccap, q, strlen(q));
		free(q);
	}
	for (i = 0; args[i] != NULL; i++) {
		q = git_quote(args[i]);
		cmd = xappend(cmd, &len, &ccap, " ", 1);
		cmd = xappend(cmd, &len, &ccap, q, strlen(q));
		free(q);
	}
	if (flags & GIT_QUIET)
		cmd = xappend(cmd, &len, &ccap, " 2>/dev/null", 12);
	bo.program = g->program;
	bo.workdir = dir;
	bo.timeout_s = GIT_TIMEOUT_S;
	bo.output_cap = cap ? cap : 4 * 1024 * 1024;
	bo.tmpdir = g->tmpdir;
	bo.sandboxed = g->sandboxed;
	bo.sandbox_fd = g->sandbox_fd;
	bo.status_out = &status;
	bash_run(cmd, &bo, &o);
	free(cmd);
	if (status != -1 && WIFEXITED(status)) {
		rc = WEXITSTATUS(status);
		/* The status line bash adds is ours to drop. */
		for (tail = o.text ? strstr(o.text, "[exit status ") : NULL;
		    tail != NULL && strstr(tail + 1, "[exit status ") != NULL;
		    tail = strstr(tail + 1, "[exit status "))
			;
		if (tail != NULL && strchr(tail, '\n') == NULL)
			*tail = '\0';
	} else
		rc = -1;
	if (out != NULL)
		*out = o.text ? o.text : xstrdup("");
	else
		free(o.text);
	return rc;
}
