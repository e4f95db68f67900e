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

int
landlock_can_deny_net(void)
{
	return landlock_abi() >= 4;
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

/* Allows `rights` beneath path. */
static int
ll_allow(int rfd, const char *path, uint64_t rights, int how, char **err)
{
	struct ll_path_beneath pb = { .allowed_access = rights };
	int required = how & LL_REQUIRED;
	int fd = how & LL_REAL ? sandbox_open_real(path, O_PATH |
	    O_DIRECTORY) : open(path, O_PATH | O_CLOEXEC);

	if (fd == -1) {
		if (!required)
			return 0;
		*err = xasprintf("sandbox: %s: %s", path, strerror(errno));
		return -1;
	}
	pb.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH, &pb,
	    0) == -1) {
		/* A device node takes no directory rights. */
		pb.allowed_access = rights & (LL_FS_EXECUTE | LL_FS_WRITE_FILE |
		    LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV);
		if (syscall(SYS_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH,
		    &pb, 0) == -1 && required) {
			*err = xasprintf("sandbox: %s: %s", path,
			    strerror(errno));
			close(fd);
			return -1;
		}
	}
	close(fd);
	return 0;
}

/*
 * Allows reading everything but `hidden` (absolute, canonical): at each
 * directory on the way down to it, every entry but the next one on the
 * way (symbolic links are left to their targets' own rules).
 */
static int
ll_allow_but(int rfd, const char *hidden, uint64_t read, char **err)
{
	char *dir = xstrdup("/"), *path, *next;
	const char *p = hidden + 1, *end;
	struct dirent *e;
	struct stat st;
	DIR *d;
	int rc = 0;

	while (rc == 0 && *p != '\0') {
		end = strchr(p, '/');
		next = end ? xasprintf("%.*s", (int)(end - p), p) : xstrdup(p);
		if ((d = opendir(dir)) == NULL) {
			*err = xasprintf("sandbox: %s: %s", dir,
			    strerror(errno));
			rc = -1;
		}
		while (rc == 0 && (e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0 ||
			    strcmp(e->d_name, next) == 0)
				continue;
			path = xasprintf("%s%s%s", dir, strcmp(dir, "/") == 0 ?
			    "" : "/", e->d_name);
			if (lstat(path, &st) == 0 && !S_ISLNK(st.st_mode))
				rc = ll_allow(rfd, path, read, 0, err);
			free(path);
		}
		if (d != NULL)
			closedir(d);
		path = xasprintf("%s%s%s", dir, strcmp(dir, "/") == 0 ? "" :
		    "/", next);
		free(dir);
		free(next);
		dir = path;
		p = end ? end + 1 : p + strlen(p);
	}
	free(dir);
	return rc;
}

int
landlock_ruleset_within(const struct landlock_rules *r, char **err)
{
	static const char *const devices[] = { "/dev/null", "/dev/zero",
	    "/dev/full", "/dev/tty" };
	struct ll_ruleset_attr attr = { 0 };
	int abi = landlock_abi(), rfd;
	uint64_t all, read;
	size_t i;

	if (abi == 0) {
		*err = xstrdup("this kernel has no Landlock");
		return -1;
	}
	all = ll_fs_rights(abi);
	read = LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR |
	    (abi >= 5 ? LL_FS_IOCTL_DEV : 0);
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
	if (r->hidden == NULL ? ll_allow(rfd, "/", read, LL_REQUIRED,
	    err) == -1 : ll_allow_but(rfd, r->hidden, read, err) == -1)
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
	for (i = 0; i < r->nwritable; i++) {
		if (ll_allow(rfd, r->writable[i], all, LL_REQUIRED |
		    LL_REAL, err) == -1)
			goto fail;
	}
	return rfd;
fail:
	close(rfd);
	return -1;
}

int
landlock_ruleset(const char *const *writable, size_t n, int deny_net,
    char **err)
{
	struct landlock_rules r = { NULL, NULL, 0, writable, n, deny_net };

	return landlock_ruleset_within(&r, err);
}

int
landlock_enter(int fd)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return (int)syscall(SYS_landlock_restrict_self, fd, 0) == -1 ? -1 :
	    0;
}
