/*
 * The children of a process (see children.h): every numbered directory
 * of /proc whose stat names `parent` as its parent.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/children.h"

/* The parent field of /proc/PID/stat: "PID (COMM) STATE PPID ...", where
 * COMM may hold anything, ')' and spaces included. */
static pid_t
children_stat_parent(int proc, const char *name)
{
	char path[64], buf[512], *p;
	ssize_t n;
	long v;
	int fd;

	snprintf(path, sizeof path, "%s/stat", name);
	if ((fd = openat(proc, path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == '\0' ||
	    p[3] != ' ')
		return -1;
	v = strtol(p + 4, NULL, 10);
	return v > 0 && v <= INT_MAX ? (pid_t)v : -1;
}

int
children_list(pid_t parent, pid_t *pids, size_t max)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;
	long v;
	char *end;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		v = strtol(de->d_name, &end, 10);
		if (*end != '\0' || v <= 0 || v > INT_MAX)
			continue;
		if (children_stat_parent(dirfd(d), de->d_name) != parent)
			continue;
		if (n < max)
			pids[n] = (pid_t)v;
		n++;
	}
	closedir(d);
	return n > INT_MAX ? INT_MAX : (int)n;
}
