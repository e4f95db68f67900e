/*
 * A command's resource limits (see limits.h).
 *
 * RLIMIT_NPROC counts every process of the user, not only the command's,
 * so it is set to what runs now plus the command's allowance: the count
 * comes from sysinfo(), every process on the machine, which is at least
 * the user's.
 *
 * The data limit is set apart, last before exec: the steps between may
 * still map memory, and a process built with a sanitizer has mapped more
 * than any sane limit already (its shadow), so that any mapping after
 * the limit fails.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "tools/confine.h"
#include "tools/limits.h"
#include "util/xmalloc.h"

/* Lowers one limit to v (both soft and hard), never raising it. */
static int
limits_set(int which, const char *name, rlim_t v, char **err)
{
	struct rlimit r;

	if (getrlimit(which, &r) == -1)
		r.rlim_cur = r.rlim_max = RLIM_INFINITY;
	if (r.rlim_max != RLIM_INFINITY && r.rlim_max < v)
		v = r.rlim_max;
	r.rlim_cur = r.rlim_max = v;
	if (setrlimit(which, &r) == -1) {
		*err = xasprintf("cannot limit %s: %s", name,
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
limits_apply(const struct confine *c, char **err)
{
	struct sysinfo si;

	if (limits_set(RLIMIT_CORE, "core files", 0, err) == -1)
		return -1;
	if (c->max_file_size > 0 && limits_set(RLIMIT_FSIZE, "the file size",
	    (rlim_t)c->max_file_size, err) == -1)
		return -1;
	if (c->max_procs > 0 && geteuid() != 0) {
		if (sysinfo(&si) == -1) {
			*err = xasprintf("cannot count the processes: %s",
			    strerror(errno));
			return -1;
		}
		if (limits_set(RLIMIT_NPROC, "the processes",
		    (rlim_t)si.procs + (rlim_t)c->max_procs, err) == -1)
			return -1;
	}
	return 0;
}

int
limits_procs_exact(const struct confine *c, char **err)
{
	if (c->max_procs <= 0 || geteuid() == 0)
		return 0;
	return limits_set(RLIMIT_NPROC, "the processes",
	    (rlim_t)c->max_procs, err);
}

int
limits_memory(const struct confine *c, char **err)
{
	if (c->max_memory <= 0)
		return 0;
	return limits_set(RLIMIT_DATA, "the memory", (rlim_t)c->max_memory,
	    err);
}
