/*
 * Paths a command may not change though they lie beneath a directory it
 * may write (.git/hooks, .git/config ...): the command's process gets a
 * mount namespace of its own in which each is bind-mounted on itself
 * read-only. Nothing outside that process and its children sees it.
 */
#ifndef HUDDLE_TOOLS_MOUNTNS_H
#define HUDDLE_TOOLS_MOUNTNS_H

/*
 * Moves the calling process into a private mount namespace (as root, or
 * otherwise in a user namespace of its own that maps only its own uid
 * and gid) and makes each path of the NULL-terminated list read-only
 * there, keeping the mount's other flags. A path that does not exist is
 * skipped; one that is a symbolic link, or a kernel without the
 * namespaces, is an error (the command must not run). Returns 0, or -1
 * with *err.
 */
int mountns_readonly(char *const *paths, char **err);

/*
 * For a user other than root: a user namespace (and mount namespace) of
 * its own without mounting anything, so that RLIMIT_NPROC counts only
 * the command's processes (limits_procs_exact). Returns 0, or -1 with
 * errno when the kernel will not.
 */
int mountns_own_user(void);

#endif
