/*
 * The children of huddle's that a sweep for escaped processes spares:
 * the reaper of each running command (tools/reaper.h) and the namespace
 * holder (tools/mountns.h), and the sessions of the browsers a sign-in
 * opens (agent/mcpsignin.c). Every other child of huddle's is what
 * escaped a reaper the command killed, and bash_sweep_orphans ends it.
 */
#ifndef HUDDLE_TOOLS_KEPT_H
#define HUDDLE_TOOLS_KEPT_H

#include <spawn.h>
#include <sys/types.h>

/* The most children kept_signal_others signals in one call. */
#define KEPT_BATCH	256

/*
 * posix_spawn, listing the child as kept in the same breath, so that no
 * sweep can see it unlisted. Returns posix_spawn's result.
 */
int kept_spawn(const char *program, pid_t *pid,
    posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, char **argv,
    char **env);

/*
 * kept_spawn for a child that starts a session of its own (at has
 * POSIX_SPAWN_SETSID): every process of that session is spared as well,
 * so that what the child starts and leaves to huddle (the browser that a
 * launcher starts and returns) lives on. The session stays spared for
 * huddle's life: a new process can have its number only once every
 * member is gone.
 */
int kept_spawn_session(const char *program, pid_t *pid,
    posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, char **argv,
    char **env);

/* Takes a kept child off the list: to be called once it is reaped, so
 * that its pid is never reused while listed. */
void kept_end(pid_t pid);

/*
 * Sends sig (and SIGCONT after it, unless sig is SIGKILL, so that a
 * stopped one takes it) to every child of this process that is not
 * kept. Returns how many there were, their pids in pids (which holds
 * KEPT_BATCH).
 */
int kept_signal_others(int sig, pid_t *pids);

#endif
