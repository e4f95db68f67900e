/*
 * Where the team's agents work: the working directory, or one of the
 * team's git worktrees (tools/worktree.h does the git, core/wtrecord.h
 * keeps the record): a teammate's own, made at its spawn and entered at
 * launch, and the board's, made the first time a task that names one is
 * worked; moving an agent to where its task is done (a root and a
 * sandbox that hides the rest of the working tree); what the person does
 * with them — /diff, /merge, /discard, /worktrees — and what becomes of
 * one when its teammate ends or its work is merged.
 */
#include "core/taskboard.h"
#include "core/wtrecord.h"
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/checking.h"
#include "agent/internal.h"
#include "agent/places.h"
#include "agent/teamsandbox.h"
#include "agent/teamstate.h"
#include "tools/bash.h"
#include "tools/profile.h"
#include "tools/worktree.h"
#include "util/log.h"
#include "util/xmalloc.h"

/*
 * huddle's own git runs in a profile of its own, confined as a command
 * is (seccomp, no capabilities, no network, the secret stores hidden,
 * the repository's hooks and configuration read-only) and writing only
 * in the working tree, the team's temp dir and the repository's git
 * directory (`common`, when found): a link an agent put in the way (in
 * place of .huddle/worktrees, say) cannot lead it to make, change or
 * delete anything elsewhere. Returns 0 or -1 with *err.
 */
static int
places_git_sandbox(struct team *t, const char *common, char **err)
{
	struct profile_spec s = { 0 };
	struct bash_options bo = { 0 };
	struct profile *p;

	if (t->sb.mode == SANDBOX_OFF)
		return 0;
	s.root = t->home.workdir;
	s.tmpdir = t->sb.tmpdir;
	s.program = t->home.program;
	s.writable = &common;
	s.nwritable = common != NULL;
	s.hidden = t->sb.hidden;
	s.sandbox = t->sb.mode == SANDBOX_ON;
	s.confined = 1;
	s.net = CONFINE_NET_NONE;
	s.max_procs = t->opts.max_procs;
	s.max_memory = t->opts.max_memory;
	s.max_file_size = t->opts.max_file_size;
	s.git_admin = 1;
	if ((p = profile_new(&s, err)) == NULL)
		return -1;
	profile_free(t->places.git_profile);
	t->places.git_profile = p;
	profile_bash_options(p, &bo);
	git_confine(&t->places.git, &bo);
	return 0;
}

/* Whether path is dir or beneath it (both canonical). */
static int
places_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/');
}

/* The repository's git directory, found (confined, reading only) and
 * pinned (tools/git.h); then huddle's git writes there too. */
static int
places_git_find(struct team *t, char **err)
{
	char *common = NULL;

	if (places_git_sandbox(t, NULL, err) == -1)
		return -1;
	if (worktree_repo(&t->places.git, t->home.workdir,
	    &t->places.git_common,
	    err) == -1)
		return -1;
	if ((common = realpath(t->places.git_common, NULL)) == NULL)
		*err = xasprintf("%s: %s", t->places.git_common,
		    strerror(errno));
	/* Beneath the working tree (its .git) it is writable already. */
	if (common == NULL || git_pin(&t->places.git, common, err) == -1 ||
	    (!places_beneath(common, t->home.workdir) &&
	    places_git_sandbox(t, common, err) == -1)) {
		free(common);
		free(t->places.git_common);
		t->places.git_common = NULL;
		return -1;
	}
	free(t->places.git_common);
	t->places.git_common = common;
	return 0;
}

int
places_git_repo(struct team *t, char **err)
{
	int rc = 0;

	pthread_mutex_lock(&t->places.repo_lock);
	if (t->places.git_common == NULL)
		rc = places_git_find(t, err);
	pthread_mutex_unlock(&t->places.repo_lock);
	return rc;
}

int
places_name_free(struct team *t, const char *name, char **err)
{
	struct wt_record w;
	char *ids;
	int board;

	/* A teammate's own is its member's: the roster refuses that name. */
	if (wtrecord_get(t->core.store, name, &w) == 0) {
		board = w.member == NULL;
		wtrecord_clear(&w);
		if (board) {
			*err = xasprintf("the worktree '%s' of the task board "
			    "has that name; choose another", name);
			return -1;
		}
	}
	if ((ids = taskboard_worktree_open(t->core.tasks, name)) != NULL) {
		*err = xasprintf("tasks (%s) name a worktree '%s'; choose "
		    "another name", ids, name);
		free(ids);
		return -1;
	}
	return 0;
}

int
places_for_tasks(struct team *t, char **err)
{
	char *why = NULL;

	if (places_git_repo(t, &why) == 0)
		return 0;
	*err = xasprintf("a task names a worktree only in a git repository: "
	    "%s", why);
	free(why);
	return -1;
}

int
places_own(struct team *t, const char *name)
{
	struct wt_record w;
	int own = 0;

	if (name != NULL && wtrecord_get(t->core.store, name, &w) == 0) {
		own = w.member != NULL;
		wtrecord_clear(&w);
	}
	return own;
}

int
places_enter(struct agent *a, char **err)
{
	struct team *t = a->team;
	char *root;

	if (places_git_repo(t, err) == -1 ||
	    worktree_check(&t->places.git, t->home.workdir, a->name, err) == -1)
		return -1;
	root = worktree_path(t->home.workdir, a->name);
	profile_free(a->at.home);
	a->at.home = team_sandbox_profile(t, root, 1, err);
	free(root);
	return a->at.home == NULL ? -1 : 0;
}

/* The board's worktree `name`, made from the person's HEAD when no task
 * has needed it yet; a recorded one must be where it was made. Returns
 * 0 or -1 with *err. */
static int
places_board_worktree(struct team *t, const char *name, char **err)
{
	struct wt_record w;
	char *sha = NULL, *why = NULL;
	int rc = -1;

	if (places_git_repo(t, err) == -1)
		return -1;
	pthread_mutex_lock(&t->places.git_lock);
	if (wtrecord_get(t->core.store, name, &w) == 0) {
		if (w.member != NULL)
			*err = xasprintf("the worktree %s is %s's own", name,
			    w.member);
		else
			rc = worktree_check(&t->places.git, t->home.workdir,
			    name,
			    err);
		wtrecord_clear(&w);
	} else if (worktree_add(&t->places.git, t->home.workdir, name, NULL,
	    &sha,
	    err) == 0) {
		if ((rc = wtrecord_add(t->core.store, name, sha, NULL,
		    err)) == -1 &&
		    worktree_remove(&t->places.git, t->home.workdir, name, 1,
		    &why) == -1) {
			log_printf("worktree %s: undoing it: %s", name, why);
			free(why);
		}
		if (rc == 0)
			event_notice(&t->core.events, NULL,
			    "made the worktree %s",
			    name);
		free(sha);
	}
	pthread_mutex_unlock(&t->places.git_lock);
	return rc;
}

/* The profile of the board's worktree `name` (made if need be), or
 * NULL with *err. */
static struct profile *
places_board(struct team *t, const char *name, char **err)
{
	struct profile *p;
	char *root;

	if (places_board_worktree(t, name, err) == -1)
		return NULL;
	root = worktree_path(t->home.workdir, name);
	p = team_sandbox_profile(t, root, 1, err);
	free(root);
	return p;
}

int
places_update(struct agent *a, char **err)
{
	char *want = a->is_lead ? NULL : taskboard_place(a->team->core.tasks,
	    a->name), *why = NULL;
	struct profile *p = NULL;
	struct stat st;

	/* The same worktree, still the directory it entered: a worktree
	 * merged, removed and made anew meanwhile is entered anew. */
	if (want == NULL ? a->at.name == NULL : a->at.name != NULL &&
	    strcmp(want, a->at.name) == 0 && stat(a->at.away->root, &st) == 0 &&
	    st.st_dev == a->at.dev && st.st_ino == a->at.ino) {
		free(want);
		return 0;
	}
	if (want != NULL && (p = places_board(a->team, want,
	    &why)) == NULL) {
		*err = xasprintf("the worktree %s cannot be had: %s", want,
		    why);
		free(why);
		free(want);
		return -1;
	}
	free(a->at.name);
	profile_free(a->at.away);
	a->at.name = want;
	a->at.away = p;
	a->at.dev = 0;
	a->at.ino = 0;
	if (p != NULL && stat(p->root, &st) == 0) {
		a->at.dev = st.st_dev;
		a->at.ino = st.st_ino;
	}
	log_printf("%s: works in %s", a->name, want ? want : "its home");
	return 0;
}

const struct profile *
places_profile(const struct agent *a)
{
	return a->at.name != NULL ? a->at.away : a->at.home;
}

const char *
places_root(const struct agent *a)
{
	return places_profile(a)->root;
}

/* The profile of where member name works at home: its own worktree, or
 * the workdir. */
static struct profile *
places_member(struct team *t, const char *name, char **err)
{
	struct profile *p;
	char *root;

	if (!places_own(t, name))
		return team_sandbox_profile(t, t->home.workdir, 0, err);
	if (places_git_repo(t, err) == -1 ||
	    worktree_check(&t->places.git, t->home.workdir, name, err) == -1)
		return NULL;
	root = worktree_path(t->home.workdir, name);
	p = team_sandbox_profile(t, root, 1, err);
	free(root);
	return p;
}

struct profile *
places_of_task(struct team *t, const struct task *k, char **err)
{
	if (k->worktree != NULL)
		return places_board(t, k->worktree, err);
	return places_member(t, k->owner, err);
}

void
places_retire(struct team *t, const char *name)
{
	struct worktree_state s = { 0 };
	struct wt_record w;
	char *err = NULL, *root;

	if (wtrecord_get(t->core.store, name, &w) == -1)
		return;
	if (w.member == NULL) {
		wtrecord_clear(&w);
		return;
	}
	wtrecord_clear(&w);
	root = worktree_path(t->home.workdir, name);
	pthread_mutex_lock(&t->places.git_lock);
	if (checking_at(t, root))
		event_notice(&t->core.events, name,
		    "its worktree is kept: a task's "
		    "check runs there");
	else if (places_git_repo(t, &err) == -1 ||
	    worktree_state(&t->places.git, t->home.workdir, name, &s,
	    &err) == -1 ||
	    s.missing || !s.merged) {
		event_notice(&t->core.events, name, "its worktree is kept: %s",
		    s.missing ? "it is missing" : err ? err : "it holds work "
		    "not merged (/diff, /merge or /discard it)");
		free(err);
	} else if (worktree_remove(&t->places.git, t->home.workdir, name, 0,
	    &err) == -1 || wtrecord_remove(t->core.store, name, &err) == -1) {
		event_error(&t->core.events, name, "%s", err);
		free(err);
	} else
		event_notice(&t->core.events, name, "its worktree held nothing "
		    "unmerged: removed");
	pthread_mutex_unlock(&t->places.git_lock);
	free(root);
}

/* --- what the person does ----------------------------------------------- */

/* Worktree name's record, or -1 with *err when there is none. */
static int
places_find(struct team *t, const char *name, struct wt_record *w,
    char **err)
{
	struct member *m;

	if (wtrecord_get(t->core.store, name, w) == 0)
		return 0;
	m = roster_get(t->core.store, name);
	*err = m != NULL ? xasprintf("%s has no worktree", name) :
	    xasprintf("no worktree is called '%s' (/worktrees lists them)",
	    name);
	member_free(m);
	return -1;
}

/* Who works in worktree w now, when running: its teammate, or the
 * holder of a task in it (malloc'd), else NULL. */
static char *
places_worker(struct team *t, const struct wt_record *w)
{
	char *who = w->member != NULL ? xstrdup(w->member) :
	    taskboard_worktree_holder(t->core.tasks, w->name);

	if (who != NULL && team_find(t, who) == NULL) {
		free(who);
		who = NULL;
	}
	return who;
}

json_t *
places_diff(struct team *t, const char *name, char **err)
{
	struct worktree_diff d;
	struct wt_record w;
	char *branch;
	json_t *report;

	if (places_find(t, name, &w, err) == -1 ||
	    places_git_repo(t, err) == -1) {
		wtrecord_clear(&w);
		return NULL;
	}
	/* Not in the middle of a worktree being made or removed. */
	pthread_mutex_lock(&t->places.git_lock);
	if (worktree_check(&t->places.git, t->home.workdir, name, err) == -1 ||
	    worktree_diff(&t->places.git, t->home.workdir, name, w.base, &d,
	    err) == -1) {
		pthread_mutex_unlock(&t->places.git_lock);
		wtrecord_clear(&w);
		return NULL;
	}
	pthread_mutex_unlock(&t->places.git_lock);
	branch = worktree_branch(name);
	report = json_pack("{s:s, s:s, s:s, s:O, s:i, s:i, s:i, s:s}", "name",
	    name, "branch", branch, "base", w.base, "files", d.files, "added",
	    d.added, "removed", d.removed, "not_shown", d.hidden, "patch",
	    d.patch ? d.patch : "");
	worktree_diff_clear(&d);
	free(branch);
	wtrecord_clear(&w);
	return report;
}

/* The first line of text, at most 72 bytes, cut on a character. */
static int
places_first_line(const char *text)
{
	int n = (int)strcspn(text, "\r\n");

	if (n > 72)
		for (n = 72; n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80;
		    n--)
			;
	return n;
}

/* The commit message of worktree w's work: the teammate and its task,
 * or the tasks done in the board's worktree. */
static char *
places_merge_message(struct team *t, const struct wt_record *w)
{
	struct member *m;
	struct task *k, cur;
	size_t n, i, len = 0, cap = 0;
	char *text = NULL, *line;

	if (w->member == NULL) {
		line = xasprintf("Work in the worktree %s\n\n", w->name);
		text = xappend(text, &len, &cap, line, strlen(line));
		free(line);
		n = taskboard_list(t->core.tasks, -1, &k);
		for (i = 0; i < n; i++) {
			if (k[i].worktree == NULL || strcmp(k[i].worktree,
			    w->name) != 0 || k[i].status == TASK_CANCELLED)
				continue;
			line = xasprintf("%s (%s%s%s): %.*s\n", k[i].id,
			    task_status_name(k[i].status), k[i].owner ? ", " :
			    "", k[i].owner ? k[i].owner : "", places_first_line(
			    k[i].subject), k[i].subject);
			text = xappend(text, &len, &cap, line, strlen(line));
			free(line);
		}
		task_free_array(k, n);
		line = "\nCommitted by huddle for a merge.";
		return xappend(text, &len, &cap, line, strlen(line));
	}
	m = roster_get(t->core.store, w->name);
	if (taskboard_current(t->core.tasks, w->name, &cur) == 0) {
		text = xasprintf("%s's work on %s: %s\n\nCommitted by huddle "
		    "for a merge.", w->name, cur.id, cur.subject);
		task_clear(&cur);
	} else
		text = xasprintf("%s's work: %.*s\n\nCommitted by huddle for a "
		    "merge.", w->name, m != NULL ? places_first_line(m->prompt) :
		    0, m != NULL ? m->prompt : "");
	member_free(m);
	return text;
}

/* After a merge: the board's worktree w, merged whole, goes when no
 * open task names it (the next task that does makes it anew from the
 * person's HEAD). Adds what was done to *msg. */
static void
places_merged_board(struct team *t, const struct wt_record *w,
    char **msg)
{
	struct worktree_state s;
	char *ids = taskboard_worktree_open(t->core.tasks, w->name);
	char *err = NULL;
	char *text;

	if (ids != NULL) {
		text = xasprintf("%s; the worktree stays for %s", *msg, ids);
	} else if (worktree_state(&t->places.git, t->home.workdir, w->name, &s,
	    &err) == 0 && s.merged && !s.dirty && !s.missing &&
	    worktree_remove(&t->places.git, t->home.workdir, w->name, 0,
	    &err) == 0 && wtrecord_remove(t->core.store, w->name, &err) == 0) {
		text = xasprintf("%s; no open task names the worktree %s, so "
		    "it and its branch are removed", *msg, w->name);
	} else
		text = xasprintf("%s; the worktree %s is kept%s%s", *msg,
		    w->name, err ? ": " : "", err ? err : "");
	free(err);
	free(ids);
	free(*msg);
	*msg = text;
}

int
places_merge(struct team *t, const char *name, char **msg)
{
	enum worktree_merged v;
	struct wt_record w;
	char *message, *who;

	if (places_find(t, name, &w, msg) == -1)
		return -1;
	if (places_git_repo(t, msg) == -1) {
		wtrecord_clear(&w);
		return -1;
	}
	/* Not while someone works there (its status as the store has it,
	 * which threads share). Judged under git_lock, which a tool in a
	 * worktree passes before it starts (tool_place): a holder idle now
	 * runs nothing until the merge is done. */
	pthread_mutex_lock(&t->places.git_lock);
	if ((who = places_worker(t, &w)) != NULL) {
		struct member *m = roster_get(t->core.store, who);
		int busy = m != NULL && (m->status == MEMBER_WORKING ||
		    m->status == MEMBER_WAITING || m->status ==
		    MEMBER_STARTING);

		member_free(m);
		if (busy) {
			pthread_mutex_unlock(&t->places.git_lock);
			*msg = xasprintf("%s is working%s%s: wait until it is "
			    "idle, or stop it, then review (/diff %s) and "
			    "merge", who, w.member ? "" : " in ", w.member ?
			    "" : name, name);
			free(who);
			wtrecord_clear(&w);
			return -1;
		}
		free(who);
	}
	/* Nor while a task's check runs there. */
	{
		char *root = worktree_path(t->home.workdir, name);
		int checking = checking_at(t, root);

		free(root);
		if (checking) {
			pthread_mutex_unlock(&t->places.git_lock);
			*msg = xasprintf("a task's check runs in %s: wait "
			    "until it is done, then merge", name);
			wtrecord_clear(&w);
			return -1;
		}
	}
	message = places_merge_message(t, &w);
	v = worktree_merge(&t->places.git, t->home.workdir, name, message, msg);
	if (v == WT_MERGED && w.member == NULL)
		places_merged_board(t, &w, msg);
	pthread_mutex_unlock(&t->places.git_lock);
	free(message);
	wtrecord_clear(&w);
	log_printf("merge of %s: %s", name, *msg);
	return v == WT_MERGED || v == WT_NOTHING ? 0 : -1;
}

/* /discard of a worktree without a record: what a huddle that stopped
 * between making a worktree and recording it left (a directory in
 * .huddle/worktrees, a huddle/ branch). *msg already says there is no
 * such worktree; it stays when there is nothing left over either. */
static int
places_discard_leftover(struct team *t, const char *name, int confirmed,
    char **msg)
{
	struct member *m;
	char *err = NULL;
	int rc = -1;

	if (!roster_name_valid(name))
		return -1;
	if ((m = roster_get(t->core.store, name)) != NULL) {
		member_free(m);
		return -1;
	}
	if (places_git_repo(t, &err) == -1) {
		free(err);
		return -1;
	}
	pthread_mutex_lock(&t->places.git_lock);
	if (worktree_exists(&t->places.git, t->home.workdir, name)) {
		free(*msg);
		if (!confirmed)
			*msg = xasprintf("huddle has no record of a worktree "
			    "%s, but finds one (it stopped while making it): "
			    "this deletes %s/%s and the branch huddle/%s; to "
			    "do it, type /discard %s yes", name, WORKTREE_DIR,
			    name, name, name);
		else if (worktree_remove(&t->places.git, t->home.workdir, name,
		    1,
		    &err) == 0) {
			*msg = xasprintf("discarded the unrecorded worktree %s "
			    "and the branch huddle/%s", name, name);
			rc = 0;
		} else
			*msg = err;
	}
	pthread_mutex_unlock(&t->places.git_lock);
	return rc;
}

int
places_discard(struct team *t, const char *name, int confirmed, char **msg)
{
	struct worktree_state s;
	struct wt_record w;
	char *err = NULL, *who, *ids, *also;
	int rc = -1;

	if (places_find(t, name, &w, msg) == -1)
		return places_discard_leftover(t, name, confirmed, msg);
	ids = w.member == NULL ? taskboard_worktree_open(t->core.tasks, name) :
	    NULL;
	also = ids == NULL ? xstrdup("") : xasprintf(" (open tasks name it: "
	    "%s; the first of them worked makes it anew from your HEAD)",
	    ids);
	if ((who = places_worker(t, &w)) != NULL) {
		*msg = w.member != NULL ? xasprintf("%s is running: stop it "
		    "first (/shutdown %s, or /stop %s), then discard its "
		    "worktree", name, name, name) : xasprintf("%s works in %s "
		    "(it holds a task there): stop it, or take the task back "
		    "(/task reopen), then discard the worktree", who, name);
	} else if (!confirmed) {
		if (places_git_repo(t, &err) == 0 &&
		    worktree_state(&t->places.git, t->home.workdir, name, &s,
		    &err) == 0 && !s.missing)
			*msg = xasprintf("this deletes the worktree %s and its "
			    "branch huddle/%s%s%s; to do it, type /discard %s "
			    "yes", name, name, s.merged ? " (all of it is "
			    "merged)" : " with work that is NOT merged", also,
			    name);
		else
			*msg = xasprintf("this forgets the worktree %s, which "
			    "is missing, and deletes the branch huddle/%s%s; "
			    "to do it, type /discard %s yes", name, name, also,
			    name);
		free(err);
	} else if (places_git_repo(t, msg) == 0) {
		char *root = worktree_path(t->home.workdir, name);

		pthread_mutex_lock(&t->places.git_lock);
		if (checking_at(t, root))
			*msg = xasprintf("a task's check runs in %s: wait "
			    "until it is done, then discard it", name);
		else if (worktree_remove(&t->places.git, t->home.workdir, name,
		    1,
		    msg) == 0 && wtrecord_remove(t->core.store, name,
		    msg) == 0) {
			*msg = xasprintf("discarded the worktree %s and the "
			    "branch huddle/%s%s", name, name, also);
			rc = 0;
		}
		pthread_mutex_unlock(&t->places.git_lock);
		free(root);
	}
	free(who);
	free(ids);
	free(also);
	wtrecord_clear(&w);
	return rc;
}

json_t *
places_list(struct team *t)
{
	struct worktree_state s;
	struct wt_record *w;
	struct member *m;
	size_t n = wtrecord_list(t->core.store, &w), i;
	json_t *list = json_array(), *o;
	char *err, *path, *branch, *who, *ids;

	for (i = 0; i < n; i++) {
		err = NULL;
		path = worktree_path(t->home.workdir, w[i].name);
		branch = worktree_branch(w[i].name);
		pthread_mutex_lock(&t->places.git_lock);
		if (places_git_repo(t, &err) == -1 ||
		    worktree_state(&t->places.git, t->home.workdir, w[i].name,
		    &s,
		    &err) == -1) {
			memset(&s, 0, sizeof s);
			s.missing = 1;
		}
		pthread_mutex_unlock(&t->places.git_lock);
		who = w[i].member != NULL ? xstrdup(w[i].member) :
		    taskboard_worktree_holder(t->core.tasks, w[i].name);
		m = who != NULL ? roster_get(t->core.store, who) : NULL;
		ids = w[i].member == NULL ?
		    taskboard_worktree_open(t->core.tasks,
		    w[i].name) : NULL;
		o = json_pack("{s:s, s:s?, s:s, s:s, s:s, s:s, s:b, s:b, s:i, "
		    "s:i, s:b, s:s?, s:s?}", "name", w[i].name, "member",
		    w[i].member, "status", m != NULL ? member_status_name(
		    m->status) : "", "branch", branch, "path", path, "base",
		    w[i].base, "missing", s.missing, "dirty", s.dirty, "ahead",
		    s.ahead, "behind", s.behind, "merged", s.merged, "holder",
		    w[i].member == NULL ? who : NULL, "tasks", ids);
		if (err != NULL)
			json_object_set_new(o, "error", json_string(err));
		json_array_append_new(list, o);
		member_free(m);
		free(who);
		free(ids);
		free(err);
		free(path);
		free(branch);
	}
	wtrecord_free_array(w, n);
	return json_pack("{s:o}", "worktrees", list);
}
