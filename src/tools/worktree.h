/*
 * Git worktrees for teammates: each on a branch huddle/NAME of its own,
 * checked out at <workdir>/.huddle/worktrees/NAME, made from the user's
 * HEAD (or a base given). Only huddle runs git here (tools/git.h); a
 * teammate's own commands never write the repository's .git, so its
 * branch moves only when huddle commits its work for a merge.
 */
#ifndef HUDDLE_TOOLS_WORKTREE_H
#define HUDDLE_TOOLS_WORKTREE_H

#include <jansson.h>

#include "tools/git.h"

/* Where the worktrees of a workdir live, beneath it. */
#define WORKTREE_DIR ".huddle/worktrees"

/*
 * Checks that workdir is the top of a git repository with a commit, and
 * keeps .huddle/ out of its `git status` (.git/info/exclude). Fills
 * *common (malloc'd) with the repository's git directory. Returns 0, or
 * -1 with *err.
 */
int worktree_repo(const struct git *g, const char *workdir, char **common,
    char **err);

/* The path of member name's worktree (malloc'd). */
char *worktree_path(const char *workdir, const char *name);

/* The branch of member name's worktree ("huddle/NAME", malloc'd). */
char *worktree_branch(const char *name);

/*
 * Makes name's worktree on a new branch from `base` (NULL: HEAD).
 * Refuses a branch or a directory that exists already (never over
 * work). Fills *sha with the base commit. Returns 0 or -1 with *err.
 */
int worktree_add(const struct git *g, const char *workdir, const char *name,
    const char *base, char **sha, char **err);

/* Whether name's worktree is where it should be, on its branch: 0, or -1
 * with *err saying what is wrong. */
int worktree_check(const struct git *g, const char *workdir,
    const char *name, char **err);

/* What a worktree holds against its base. */
struct worktree_diff {
	json_t	*files;		/* [{path, added, removed}] (binary: -1) */
	char	*patch;		/* the hunks, committed and not */
	int	 added, removed;
	int	 hidden;	/* new files whose hunks are not shown
				 * (marked not_shown in files) */
};

/* The changes of name's worktree (committed and not, new files too)
 * against base. Returns 0 or -1 with *err. */
int worktree_diff(const struct git *g, const char *workdir, const char *name,
    const char *base, struct worktree_diff *d, char **err);

void worktree_diff_clear(struct worktree_diff *d);

/* Where a worktree stands. */
struct worktree_state {
	int	missing;	/* not there, or not on its branch */
	int	dirty;		/* uncommitted work */
	int	ahead;		/* its commits not in the user's HEAD */
	int	behind;		/* the user's commits not in its branch */
	int	merged;		/* nothing of it is outside HEAD */
};

int worktree_state(const struct git *g, const char *workdir,
    const char *name, struct worktree_state *s, char **err);

/* What a merge came to. */
enum worktree_merged {
	WT_MERGED,		/* done: *report says what */
	WT_NOTHING,		/* nothing to merge */
	WT_DIRTY,		/* the user's tree has uncommitted changes */
	WT_CONFLICT,		/* aborted: *report lists the files */
	WT_FAILED		/* *report says why */
};

/*
 * Commits name's uncommitted work on its branch (message: `message`),
 * then merges the branch into the branch checked out in workdir, only
 * when that tree is clean. A conflict aborts the merge: both branches
 * stay as they were. *report (malloc'd) says what happened.
 */
enum worktree_merged worktree_merge(const struct git *g, const char *workdir,
    const char *name, const char *message, char **report);

/* Whether name's worktree directory or its branch exists: what a huddle
 * that stopped between making a worktree and recording it leaves. */
int worktree_exists(const struct git *g, const char *workdir,
    const char *name);

/* Removes name's worktree and deletes its branch (with force, even with
 * work not merged). Returns 0 or -1 with *err. */
int worktree_remove(const struct git *g, const char *workdir,
    const char *name, int force, char **err);

#endif
