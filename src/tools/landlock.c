/*
 * The operating system's sandbox for what tools start (see landlock.h).
 *
 * The system headers may be older than the kernel, so the kernel's ABI
 * (stable by design) is spelled out here: the rights and structures of
 * each version, asked for only where the running kernel has them.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/landlock.h"
#include "tools/sandbox.h"
#include "util/xmalloc.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset	444
#define SYS_landlock_add_rule		445
#define SYS_landlock_restrict_self	446
#endif

#define LL_CREATE_RULESET_VERSION	(1U << 0)
#define LL_RULE_PATH_BENEATH		1
#define LL_RULE_NET_PORT		2

/* File-system rights, by the ABI that brought them. */
#define LL_FS_EXECUTE		(1ULL << 0)
#define LL_FS_WRITE_FILE	(1ULL << 1)
#define LL_FS_READ_FILE		(1ULL << 2)
#define LL_FS_READ_DIR		(1ULL << 3)
#define LL_FS_ABI1		((1ULL << 13) - 1)	/* bits 0-12 */
#define LL_FS_REFER		(1ULL << 13)		/* ABI 2 */
#define LL_FS_TRUNCATE		(1ULL << 14)		/* ABI 3 */
#define LL_FS_IOCTL_DEV		(1ULL << 15)		/* ABI 5 */
#define LL_NET_BIND_TCP		(1ULL << 0)		/* ABI 4 */
#define LL_NET_CONNECT_TCP	(1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)		/* ABI 6 */
#define LL_SCOPE_SIGNAL		(1ULL << 1)

struct ll_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;	/* ABI 4 */
	uint64_t	scoped;			/* ABI 6 */
};

struct ll_net_port {
	uint64_t	allowed_access;
	uint64_t	port;
};

struct ll_path_beneath {
	uint64_t	allowed_access;
	int32_t		parent_fd;
} __attribute__((packed));

int
landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LL_CREATE_RULESET_VERSION);

	return v > 0 ? (int)v : 0;
}

/* Every file-system right the kernel knows. */
static uint64_t
ll_fs_rights(int abi)
{
	uint64_t r = LL_FS_ABI1;

	if (abi >= 2)
		r |= LL_FS_REFER;
	if (abi >= 3)
		r |= LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= LL_FS_IOCTL_DEV;
	return r;
}

/* ll_allow's how. */
#define LL_REQUIRED	0x1	/* a path that does not exist is an error,
				 * not skipped */
#define LL_REAL		0x2	/* a directory reached through no symbolic
				 * link (its path is canonical) */

/* Adds the rule of `rights` beneath fd, which it closes; a device node
 * takes no directory rights. Returns 0, or -1 with errno. */
static int
ll_add(int rfd, int fd, uint64_t rights)
{
	struct ll_path_beneath pb = { .allowed_access = rights,
	    .parent_fd = fd };
	int rc = (int)syscall(SYS_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH,
	    &pb, 0);

	if (rc == -1) {
		pb.allowed_access = rights & (LL_FS_EXECUTE | LL_FS_WRITE_FILE |
		    LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV);
		rc = (int)syscall(SYS_landlock_add_rule, rfd,
		    LL_RULE_PATH_BENEATH, &pb, 0);
	}
	close(fd);
	return rc;
}

/* Allows `rights` beneath path. */
static int
ll_allow(int rfd, const char *path, uint64_t rights, int how, char **err)
{
	int required = how & LL_REQUIRED;
	int fd = how & LL_REAL ? sandbox_open_real(path, O_PATH |
	    (required ? O_DIRECTORY : 0)) : open(path, O_PATH | O_CLOEXEC);

	if ((fd == -1 || ll_add(rfd, fd, rights) == -1) && required) {
		*err = xasprintf("sandbox: %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Whether path is dir or lies beneath it (both canonical). */
static int
ll_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/');
}

/* What a walk grants: `rights` everywhere beneath a directory but
 * beneath any of the hidden paths. */
struct ll_walk {
	const char		*top;		/* where the walk started: a
						 * hidden path above it does
						 * not count */
	int			 rfd;
	uint64_t		 rights;
	const char *const	*hidden;
	size_t			 nhidden;
};

/* Whether name, an entry of directory path, is on the way to a hidden
 * path (not above w->top) or is one. */
static int
ll_on_the_way(const struct ll_walk *w, const char *path, const char *name)
{
	size_t n = strcmp(path, "/") == 0 ? 0 : strlen(path), k = strlen(name);
	const char *h;
	size_t i;

	for (i = 0; i < w->nhidden; i++) {
		h = w->hidden[i];
		if (!ll_beneath(w->top, h) && strncmp(h, path, n) == 0 &&
		    h[n] == '/' && strncmp(h + n + 1, name, k) == 0 &&
		    (h[n + 1 + k] == '\0' || h[n + 1 + k] == '/'))
			return 1;
	}
	return 0;
}

/* Opens directory path for a walk: following no link when how says
 * LL_REAL. NULL with errno when it cannot. */
static DIR *
ll_opendir(const char *path, int how)
{
	int fd = how & LL_REAL ? sandbox_open_real(path, O_RDONLY |
	    O_DIRECTORY) : open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd == -1)
		return NULL;
	if ((d = fdopendir(fd)) == NULL)
		close(fd);
	return d;
}

static int ll_grant(const struct ll_walk *w, const char *path, int how,
    char **err);

/*
 * Grants what ll_grant does beneath each entry of directory path. An
 * entry off the way to every hidden path takes its rule at once, opened
 * beside the others (the walk's cost is one such rule per entry); one on
 * the way is walked in turn. Symbolic links are skipped: their targets
 * have rules of their own.
 */
static int
ll_split(const struct ll_walk *w, const char *path, int how, char **err)
{
	struct dirent *e;
	struct stat st;
	char *child;
	int rc = 0, fd;
	DIR *d;

	if ((d = ll_opendir(path, how)) == NULL) {
		if (!(how & LL_REQUIRED))
			return 0;
		*err = xasprintf("sandbox: %s: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    e->d_type == DT_LNK)
			continue;
		if (ll_on_the_way(w, path, e->d_name)) {
			child = xasprintf("%s%s%s", path, strcmp(path, "/") ==
			    0 ? "" : "/", e->d_name);
			if (lstat(child, &st) == 0 && !S_ISLNK(st.st_mode))
				rc = ll_grant(w, child, how & LL_REAL, err);
			free(child);
			continue;
		}
		fd = openat(dirfd(d), e->d_name, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd == -1)
			continue;
		if (e->d_type == DT_UNKNOWN && (fstat(fd, &st) == -1 ||
		    S_ISLNK(st.st_mode))) {
			close(fd);
			continue;
		}
		(void)ll_add(w->rfd, fd, w->rights);
	}
	closedir(d);
	return rc;
}

/*
 * Grants w->rights beneath path, but nothing beneath a hidden path. A
 * directory with no hidden path beneath it takes one rule; one on the
 * way to a hidden path is split into its entries instead (ll_split), so
 * what it holds later is not reachable either.
 */
static int
ll_grant(const struct ll_walk *w, const char *path, int how, char **err)
{
	size_t i;
	int split = 0;

	for (i = 0; i < w->nhidden; i++) {
		if (ll_beneath(w->top, w->hidden[i]))
			continue;
		if (ll_beneath(path, w->hidden[i]))
			return 0;
		if (ll_beneath(w->hidden[i], path))
			split = 1;
	}
	if (!split)
		return ll_allow(w->rfd, path, w->rights, how, err);
	return ll_split(w, path, how, err);
}

/* Reading and executing, as ABI abi knows them. */
static uint64_t
ll_read_rights(int abi)
{
	return LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR |
	    (abi >= 5 ? LL_FS_IOCTL_DEV : 0);
}

int
landlock_ruleset(const struct landlock_rules *r, char **err)
{
	/* Devices a command may use: everything else in /dev (terminals
	 * above all) is out of its reach. */
	static const char *const devices[] = { "/dev/null", "/dev/zero",
	    "/dev/full", "/dev/random", "/dev/urandom" };
	struct ll_ruleset_attr attr = { 0 };
	struct ll_net_port np = { 0 };
	struct ll_walk w;
	const char **hidden;
	int abi = landlock_abi(), rfd;
	uint64_t all, read;
	size_t i;

	if (abi == 0) {
		*err = xstrdup("this kernel has no Landlock");
		return -1;
	}
	all = ll_fs_rights(abi);
	read = ll_read_rights(abi);
	attr.handled_access_fs = all;
	if (r->deny_net && abi >= 4)
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	if (abi >= 6)
		attr.scoped = LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX;
	rfd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr,
	    0);
	if (rfd == -1) {
		*err = xasprintf("sandbox: %s", strerror(errno));
		return -1;
	}
	hidden = xcalloc(r->nhidden + 1, sizeof *hidden);
	hidden[0] = "/dev";
	for (i = 0; i < r->nhidden; i++)
		hidden[i + 1] = r->hidden[i];
	w.rfd = rfd;
	w.hidden = hidden;
	w.nhidden = r->nhidden + 1;
	w.rights = read;
	w.top = "/";
	if (ll_grant(&w, "/", LL_REQUIRED, err) == -1)
		goto fail;
	for (i = 0; i < sizeof devices / sizeof *devices; i++) {
		if (ll_allow(rfd, devices[i], read | LL_FS_WRITE_FILE |
		    (abi >= 3 ? LL_FS_TRUNCATE : 0), 0, err) == -1)
			goto fail;
	}
	for (i = 0; i < r->nreadable; i++) {
		if (ll_allow(rfd, r->readable[i], read, LL_REQUIRED,
		    err) == -1)
			goto fail;
	}
	w.rights = all;
	for (i = 0; i < r->nwritable; i++) {
		w.top = r->writable[i];
		if (ll_grant(&w, r->writable[i], LL_REQUIRED | LL_REAL,
		    err) == -1)
			goto fail;
	}
	if (r->deny_net && abi >= 4 && r->tcp_port > 0) {
		np.allowed_access = LL_NET_CONNECT_TCP;
		np.port = (uint64_t)r->tcp_port;
		if (syscall(SYS_landlock_add_rule, rfd, LL_RULE_NET_PORT, &np,
		    0) == -1) {
			*err = xasprintf("sandbox: port %d: %s", r->tcp_port,
			    strerror(errno));
			goto fail;
		}
	}
	free(hidden);
	return rfd;
fail:
	free(hidden);
	close(rfd);
	return -1;
}

int
landlock_readable(int fd, const char *path, char **err)
{
	return ll_allow(fd, path, ll_read_rights(landlock_abi()), LL_REQUIRED,
	    err);
}

int
landlock_readable_fd(int fd, int dirfd)
{
	return ll_add(fd, dirfd, ll_read_rights(landlock_abi()));
}

int
landlock_enter(int fd)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return (int)syscall(SYS_landlock_restrict_self, fd, 0) == -1 ? -1 :
	    0;
}
