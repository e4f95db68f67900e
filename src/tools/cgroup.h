/*
 * A cgroup for one command, for when huddle runs as root: the kernel
 * exempts root from RLIMIT_NPROC, so its process count is kept by the
 * pids controller instead, and its memory ceiling by the memory
 * controller where one is writable. The reaper makes it before starting
 * the shell, the shell's process joins it, and the reaper removes it once
 * everything beneath it is gone. Either cgroup v2 (a controller enabled
 * for the cgroup huddle runs in) or v1's separate pids and memory
 * hierarchies serve.
 */
#ifndef HUDDLE_TOOLS_CGROUP_H
#define HUDDLE_TOOLS_CGROUP_H

#define CGROUP_MAX	2	/* directories: pids (or v2), memory */

struct cgroup {
	char	*dirs[CGROUP_MAX];	/* made for the command */
	int	 procs[CGROUP_MAX];	/* their cgroup.procs, open */
	int	 n;
};

/*
 * Makes a cgroup for a command beside the caller's own: at most
 * max_procs tasks (when > 0; the pids controller is required then) and
 * at most max_memory bytes (when > 0 and a memory controller can be
 * had; without one, the per-process data limit alone holds). Returns 0,
 * or -1 with *err and nothing made.
 */
int cgroup_make(struct cgroup *cg, long long max_procs,
    long long max_memory, char **err);

/* In the command's process: moves it into cg. Returns 0, or -1 with
 * *err. */
int cgroup_join(const struct cgroup *cg, char **err);

/* Removes what cgroup_make made (once nothing is left in it), and frees
 * it. */
void cgroup_remove(struct cgroup *cg);

/* Whether a pids cgroup can be made here: 1, or 0 with *why. */
int cgroup_usable(char **why);

#endif
