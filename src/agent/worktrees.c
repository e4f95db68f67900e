/*
 * Teammates in git worktrees (tools/worktree.h does the git): making one
 * at spawn, entering it at launch (its root and a sandbox that hides the
 * rest of the working tree), and what the person does with them —
 * /diff, /merge, /discard, /worktrees — and what becomes of one when its
 * teammate ends.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/internal.h"
#include "tools/landlock.h"
#include "tools/worktree.h"
#include "util/log.h"
#include "util/xmalloc.h"

int
team_git_repo(struct team *t, char **err)
{
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	if (t->git_common == NULL)
		rc = worktree_repo(&t->git, t->workdir, &t->git_common, err);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int
team_worktree_make(struct team *t, const char *name, const char *base,
    char **sha, char **err)
{
	if (team_git_repo(t, err) == -1)
		return -1;
	return worktree_add(&t->git, t->workdir, name, base, sha, err);
}

/* A ruleset for commands in the worktree at root: write there and in
 * the temp dir, read the repository's history, and nothing else of the
 * working tree. Returns its descriptor, or -1 with *err. */
static int
team_worktree_ruleset(struct team *t, const char *root, char **err)
{
	struct landlock_rules r = { 0 };
	const char **writable;
	size_t i;
	int fd;

	writable = xcalloc(t->opts.nwritable + 2, sizeof *writable);
	writable[0] = root;
	writable[1] = t->tmpdir;
	for (i = 0; i < t->opts.nwritable; i++)
		writable[i + 2] = t->opts.writable[i];
	r.hidden = t->workdir;
	r.readable = (const char *const *)&t->git_common;
	r.nreadable = 1;
	r.writable = writable;
	r.nwritable = t->opts.nwritable + 2;
	r.deny_net = t->opts.no_network;
	fd = landlock_ruleset_within(&r, err);
	free(writable);
	return fd;
}

int
agent_worktree_enter(struct agent *a, char **err)
{
	struct team *t = a->team;

	if (team_git_repo(t, err) == -1 ||
	    worktree_check(&t->git, t->workdir, a->name, err) == -1)
		return -1;
	free(a->root);
	a->root = worktree_path(t->workdir, a->name);
	if (t->sandbox != SANDBOX_ON)
		return 0;
	a->sandbox_fd = team_worktree_ruleset(t, a->root, err);
	return a->sandbox_fd == -1 ? -1 : 0;
}

int
team_member_place(struct team *t, const char *name, char **root, int *fd,
    char **err)
{
	struct member *m = name ? roster_get(t->store, name) : NULL;
	int rc = 0;

	*fd = -1;
	if (m == NULL || m->worktree_base == NULL)
		*root = xstrdup(t->workdir);
	else if (team_git_repo(t, err) == -1 ||
	    worktree_check(&t->git, t->workdir, name, err) == -1)
		rc = -1;
	else {
		*root = worktree_path(t->workdir, name);
		if (t->sandbox == SANDBOX_ON &&
		    (*fd = team_worktree_ruleset(t, *root, err)) == -1) {
			free(*root);
			rc = -1;
		}
	}
	member_free(m);
	return rc;
}

void
team_worktree_retire(struct team *t, const char *name)
{
	struct member *m = roster_get(t->store, name);
	struct worktree_state s;
	char *err = NULL;

	if (m == NULL || m->worktree_base == NULL) {
		member_free(m);
		return;
	}
	if (worktree_state(&t->git, t->workdir, name, &s, &err) == -1 ||
	    s.missing || !s.merged) {
		evq_push(&t->events, EV_NOTICE, name, json_pack("{s:s+}",
		    "message", "its worktree is kept: ", s.missing ? "it is "
		    "missing" : err ? err : "it holds work not merged "
		    "(/diff, /merge or /discard it)"));
		free(err);
	} else if (worktree_remove(&t->git, t->workdir, name, 0, &err) ==
	    -1 || roster_set_worktree(t->store, name, NULL, &err) == -1) {
		evq_push(&t->events, EV_ERROR, name, json_pack("{s:s}",
		    "message", err));
		free(err);
	} else
		evq_push(&t->events, EV_NOTICE, name, json_pack("{s:s}",
		    "message", "its worktree held nothing unmerged: removed"));
	member_free(m);
}

/* --- what the person does ----------------------------------------------- */

/* The member's worktree base, or NULL with *err when it has none. */
static char *
team_worktree_base(struct team *t, const char *name, char **err)
{
	struct member *m = roster_get(t->store, name);
	char *base = m != NULL ? xstrdup_or_null(m->worktree_base) : NULL;

	if (base == NULL)
		*err = m == NULL ? xasprintf("no member is called '%s'", name) :
		    xasprintf("%s has no worktree", name);
	member_free(m);
	return base;
}

json_t *
team_diff(struct team *t, const char *name, char **err)
{
	struct worktree_diff d;
	char *base = team_worktree_base(t, name, err), *branch;
	json_t *report;

	if (base == NULL || team_git_repo(t, err) == -1 ||
	    worktree_check(&t->git, t->workdir, name, err) == -1 ||
	    worktree_diff(&t->git, t->workdir, name, base, &d, err) == -1) {
		free(base);
		return NULL;
	}
	branch = worktree_branch(name);
	report = json_pack("{s:s, s:s, s:s, s:O, s:i, s:i, s:i, s:s}", "name",
	    name, "branch", branch, "base", base, "files", d.files, "added",
	    d.added, "removed", d.removed, "not_shown", d.hidden, "patch",
	    d.patch ? d.patch : "");
	worktree_diff_clear(&d);
	free(branch);
	free(base);
	return report;
}

/* The commit message of name's work: the teammate and its task. */
static char *
team_merge_message(struct team *t, const char *name)
{
	struct member *m = roster_get(t->store, name);
	struct task k;
	char *text;

	if (taskboard_current(t->tasks, name, &k) == 0) {
		text = xasprintf("%s's work on %s: %s\n\nCommitted by huddle "
		    "for a merge.", name, k.id, k.subject);
		task_clear(&k);
	} else
		text = xasprintf("%s's work: %.*s\n\nCommitted by huddle for a "
		    "merge.", name, m != NULL ? (int)strcspn(m->prompt, "\n") >
		    72 ? 72 : (int)strcspn(m->prompt, "\n") : 0,
		    m != NULL ? m->prompt : "");
	member_free(m);
	return text;
}

int
team_merge(struct team *t, const char *name, char **msg)
{
	char *base = team_worktree_base(t, name, msg), *message;
	enum worktree_merged v;
	struct member *m;

	if (base == NULL || team_git_repo(t, msg) == -1) {
		free(base);
		return -1;
	}
	free(base);
	/* What is merged is what was reviewed: not while it still works
	 * (its status as the store has it, which threads share). */
	if ((m = roster_get(t->store, name)) != NULL &&
	    (m->status == MEMBER_WORKING || m->status == MEMBER_WAITING ||
	    m->status == MEMBER_STARTING) && team_find(t, name) != NULL) {
		*msg = xasprintf("%s is working: wait until it is idle, or stop "
		    "it, then review (/diff %s) and merge", name, name);
		member_free(m);
		return -1;
	}
	member_free(m);
	message = team_merge_message(t, name);
	v = worktree_merge(&t->git, t->workdir, name, message, msg);
	free(message);
	log_printf("merge of %s: %s", name, *msg);
	return v == WT_MERGED || v == WT_NOTHING ? 0 : -1;
}

int
team_discard(struct team *t, const char *name, int confirmed, char **msg)
{
	char *base = team_worktree_base(t, name, msg);
	struct worktree_state s;
	char *err = NULL;
	int rc = -1;

	if (base == NULL)
		return -1;
	if (team_find(t, name) != NULL) {
		*msg = xasprintf("%s is running: stop it first (/shutdown %s, "
		    "or /stop %s), then discard its worktree", name, name, name);
	} else if (!confirmed) {
		if (team_git_repo(t, &err) == 0 && worktree_state(&t->git,
		    t->workdir, name, &s, &err) == 0 && !s.missing)
			*msg = xasprintf("this deletes %s's worktree and its "
			    "branch huddle/%s%s; to do it, type /discard %s yes",
			    name, name, s.merged ? " (all of it is merged)" :
			    " with work that is NOT merged", name);
		else
			*msg = xasprintf("this forgets %s's worktree, which is "
			    "missing, and deletes the branch huddle/%s; to do "
			    "it, type /discard %s yes", name, name, name);
		free(err);
	} else if (team_git_repo(t, msg) == 0 && worktree_remove(&t->git,
	    t->workdir, name, 1, msg) == 0 && roster_set_worktree(t->store,
	    name, NULL, msg) == 0) {
		*msg = xasprintf("discarded %s's worktree and branch huddle/%s",
		    name, name);
		rc = 0;
	}
	free(base);
	return rc;
}

json_t *
team_worktrees(struct team *t)
{
	struct worktree_state s;
	struct member *m;
	size_t n = roster_list(t->store, &m), i;
	json_t *list = json_array(), *o;
	char *err, *path, *branch;

	for (i = 0; i < n; i++) {
		if (m[i].worktree_base == NULL)
			continue;
		err = NULL;
		path = worktree_path(t->workdir, m[i].name);
		branch = worktree_branch(m[i].name);
		if (team_git_repo(t, &err) == -1 || worktree_state(&t->git,
		    t->workdir, m[i].name, &s, &err) == -1) {
			memset(&s, 0, sizeof s);
			s.missing = 1;
		}
		o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:i, s:i, "
		    "s:b}", "name", m[i].name, "status", member_status_name(
		    m[i].status), "branch", branch, "path", path, "base",
		    m[i].worktree_base, "missing", s.missing, "dirty", s.dirty,
		    "ahead", s.ahead, "behind", s.behind, "merged", s.merged);
		if (err != NULL)
			json_object_set_new(o, "error", json_string(err));
		json_array_append_new(list, o);
		free(err);
		free(path);
		free(branch);
	}
	member_free_array(m, n);
	return json_pack("{s:o}", "worktrees", list);
}
