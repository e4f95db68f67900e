/*
 * Running git for huddle itself (worktrees, diffs, merges): a fixed
 * argument list, never a model's words, run like a bash command (a
 * reaper, the scrubbed environment, a timeout) but outside the agents'
 * sandbox: in one of its own when `sandboxed` (writing only where the
 * team's files and repository are, so a link an agent put in the way
 * cannot lead huddle's git to write elsewhere), with prompts and
 * optional locks off and messages in English. What a repository's files
 * could make git run by itself is turned off on the command line, which
 * also binds the git processes it starts: hooks, the file-system
 * monitor, signing, external diff and text conversion.
 */
#ifndef HUDDLE_TOOLS_GIT_H
#define HUDDLE_TOOLS_GIT_H

#include <stddef.h>

struct git {
	const char	*program;	/* huddle's, as the reaper */
	const char	*tmpdir;	/* TMPDIR, or NULL */
	int		 sandboxed;	/* git runs in the Landlock ruleset */
	int		 sandbox_fd;	/* ... sandbox_fd, when set */
	char		*path;		/* git's absolute path, found once
					 * (git_find); NULL: not found */
};

/* Finds git in the absolute directories of $PATH (a relative entry
 * would find a file a teammate put in the directory git runs in).
 * Fills g->path (malloc'd). Returns 0, or -1 when there is none. */
int git_find(struct git *g);

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

#endif
