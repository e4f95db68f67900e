/*
 * A cgroup for one command (see cgroup.h).
 *
 * Where the hierarchies are is read from /proc/self/mountinfo (a cgroup
 * or cgroup2 file system, and which controllers a v1 one carries), and
 * where this process sits in each from /proc/self/cgroup; the command's
 * cgroup is made as a child of ours, named after the reaper's pid. With
 * cgroup v2 the controller must be enabled for our children already, or
 * become so by writing subtree_control, which the kernel refuses for a
 * cgroup that holds processes (the rule of no internal processes): then
 * v1 is tried, then nothing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/cgroup.h"
#include "tools/sysfile.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define CGROUP_RMDIR_MS		200	/* for the last tasks to go */

/* Whether the comma-separated list holds word. */
static int
cgroup_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ',' || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ',' || p[n] == ' ' ||
		    p[n] == '\n'))
			return 1;
		p += n;
	}
	return 0;
}

/* Our path in the hierarchy that carries controller (v1), or in the
 * unified one when controller is NULL; malloc'd, or NULL. */
static char *
cgroup_own_path(const char *controller)
{
	char line[4096], *ctl, *path, *found = NULL;
	FILE *f;

	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		return NULL;
	while (found == NULL && fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((ctl = strchr(line, ':')) == NULL ||
		    (path = strchr(ctl + 1, ':')) == NULL)
			continue;
		*path++ = '\0';
		ctl++;
		if (controller == NULL ? ctl[0] == '\0' && strncmp(line, "0",
		    2) == 0 : cgroup_has_word(ctl, controller))
			found = xstrdup(path);
	}
	fclose(f);
	return found;
}

/*
 * The directory of our cgroup in the hierarchy that carries controller
 * (v1), or the unified one (controller NULL): the mount point, plus our
 * path less the mount's root. malloc'd, or NULL.
 */
static char *
cgroup_own_dir(const char *controller)
{
	char line[4096], *f[10], *sep, *own, *dir = NULL, *save;
	size_t rl;
	FILE *mi;
	int n;

	if ((own = cgroup_own_path(controller)) == NULL)
		return NULL;
	if ((mi = fopen("/proc/self/mountinfo", "re")) == NULL) {
		free(own);
		return NULL;
	}
	while (dir == NULL && fgets(line, sizeof line, mi) != NULL) {
		if ((sep = strstr(line, " - ")) == NULL)
			continue;
		*sep = '\0';
		n = 0;
		for (f[n] = strtok_r(line, " ", &save); f[n] != NULL &&
		    n < 9; f[n] = strtok_r(NULL, " ", &save))
			n++;
		if (n < 5 || strchr(f[3], '\\') != NULL ||
		    strchr(f[4], '\\') != NULL)
			continue;
		/* After the separator: type, source, super options. */
		if (controller == NULL) {
			if (strncmp(sep + 3, "cgroup2 ", 8) != 0)
				continue;
		} else if (strncmp(sep + 3, "cgroup ", 7) != 0 ||
		    !cgroup_has_word(strrchr(sep + 3, ' ') + 1, controller))
			continue;
		rl = strcmp(f[3], "/") == 0 ? 0 : strlen(f[3]);
		if (strncmp(own, f[3], rl) != 0 ||
		    (own[rl] != '/' && own[rl] != '\0'))
			continue;
		dir = xasprintf("%s%s", f[4], own + rl);
	}
	fclose(mi);
	free(own);
	return dir;
}

/* Writes text to dir/file. */
static int
cgroup_write(const char *dir, const char *file, const char *text)
{
	char *path = xasprintf("%s/%s", dir, file);
	int rc = sysfile_write(path, text), e = errno;

	free(path);
	errno = e;
	return rc;
}

/* Whether a v2 controller can be had for our children, enabling it
 * when it is not yet. */
static int
cgroup_v2_enable(const char *dir, const char *controller)
{
	char *path = xasprintf("%s/cgroup.subtree_control", dir), buf[512];
	char *add;
	ssize_t n;
	int fd, ok;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd == -1)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	if (cgroup_has_word(buf, controller))
		return 1;
	add = xasprintf("+%s", controller);
	ok = cgroup_write(dir, "cgroup.subtree_control", add) == 0;
	free(add);
	return ok;
}

/* Makes dir/name with the given limit file set; adds it to cg. */
static int
cgroup_add(struct cgroup *cg, const char *parent, const char *name,
    const char *file, long long limit)
{
	char *dir = xasprintf("%s/%s", parent, name), *path, num[32];
	int fd;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		free(dir);
		return -1;
	}
	snprintf(num, sizeof num, "%lld", limit);
	path = xasprintf("%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	free(path);
	if (fd == -1 || cgroup_write(dir, file, num) == -1) {
		if (fd != -1)
			close(fd);
		rmdir(dir);
		free(dir);
		return -1;
	}
	cg->dirs[cg->n] = dir;
	cg->procs[cg->n++] = fd;
	return 0;
}

int
cgroup_make(struct cgroup *cg, long long max_procs, long long max_memory,
    char **err)
{
	char name[64], num[32], *v2, *v1;
	int e = 0, have_pids = 0;

	memset(cg, 0, sizeof *cg);
	snprintf(name, sizeof name, "huddle-command-%ld", (long)getpid());
	v2 = cgroup_own_dir(NULL);
	if (max_procs > 0) {
		if (v2 != NULL && cgroup_v2_enable(v2, "pids") &&
		    cgroup_add(cg, v2, name, "pids.max", max_procs) == 0)
			have_pids = 2;
		else if ((v1 = cgroup_own_dir("pids")) != NULL) {
			if (cgroup_add(cg, v1, name, "pids.max",
			    max_procs) == 0)
				have_pids = 1;
			e = errno;
			free(v1);
		}
		if (!have_pids) {
			*err = xasprintf("cannot make a pids cgroup for the "
			    "command%s%s", e != 0 ? ": " : "",
			    e != 0 ? strerror(e) : "");
			free(v2);
			return -1;
		}
	}
	if (max_memory > 0) {
		/* In v2 one cgroup carries both controllers. */
		snprintf(num, sizeof num, "%lld", max_memory);
		if (have_pids == 2) {
			if (cgroup_v2_enable(v2, "memory"))
				(void)cgroup_write(cg->dirs[0], "memory.max",
				    num);
		} else if (have_pids == 0 && v2 != NULL &&
		    cgroup_v2_enable(v2, "memory")) {
			(void)cgroup_add(cg, v2, name, "memory.max",
			    max_memory);
		} else if ((v1 = cgroup_own_dir("memory")) != NULL) {
			(void)cgroup_add(cg, v1, name,
			    "memory.limit_in_bytes", max_memory);
			free(v1);
		}
	}
	free(v2);
	return 0;
}

int
cgroup_join(const struct cgroup *cg, char **err)
{
	char pid[32];
	int i, len;

	len = snprintf(pid, sizeof pid, "%ld", (long)getpid());
	for (i = 0; i < cg->n; i++) {
		if (write(cg->procs[i], pid, (size_t)len) != len) {
			*err = xasprintf("cannot join the cgroup %s: %s",
			    cg->dirs[i], strerror(errno));
			return -1;
		}
	}
	return 0;
}

void
cgroup_remove(struct cgroup *cg)
{
	int64_t until = clock_mono_ms() + CGROUP_RMDIR_MS;
	int i;

	for (i = 0; i < cg->n; i++) {
		close(cg->procs[i]);
		/* A task reaped a moment ago may still be leaving. */
		while (rmdir(cg->dirs[i]) == -1 && errno == EBUSY &&
		    clock_mono_ms() < until)
			usleep(1000);
		free(cg->dirs[i]);
	}
	memset(cg, 0, sizeof *cg);
}

int
cgroup_usable(char **why)
{
	struct cgroup cg;
	char *err = NULL;

	if (cgroup_make(&cg, 1, 0, &err) == -1) {
		*why = xasprintf("%s: as root, a command's process count "
		    "is not limited", err);
		free(err);
		return 0;
	}
	cgroup_remove(&cg);
	return 1;
}
