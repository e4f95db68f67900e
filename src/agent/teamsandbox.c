/*
 * The team's sandbox: how the commands its agents run are confined. At
 * start it makes the commands' private TMPDIR (in the team's state
 * folder), reads what the kernel
 * offers (Landlock's ABI) and lists what is hidden from every command
 * (tools/hidden.h); then each place an agent works in — the working
 * directory, a worktree — gets a sandbox profile of its own
 * (tools/profile.h), built from the team's options.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/internal.h"
#include "agent/teamsandbox.h"
#include "core/statedir.h"
#include "tools/confine.h"
#include "tools/hidden.h"
#include "tools/landlock.h"
#include "tools/profile.h"
#include "tools/reaperexe.h"
#include "tools/ruleset.h"
#include "tools/runlater.h"
#include "util/xmalloc.h"

/* The directory beneath which every team's state folder lies. */
static char *
team_sandbox_state_base(struct team *t)
{
	char *err = NULL, *base = statedir_base(t->opts.state_base, &err);

	free(err);
	return base;
}

/* Removes one entry of the commands' TMPDIR (nftw, depth first). */
static int
team_sandbox_rm(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* Removes the TMPDIRs a huddle that died left in the team's folder (its
 * lock is held: nobody else uses them). */
static void
team_sandbox_sweep(const char *state)
{
	DIR *d = opendir(state);
	struct dirent *e;
	char *path;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "tmp-", 4) != 0 || e->d_type != DT_DIR)
			continue;
		path = xasprintf("%s/%s", state, e->d_name);
		nftw(path, team_sandbox_rm, 16, FTW_DEPTH | FTW_PHYS |
		    FTW_MOUNT);
		free(path);
	}
	closedir(d);
}

int
team_sandbox_open(struct team *t, char **err)
{
	char *tmpl, *state, *why = NULL;

	/* In the team's folder, beneath the state every team's commands
	 * are denied: no other team's command can read it. */
	team_sandbox_sweep(t->home.state);
	tmpl = xasprintf("%s/tmp-XXXXXX", t->home.state);
	if (mkdtemp(tmpl) == NULL) {
		*err = xasprintf("%s: %s", tmpl, strerror(errno));
		free(tmpl);
		return -1;
	}
	/* Canonical, as the sandbox's writable directories are. */
	if ((t->sb.tmpdir = realpath(tmpl, NULL)) == NULL) {
		*err = xasprintf("%s: %s", tmpl, strerror(errno));
		rmdir(tmpl);
		free(tmpl);
		return -1;
	}
	free(tmpl);
	pthread_mutex_init(&t->sb.lock, NULL);
	t->home.program = reaperexe_path();
	t->places.git.program = t->home.program;
	t->places.git.tmpdir = t->sb.tmpdir;
	git_find(&t->places.git);
	/* Every team's state, not only this one's: another team's
	 * transcripts are no business of this one's commands. */
	state = team_sandbox_state_base(t);
	t->sb.hidden = hidden_paths(NULL, state != NULL ? state :
	    t->home.state);
	free(state);
	t->sb.runlater = runlater_note(t->home.workdir);
	t->sb.abi = landlock_abi();
	if (t->opts.no_sandbox) {
		t->sb.mode = SANDBOX_OFF;
		return 0;
	}
	if (t->sb.abi == 0) {
		t->sb.mode = SANDBOX_MISSING;
		event_notice(&t->core.events, NULL,
		    "this kernel has no Landlock "
		    "sandbox: every command will ask for your permission "
		    "(--no-sandbox runs them unconfined)");
		return 0;
	}
	t->sb.mode = SANDBOX_ON;
	if (t->opts.max_procs > 0 && !confine_limits_hold(&why)) {
		event_notice(&t->core.events, NULL, "commands have no process "
		    "limit: %s", why);
		free(why);
	}
	if (t->opts.no_network && t->sb.abi < 4)
		event_notice(&t->core.events, NULL,
		    "this kernel's Landlock cannot "
		    "deny the network (it needs ABI 4): commands keep it");
	return 0;
}

/*
 * The ruleset of the place s describes, shared by every profile made
 * there: the one made before while it is fresh (tools/ruleset.h), else a
 * new one, built on a thread of its own; nobody waits here. Returns it
 * held.
 */
static struct ruleset *
team_sandbox_ruleset(struct team *t, const struct profile_spec *s,
    int worktree, const char *also)
{
	/* Whatever of the rules may differ from one place to another. */
	char *key = xasprintf("%d %d %s\n%s\n%s", worktree, s->proxy_port,
	    s->root, worktree && t->places.git_common != NULL ?
	    t->places.git_common : "", also != NULL ? also : "");
	struct team_ruleset *e = NULL;
	struct ruleset *rs, *stale = NULL;
	size_t i;

	pthread_mutex_lock(&t->sb.lock);
	for (i = 0; i < t->sb.n && e == NULL; i++)
		if (strcmp(t->sb.rulesets[i].key, key) == 0)
			e = &t->sb.rulesets[i];
	if (e == NULL) {
		t->sb.rulesets = xrealloc(t->sb.rulesets, (t->sb.n + 1) *
		    sizeof *t->sb.rulesets);
		e = &t->sb.rulesets[t->sb.n++];
		e->key = key;
		e->rs = NULL;
		key = NULL;
	}
	if (e->rs != NULL && !ruleset_fresh(e->rs)) {
		stale = e->rs;
		e->rs = NULL;
	}
	if (e->rs == NULL)
		e->rs = profile_ruleset_start(s);
	rs = ruleset_hold(e->rs);
	pthread_mutex_unlock(&t->sb.lock);
	/* Profiles made before keep theirs. */
	ruleset_drop(stale);
	free(key);
	return rs;
}

struct profile *
team_sandbox_profile(struct team *t, const char *root, int worktree,
    char **err)
{
	return team_sandbox_profile_also(t, root, worktree, NULL, err);
}

struct profile *
team_sandbox_profile_also(struct team *t, const char *root, int worktree,
    const char *also, char **err)
{
	struct profile_spec s = { 0 };
	struct profile *p;
	const char *readable[64], **writable;
	size_t i;

	s.root = root;
	s.tmpdir = t->sb.tmpdir;
	s.program = t->home.program;
	writable = xcalloc(t->opts.nwritable + 1, sizeof *writable);
	for (i = 0; i < t->opts.nwritable; i++)
		writable[i] = t->opts.writable[i];
	if (also != NULL)
		writable[i++] = also;
	s.writable = writable;
	s.nwritable = i;
	for (i = 0; i < t->opts.nreadable && i < 63; i++)
		readable[s.nreadable++] = t->opts.readable[i];
	/* From a worktree the rest of the working tree is out of sight,
	 * but the repository's history is not. */
	if (worktree) {
		s.hide_also = t->home.workdir;
		if (t->places.git_common != NULL)
			readable[s.nreadable++] = t->places.git_common;
	}
	s.readable = readable;
	s.hidden = t->sb.hidden;
	s.sandbox = t->sb.mode == SANDBOX_ON;
	s.confined = t->sb.mode != SANDBOX_OFF;
	s.net = t->opts.network == TEAM_NET_PROXY ? CONFINE_NET_PROXY :
	    t->opts.network == TEAM_NET_OPEN ? CONFINE_NET_OPEN :
	    CONFINE_NET_NONE;
	s.proxy_port = team_proxy_port(t);
	s.sockets = t->opts.sockets;
	s.nsockets = t->opts.nsockets;
	s.max_procs = t->opts.max_procs;
	s.max_memory = t->opts.max_memory;
	s.max_file_size = t->opts.max_file_size;
	s.tmp_max = t->opts.tmp_max;
	if (s.sandbox)
		s.ruleset = team_sandbox_ruleset(t, &s, worktree, also);
	p = profile_new(&s, err);
	ruleset_drop(s.ruleset);
	free(writable);
	return p;
}

void
team_sandbox_close(struct team *t)
{
	size_t i;

	if (t->sb.tmpdir != NULL) {
		nftw(t->sb.tmpdir, team_sandbox_rm, 16, FTW_DEPTH | FTW_PHYS);
		free(t->sb.tmpdir);
		/* A profile still held keeps its ruleset. */
		for (i = 0; i < t->sb.n; i++) {
			free(t->sb.rulesets[i].key);
			ruleset_drop(t->sb.rulesets[i].rs);
		}
		free(t->sb.rulesets);
		pthread_mutex_destroy(&t->sb.lock);
	}
	free(t->home.program);
	hidden_free(t->sb.hidden);
	runlater_free(t->sb.runlater);
}

char *
team_sandbox_planted(struct team *t)
{
	char *list, *text;

	if (t->sb.runlater == NULL ||
	    (list = runlater_changes(t->sb.runlater)) == NULL)
		return NULL;
	text = xasprintf("files that run code when you work in %s changed "
	    "while the team worked: %s. Read them before you run make, git, "
	    "your editor or direnv there.", t->home.workdir, list);
	free(list);
	return text;
}

const char *
team_sandbox_brief(struct team *t)
{
	switch (t->sb.mode) {
	case SANDBOX_ON:
		return t->opts.no_network ? "commands: Landlock sandbox, no "
		    "network (/team says more)" : "commands: Landlock sandbox "
		    "(/team says more)";
	case SANDBOX_MISSING:
		return "commands: NO sandbox (no Landlock): each one asks you";
	default:
		return "commands: NO sandbox (--no-sandbox)";
	}
}

char *
team_sandbox_text(struct team *t)
{
	char *roots = xasprintf("%s and %s", t->home.workdir, t->sb.tmpdir),
	    *next;
	char *text;
	size_t i;

	for (i = 0; i < t->opts.nwritable; i++) {
		next = xasprintf("%s, %s", roots, t->opts.writable[i]);
		free(roots);
		roots = next;
	}
	switch (t->sb.mode) {
	case SANDBOX_ON:
		text = xasprintf("commands run in the Landlock sandbox (ABI "
		    "%d): they write only in %s; they read neither the "
		    "person's secret stores (~/.ssh, ~/.aws, …) nor huddle's "
		    "state, and reach no terminal; network %s",
		    t->sb.abi, roots, t->netgate != NULL ? "through "
		    "huddle's proxy, each new host asking you" :
		    !t->opts.no_network ? "allowed" :
		    t->sb.abi >= 4 ? "denied" : "allowed (the kernel "
		    "cannot deny it)");
		break;
	case SANDBOX_MISSING:
		text = xstrdup("no sandbox: this kernel has no Landlock, so "
		    "every command asks for your permission");
		break;
	default:
		text = xstrdup("no sandbox (--no-sandbox): commands run with "
		    "all your rights");
		break;
	}
	free(roots);
	return text;
}
