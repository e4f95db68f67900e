/*
 * The reaper's program, held by descriptor (see reaperexe.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/reaperexe.h"
#include "util/xmalloc.h"

#define REAPEREXE_FD_MIN	10	/* above the reaper's own descriptors */

#ifndef MFD_EXEC
#define MFD_EXEC		0x0010U
#endif

static pthread_once_t reaperexe_once = PTHREAD_ONCE_INIT;
static char *reaperexe_chosen;	/* reaperexe_path()'s */
static pthread_once_t reaperexe_self_once = PTHREAD_ONCE_INIT;
static char *reaperexe_itself;	/* reaperexe_self()'s */

/* Moves fd to REAPEREXE_FD_MIN or above, close-on-exec, and names it. */
static char *
reaperexe_hold(int fd)
{
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, REAPEREXE_FD_MIN);

	close(fd);
	if (hi == -1)
		return NULL;
	return xasprintf("/proc/self/fd/%d", hi);
}

static void
reaperexe_self_init(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd != -1)
		reaperexe_itself = reaperexe_hold(fd);
}

char *
reaperexe_self(void)
{
	pthread_once(&reaperexe_self_once, reaperexe_self_init);
	return reaperexe_itself != NULL ? xstrdup(reaperexe_itself) : NULL;
}

/* A memory file that may be executed: MFD_EXEC where the kernel knows it
 * (it refuses execution of memory files made without it when the
 * vm.memfd_noexec setting asks so). */
static int
reaperexe_memfd(void)
{
	unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	int fd = memfd_create(REAPEREXE_NAME, flags | MFD_EXEC);

	if (fd == -1 && errno == EINVAL)
		fd = memfd_create(REAPEREXE_NAME, flags);
	return fd;
}

/* Copies all of `in` to `out`. Returns 0 or -1 with errno. */
static int
reaperexe_write_all(int in, int out)
{
	char buf[65536];
	ssize_t n, w, off;

	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (off = 0; off < n; off += w) {
			if ((w = write(out, buf + off, (size_t)(n - off))) == -1) {
				if (errno == EINTR) {
					w = 0;
					continue;
				}
				return -1;
			}
		}
	}
	return 0;
}

char *
reaperexe_copy(const char *file, char **err)
{
	int seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
	struct stat st;
	int in, out;
	char *path;

	if ((in = open(file, O_RDONLY | O_CLOEXEC)) == -1) {
		*err = xasprintf("%s: %s", file, strerror(errno));
		return NULL;
	}
	if (fstat(in, &st) == -1 || !S_ISREG(st.st_mode)) {
		*err = xasprintf("%s: not a program", file);
		close(in);
		return NULL;
	}
	if ((out = reaperexe_memfd()) == -1 ||
	    reaperexe_write_all(in, out) == -1 ||
	    fcntl(out, F_ADD_SEALS, seals) == -1) {
		*err = xasprintf("%s: cannot copy it into memory: %s", file,
		    strerror(errno));
		close(in);
		if (out != -1)
			close(out);
		return NULL;
	}
	close(in);
	if ((path = reaperexe_hold(out)) == NULL)
		*err = xasprintf("%s: %s", file, strerror(errno));
	return path;
}

/* Whether the kernel refuses to execute every memory file
 * (vm.memfd_noexec = 2). */
static int
reaperexe_memfd_noexec(void)
{
	FILE *f = fopen("/proc/sys/vm/memfd_noexec", "re");
	int v = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v >= 2;
}

/* Where huddle-reaper should be for the running program: beside it, or
 * in PKGLIBEXECDIR when it is the installed one. NULL when unknown. */
static char *
reaperexe_find(void)
{
	char exe[PATH_MAX], *slash, *bindir;
	ssize_t n;
	int installed;

	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) == NULL)
		return NULL;
	*slash = '\0';
	bindir = realpath(BINDIR, NULL);
	installed = bindir != NULL && strcmp(bindir, exe) == 0;
	free(bindir);
	if (installed)
		return xstrdup(PKGLIBEXECDIR "/" REAPEREXE_NAME);
	return xasprintf("%s/%s", exe, REAPEREXE_NAME);
}

static void
reaperexe_init(void)
{
	char *file, *err = NULL;

	if (!reaperexe_memfd_noexec() && (file = reaperexe_find()) != NULL) {
		if (access(file, X_OK) == 0)
			reaperexe_chosen = reaperexe_copy(file, &err);
		free(err);
		free(file);
	}
	if (reaperexe_chosen == NULL)
		reaperexe_chosen = reaperexe_self();
}

char *
reaperexe_path(void)
{
	pthread_once(&reaperexe_once, reaperexe_init);
	return reaperexe_chosen != NULL ? xstrdup(reaperexe_chosen) : NULL;
}
