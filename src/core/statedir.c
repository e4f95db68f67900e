/*
 * Where a team's state lives (see statedir.h).
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

#include "core/statedir.h"
#include "util/xmalloc.h"

char *
statedir_base(const char *override, char **err)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (override != NULL && *override != '\0')
		return xstrdup(override);
	/* The XDG rule: a relative value is ignored. */
	if (xdg != NULL && *xdg == '/')
		return xasprintf("%s/huddle", xdg);
	if (home != NULL && *home == '/')
		return xasprintf("%s/.local/state/huddle", home);
	*err = xstrdup("neither XDG_STATE_HOME nor HOME is set to an "
	    "absolute path: give --state-dir DIR");
	return NULL;
}

/* Checks that an existing dir is ours alone: a real directory, owned by
 * this user, not writable by others. */
static int
statedir_check(const char *dir, const struct stat *st, char **err)
{
	if (S_ISLNK(st->st_mode))
		*err = xasprintf("%s is a symbolic link; huddle keeps its state "
		    "only in a real directory", dir);
	else if (!S_ISDIR(st->st_mode))
		*err = xasprintf("%s: not a directory", dir);
	else if (st->st_uid != geteuid())
		*err = xasprintf("%s belongs to another user", dir);
	else if (st->st_mode & 022)
		*err = xasprintf("%s is writable by others; make it 0700",
		    dir);
	else
		return 0;
	return -1;
}

int
statedir_make(const char *dir, int parents, char **err)
{
	char *path = xstrdup(dir), *p;
	struct stat st;
	int rc = -1;

	if (*path != '/') {
		*err = xasprintf("%s: the state directory must be an absolute "
		    "path", dir);
		goto done;
	}
	/* Parents that exist are left as they are (a home directory may be
	 * 0755); the ones made here, and the last, are private. */
	for (p = path + 1;; p++) {
		int last = *p == '\0';

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if ((parents || last) && mkdir(path, 0700) == -1 &&
		    errno != EEXIST) {
			*err = xasprintf("%s: %s", path, strerror(errno));
			goto done;
		}
		if (lstat(path, &st) == -1) {
			*err = xasprintf("%s: %s", path, strerror(errno));
			goto done;
		}
		if (S_ISLNK(st.st_mode) && !last) {
			/* A link above the state, e.g. a home on another disk,
			 * is the person's doing; only the last must be real. */
			if (stat(path, &st) == -1 || !S_ISDIR(st.st_mode)) {
				*err = xasprintf("%s: not a directory", path);
				goto done;
			}
		} else if (last && statedir_check(path, &st, err) == -1)
			goto done;
		if (last)
			break;
		*p = '/';
	}
	rc = 0;
done:
	free(path);
	return rc;
}

/* FNV-1a, 64 bits: a name, not a secret. */
static uint64_t
statedir_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Writes `text` to dir/name unless it is there already. */
static int
statedir_note(const char *dir, const char *name, const char *text,
    char **err)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600), rc = 0;
	size_t len = strlen(text);

	if (fd == -1 && errno != EEXIST) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		rc = -1;
	} else if (fd != -1) {
		if (write(fd, text, len) != (ssize_t)len) {
			*err = xasprintf("%s: %s", path, strerror(errno));
			rc = -1;
		}
		close(fd);
	}
	free(path);
	return rc;
}

/* The folder of workdir's team `name` (NULL: the unnamed one) under
 * base, malloc'd; not made. */
static char *
statedir_folder(const char *base, const char *workdir, const char *name)
{
	const char *leaf = strrchr(workdir, '/');
	char word[40];
	size_t n = 0;

	leaf = leaf != NULL && leaf[1] != '\0' ? leaf + 1 : "root";
	/* ASCII letters and digits as they are, whatever the locale. */
	for (; *leaf != '\0' && n < 24; leaf++)
		word[n++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
		    "QRSTUVWXYZ0123456789-_", *leaf) != NULL ? *leaf : '_';
	word[n] = '\0';
	return xasprintf("%s/%s-%016llx%s%s", base, word,
	    (unsigned long long)statedir_hash(workdir), name ? "." : "",
	    name ? name : "");
}

int
statedir_name_ok(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
	    "QRSTUVWXYZ0123456789-_");

	return n > 0 && n <= 32 && name[n] == '\0';
}

char *
statedir_team(const char *base, const char *workdir, const char *name,
    char **err)
{
	char *folder = statedir_folder(base, workdir, name), *note;

	note = xasprintf("%s\n", workdir);
	if (statedir_make(folder, 1, err) == -1 ||
	    statedir_note(folder, "workdir", note, err) == -1) {
		free(folder);
		folder = NULL;
	}
	free(note);
	return folder;
}

int
statedir_set_aside(const char *base, const char *workdir, char **name,
    char **err)
{
	char *folder = statedir_folder(base, workdir, NULL), *db, *to = NULL;
	char when[32];
	struct stat st;
	struct tm tm;
	int fd = -1, i, rc = -1, moved = 0;

	*name = NULL;
	db = xasprintf("%s/team.db", folder);
	if (lstat(db, &st) == -1) {
		rc = 0;			/* no team kept: nothing to move */
		goto out;
	}
	if ((fd = statedir_lock(folder, err)) == -1)
		goto out;
	if (localtime_r(&st.st_mtime, &tm) == NULL ||
	    strftime(when, sizeof when, "%Y%m%d-%H%M", &tm) == 0)
		strcpy(when, "old");
	/* The first free name of its last use: 20261129-0455, then -2 …;
	 * never over a folder that appears meanwhile. */
	for (i = 1; i < 100; i++) {
		free(*name);
		*name = i == 1 ? xstrdup(when) : xasprintf("%s-%d", when, i);
		free(to);
		to = statedir_folder(base, workdir, *name);
		if ((moved = renameat2(AT_FDCWD, folder, AT_FDCWD, to,
		    RENAME_NOREPLACE) == 0) || errno != EEXIST)
			break;
	}
	if (!moved) {
		*err = xasprintf("could not set the kept team aside (%s to "
		    "%s): %s", folder, to, i == 100 ? "no free name" :
		    strerror(errno));
		free(*name);
		*name = NULL;
		goto out;
	}
	rc = 1;
out:
	if (fd != -1)
		close(fd);
	free(to);
	free(db);
	free(folder);
	return rc;
}

int
statedir_lock(const char *folder, char **err)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat held, now;
	char *path = xasprintf("%s/lock", folder), pid[32] = "";
	ssize_t n;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		goto fail;
	}
	if (fcntl(fd, F_OFD_SETLK, &fl) == -1) {
		n = pread(fd, pid, sizeof pid - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		*err = errno == EAGAIN || errno == EACCES ? xasprintf("another "
		    "huddle (PID %s) is running this team; quit it first, or "
		    "work in another directory", *pid ? pid : "unknown") :
		    xasprintf("%s: %s", path, strerror(errno));
		goto fail;
	}
	/* A folder set aside (--new) while we waited took the file we
	 * locked with it: a lock on that is no lock on this team. */
	if (fstat(fd, &held) == -1 || stat(path, &now) == -1 ||
	    held.st_dev != now.st_dev || held.st_ino != now.st_ino) {
		*err = xasprintf("the team's state folder %s moved as huddle "
		    "started (another huddle set it aside with --new?); start "
		    "again", folder);
		goto fail;
	}
	n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == -1 || pwrite(fd, pid, (size_t)n, 0) != n) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		goto fail;
	}
	free(path);
	return fd;
fail:
	if (fd != -1)
		close(fd);
	free(path);
	return -1;
}

int
statedir_stray(const char *folder, const char *workdir, char **notice,
    char **err)
{
	char *path = xasprintf("%s/.huddle/team.db", workdir);
	struct stat st;
	int found;

	(void)err;
	/* lstat only: whatever it is, huddle neither follows, opens, moves
	 * nor deletes it. */
	if ((found = lstat(path, &st) == 0))
		*notice = xasprintf("%s is a team database in the working tree "
		    "(a cloned repository may carry one): huddle ignores it "
		    "and keeps this team's state in %s; remove it yourself if "
		    "you do not need it", path, folder);
	free(path);
	return found;
}

/* The name of the team kept in folder, whose workdir is `workdir`
 * ("" when it is the unnamed one or the workdir is unknown). */
static char *
statedir_name_of(const char *base, const char *folder, const char *workdir)
{
	char *plain;
	size_t len;
	const char *name = "";

	if (*workdir == '\0')
		return xstrdup("");
	plain = statedir_folder(base, workdir, NULL);
	len = strlen(plain);
	if (strncmp(folder, plain, len) == 0 && folder[len] == '.')
		name = folder + len + 1;
	free(plain);
	return xstrdup(name);
}

/* The PID holding folder's lock, or 0 when nobody does. */
static long
statedir_live(const char *folder)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char *path = xasprintf("%s/lock", folder), buf[32];
	long pid = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	free(path);
	if (fd == -1)
		return 0;
	if (fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK) {
		n = pread(fd, buf, sizeof buf - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		pid = strtol(buf, NULL, 10);
		if (pid <= 0)
			pid = -1;
	}
	close(fd);
	return pid;
}

static int
statedir_by_name(const void *a, const void *b)
{
	return strcmp(((const struct statedir_team *)a)->folder,
	    ((const struct statedir_team *)b)->folder);
}

size_t
statedir_list(const char *base, struct statedir_team **out)
{
	DIR *d = opendir(base);
	struct dirent *e;
	struct statedir_team *list = NULL;
	size_t n = 0, cap = 0;

	while (d != NULL && (e = readdir(d)) != NULL) {
		char *folder, *path, buf[4096];
		struct stat st;
		ssize_t len;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		folder = xasprintf("%s/%s", base, e->d_name);
		path = xasprintf("%s/team.db", folder);
		/* A folder with no team in it (the demo's working tree
		 * lives here too) is no team. */
		if (lstat(folder, &st) == -1 || !S_ISDIR(st.st_mode) ||
		    lstat(path, &st) == -1) {
			free(path);
			free(folder);
			continue;
		}
		free(path);
		list = xgrow(list, &cap, n + 1, sizeof *list);
		list[n].folder = folder;
		path = xasprintf("%s/workdir", folder);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		len = fd != -1 ? read(fd, buf, sizeof buf - 1) : -1;
		buf[len > 0 ? len : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (fd != -1)
			close(fd);
		list[n].workdir = xstrdup(buf);
		list[n].name = statedir_name_of(base, folder, buf);
		free(path);
		path = xasprintf("%s/team.db", folder);
		list[n].last_used = lstat(path, &st) == 0 ? st.st_mtime : 0;
		free(path);
		list[n].live_pid = statedir_live(folder);
		n++;
	}
	if (d != NULL)
		closedir(d);
	if (n > 1)
		qsort(list, n, sizeof *list, statedir_by_name);
	*out = list;
	return n;
}

void
statedir_free_teams(struct statedir_team *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(t[i].folder);
		free(t[i].workdir);
		free(t[i].name);
	}
	free(t);
}
