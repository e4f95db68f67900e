/*
 * A shared Landlock ruleset, built on a thread (see ruleset.h).
 *
 * Freshness: landlock_ruleset grants a directory that lies on the way to
 * a hidden path entry by entry, each rule bound to the entry's inode, and
 * binds a writable or readable directory's rule to its inode too. So
 * before the build the ruleset notes, for each such directory, what it
 * is (device, inode) and when its list of entries last changed (its
 * modification and change times: an entry made, removed or renamed moves
 * both). The same notes taken later and compared say whether a ruleset
 * built then would be the same one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/ruleset.h"
#include "util/xmalloc.h"

/* What one directory was when the ruleset was built. */
struct ruleset_mark {
	char		*path;
	int		 entries;	/* split: its entries count, not
					 * only what it is */
	int		 found;
	dev_t		 dev;
	ino_t		 ino;
	struct timespec	 mtime;
	struct timespec	 ctime;
};

struct ruleset {
	pthread_mutex_t		 lock;
	pthread_cond_t		 done;
	int			 holds;
	int			 built;
	int			 fd;		/* once built: -1 on failure */
	char			*err;		/* ... with why */
	pthread_t		 thread;
	int			 threaded;
	struct landlock_rules	 r;		/* points into the lists */
	char			**hidden;
	char			**readable;
	char			**writable;
	struct ruleset_mark	*marks;
	size_t			 nmarks;
	int			*grants;	/* readable directories
						 * (open) for the end of the
						 * build */
	size_t			 ngrants;
};

static char **
ruleset_copy(const char *const *v, size_t n)
{
	char **c = xcalloc(n + 1, sizeof *c);
	size_t i;

	for (i = 0; i < n; i++)
		c[i] = xstrdup(v[i]);
	return c;
}

static void
ruleset_free_list(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Whether path is dir or lies beneath it (both canonical). */
static int
ruleset_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/');
}

/* Fills m from what its path is now. */
static void
ruleset_mark_take(struct ruleset_mark *m)
{
	struct stat st;

	m->found = lstat(m->path, &st) == 0;
	if (!m->found)
		return;
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->mtime = st.st_mtim;
	m->ctime = st.st_ctim;
}

/* Notes path, once (entries: whether its entries count too). */
static void
ruleset_mark(struct ruleset *rs, const char *path, int entries)
{
	size_t i;

	for (i = 0; i < rs->nmarks; i++) {
		if (strcmp(rs->marks[i].path, path) == 0) {
			rs->marks[i].entries |= entries;
			return;
		}
	}
	rs->marks = xrealloc(rs->marks, (rs->nmarks + 1) * sizeof *rs->marks);
	memset(&rs->marks[rs->nmarks], 0, sizeof *rs->marks);
	rs->marks[rs->nmarks].path = xstrdup(path);
	rs->marks[rs->nmarks].entries = entries;
	ruleset_mark_take(&rs->marks[rs->nmarks++]);
}

/* Notes top and every directory a walk from top splits: top itself when a
 * hidden path lies beneath it, and each one between. */
static void
ruleset_mark_walk(struct ruleset *rs, const char *top)
{
	size_t i, k, from = strcmp(top, "/") == 0 ? 0 : strlen(top);
	char *up;

	ruleset_mark(rs, top, 0);
	for (i = 0; rs->hidden[i] != NULL; i++) {
		if (ruleset_beneath(top, rs->hidden[i]) ||
		    !ruleset_beneath(rs->hidden[i], top))
			continue;
		ruleset_mark(rs, top, 1);
		up = xstrdup(rs->hidden[i]);
		for (k = from + 1; up[k] != '\0'; k++) {
			if (up[k] != '/')
				continue;
			up[k] = '\0';
			ruleset_mark(rs, up, 1);
			up[k] = '/';
		}
		free(up);
	}
}

/* Builds the ruleset (the thread's body). */
static void *
ruleset_build(void *arg)
{
	struct ruleset *rs = arg;
	char *err = NULL;
	int fd = landlock_ruleset(&rs->r, &err);
	size_t i;

	pthread_mutex_lock(&rs->lock);
	for (i = 0; i < rs->ngrants; i++) {
		if (fd == -1) {
			close(rs->grants[i]);
		} else if (landlock_readable_fd(fd, rs->grants[i]) == -1) {
			err = xasprintf("sandbox: a proc of the commands' own: "
			    "%s", strerror(errno));
			close(fd);
			fd = -1;
		}
	}
	rs->ngrants = 0;
	rs->fd = fd;
	rs->err = err;
	rs->built = 1;
	pthread_cond_broadcast(&rs->done);
	pthread_mutex_unlock(&rs->lock);
	return NULL;
}

struct ruleset *
ruleset_start(const struct landlock_rules *r)
{
	struct ruleset *rs = xcalloc(1, sizeof *rs);
	sigset_t all, old;
	size_t i;

	pthread_mutex_init(&rs->lock, NULL);
	pthread_cond_init(&rs->done, NULL);
	rs->holds = 1;
	rs->fd = -1;
	rs->hidden = ruleset_copy(r->hidden, r->nhidden);
	rs->readable = ruleset_copy(r->readable, r->nreadable);
	rs->writable = ruleset_copy(r->writable, r->nwritable);
	rs->r = *r;
	rs->r.hidden = (const char *const *)rs->hidden;
	rs->r.readable = (const char *const *)rs->readable;
	rs->r.writable = (const char *const *)rs->writable;
	/* The notes come first: a change made during the walk shows. The
	 * root is split for /dev in any case. */
	ruleset_mark(rs, "/", 1);
	ruleset_mark_walk(rs, "/");
	for (i = 0; i < r->nwritable; i++)
		ruleset_mark_walk(rs, rs->writable[i]);
	for (i = 0; i < r->nreadable; i++)
		ruleset_mark(rs, rs->readable[i], 0);
	/* The walk takes no signal meant for the program. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rs->threaded = pthread_create(&rs->thread, NULL, ruleset_build,
	    rs) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!rs->threaded)
		ruleset_build(rs);
	return rs;
}

struct ruleset *
ruleset_hold(struct ruleset *rs)
{
	pthread_mutex_lock(&rs->lock);
	rs->holds++;
	pthread_mutex_unlock(&rs->lock);
	return rs;
}

void
ruleset_drop(struct ruleset *rs)
{
	size_t i;
	int left;

	if (rs == NULL)
		return;
	pthread_mutex_lock(&rs->lock);
	left = --rs->holds;
	pthread_mutex_unlock(&rs->lock);
	if (left > 0)
		return;
	if (rs->threaded)
		pthread_join(rs->thread, NULL);
	if (rs->fd != -1)
		close(rs->fd);
	free(rs->err);
	ruleset_free_list(rs->hidden);
	ruleset_free_list(rs->readable);
	ruleset_free_list(rs->writable);
	for (i = 0; i < rs->nmarks; i++)
		free(rs->marks[i].path);
	free(rs->marks);
	free(rs->grants);
	pthread_cond_destroy(&rs->done);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
}

int
ruleset_fd(struct ruleset *rs, char **err)
{
	int fd;

	pthread_mutex_lock(&rs->lock);
	while (!rs->built)
		pthread_cond_wait(&rs->done, &rs->lock);
	fd = rs->fd;
	if (fd == -1)
		*err = xstrdup(rs->err != NULL ? rs->err : "sandbox: no "
		    "ruleset");
	pthread_mutex_unlock(&rs->lock);
	return fd;
}

int
ruleset_add_readable(struct ruleset *rs, const char *path, char **err)
{
	int dirfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (dirfd == -1) {
		*err = xasprintf("sandbox: %s: %s", path, strerror(errno));
		return -1;
	}
	pthread_mutex_lock(&rs->lock);
	if (!rs->built) {
		rs->grants = xrealloc(rs->grants, (rs->ngrants + 1) *
		    sizeof *rs->grants);
		rs->grants[rs->ngrants++] = dirfd;
	} else if (rs->fd == -1) {
		close(dirfd);
		*err = xstrdup(rs->err != NULL ? rs->err : "sandbox: no "
		    "ruleset");
		rc = -1;
	} else if (landlock_readable_fd(rs->fd, dirfd) == -1) {
		*err = xasprintf("sandbox: %s: %s", path, strerror(errno));
		rc = -1;
	}
	pthread_mutex_unlock(&rs->lock);
	return rc;
}

int
ruleset_fresh(const struct ruleset *rs)
{
	struct ruleset_mark now;
	size_t i;

	for (i = 0; i < rs->nmarks; i++) {
		const struct ruleset_mark *m = &rs->marks[i];

		memset(&now, 0, sizeof now);
		now.path = m->path;
		ruleset_mark_take(&now);
		if (now.found != m->found || (m->found && (now.dev != m->dev ||
		    now.ino != m->ino)))
			return 0;
		if (m->found && m->entries && (now.mtime.tv_sec !=
		    m->mtime.tv_sec || now.mtime.tv_nsec != m->mtime.tv_nsec ||
		    now.ctime.tv_sec != m->ctime.tv_sec ||
		    now.ctime.tv_nsec != m->ctime.tv_nsec))
			return 0;
	}
	return 1;
}
