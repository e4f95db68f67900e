/*
 * Paths a command may not change though they lie beneath a directory it
 * may write (.git/hooks, .git/config ...): the command's process gets a
 * mount namespace of its own in which each is bind-mounted on itself
 * read-only. Nothing outside that process and its children sees it.
 */
#ifndef HUDDLE_TOOLS_MOUNTNS_H
#define HUDDLE_TOOLS_MOUNTNS_H

#include <sys/types.h>

/*
 * Moves the calling process into a private mount namespace (as root, or
 * otherwise in a user namespace of its own that maps only its own uid
 * and gid) and makes each path of the NULL-terminated list read-only
 * there, keeping the mount's other flags. A path that does not exist is
 * skipped; one that is a symbolic link, or a kernel without the
 * namespaces, is an error (the command must not run). An empty list
 * does nothing for a user other than root; root gets the namespace all
 * the same (the holder's proc is mounted there). Returns 0, or -1 with
 * *err.
 */
int mountns_readonly(char *const *paths, char **err);

/*
 * For a user other than root: a user namespace (and mount namespace) of
 * its own without mounting anything, so that RLIMIT_NPROC counts only
 * the command's processes (limits_procs_exact). Returns 0, or -1 with
 * errno when the kernel will not.
 */
int mountns_own_user(void);

/*
 * Joins the user (when not root) and mount namespaces of the process
 * pidfd refers to, and goes back to the directory it was in. Returns 0,
 * or -1 with *err and errno (EINVAL: the calling process has more than
 * one thread, which setns refuses).
 */
int mountns_join(int pidfd, char **err);

/*
 * A pinned namespace: a small process of huddle's own (the holder)
 * makes the namespaces of mountns_readonly once and keeps them alive,
 * and each command joins them (mountns_join). Making and tearing down a
 * mount namespace for every command costs about a millisecond, most of
 * it in the kernel when the last process leaves it.
 */
struct mountns_pin {
	pid_t	 pid;		/* the holder */
	int	 pidfd;		/* for mountns_join */
	int	 hold;		/* its stdin: closing it ends the holder */
};

/* The first argument that makes huddle's main() the holder. */
#define MOUNTNS_HOLDER_ARG	"--namespace-holder"

/*
 * Starts a holder (program: huddle's own) for the read-only paths (a
 * NULL-terminated list; for a user other than root, even an empty one
 * gives the commands a user namespace of their own to count processes
 * in). As root the holder also mounts a proc of the namespace's own on
 * /proc, on which a command sees only the processes it could trace: its
 * own, not huddle's nor another command's (hidepid=ptraceable). That
 * proc is a new file system, which a Landlock ruleset made outside the
 * namespace does not reach: grant it read through mountns_pin_proc.
 * Returns 0 with *pin filled, or -1 with *err.
 */
int mountns_pin_new(const char *program, char *const *paths,
    struct mountns_pin *pin, char **err);

/* The holder's /proc as huddle reaches it (through /proc/PID/root):
 * a path to free. */
char *mountns_pin_proc(const struct mountns_pin *pin);

/* Ends the holder and waits for it; a zeroed or failed pin is fine. */
void mountns_pin_free(struct mountns_pin *pin);

/* The holder's main(): argv is { program, MOUNTNS_HOLDER_ARG, path... }.
 * Says "ok" or why not on stdout, then waits for stdin to close. */
int mountns_holder_main(int argc, char **argv);

#endif
