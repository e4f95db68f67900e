/*
 * Sandbox profiles (see profile.h).
 */
#include "config.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/bash.h"
#include "tools/hidden.h"
#include "tools/landlock.h"
#include "tools/profile.h"
#include "tools/ruleset.h"
#include "util/xmalloc.h"

/* A growing NULL-terminated list of malloc'd strings. */
struct profile_list {
	char	**v;
	size_t	 n;
};

static void
profile_list_add(struct profile_list *l, const char *s)
{
	l->v = xrealloc(l->v, (l->n + 2) * sizeof *l->v);
	l->v[l->n++] = xstrdup(s);
	l->v[l->n] = NULL;
}

static char **
profile_list_end(struct profile_list *l)
{
	return l->v != NULL ? l->v : xcalloc(1, sizeof *l->v);
}

static void
profile_list_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Adds each path that matches pattern (glob(3)). */
static void
profile_glob(struct profile_list *l, const char *pattern)
{
	glob_t g;
	size_t i;

	if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++)
			profile_list_add(l, g.gl_pathv[i]);
	}
	globfree(&g);
}

/*
 * The git files beneath root that run code when the person works there
 * later, outside any sandbox: the hooks, the configuration (core.hooksPath,
 * core.fsmonitor, aliases), info/ (attributes name filters), worktrees/
 * (each worktree's commondir, gitdir and config.worktree say where its
 * configuration is; unless git_admin), and the same of each submodule.
 * A worktree's .git is a file naming a directory commands cannot write:
 * the file itself is kept, so that it cannot be changed, renamed or
 * replaced by a repository of the team's making.
 */
static char **
profile_git_readonly(const char *root, int git_admin)
{
	static const char *const parts[] = { "hooks", "config", "info",
	    "worktrees" };
	struct profile_list l = { NULL, 0 };
	struct stat st;
	char *git, *p;
	size_t i, n = sizeof parts / sizeof *parts - (git_admin != 0);

	git = xasprintf("%s/.git", root);
	if (lstat(git, &st) == 0 && S_ISREG(st.st_mode))
		profile_list_add(&l, git);
	else if (lstat(git, &st) == 0 && S_ISDIR(st.st_mode)) {
		for (i = 0; i < n; i++) {
			p = xasprintf("%s/%s", git, parts[i]);
			/* A directory that is missing could be made and
			 * filled: it is made now, empty, as git init
			 * would, so that it can be kept read-only. */
			if (i != 1)
				(void)mkdir(p, 0755);
			if (lstat(p, &st) == 0)
				profile_list_add(&l, p);
			free(p);
			p = xasprintf("%s/modules/*/%s", git, parts[i]);
			profile_glob(&l, p);
			free(p);
		}
	}
	free(git);
	return profile_list_end(&l);
}

struct ruleset *
profile_ruleset_start(const struct profile_spec *s)
{
	struct landlock_rules r = { 0 };
	const char **writable, **hidden;
	size_t i, n = hidden_count(s->hidden);
	struct ruleset *rs;

	writable = xcalloc(s->nwritable + 2, sizeof *writable);
	writable[0] = s->root;
	writable[1] = s->tmpdir;
	for (i = 0; i < s->nwritable; i++)
		writable[i + 2] = s->writable[i];
	hidden = xcalloc(n + 1, sizeof *hidden);
	for (i = 0; i < n; i++)
		hidden[i] = s->hidden[i];
	if (s->hide_also != NULL)
		hidden[n++] = s->hide_also;
	r.hidden = hidden;
	r.nhidden = n;
	r.readable = s->readable;
	r.nreadable = s->nreadable;
	r.writable = writable;
	r.nwritable = s->nwritable + 2;
	r.deny_net = s->net != CONFINE_NET_OPEN;
	r.tcp_port = s->net == CONFINE_NET_PROXY ? s->proxy_port : 0;
	rs = ruleset_start(&r);
	free(writable);
	free(hidden);
	return rs;
}

/* The profile's ruleset: the shared one held, or one of its own built
 * now. Returns 0, or -1 with *err. */
static int
profile_ruleset(struct profile *p, const struct profile_spec *s, char **err)
{
	if (s->ruleset != NULL) {
		p->ruleset = ruleset_hold(s->ruleset);
		return 0;
	}
	p->ruleset = profile_ruleset_start(s);
	return ruleset_fd(p->ruleset, err) == -1 ? -1 : 0;
}

/* As root the holder's proc is a file system the ruleset does not
 * reach yet (mountns.h): granted here, or the holder is let go and each
 * command makes its own namespace, with the proc everyone shares. The
 * grant joins the place's ruleset when its build ends, so a profile
 * never waits for the walk; the rule reaches only this holder's proc,
 * which no other profile's command can name (its own proc hides the
 * holder). */
static int
profile_pin_proc(struct profile *p, char **err)
{
	char *proc;
	int rc = 0;

	if (geteuid() != 0 || !p->sandbox)
		return 0;
	proc = mountns_pin_proc(&p->pin);
	if ((rc = ruleset_add_readable(p->ruleset, proc, err)) == -1)
		mountns_pin_free(&p->pin);
	free(proc);
	return rc;
}

struct profile *
profile_new(const struct profile_spec *s, char **err)
{
	struct profile *p = xcalloc(1, sizeof *p);
	struct profile_list hidden = { NULL, 0 }, roots = { NULL, 0 };
	struct profile_list sockets = { NULL, 0 }, readable = { NULL, 0 };
	size_t i;

	p->pin.pidfd = p->pin.hold = -1;
	p->sandbox = s->sandbox;
	p->confined = s->confined;
	if (s->sandbox && profile_ruleset(p, s, err) == -1) {
		ruleset_drop(p->ruleset);
		free(p);
		return NULL;
	}
	p->root = xstrdup(s->root);
	p->tmpdir = xstrdup(s->tmpdir);
	for (i = 0; s->hidden != NULL && s->hidden[i] != NULL; i++)
		profile_list_add(&hidden, s->hidden[i]);
	p->hidden = profile_list_end(&hidden);
	for (i = 0; i < s->nreadable; i++)
		profile_list_add(&readable, s->readable[i]);
	p->readable = profile_list_end(&readable);
	profile_list_add(&roots, s->root);
	profile_list_add(&roots, s->tmpdir);
	for (i = 0; i < s->nwritable; i++)
		profile_list_add(&roots, s->writable[i]);
	p->unix_roots = profile_list_end(&roots);
	for (i = 0; i < s->nsockets; i++)
		profile_list_add(&sockets, s->sockets[i]);
	p->unix_sockets = profile_list_end(&sockets);
	p->readonly = profile_git_readonly(s->root, s->git_admin);
	p->confine.landlock = s->sandbox;
	p->confine.net = s->net;
	p->confine.proxy_port = s->proxy_port;
	p->confine.unix_roots = p->unix_roots;
	p->confine.unix_sockets = p->unix_sockets;
	p->confine.readonly = p->readonly;
	p->confine.max_procs = s->max_procs;
	p->confine.max_memory = s->max_memory;
	p->confine.max_file_size = s->max_file_size;
	p->tmp_max = s->tmp_max;
	/* The namespaces every command joins, made once: where the holder
	 * cannot be had, each command makes its own (and fails the same
	 * way when that cannot be done either). Root's always, for its
	 * proc (mountns_pin_new). */
	if (s->confined && s->program != NULL && (p->readonly[0] != NULL ||
	    geteuid() == 0 || s->max_procs > 0)) {
		char *why = NULL;

		if (mountns_pin_new(s->program, p->readonly, &p->pin,
		    &why) == 0)
			p->pinned = profile_pin_proc(p, &why) == 0;
		free(why);
	}
	return p;
}

void
profile_free(struct profile *p)
{
	if (p == NULL)
		return;
	ruleset_drop(p->ruleset);
	if (p->pinned)
		mountns_pin_free(&p->pin);
	free(p->root);
	free(p->tmpdir);
	profile_list_free(p->hidden);
	profile_list_free(p->readable);
	profile_list_free(p->readonly);
	profile_list_free(p->unix_roots);
	profile_list_free(p->unix_sockets);
	free(p);
}

void
profile_bash_options(const struct profile *p, struct bash_options *bo)
{
	bo->workdir = p->root;
	bo->sandboxed = p->sandbox;
	bo->sandbox_fd = -1;
	bo->ruleset = p->ruleset;
	bo->tmpdir = p->tmpdir;
	bo->tmp_max = p->tmp_max.bytes > 0 || p->tmp_max.files > 0 ?
	    &p->tmp_max : NULL;
	bo->confine = p->confined ? &p->confine : NULL;
	bo->pinned = p->pinned;
	bo->pin_fd = p->pin.pidfd;
}

/* Whether path is one of the git files that run code later, wherever
 * it is in root (lexically: one that does not exist yet counts). */
static int
profile_git_file(const struct profile *p, const char *path)
{
	/* commondir names another git directory to read the configuration
	 * and hooks from; so do worktrees/NAME/commondir and gitdir, and
	 * worktrees/NAME/config.worktree is configuration. */
	static const char *const parts[] = { "hooks", "config", "info",
	    "commondir", "worktrees", "config.worktree" };
	size_t n = strlen(p->root), i, k;
	const char *rest, *end;

	if (strncmp(path, p->root, n) != 0 || path[n] != '/')
		return 0;
	rest = path + n + 1;
	/* The root's .git itself: a worktree's file. */
	if (strcmp(rest, ".git") == 0)
		return 1;
	while (strncmp(rest, ".git/", 5) == 0) {
		rest += 5;
		for (i = 0; i < sizeof parts / sizeof *parts; i++) {
			k = strlen(parts[i]);
			if (strncmp(rest, parts[i], k) == 0 &&
			    (rest[k] == '\0' || rest[k] == '/'))
				return 1;
		}
		/* .git/modules/NAME/... is a submodule's git directory. */
		if (strncmp(rest, "modules/", 8) != 0 ||
		    (end = strchr(rest + 8, '/')) == NULL)
			return 0;
		rest = end + 1;
		for (i = 0; i < sizeof parts / sizeof *parts; i++) {
			k = strlen(parts[i]);
			if (strncmp(rest, parts[i], k) == 0 &&
			    (rest[k] == '\0' || rest[k] == '/'))
				return 1;
		}
		return 0;
	}
	return 0;
}

char *
profile_refuses(const struct profile *p, const char *path, int for_write)
{
	const char *h = hidden_covers(p->hidden, path);

	if (h != NULL && hidden_covers(p->readable, path) == NULL)
		return xasprintf("%s is hidden from the team: it holds the "
		    "person's secrets or huddle's own state (only the person "
		    "can let it through, with --readable)", h);
	if (for_write && profile_git_file(p, path))
		return xasprintf("%s is read-only to the team: git runs what "
		    "it holds (hooks, configuration) as the person; ask the "
		    "person to change it", path);
	return NULL;
}
