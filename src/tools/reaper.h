/*
 * The reaper: a small process that stands between huddle and each command
 * it runs, so that nothing a command starts outlives it.
 *
 * bash.c starts it with REAPER_ARG, as the small program huddle-reaper or
 * as huddle's own (tools/reaperexe.h says which and why); that process
 * makes itself a child subreaper and starts the shell. Whatever
 * the shell starts, and whatever leaves the shell's process group or
 * session (setsid, a daemon's double fork), stays beneath the reaper, and
 * is reparented to it when its own parent dies. When the shell exits, or
 * the reaper is told to stop (SIGTERM from huddle, or huddle dying), it
 * sends SIGTERM to every process left beneath it, waits a grace period,
 * sends SIGKILL to whatever is left, reaps them all, reports the shell's
 * wait status on descriptor 3 and exits.
 *
 * The reaper is a fresh program, not a fork of huddle: it holds none of
 * huddle's memory (the API key) nor its descriptors, and it stays outside
 * the command's sandbox, which it enters only in the shell's process,
 * with the rest of the command's confinement (tools/confine.h).
 * From Landlock ABI 6 the command cannot signal it; below that it can
 * kill it, and then bash.c sweeps what escaped (bash_sweep_orphans).
 */
#ifndef HUDDLE_TOOLS_REAPER_H
#define HUDDLE_TOOLS_REAPER_H

#include <sys/types.h>

/* The first argument that makes huddle's main() the reaper. */
#define REAPER_ARG		"--command-reaper"

/* Descriptors the reaper is given: where it writes the shell's wait
 * status (an int), and the Landlock ruleset when the confinement asks
 * for it. */
#define REAPER_STATUS_FD	3
#define REAPER_SANDBOX_FD	4
#define REAPER_PIN_FD		5	/* a pidfd: tools/mountns.h */
#define REAPER_FILTER_FD	6	/* tools/sysfilter.h */

/* How long the SIGKILL rounds may take after the grace period. */
#define REAPER_KILL_MS		500

/*
 * The reaper's main(): argv is { program, REAPER_ARG, grace_ms,
 * parent_pid, confine (confine_to_json's text, or "1" or "0" for the
 * Landlock sandbox alone or nothing), command... }, the
 * command run with execv (bash.c gives /bin/sh -c TEXT). Its stdin,
 * stdout and stderr are the command's. Exits 0 once everything beneath
 * it is gone and the status is written; 2 on bad arguments, 127 when it
 * cannot start; the shell's process exits 126 when it cannot be
 * confined, saying why on stderr.
 */
int reaper_main(int argc, char **argv);

#endif
