/*
 * Where the team's agents work (places.c): the working directory or one
 * of the team's git worktrees, and huddle's own git that makes, merges
 * and removes them.
 */
#ifndef HUDDLE_AGENT_PLACES_H
#define HUDDLE_AGENT_PLACES_H

#include <pthread.h>

#include "tools/git.h"

struct profile;

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

#endif
