/*
 * The demo's place and repository (see demo.h). Its scenario is
 * data/demo.json, built in as demo_builtin (doc/script.md describes the
 * format): the lead spawns alice, who documents hello.py, and bob, who
 * must have his refactoring plan approved — by the person, with F5 —
 * before he may edit; each works in a worktree of the demo's repository.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/statedir.h"
#include "demo.h"
#include "tools/git.h"
#include "util/xmalloc.h"

extern char **environ;

static const char demo_hello[] =
    "def greeting(name):\n"
    "    return f\"Hello, {name}!\"\n"
    "\n"
    "\n"
    "print(greeting(\"huddle\"))\n";

const char *
demo_scenario(void)
{
	return demo_builtin;
}

/* Removes one entry of an old demo (nftw, depth first, no links
 * followed); the lock file stays, held. */
static int
demo_remove_one(const char *path, const struct stat *st, int type,
    struct FTW *f)
{
	(void)st;
	if (f->level == 0 || (f->level == 1 && strcmp(path + f->base,
	    "lock") == 0))
		return 0;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) == -1 &&
	    errno != ENOENT)
		return -1;
	return 0;
}

/* Runs git ARGS in dir, quietly. Returns 0 when it exits 0, else -1. */
static int
demo_git(const char *git, const char *dir, const char *const *args)
{
	const char *argv[24];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	size_t n = 0;
	int status;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = dir;
	argv[n++] = "-c";
	argv[n++] = "user.name=huddle demo";
	argv[n++] = "-c";
	argv[n++] = "user.email=demo@huddle.invalid";
	argv[n++] = "-c";
	argv[n++] = "commit.gpgsign=false";
	argv[n++] = "-c";
	argv[n++] = "core.hooksPath=/dev/null";
	argv[n++] = "-c";
	argv[n++] = "init.defaultBranch=main";
	while (*args != NULL && n < sizeof argv / sizeof *argv - 1)
		argv[n++] = *args++;
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
	    O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null",
	    O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
	    O_WRONLY, 0);
	status = posix_spawn(&pid, git, &fa, NULL, (char *const *)argv,
	    environ);
	posix_spawn_file_actions_destroy(&fa);
	if (status != 0)
		return -1;
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Makes dir a repository with hello.py committed, unless it has one. */
static int
demo_repository(const char *dir, char **err)
{
	static const char *const init[] = { "init", "-q", NULL };
	static const char *const add[] = { "add", "hello.py", NULL };
	static const char *const commit[] = { "commit", "-q", "--no-verify",
	    "-m", "hello.py, for the demo", NULL };
	struct git g = { 0 };
	char *path = xasprintf("%s/.git", dir);
	struct stat st;
	FILE *f;
	int rc = -1;

	if (lstat(path, &st) == 0) {
		free(path);
		return 0;
	}
	free(path);
	if (git_find(&g) == -1) {
		*err = xstrdup("the demo needs git (its teammates work in git "
		    "worktrees), and there is none on $PATH");
		return -1;
	}
	path = xasprintf("%s/hello.py", dir);
	if ((f = fopen(path, "wx")) != NULL) {
		fputs(demo_hello, f);
		fclose(f);
	}
	if (demo_git(g.path, dir, init) == 0 && demo_git(g.path, dir,
	    add) == 0 && demo_git(g.path, dir, commit) == 0)
		rc = 0;
	else
		*err = xasprintf("%s: git could not make the demo's "
		    "repository", dir);
	free(path);
	free(g.path);
	return rc;
}

char *
demo_state_base(const char *base)
{
	/* As demo_open makes it: <base>/demo, and state in it. */
	return xasprintf("%s/demo/state", base);
}

int
demo_open(struct demo *d, const char *workdir, const char *state_dir,
    int resume, char **err)
{
	char *base, *work;
	struct stat st;

	memset(d, 0, sizeof *d);
	d->lock = -1;
	if (workdir != NULL) {
		if ((d->workdir = realpath(workdir, NULL)) == NULL) {
			*err = xasprintf("%s: %s", workdir, strerror(errno));
			return -1;
		}
	} else {
		if ((base = statedir_base(state_dir, err)) == NULL)
			return -1;
		d->folder = xasprintf("%s/demo", base);
		free(base);
		if (resume && lstat(d->folder, &st) == -1) {
			*err = xasprintf("there is no demo to resume in %s; "
			    "huddle --demo starts one", d->folder);
			goto fail;
		}
		if (statedir_make(d->folder, 1, err) == -1 ||
		    (d->lock = statedir_lock(d->folder, err)) == -1)
			goto fail;
		/* A fresh demo starts from nothing. */
		if (!resume && nftw(d->folder, demo_remove_one, 16, FTW_DEPTH |
		    FTW_PHYS) != 0) {
			*err = xasprintf("%s: could not empty it: %s",
			    d->folder, strerror(errno));
			goto fail;
		}
		work = xasprintf("%s/work", d->folder);
		d->state = xasprintf("%s/state", d->folder);
		if (statedir_make(work, 0, err) == -1 ||
		    statedir_make(d->state, 0, err) == -1) {
			free(work);
			goto fail;
		}
		d->workdir = realpath(work, NULL);
		free(work);
		if (d->workdir == NULL) {
			*err = xasprintf("%s/work: %s", d->folder,
			    strerror(errno));
			goto fail;
		}
	}
	if (demo_repository(d->workdir, err) == 0)
		return 0;
fail:
	demo_close(d);
	return -1;
}

void
demo_close(struct demo *d)
{
	if (d->lock != -1)
		close(d->lock);
	free(d->folder);
	free(d->workdir);
	free(d->state);
	memset(d, 0, sizeof *d);
	d->lock = -1;
}
