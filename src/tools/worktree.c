/*
 * Git worktrees for teammates (see worktree.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/sandbox.h"
#include "tools/worktree.h"
#include "util/xmalloc.h"

/* The most new files a diff shows, and the most bytes of hunks. */
#define WORKTREE_NEW_FILES	200
#define WORKTREE_PATCH_MAX	(8 * 1024 * 1024)

/* Runs git and keeps its output; returns the status. */
static int
wt_git(const struct git *g, const char *dir, int flags, char **out,
    const char *const *args)
{
	return git_run(g, dir, flags, 0, out, args);
}

/* Output without its trailing newlines (in place). */
static char *
wt_chomp(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* "git ARGS failed: OUTPUT" into *err; returns -1. */
static int
wt_fail(char **err, const char *what, char *out)
{
	*err = xasprintf("%s: %s", what, out && *out ? wt_chomp(out) :
	    "git failed");
	free(out);
	return -1;
}

/*
 * The repository's own record of name's worktree: the directory of
 * <common>/worktrees whose gitdir file points back at the worktree's
 * .git (malloc'd), or NULL. huddle's git commands on a worktree name it
 * with --git-dir and never read the worktree's own .git, which its
 * teammate can rewrite to lead git to a configuration of its making.
 */
static char *
wt_admin_dir(const struct git *g, const char *workdir, const char *path)
{
	const char *common_args[] = { "rev-parse", "--path-format=absolute",
	    "--git-common-dir", NULL };
	char *out = NULL, *dir, *want, *found = NULL, line[4096];
	struct dirent *e;
	DIR *d;
	FILE *f;

	if (g->common != NULL)
		dir = xasprintf("%s/worktrees", g->common);
	else if (wt_git(g, workdir, GIT_QUIET, &out, common_args) != 0) {
		free(out);
		return NULL;
	} else
		dir = xasprintf("%s/worktrees", wt_chomp(out));
	free(out);
	want = xasprintf("%s/.git\n", path);
	if ((d = opendir(dir)) != NULL) {
		while (found == NULL && (e = readdir(d)) != NULL) {
			char *file;

			if (e->d_name[0] == '.')
				continue;
			file = xasprintf("%s/%s/gitdir", dir, e->d_name);
			if ((f = fopen(file, "r")) != NULL) {
				if (fgets(line, sizeof line, f) != NULL &&
				    strcmp(line, want) == 0)
					found = xasprintf("%s/%s", dir,
					    e->d_name);
				fclose(f);
			}
			free(file);
		}
		closedir(d);
	}
	free(want);
	free(dir);
	return found;
}

/* Whether the file at dir/name (dir NULL: name) holds exactly `want`,
 * read through no link; want NULL: whether there is no such file. */
static int
wt_file_is(const char *dir, const char *name, const char *want)
{
	char *path = dir ? xasprintf("%s/%s", dir, name) : xstrdup(name);
	char buf[4097];
	ssize_t got = -1;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	free(path);
	if (fd == -1)
		return want == NULL && errno == ENOENT;
	if (want != NULL && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		got = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (want == NULL || got < 0)
		return 0;
	buf[got] = '\0';
	return strcmp(buf, want) == 0 && (size_t)got == strlen(want);
}

/*
 * Whether the repository's record of a worktree (admin) and the
 * worktree's .git are as git wrote them for huddle: a commondir, a
 * config.worktree or a .git of another's making would lead the person's
 * own git, run there later, to a configuration of the team's. Returns
 * 0; -2 with *err naming the file that is not; -1 with *err when the
 * worktree is on another branch.
 */
static int
wt_admin_sound(const char *admin, const char *path, const char *branch,
    char **err)
{
	char *gitdir = xasprintf("%s/.git\n", path);
	char *dotgit = xasprintf("%s/.git", path);
	char *back = xasprintf("gitdir: %s\n", admin);
	char *head = xasprintf("ref: refs/heads/%s\n", branch);
	const char *bad = NULL;
	int rc = 0;

	if (!wt_file_is(admin, "commondir", "../..\n"))
		bad = "commondir";
	else if (!wt_file_is(admin, "gitdir", gitdir))
		bad = "gitdir";
	else if (!wt_file_is(admin, "config.worktree", NULL))
		bad = "config.worktree";
	if (bad != NULL) {
		*err = xasprintf("%s/%s is not what git wrote for huddle: "
		    "huddle's git does not use this worktree; look at the "
		    "file before you run git there", admin, bad);
		rc = -2;
	} else if (!wt_file_is(NULL, dotgit, back)) {
		*err = xasprintf("%s is not the file git wrote for this "
		    "worktree: huddle's git does not use it; look at it "
		    "before you run git there", dotgit);
		rc = -2;
	} else if (!wt_file_is(admin, "HEAD", head)) {
		*err = xasprintf("%s is not on %s any more (it was switched)",
		    path, branch);
		rc = -1;
	}
	free(gitdir);
	free(dotgit);
	free(back);
	free(head);
	return rc;
}

/* A worktree as huddle's git commands see it. */
struct wt_place {
	char	*path;		/* its files */
	char	*admin;		/* the repository's record of it */
};

static void
wt_place_clear(struct wt_place *p)
{
	free(p->path);
	free(p->admin);
	memset(p, 0, sizeof *p);
}

/* Runs git on a worktree: in its directory, with its git directory and
 * work tree given, not found. */
static int
wt_git_at(const struct git *g, const struct wt_place *p, int flags,
    char **out, const char *const *args)
{
	return git_run_at(g, p->path, p->admin, flags, 0, out, args);
}

char *
worktree_path(const char *workdir, const char *name)
{
	return xasprintf("%s/%s/%s", workdir, WORKTREE_DIR, name);
}

char *
worktree_branch(const char *name)
{
	return xasprintf("huddle/%s", name);
}

/* Why dir could not be opened through no link, given errno e. */
static char *
wt_dir_error(const char *dir, int e)
{
	if (sandbox_race(e))
		return xasprintf("%s is not a directory reached without a "
		    "symbolic link: huddle keeps worktrees only in the working "
		    "tree's own %s, never where a link leads", dir,
		    WORKTREE_DIR);
	return xasprintf("%s: %s", dir, strerror(e));
}

/*
 * Whether dir (absolute, its workdir canonical) is a directory reached
 * through no symbolic link. Anyone who may write the working tree may
 * put a link where .huddle or .huddle/worktrees was, and huddle would
 * then make, enter, grant or delete a worktree wherever it leads.
 * Returns 0, -1 with errno ENOENT when it is missing, or -1 with *err.
 */
static int
wt_real_dir(const char *dir, char **err)
{
	int fd = sandbox_open_real(dir, O_PATH | O_DIRECTORY), e = errno;

	if (fd != -1) {
		close(fd);
		return 0;
	}
	if (e != ENOENT)
		*err = wt_dir_error(dir, e);
	errno = e;
	return -1;
}

/* Adds ".huddle/" to the repository's info/exclude, once; not through a
 * link put in place of info/ or of the file. */
static int
wt_exclude(const char *common, char **err)
{
	char *real = realpath(common, NULL), line[512];
	int dir = -1, info = -1, fd = -1, found = 0, rc = -1;
	FILE *f = NULL;

	if (real == NULL ||
	    (dir = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (mkdirat(dir, "info", 0755) == -1 && errno != EEXIST) ||
	    (info = openat(dir, "info", O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 ||
	    (fd = openat(info, "exclude", O_RDWR | O_APPEND | O_CREAT |
	    O_NOFOLLOW | O_CLOEXEC, 0644)) == -1 ||
	    (f = fdopen(fd, "a+")) == NULL) {
		*err = xasprintf("%s/info/exclude: %s", common,
		    strerror(errno));
		goto done;
	}
	fd = -1;
	rewind(f);
	while (!found && fgets(line, sizeof line, f) != NULL)
		found = strcmp(line, ".huddle/\n") == 0 ||
		    strcmp(line, ".huddle/") == 0;
	if (!found)
		fputs("\n# huddle's teammates' worktrees\n.huddle/\n", f);
	if (fclose(f) == EOF) {
		*err = xasprintf("%s/info/exclude: %s", common,
		    strerror(errno));
		f = NULL;
		goto done;
	}
	f = NULL;
	rc = 0;
done:
	if (f != NULL)
		fclose(f);
	if (fd != -1)
		close(fd);
	if (info != -1)
		close(info);
	if (dir != -1)
		close(dir);
	free(real);
	return rc;
}

/* Makes .huddle/worktrees in workdir as needed, each directory beneath
 * the one before through no link. Returns 0 or -1 with *err. */
static int
wt_make_dir(const char *workdir, char **err)
{
	static const char *const parts[] = { ".huddle", "worktrees" };
	int dir = sandbox_open_real(workdir, O_PATH | O_DIRECTORY), next;
	size_t i;

	for (i = 0; dir != -1 && i < sizeof parts / sizeof *parts; i++) {
		if (mkdirat(dir, parts[i], 0700) == -1 && errno != EEXIST)
			next = -1;
		else
			next = openat(dir, parts[i], O_PATH | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		dir = next;
	}
	if (dir == -1) {
		char *path = xasprintf("%s/%s", workdir, WORKTREE_DIR);

		*err = wt_dir_error(path, errno);
		free(path);
		return -1;
	}
	close(dir);
	return 0;
}

int
worktree_repo(const struct git *g, const char *workdir, char **common,
    char **err)
{
	const char *top[] = { "rev-parse", "--show-toplevel", NULL };
	const char *head[] = { "rev-parse", "--verify", "-q", "HEAD", NULL };
	const char *git_dir[] = { "rev-parse", "--path-format=absolute",
	    "--git-common-dir", NULL };
	char *out = NULL;

	*common = NULL;
	if (wt_git(g, workdir, GIT_QUIET, &out, top) != 0) {
		free(out);
		*err = xasprintf("%s is not in a git repository: worktrees "
		    "need one (git init, and a first commit)", workdir);
		return -1;
	}
	if (strcmp(wt_chomp(out), workdir) != 0) {
		*err = xasprintf("%s is inside the git repository %s, not at "
		    "its top: start huddle there for worktrees", workdir, out);
		free(out);
		return -1;
	}
	free(out);
	if (wt_git(g, workdir, GIT_QUIET, &out, head) != 0) {
		free(out);
		*err = xasprintf("the repository at %s has no commit yet: "
		    "worktrees start from one", workdir);
		return -1;
	}
	free(out);
	if (wt_git(g, workdir, 0, &out, git_dir) != 0)
		return wt_fail(err, "finding the repository's git directory",
		    out);
	*common = xstrdup(wt_chomp(out));
	free(out);
	if (wt_exclude(*common, err) == -1) {
		free(*common);
		*common = NULL;
		return -1;
	}
	return 0;
}

int
worktree_add(const struct git *g, const char *workdir, const char *name,
    const char *base, char **sha, char **err)
{
	char *path = worktree_path(workdir, name);
	char *branch = worktree_branch(name), *ref, *spec, *out = NULL;
	struct stat st;
	int rc = -1;

	*sha = NULL;
	ref = xasprintf("refs/heads/%s", branch);
	spec = xasprintf("%s^{commit}", base ? base : "HEAD");
	{
		const char *exists[] = { "show-ref", "--verify", "-q", ref,
		    NULL };
		const char *resolve[] = { "rev-parse", "--verify", "-q", spec,
		    NULL };

		if (lstat(path, &st) == 0) {
			*err = xasprintf("%s exists already; huddle does not "
			    "make a worktree over it (/discard %s removes an "
			    "old one of this team; another team kept here may "
			    "own it: huddle --teams)", path, name);
			goto done;
		}
		if (wt_git(g, workdir, GIT_QUIET, &out, exists) == 0) {
			*err = xasprintf("the branch %s exists already; "
			    "choose another name (/discard %s deletes an old "
			    "one of this team; another team kept here may own "
			    "it: huddle --teams)", branch, name);
			goto done;
		}
		free(out);
		out = NULL;
		if (wt_git(g, workdir, GIT_QUIET, &out, resolve) != 0) {
			*err = xasprintf("'%s' names no commit of the "
			    "repository", base ? base : "HEAD");
			goto done;
		}
		*sha = xstrdup(wt_chomp(out));
		free(out);
		out = NULL;
	}
	if (wt_make_dir(workdir, err) == -1)
		goto done;
	{
		const char *add[] = { "worktree", "add", "-q", "-b", branch, path,
		    *sha, NULL };
		const char *undo[] = { "worktree", "remove", "--force", path,
		    NULL };
		const char *unbranch[] = { "branch", "-q", "-D", branch, NULL };

		if (wt_git(g, workdir, 0, &out, add) != 0)
			wt_fail(err, "making the worktree", out);
		/* A link put in the way while git worked: what git made
		 * there goes, and nothing is recorded or granted. */
		else if (wt_real_dir(path, err) == -1) {
			if (errno == ENOENT)
				*err = xasprintf("%s vanished as it was made",
				    path);
			free(out);
			wt_git(g, workdir, GIT_QUIET, NULL, undo);
		} else {
			free(out);
			out = NULL;
			rc = 0;
			goto done;
		}
		out = NULL;
		/* The branch was not there before (see above): a failed
		 * add (which takes back its own record) leaves none behind. */
		wt_git(g, workdir, GIT_QUIET, NULL, unbranch);
		goto done;
	}
done:
	if (rc == -1) {
		free(*sha);
		*sha = NULL;
	}
	free(out);
	free(path);
	free(branch);
	free(ref);
	free(spec);
	return rc;
}

/* Finds name's worktree where it should be, on its branch, with the
 * repository's record of it. Returns 0; -1 with *err; or -2 with *err
 * when its files are not as git wrote them (wt_admin_sound). */
static int
wt_find(const struct git *g, const char *workdir, const char *name,
    struct wt_place *p, char **err)
{
	char *branch = worktree_branch(name);
	int rc = -1;

	memset(p, 0, sizeof *p);
	*err = NULL;
	p->path = worktree_path(workdir, name);
	if (wt_real_dir(p->path, err) == -1) {
		if (errno == ENOENT)
			*err = xasprintf("%s's worktree %s is missing", name,
			    p->path);
	} else if ((p->admin = wt_admin_dir(g, workdir, p->path)) == NULL)
		*err = xasprintf("%s is not one of the repository's worktrees "
		    "any more (it was moved, or pruned)", p->path);
	else
		rc = wt_admin_sound(p->admin, p->path, branch, err);
	free(branch);
	if (rc != 0)
		wt_place_clear(p);
	return rc;
}

int
worktree_check(const struct git *g, const char *workdir, const char *name,
    char **err)
{
	struct wt_place p;

	if (wt_find(g, workdir, name, &p, err) != 0)
		return -1;
	wt_place_clear(&p);
	return 0;
}

/* Reads `git diff --numstat` lines into files; sums them. */
static void
wt_numstat(const char *text, struct worktree_diff *d)
{
	const char *p = text, *nl;
	char path[4096];
	long a, r;
	char sa[32], sr[32];

	for (; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		if (sscanf(p, "%31s %31s %4095[^\n]", sa, sr, path) == 3) {
			a = strcmp(sa, "-") == 0 ? -1 : atol(sa);
			r = strcmp(sr, "-") == 0 ? -1 : atol(sr);
			json_array_append_new(d->files, json_pack("{s:s, s:i, "
			    "s:i}", "path", path, "added", (int)a, "removed",
			    (int)r));
			d->added += a > 0 ? (int)a : 0;
			d->removed += r > 0 ? (int)r : 0;
		}
		if (*nl == '\0')
			break;
	}
}

int
worktree_diff(const struct git *g, const char *workdir, const char *name,
    const char *base, struct worktree_diff *d, char **err)
{
	char *out = NULL, *p, *nl;
	struct wt_place at;
	const char *numstat[] = { "diff", "--no-color", "--no-ext-diff",
	    "--no-textconv", "--ignore-submodules=all", "--numstat", base, "--",
	    NULL };
	const char *patch[] = { "diff", "--no-color", "--no-ext-diff",
	    "--no-textconv", "--ignore-submodules=all", base, "--", NULL };
	const char *others[] = { "ls-files", "--others", "--exclude-standard",
	    NULL };
	size_t len = 0, cap = 0;
	int n = 0, rc = -1;

	memset(d, 0, sizeof *d);
	if (wt_find(g, workdir, name, &at, err) != 0)
		return -1;
	d->files = json_array();
	if (wt_git_at(g, &at, GIT_QUIET, &out, numstat) != 0) {
		wt_fail(err, "reading the worktree's changes", out);
		goto done;
	}
	wt_numstat(out, d);
	free(out);
	if (wt_git_at(g, &at, GIT_QUIET, &out, patch) != 0) {
		wt_fail(err, "reading the worktree's changes", out);
		goto done;
	}
	d->patch = out;
	len = strlen(out);
	cap = len + 1;
	out = NULL;
	/* New files: each against nothing. */
	if (wt_git_at(g, &at, GIT_QUIET, &out, others) != 0) {
		wt_fail(err, "listing the worktree's new files", out);
		goto done;
	}
	for (p = out; *p != '\0'; p = nl + 1, n++) {
		char *file, *text = NULL;

		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		file = xasprintf("%.*s", (int)(nl - p), p);
		/* What is not shown is said, never left out in silence:
		 * past the limits, and a name git must quote (control
		 * characters, quotes), which its diff cannot be asked for. */
		if (n >= WORKTREE_NEW_FILES || len >= WORKTREE_PATCH_MAX ||
		    *file == '"') {
			json_array_append_new(d->files, json_pack("{s:s, s:i, "
			    "s:i, s:b}", "path", file, "added", -1, "removed",
			    -1, "not_shown", 1));
			d->hidden++;
			free(file);
			if (*nl == '\0')
				break;
			continue;
		}
		{
			const char *stat[] = { "diff", "--no-color",
			    "--no-ext-diff", "--no-textconv", "--no-index",
			    "--numstat", "--", "/dev/null", file, NULL };
			const char *hunks[] = { "diff", "--no-color",
			    "--no-ext-diff", "--no-textconv", "--no-index", "--",
			    "/dev/null", file, NULL };

			/* --no-index exits 1 when the files differ. */
			/* Its numstat names it "/dev/null => FILE". */
			if (wt_git_at(g, &at, GIT_QUIET, &text, stat) == 1) {
				size_t before = json_array_size(d->files);

				wt_numstat(text, d);
				if (json_array_size(d->files) > before)
					json_object_set_new(json_array_get(
					    d->files, before), "path",
					    json_string(file));
			}
			free(text);
			text = NULL;
			if (wt_git_at(g, &at, GIT_QUIET, &text, hunks) == 1 &&
			    len < WORKTREE_PATCH_MAX)
				d->patch = xappend(d->patch, &len, &cap, text,
				    strlen(text));
			free(text);
		}
		free(file);
		if (*nl == '\0')
			break;
	}
	rc = 0;
done:
	free(out);
	wt_place_clear(&at);
	if (rc == -1)
		worktree_diff_clear(d);
	return rc;
}

void
worktree_diff_clear(struct worktree_diff *d)
{
	json_decref(d->files);
	free(d->patch);
	memset(d, 0, sizeof *d);
}

int
worktree_state(const struct git *g, const char *workdir, const char *name,
    struct worktree_state *s, char **err)
{
	char *branch, *range, *out = NULL;
	const char *status[] = { "status", "--porcelain",
	    "--ignore-submodules=all", NULL };
	struct wt_place at;
	char *why = NULL;
	int rc = 0;

	memset(s, 0, sizeof *s);
	switch (wt_find(g, workdir, name, &at, &why)) {
	case -2:
		*err = why;
		return -1;
	case -1:
		s->missing = 1;
		free(why);
		return 0;
	}
	branch = worktree_branch(name);
	range = xasprintf("HEAD...%s", branch);
	{
		const char *count[] = { "rev-list", "--left-right", "--count",
		    range, NULL };

		if (wt_git_at(g, &at, GIT_QUIET, &out, status) != 0)
			rc = wt_fail(err, "reading the worktree's status", out);
		else {
			s->dirty = *out != '\0';
			free(out);
			if (wt_git(g, workdir, GIT_QUIET, &out, count) != 0 ||
			    sscanf(out, "%d %d", &s->behind, &s->ahead) != 2)
				rc = wt_fail(err, "comparing the branches",
				    out);
			else
				free(out);
		}
	}
	s->merged = rc == 0 && !s->dirty && s->ahead == 0;
	free(range);
	free(branch);
	wt_place_clear(&at);
	return rc;
}

/* Commits the uncommitted work of name's worktree. Returns 1 when there
 * was some, 0 when not, -1 with *err. */
static int
wt_commit(const struct git *g, const struct wt_place *at, const char *name,
    const char *message, char **err)
{
	const char *status[] = { "status", "--porcelain",
	    "--ignore-submodules=all", NULL };
	const char *add[] = { "add", "-A", NULL };
	char *who = xasprintf("user.name=%s (huddle)", name);
	char *mail = xasprintf("user.email=%s@huddle.invalid", name);
	const char *commit[] = { "-c", who, "-c", mail, "commit", "-q",
	    "--no-verify", "-m", message, NULL };
	char *out = NULL;
	int rc;

	if (wt_git_at(g, at, GIT_QUIET, &out, status) != 0)
		rc = wt_fail(err, "reading the worktree's status", out);
	else if (*out == '\0') {
		free(out);
		rc = 0;
	} else {
		free(out);
		out = NULL;
		if (wt_git_at(g, at, 0, &out, add) != 0)
			rc = wt_fail(err, "adding the worktree's files", out);
		else {
			free(out);
			out = NULL;
			rc = wt_git_at(g, at, 0, &out, commit) != 0 ?
			    wt_fail(err, "committing the worktree's work",
			    out) : 1;
			if (rc == 1)
				free(out);
		}
	}
	free(who);
	free(mail);
	return rc;
}

enum worktree_merged
worktree_merge(const struct git *g, const char *workdir, const char *name,
    const char *message, char **report)
{
	struct wt_place at = { NULL, NULL };
	char *branch = worktree_branch(name), *out = NULL, *why = NULL;
	char *merge_msg = xasprintf("Merge %s's work (huddle)", name);
	const char *current[] = { "symbolic-ref", "-q", "--short", "HEAD",
	    NULL };
	const char *status[] = { "status", "--porcelain",
	    "--ignore-submodules=all", NULL };
	const char *merged[] = { "merge-base", "--is-ancestor", branch, "HEAD",
	    NULL };
	const char *email[] = { "config", "user.email", NULL };
	const char *merge[] = { "merge", "--no-ff", "--no-edit", "--no-verify",
	    "-m", merge_msg, branch, NULL };
	const char *merge_as[] = { "-c", "user.name=huddle", "-c",
	    "user.email=huddle@huddle.invalid", "merge", "--no-ff",
	    "--no-edit", "--no-verify", "-m", merge_msg, branch, NULL };
	const char *unmerged[] = { "diff", "--name-only", "--diff-filter=U",
	    NULL };
	const char *abort_[] = { "merge", "--abort", NULL };
	enum worktree_merged v = WT_FAILED;
	char *into = NULL;
	int has_email;

	*report = NULL;
	if (wt_find(g, workdir, name, &at, &why) != 0) {
		*report = why;
		goto done;
	}
	if (wt_git(g, workdir, GIT_QUIET, &out, current) != 0) {
		*report = xstrdup("your tree has no branch checked out "
		    "(a detached HEAD): check one out to merge into");
		goto done;
	}
	into = xstrdup(wt_chomp(out));
	free(out);
	out = NULL;
	/* The user's tree first: nothing is committed for a merge that
	 * cannot happen. */
	if (wt_git(g, workdir, GIT_QUIET, &out, status) != 0) {
		wt_fail(report, "reading your tree's status", out);
		out = NULL;
		goto done;
	}
	if (*out != '\0') {
		char *p;

		for (p = wt_chomp(out); (p = strchr(p, '\n')) != NULL; )
			*p = ';';
		*report = xasprintf("your tree (%s) has uncommitted changes; "
		    "commit or stash them first (%s)", into, out);
		v = WT_DIRTY;
		goto done;
	}
	free(out);
	out = NULL;
	if (wt_commit(g, &at, name, message, &why) == -1) {
		*report = why;
		goto done;
	}
	if (wt_git(g, workdir, GIT_QUIET, &out, merged) == 0) {
		*report = xasprintf("%s has nothing %s does not have", branch,
		    into);
		v = WT_NOTHING;
		goto done;
	}
	free(out);
	out = NULL;
	has_email = wt_git(g, workdir, GIT_QUIET, &out, email) == 0;
	free(out);
	out = NULL;
	if (wt_git(g, workdir, 0, &out, has_email ? merge : merge_as) == 0) {
		*report = xasprintf("merged %s into %s", branch, into);
		v = WT_MERGED;
		goto done;
	}
	free(out);
	out = NULL;
	if (wt_git(g, workdir, GIT_QUIET, &out, unmerged) == 0 && *out != '\0') {
		char *p;

		/* One line, for a status line to show whole. */
		for (p = wt_chomp(out); (p = strchr(p, '\n')) != NULL; )
			*p = ',';
		*report = xasprintf("%s does not merge cleanly into %s "
		    "(conflicts: %s); nothing was changed, and its work stays "
		    "on its branch", branch, into, out);
		v = WT_CONFLICT;
	} else
		*report = xasprintf("merging %s into %s failed; nothing was "
		    "changed", branch, into);
	free(out);
	out = NULL;
	wt_git(g, workdir, GIT_QUIET, &out, abort_);
done:
	free(out);
	free(into);
	free(merge_msg);
	free(branch);
	wt_place_clear(&at);
	return v;
}

int
worktree_exists(const struct git *g, const char *workdir, const char *name)
{
	char *path = worktree_path(workdir, name);
	char *branch = worktree_branch(name), *ref = xasprintf("refs/heads/%s",
	    branch);
	const char *show[] = { "show-ref", "--verify", "-q", ref, NULL };
	struct stat st;
	int found;

	found = lstat(path, &st) == 0 || wt_git(g, workdir, GIT_QUIET, NULL,
	    show) == 0;
	free(path);
	free(branch);
	free(ref);
	return found;
}

/* The deepest directory wt_rm_at goes into (one descriptor a level). */
#define WT_RM_DEPTH	256

/*
 * Deletes the entry name beneath the directory dir, and all beneath it
 * when it is a directory, following no link: whatever a teammate swaps
 * in on the way, nothing outside dir goes. Returns 0, or -1 with errno.
 */
static int
wt_rm_at(int dir, const char *name, int depth)
{
	struct dirent *e;
	DIR *d;
	int fd, rc = 0, saved;

	fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTDIR && errno != ELOOP)
			return -1;
		return unlinkat(dir, name, 0) == -1 && errno != ENOENT ? -1 :
		    0;
	}
	if (depth >= WT_RM_DEPTH || (d = fdopendir(fd)) == NULL) {
		close(fd);
		errno = depth >= WT_RM_DEPTH ? ELOOP : errno;
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") !=
		    0 && wt_rm_at(dirfd(d), e->d_name, depth + 1) == -1)
			rc = -1;
	}
	saved = errno;
	closedir(d);
	if (rc == -1) {
		errno = saved;
		return -1;
	}
	return unlinkat(dir, name, AT_REMOVEDIR) == -1 && errno != ENOENT ?
	    -1 : 0;
}

/* Deletes name's worktree directory beneath .huddle/worktrees, reached
 * through no link. Returns 0, or -1 with errno. */
static int
wt_rm_worktree(const char *workdir, const char *name)
{
	char *dir = xasprintf("%s/%s", workdir, WORKTREE_DIR);
	int fd = sandbox_open_real(dir, O_PATH | O_DIRECTORY), rc, saved;

	free(dir);
	if (fd == -1)
		return -1;
	rc = wt_rm_at(fd, name, 0);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int
worktree_remove(const struct git *g, const char *workdir, const char *name,
    int force, char **err)
{
	char *path = worktree_path(workdir, name);
	char *branch = worktree_branch(name), *out = NULL;
	const char *remove[] = { "worktree", "remove", force ? "--force" :
	    path, force ? path : NULL, NULL };
	const char *prune[] = { "worktree", "prune", NULL };
	const char *del[] = { "branch", "-q", force ? "-D" : "-d", branch,
	    NULL };
	struct stat st;
	int rc = 0, there = lstat(path, &st) == 0;

	/* Nothing is removed through a link: it would lead elsewhere. */
	if (there && wt_real_dir(path, err) == -1) {
		free(path);
		free(branch);
		return -1;
	}
	/* Forced, a worktree git no longer recognises (its teammate can
	 * rewrite its .git) goes all the same: deleted without following
	 * a link, then forgotten by git. */
	if (there && wt_git(g, workdir, 0, &out, remove) != 0 &&
	    (!force || wt_rm_worktree(workdir, name) == -1))
		rc = wt_fail(err, "removing the worktree", out);
	else {
		free(out);
		out = NULL;
		wt_git(g, workdir, GIT_QUIET, NULL, prune);
		if (wt_git(g, workdir, 0, &out, del) != 0)
			rc = wt_fail(err, "deleting the branch", out);
		else
			free(out);
	}
	free(path);
	free(branch);
	return rc;
}
