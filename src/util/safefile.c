/*
 * Reading files others may have planted (see safefile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/safefile.h"
#include "util/xmalloc.h"

#ifndef SYS_openat2
#define SYS_openat2		437
#endif
/* openat2's resolve flags (linux/openat2.h), for old headers. */
#define SAFEFILE_RESOLVE_NO_MAGICLINKS	0x02
#define SAFEFILE_RESOLVE_BENEATH	0x08

struct safefile_how {
	uint64_t	flags;
	uint64_t	mode;
	uint64_t	resolve;
};

static int
safefile_open(int dir, const char *path, int beneath, int flags)
{
	int fd;
	struct safefile_how how;

	if (!beneath)
		return openat(dir, path, flags);
	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)flags;
	how.resolve = SAFEFILE_RESOLVE_BENEATH | SAFEFILE_RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof how);
	if (fd == -1 && errno == ENOSYS) {
		/* No openat2: only a plain name, and no link at all. */
		if (strchr(path, '/') != NULL || strcmp(path, "..") == 0) {
			errno = EXDEV;
			return -1;
		}
		fd = openat(dir, path, flags | O_NOFOLLOW);
	}
	return fd;
}

char *
safefile_read(int dir, const char *path, int beneath, size_t max,
    size_t *size, char **err)
{
	return safefile_read_real(dir, path, beneath, max, size, NULL, err);
}

/* The path the descriptor fd is open on (malloc'd), or NULL. */
static char *
safefile_fd_path(int fd)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((n = readlink(link, buf, sizeof buf - 1)) <= 0)
		return NULL;
	buf[n] = '\0';
	return buf[0] == '/' ? xstrdup(buf) : NULL;
}

char *
safefile_read_real(int dir, const char *path, int beneath, size_t max,
    size_t *size, char **real, char **err)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	ssize_t n;
	int fd, e;

	*size = 0;
	/* O_NONBLOCK: opening a FIFO returns at once, and is refused
	 * below as no regular file. */
	if ((fd = safefile_open(dir, path, beneath, O_RDONLY | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) == -1) {
		e = errno;
		*err = e == EXDEV || e == ELOOP ? xasprintf("%s leads out of "
		    "its folder (a link or \"..\"): not read", path) :
		    xasprintf("cannot open %s: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		*err = xasprintf("%s is not a regular file: not read", path);
		errno = EINVAL;
		return NULL;
	}
	if (real != NULL && (*real = safefile_fd_path(fd)) == NULL) {
		close(fd);
		*err = xasprintf("%s: where it lies cannot be told: not read",
		    path);
		errno = EINVAL;
		return NULL;
	}
	buf = xmalloc(max + 1);
	while (got < max && (n = read(fd, buf + got, max - got)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			e = errno;
			close(fd);
			free(buf);
			if (real != NULL) {
				free(*real);
				*real = NULL;
			}
			*err = xasprintf("cannot read %s: %s", path,
			    strerror(e));
			errno = e;
			return NULL;
		}
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*size = (size_t)st.st_size > got ? (size_t)st.st_size : got;
	return buf;
}

int
safefile_opendir(int dir, const char *path, int beneath)
{
	return safefile_open(dir, path, beneath, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
}
