/*
 * A command's resource limits (setrlimit): no core files, a file-size
 * ceiling, a data ceiling per process, and, for a user other than root,
 * a process count. The kernel exempts root from the process count: for
 * root, cgroup.h keeps it instead.
 */
#ifndef HUDDLE_TOOLS_LIMITS_H
#define HUDDLE_TOOLS_LIMITS_H

struct confine;

/*
 * Sets the calling process's limits from c: RLIMIT_CORE 0, RLIMIT_FSIZE
 * max_file_size, and RLIMIT_NPROC the processes
 * on the machine now plus max_procs (when not root); a limit of 0 in c
 * is left as it is. A limit is only ever lowered. RLIMIT_NPROC counts
 * all of the user's processes here: a bound on a fork bomb more than an
 * exact count (see limits_procs_exact). Returns 0, or -1 with
 * *err.
 */
int limits_apply(const struct confine *c, char **err);

/*
 * In a user namespace of the command's own (a user other than root):
 * the kernel counts RLIMIT_NPROC per user namespace as well, so the
 * limit becomes max_procs itself, exact, while the count outside stays
 * bounded by limits_apply's. Returns 0, or -1 with *err.
 */
int limits_procs_exact(const struct confine *c, char **err);

/* RLIMIT_DATA max_memory (when > 0): the last step before exec, since
 * no memory may be mapped beyond it. Returns 0, or -1 with *err. */
int limits_memory(const struct confine *c, char **err);

#endif
