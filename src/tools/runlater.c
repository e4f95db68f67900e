/*
 * Files that run code later (see runlater.h).
 *
 * A file is known by its size and a hash of its first megabyte, not by
 * its time stamps: a command can set those back.
 */
#include "config.h"

#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/runlater.h"
#include "util/xmalloc.h"

#define RUNLATER_HASHED	(1024 * 1024)	/* bytes hashed of each file */
#define RUNLATER_MAX	512		/* files noted at most */

/* Relative to the tree's top; glob(3) patterns. */
static const char *const runlater_table[] = {
	".envrc", ".env", ".tool-versions", ".nvmrc", ".python-version",
	".vscode/*.json", ".idea/workspaceModel.xml", ".idea/runConfigurations/*",
	".devcontainer/*", ".devcontainer.json",
	"Makefile", "makefile", "GNUmakefile", "*.mk", "justfile", "Justfile",
	"Taskfile.yml", "CMakeLists.txt", "configure", "autogen.sh",
	"build.rs", "Cargo.toml", ".cargo/config.toml", ".cargo/config",
	"package.json", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs",
	"setup.py", "setup.cfg", "pyproject.toml", "conftest.py", "tox.ini",
	"noxfile.py", "Gemfile", "Rakefile", "composer.json", "go.mod",
	".pre-commit-config.yaml", ".gitattributes", ".gitmodules",
	".git/commondir", ".git/config", ".git/config.worktree",
	".git/worktrees/*/commondir", ".git/worktrees/*/gitdir",
	".git/worktrees/*/config.worktree",
	".github/workflows/*", ".gitlab-ci.yml", ".husky/*",
	/* A repository's .git below the tree (a worktree's file, or a
	 * directory by its configuration): git run there reads it. */
	"*/.git", "*/*/.git", "*/*/*/.git", ".huddle/worktrees/*/.git",
	".huddle/worktrees/*/*/.git", ".huddle/worktrees/*/*/*/.git",
	/* What the next start reads: it grants nothing without the
	 * person, who should still know it changed. */
	".huddle/settings.json", ".huddle/agents/*", ".claude/agents/*",
	".claude/settings.json", ".claude/settings.local.json", ".mcp.json",
	"AGENTS.md", "CLAUDE.md",
};

struct runlater_file {
	char		*path;		/* relative */
	long long	 size;
	uint64_t	 hash;
};

struct runlater {
	char			*root;
	struct runlater_file	*files;
	size_t			 n;
};

/* FNV-1a over the file's first RUNLATER_HASHED bytes; -1 when
 * unreadable. A directory called .git is known by its config file, its
 * size counted negative (so that a file replaced by one changes). */
static int
runlater_read(const char *path, long long *size, uint64_t *hash)
{
	unsigned char buf[16384];
	struct stat st;
	uint64_t h = 14695981039346656037ULL;
	size_t left = RUNLATER_HASHED, i, n = strlen(path);
	ssize_t got;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) ==
	    -1)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && n >= 5 &&
	    strcmp(path + n - 5, "/.git") == 0) {
		char *config = xasprintf("%s/config", path);

		close(fd);
		if (runlater_read(config, size, hash) == -1)
			*size = *hash = 0;
		*size = -1 - *size;
		free(config);
		return 0;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	while (left > 0 && (got = read(fd, buf, left < sizeof buf ? left :
	    sizeof buf)) > 0) {
		for (i = 0; i < (size_t)got; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
		left -= (size_t)got;
	}
	close(fd);
	*size = (long long)st.st_size;
	*hash = h;
	return 0;
}

/* The run-later files beneath root now. */
static void
runlater_scan(const char *root, struct runlater_file **files, size_t *n)
{
	size_t i, j, skip = strlen(root) + 1;
	char *pattern;
	glob_t g;

	*files = NULL;
	*n = 0;
	for (i = 0; i < sizeof runlater_table / sizeof *runlater_table; i++) {
		pattern = xasprintf("%s/%s", root, runlater_table[i]);
		if (glob(pattern, 0, NULL, &g) == 0) {
			for (j = 0; j < g.gl_pathc && *n < RUNLATER_MAX; j++) {
				struct runlater_file f;

				if (runlater_read(g.gl_pathv[j], &f.size,
				    &f.hash) == -1)
					continue;
				f.path = xstrdup(g.gl_pathv[j] + skip);
				*files = xrealloc(*files, (*n + 1) *
				    sizeof **files);
				(*files)[(*n)++] = f;
			}
		}
		globfree(&g);
		free(pattern);
	}
}

static void
runlater_files_free(struct runlater_file *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(files[i].path);
	free(files);
}

struct runlater *
runlater_note(const char *root)
{
	struct runlater *r = xcalloc(1, sizeof *r);

	r->root = xstrdup(root);
	runlater_scan(root, &r->files, &r->n);
	return r;
}

/* The file called path among files, or NULL. */
static const struct runlater_file *
runlater_find(const struct runlater_file *files, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(files[i].path, path) == 0)
			return &files[i];
	return NULL;
}

/* Appends a path to a ", "-separated list. */
static void
runlater_list(char **list, const char *path, const char *how)
{
	char *next = *list == NULL ? xasprintf("%s%s", path, how) :
	    xasprintf("%s, %s%s", *list, path, how);

	free(*list);
	*list = next;
}

char *
runlater_changes(const struct runlater *r)
{
	struct runlater_file *now;
	const struct runlater_file *was;
	char *list = NULL;
	size_t n, i;

	runlater_scan(r->root, &now, &n);
	for (i = 0; i < n; i++) {
		was = runlater_find(r->files, r->n, now[i].path);
		if (was == NULL)
			runlater_list(&list, now[i].path, " (new)");
		else if (was->size != now[i].size || was->hash != now[i].hash)
			runlater_list(&list, now[i].path, "");
	}
	for (i = 0; i < r->n; i++) {
		if (runlater_find(now, n, r->files[i].path) == NULL)
			runlater_list(&list, r->files[i].path, " (removed)");
	}
	runlater_files_free(now, n);
	return list;
}

void
runlater_free(struct runlater *r)
{
	if (r == NULL)
		return;
	runlater_files_free(r->files, r->n);
	free(r->root);
	free(r);
}
