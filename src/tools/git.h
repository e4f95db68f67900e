/*
 * Running git for huddle itself (worktrees, diffs, merges): a fixed
 * argument list, never a model's words, run like a bash command (a
 * reaper, the scrubbed environment, a timeout) but outside the agents'
 * sandbox: in a profile of its own when `confine` is set, confined like
 * a command (seccomp, no capabilities, no network, the secret stores
 * hidden, the repository's hooks and configuration read-only, writing
 * only where the team's files and repository are, so a link an agent
 * put in the way cannot lead huddle's git to write elsewhere), with
 * prompts and optional locks off and messages in English.
 *
 * Once the repository is pinned (git_pin), every git reads the git
 * directory found then, never one a file of the tree names: GIT_DIR,
 * GIT_COMMON_DIR and GIT_WORK_TREE are set, and a git directory that
 * is no longer the one pinned (moved aside, another put in its place)
 * is refused. What a repository's files could make git run by itself is
 * turned off on the command line, which also binds the git processes it
 * starts: hooks, the file-system monitor, signing, external diff, and
 * every filter, text conversion, diff and merge driver the configuration
 * defines (each found by name before git runs, and emptied), since
 * .gitattributes, which the team writes, chooses among them.
 */
#ifndef HUDDLE_TOOLS_GIT_H
#define HUDDLE_TOOLS_GIT_H

#include <stddef.h>
#include <sys/types.h>

struct bash_options;
struct confine;

struct ruleset;

struct git {
	const char	*program;	/* huddle's, as the reaper */
	const char	*tmpdir;	/* TMPDIR, or NULL */
	int		 sandboxed;	/* git runs in the Landlock ruleset */
	int		 sandbox_fd;	/* ... sandbox_fd, when set */
	struct ruleset	*ruleset;	/* ... or this one, when not NULL
					 * (tools/ruleset.h; the profile
					 * that holds it outlives git's use) */
	const struct confine *confine;	/* and under this confine (NULL:
					 * Landlock alone) ... */
	int		 pinned;	/* ... joining these namespaces */
	int		 pin_fd;
	char		*path;		/* git's absolute path, found once
					 * (git_find); NULL: not found */
	char		*common;	/* the repository's git directory,
					 * pinned (git_pin); NULL: found by
					 * git each time */
	dev_t		 common_dev;	/* ... which is this directory */
	ino_t		 common_ino;
};

/* From now on every git reads the git directory `common` (absolute),
 * which must stay the directory it is now. Returns 0, or -1 with *err. */
int git_pin(struct git *g, const char *common, char **err);

/* Frees what git_find and git_pin keep. */
void git_clear(struct git *g);

/* Finds git in the absolute directories of $PATH (a relative entry
 * would find a file a teammate put in the directory git runs in).
 * Fills g->path (malloc'd). Returns 0, or -1 when there is none. */
int git_find(struct git *g);

/* From now on git runs as a command run with bo would: its sandbox (a
 * ruleset descriptor, or a shared ruleset), confine and namespaces
 * (bo as profile_bash_options fills it; what it points to must outlive
 * g's use). */
void git_confine(struct git *g, const struct bash_options *bo);

/* git_run flags. */
#define GIT_QUIET	0x1	/* leave stderr out of *out */

/*
 * Runs `git ARGS...` (args NULL-terminated) in dir. *out (when not NULL)
 * gets what it printed, at most `cap` bytes kept (head and tail; 0: 4
 * MiB), without the status line. Returns its exit status (0–255), or -1
 * with *out saying why when it could not run or did not end by itself.
 */
int git_run(const struct git *g, const char *dir, int flags, size_t cap,
    char **out, const char *const *args);

/* git_run on a linked worktree: its files in `dir`, its own git
 * directory (<common>/worktrees/NAME) `admin`; the common directory is
 * the pinned one whatever admin's commondir says. */
int git_run_at(const struct git *g, const char *dir, const char *admin,
    int flags, size_t cap, char **out, const char *const *args);

#endif
