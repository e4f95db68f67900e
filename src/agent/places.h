/*
 * Where the team's agents work (places.c): the working directory or one
 * of the team's git worktrees, and huddle's own git that makes, merges
 * and removes them.
 */
#ifndef HUDDLE_AGENT_PLACES_H
#define HUDDLE_AGENT_PLACES_H

#include <pthread.h>
#include <sys/types.h>

#include "tools/git.h"

struct agent;
struct profile;
struct task;
struct team;
struct wt_record;

/*
 * huddle's own git and the worktrees' locks (struct team's places).
 * git is set up when the sandbox opens (teamsandbox.c); repo_lock
 * guards the first check of the repository, which sets git_profile and
 * git_common; git_lock orders every worktree change.
 */
struct places {
	struct git		 git;		/* huddle's own git commands */
	struct profile		*git_profile;	/* ... confined by it (places.c) */
	pthread_mutex_t		 repo_lock;	/* the first check of the
						 * repository (places.c),
						 * which sets: */
	char			*git_common;	/* the repository's git dir,
						 * once worktrees are used */
	pthread_mutex_t		 git_lock;	/* one worktree change at a
						 * time: add, merge, remove;
						 * diffs and states read
						 * under it; a tool in a
						 * worktree passes it first */
};

/*
 * Where one agent works, owned by its thread: at home (the workdir, or
 * its own worktree: teamsandbox.c), or in the worktree its task names
 * (name, NULL at home), with that worktree's profile and the directory
 * entered, to see that it is still the one.
 */
struct agent_place {
	struct profile		*home;
	char			*name;
	struct profile		*away;
	dev_t			 dev;
	ino_t			 ino;
};

/* Checks, once, that the workdir is the top of a git repository with a
 * commit (keeping its git directory). Returns 0 or -1 with *err. */
int places_git_repo(struct team *t, char **err);

/* Whether `name` is free for a new teammate: no board worktree has it
 * and no open task names one so. 0, or -1 with *err. */
int places_name_free(struct team *t, const char *name, char **err);

/* Whether tasks may name worktrees here (the workdir is a repository):
 * 0, or -1 with *err. */
int places_for_tasks(struct team *t, char **err);

/*
 * Moves agent a to where it works now: the worktree its in-progress task
 * names (made from the person's HEAD the first time a task needs it),
 * else its home. Call before a tool that works in a place. Returns 0, or
 * -1 with *err when that worktree cannot be had (missing, moved, or git
 * failed); a's place is then left as it was.
 */
int places_update(struct agent *a, char **err);

/* Where agent a's tools work now, and the profile they run from. */
const char *places_root(const struct agent *a);
const struct profile *places_profile(const struct agent *a);

/* Whether member name has a worktree of its own. */
int places_own(struct team *t, const char *name);

/* Sets agent a to work in its worktree (base: its base commit): its
 * root, and its own sandbox that hides the rest of the working tree.
 * Returns 0, or -1 with *err (a missing or moved worktree). */
int places_enter(struct agent *a, char **err);

/* Where task k's check runs: in the worktree it names, else where its
 * owner works at home. Returns the profile of that place (profile_free),
 * or NULL with *err (its worktree is missing). */
struct profile *places_of_task(struct team *t, const struct task *k,
    char **err);

/* After teammate name ended: its worktree is removed when it holds
 * nothing that is not merged, and kept (with a notice) otherwise. */
void places_retire(struct team *t, const char *name);

#endif
