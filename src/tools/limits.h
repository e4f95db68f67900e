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
 * max_file_size, RLIMIT_DATA max_memory, and RLIMIT_NPROC the processes
 * on the machine now plus max_procs (when not root); a limit of 0 in c
 * is left as it is. A limit is only ever lowered. Returns 0, or -1 with
 * *err.
 */
int limits_apply(const struct confine *c, char **err);

#endif
