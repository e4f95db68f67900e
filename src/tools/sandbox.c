/*
 * The file-tool sandbox (see sandbox.h).
 *
 * realpath(3) cannot be used: it fails on a path whose last components do
 * not exist yet, which is every path write_file creates. So the walk below
 * does what the kernel does, one component at a time: lstat each prefix,
 * splice in the target of each symbolic link, and take `..` physically
 * (from the directory a link really led to). Once a component is missing,
 * the rest is taken lexically; nothing below a missing directory can be a
 * link. The result is then compared with the working directory as a string.
 *
 * The result has no link in it, so sandbox_open can insist on that: the
 * kernel walks it again beneath the working directory and refuses any
 * link it meets, which only a swap since the judgment can have put there.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tools/sandbox.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#ifndef SYS_openat2
#define SYS_openat2		437
#endif
/* openat2's resolve flags (linux/openat2.h), spelled out for old
 * headers. */
#define SANDBOX_RESOLVE_NO_MAGICLINKS	0x02
#define SANDBOX_RESOLVE_NO_SYMLINKS	0x04
#define SANDBOX_RESOLVE_BENEATH		0x08

struct sandbox_open_how {
	uint64_t	flags;
	uint64_t	mode;
	uint64_t	resolve;
};

/* As the kernel: more links than this on one path is a loop. */
#define SANDBOX_MAX_LINKS	40
/* Longest path quoted back to the model. */
#define SANDBOX_QUOTE_MAX	200

struct sandbox_walk {
	char	*cur;		/* resolved so far; "" is the root */
	char	*rest;		/* what is left to walk */
	size_t	 off;		/* position in rest */
	int	 links;		/* symbolic links followed */
	char	*why;		/* set when the walk fails */
};

/* A short printable copy of untrusted text, for messages. */
static char *
sandbox_quote(const char *s)
{
	return utf8_clean(s, strlen(s), SANDBOX_QUOTE_MAX);
}

/* Whether path is dir or below it; both are canonical. */
static int
sandbox_inside(const char *dir, const char *path)
{
	size_t len = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, len) == 0 &&
	    (path[len] == '\0' || path[len] == '/');
}

/* Drops the last component of w->cur (`..`); the root stays the root. */
static void
sandbox_up(struct sandbox_walk *w)
{
	char *slash = strrchr(w->cur, '/');

	if (slash != NULL)
		*slash = '\0';
}

/* Replaces the link at cand by its target in front of the unwalked rest. */
static int
sandbox_follow(struct sandbox_walk *w, const char *cand)
{
	char target[PATH_MAX], *rest;
	ssize_t n;

	if (++w->links > SANDBOX_MAX_LINKS) {
		w->why = xstrdup("too many levels of symbolic links");
		return -1;
	}
	n = readlink(cand, target, sizeof target);
	if (n == -1 || (size_t)n >= sizeof target) {
		w->why = xstrdup(n == -1 ? strerror(errno) :
		    "a symbolic link's target is too long");
		return -1;
	}
	target[n] = '\0';
	rest = xasprintf("%s/%s", target, w->rest + w->off);
	free(w->rest);
	w->rest = rest;
	w->off = 0;
	if (target[0] == '/')
		w->cur[0] = '\0';
	return 0;
}

/*
 * Walks the component of length len at w->rest + w->off, moving off past
 * it: `.` stays, `..` goes up, a link is spliced in, anything else (also
 * a missing name) is appended to cur.
 */
static int
sandbox_step(struct sandbox_walk *w, size_t len, int *through_link)
{
	const char *comp = w->rest + w->off;
	struct stat st;
	char *cand;
	int rc, missing;

	w->off += len;
	if (len == 1 && comp[0] == '.')
		return 0;
	if (len == 2 && comp[0] == '.' && comp[1] == '.') {
		sandbox_up(w);
		return 0;
	}
	cand = xasprintf("%s/%.*s", w->cur, (int)len, comp);
	if (strlen(cand) >= PATH_MAX) {
		free(cand);
		w->why = xstrdup("the path is too long");
		return -1;
	}
	rc = lstat(cand, &st);
	missing = rc == -1 && errno == ENOENT;
	if (rc == -1 && !missing) {
		w->why = xstrdup(errno == ENOTDIR ?
		    "a component of the path is not a directory" :
		    strerror(errno));
		free(cand);
		return -1;
	}
	if (!missing && S_ISLNK(st.st_mode)) {
		*through_link = 1;
		rc = sandbox_follow(w, cand);
		free(cand);
		return rc;
	}
	free(w->cur);
	w->cur = cand;
	return 0;
}

/*
 * Resolves the absolute path full as described at the top. Returns a
 * malloc'd canonical path, or NULL with a malloc'd reason in *why.
 */
static char *
sandbox_resolve(const char *full, int *through_link, char **why)
{
	struct sandbox_walk w = { xstrdup(""), xstrdup(full), 0, 0, NULL };
	size_t len;

	*through_link = 0;
	for (;;) {
		while (w.rest[w.off] == '/')
			w.off++;
		if (w.rest[w.off] == '\0')
			break;
		len = strcspn(w.rest + w.off, "/");
		if (sandbox_step(&w, len, through_link) == -1)
			break;
	}
	free(w.rest);
	if (w.why != NULL) {
		free(w.cur);
		*why = w.why;
		return NULL;
	}
	if (w.cur[0] == '\0') {
		free(w.cur);
		return xstrdup("/");
	}
	return w.cur;
}

/* Refuses a resolved path outside workdir or inside its .huddle. */
static char *
sandbox_judge(const char *workdir, const char *path, const char *resolved,
    int through_link)
{
	char *state, *q = sandbox_quote(path), *why = NULL;

	if (!sandbox_inside(workdir, resolved)) {
		if (through_link)
			why = xasprintf("'%s' leads through a symbolic link to "
			    "%s, outside the working directory %s; the file "
			    "tools only reach files inside it", q, resolved,
			    workdir);
		else
			why = xasprintf("'%s' is outside the working directory "
			    "%s; use a path inside it (relative paths start "
			    "there)", q, workdir);
		free(q);
		return why;
	}
	state = xasprintf("%s/.huddle", strcmp(workdir, "/") == 0 ? "" :
	    workdir);
	if (sandbox_inside(state, resolved))
		why = xasprintf("'%s' is inside %s, where huddle keeps its "
		    "own state; the file tools may not touch it", q, state);
	free(state);
	free(q);
	return why;
}

/* Refuses what the caller cannot use: a missing file to read, or the
 * working directory itself as a file to write. */
static char *
sandbox_usable(const char *workdir, const char *path, const char *resolved,
    int for_write)
{
	struct stat st;
	char *q, *why = NULL;

	if (for_write && strcmp(resolved, workdir) == 0) {
		q = sandbox_quote(path);
		why = xasprintf("'%s' is the working directory itself; give "
		    "the path of a file", q);
		free(q);
	} else if (!for_write && lstat(resolved, &st) == -1) {
		q = sandbox_quote(path);
		why = xasprintf("'%s' does not exist (%s); check the name, "
		    "relative to the working directory %s", q,
		    strerror(errno), workdir);
		free(q);
	}
	return why;
}

char *
sandbox_path(const char *workdir, const char *path, int for_write,
    char **err)
{
	char *wd, *full, *resolved, *why = NULL, *q;
	size_t len;
	int through_link;

	*err = NULL;
	if (workdir == NULL || workdir[0] != '/') {
		*err = xstrdup("the working directory is not an absolute path");
		return NULL;
	}
	if (path == NULL || path[0] == '\0') {
		*err = xstrdup("the path is empty; give a file path relative "
		    "to the working directory");
		return NULL;
	}
	wd = xstrdup(workdir);
	for (len = strlen(wd); len > 1 && wd[len - 1] == '/'; len--)
		wd[len - 1] = '\0';
	full = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", wd, path);
	resolved = sandbox_resolve(full, &through_link, &why);
	free(full);
	if (resolved == NULL) {
		q = sandbox_quote(path);
		*err = xasprintf("cannot use '%s': %s", q, why);
		free(q);
		free(why);
	} else if ((why = sandbox_judge(wd, path, resolved,
	    through_link)) != NULL ||
	    (why = sandbox_usable(wd, path, resolved, for_write)) != NULL) {
		*err = why;
		free(resolved);
		resolved = NULL;
	}
	free(wd);
	return resolved;
}

int
sandbox_open_walk(int root, const char *rel, int flags, mode_t mode)
{
	char *copy = xstrdup(rel), *comp = copy, *slash;
	int dir = root, next, err;

	for (;;) {
		while (*comp == '/')
			comp++;
		slash = strchr(comp, '/');
		while (slash != NULL && slash[1] == '/')
			slash++;
		if (slash != NULL && slash[1] == '\0')
			slash = NULL;	/* a trailing slash */
		if (slash != NULL)
			*slash = '\0';
		if (strcmp(comp, "..") == 0 || (strcmp(comp, ".") == 0 &&
		    slash != NULL)) {
			next = -1;
			errno = EXDEV;
		} else if (slash == NULL)
			next = openat(dir, *comp == '\0' ? "." : comp,
			    flags | O_NOFOLLOW | O_CLOEXEC, mode);
		else
			next = openat(dir, comp, O_PATH | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		err = errno;
		if (dir != root)
			close(dir);
		if (next == -1 || slash == NULL) {
			free(copy);
			errno = err;
			return next;
		}
		dir = next;
		comp = slash + 1;
	}
}

/* Opens rel beneath the directory root without following any link
 * or leaving it. */
static int
sandbox_open_beneath(int root, const char *rel, int flags, mode_t mode)
{
	struct sandbox_open_how how;
	int fd;

	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
	how.resolve = SANDBOX_RESOLVE_BENEATH | SANDBOX_RESOLVE_NO_SYMLINKS |
	    SANDBOX_RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, root, rel, &how, sizeof how);
	if (fd == -1 && errno == ENOSYS)
		fd = sandbox_open_walk(root, rel, flags, mode);
	return fd;
}

int
sandbox_open_real(const char *path, int flags)
{
	int root, fd, err;

	if (path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	while (*path == '/')
		path++;
	if ((root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	fd = sandbox_open_beneath(root, *path != '\0' ? path : ".", flags, 0);
	err = errno;
	close(root);
	errno = err;
	return fd;
}

int
sandbox_open(const char *workdir, const char *full, int flags, mode_t mode)
{
	size_t len = strlen(workdir);
	const char *rel;
	int root, fd, err;

	if (strcmp(workdir, "/") == 0)
		len = 0;
	if (strncmp(full, workdir, len) != 0 || (full[len] != '\0' &&
	    full[len] != '/')) {
		errno = EXDEV;
		return -1;
	}
	for (rel = full + len; *rel == '/'; rel++)
		;
	if (*rel == '\0')
		rel = ".";
	/* The working directory, too, is reached through no link: one put
	 * in its way since huddle made its path canonical leads elsewhere. */
	if ((root = sandbox_open_real(workdir, O_PATH | O_DIRECTORY)) == -1)
		return -1;
	fd = sandbox_open_beneath(root, rel, flags, mode);
	err = errno;
	close(root);
	errno = err;
	return fd;
}

int
sandbox_race(int err)
{
	return err == ELOOP || err == ENOTDIR || err == EXDEV;
}
