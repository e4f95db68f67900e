/*
 * The bash tool: one shell command, run to completion (or to its timeout,
 * or until cancelled) with its output captured for the model.
 */
#ifndef HUDDLE_TOOLS_BASH_H
#define HUDDLE_TOOLS_BASH_H

#include <stddef.h>
#include <sys/types.h>

#include "tools/tool.h"

struct cancel;
struct confine;
struct ruleset;
struct tmpuse;

#define BASH_TIMEOUT_S		120		/* default timeout */
#define BASH_OUTPUT_CAP		(32 * 1024)	/* default cap */
#define BASH_GRACE_MS		2000		/* TERM, then KILL */
#define BASH_WATCH_MS		1000		/* TMPDIR measured */
#define BASH_KEEP_MAX		(64LL << 20)	/* a whole output kept */

struct bash_options {
	const char	*program;	/* huddle's, as the reaper (reaper.h) */
	const char	*workdir;
	int		 timeout_s;	/* default 120 when 0 */
	size_t		 output_cap;	/* 32 KiB when 0 */
	struct cancel	*cancel;	/* may be NULL; firing it kills */
	int		 sandboxed;	/* run in the Landlock sandbox ... */
	int		 sandbox_fd;	/* ... of this ruleset */
	struct ruleset	*ruleset;	/* ... or of this one, when not NULL
					 * (tools/ruleset.h: waited for) */
	const char	*tmpdir;	/* TMPDIR for the command, or NULL */
	const struct tmpuse *tmp_max;	/* with tmpdir: its ceiling, watched
					 * (tools/tmpuse.h), or NULL */
	const char *const *extra_env;	/* "NAME=value" entries set after
					 * the secret filter, replacing the
					 * same names; NULL-terminated, or
					 * NULL (the proxy's variables) */
	const struct confine *confine;	/* NULL: Landlock alone; otherwise
					 * applied too (tools/confine.h),
					 * its landlock field replaced by
					 * `sandboxed` */
	int		 pinned;	/* with confine: join the namespaces
					 * of the process pin_fd (a pidfd)
					 * refers to (tools/mountns.h) */
	int		 pin_fd;
	int		*status_out;	/* when not NULL: the shell's wait
					 * status, or -1 when it did not
					 * end by itself */
	const char	*keep_dir;	/* when not NULL: an output that is
					 * cut for the model, or longer than
					 * keep_lines lines, is kept whole
					 * (up to BASH_KEEP_MAX bytes) in a
					 * new file there: tool_output.whole */
	size_t		 keep_lines;
};

/*
 * Runs `command` with /bin/sh -c in workdir, stdin /dev/null, stdout and
 * stderr together into one pipe, in the sandbox when `sandboxed`
 * (tools/landlock.h), and under `confine` when given. Between huddle and
 * the shell stands a reaper (tools/reaper.h: `program` started with
 * REAPER_ARG), leader of a session of its own (so the command has no
 * controlling terminal) and of the command's process group. The
 * environment is huddle's minus every secret
 * (tools/env.h), with TMPDIR set to `tmpdir` when given and extra_env's
 * entries set over it. The shell gets a
 * clean signal mask and default dispositions. Output beyond output_cap is
 * cut, keeping the head and the tail, with a line saying how much was left
 * out; NUL bytes and invalid UTF-8 are repaired. The text starts with the
 * output and ends with "[exit status N]" (or the signal). A non-zero exit
 * is NOT a tool error (the model reads the status); timeout, cancel and
 * spawn failure are. Returns 0, or -1 on a tool error. Safe to call from
 * many threads at once.
 *
 * With tmp_max, TMPDIR is measured as the command starts and every
 * BASH_WATCH_MS while it runs: once it is past the ceiling and holds
 * more than at the start, the command is stopped as on a timeout, and
 * the result says why (a tool error). One that ends past the ceiling
 * having added to it gets a line saying so.
 *
 * Nothing the command starts outlives it. When the shell exits, every
 * process it left behind gets SIGTERM, then SIGKILL after BASH_GRACE_MS,
 * and is reaped, background jobs and those that left the process group
 * or session (setsid, daemons) alike; only what they wrote by then is
 * captured. On timeout or cancel the same happens to the shell too, and
 * the result says "timed out after N s" / "cancelled".
 */
int bash_run(const char *command, const struct bash_options *o,
    struct tool_output *out);

/* A long-lived process started through a reaper with pipes both ways: a
 * server that speaks on its stdin and stdout (an MCP server). */
struct bash_piped {
	pid_t	 pid;		/* the reaper */
	int	 in;		/* the process's stdin (we write) */
	int	 out;		/* its stdout (we read; non-blocking) */
	int	 status_fd;	/* the reaper's report */
	int	 err;		/* its stderr (we read; non-blocking);
				 * closed by the caller, not by
				 * bash_end_piped */
};

/*
 * Starts `command` as bash_run does (reaper, confinement, environment,
 * session of its own) but leaves it running: its stdin and stdout are
 * pipes to us, and so is its stderr (p->err, apart from stdout). No timeout applies; o->cancel is
 * not watched. Returns 0, or -1 with *why.
 */
int bash_start_piped(const char *command, const struct bash_options *o,
    struct bash_piped *p, char **why);

/* Closes the pipes, ends the reaper (and so all beneath it: SIGTERM,
 * then SIGKILL) and reaps it. Safe on a zeroed or ended struct. */
void bash_end_piped(struct bash_piped *p);

/*
 * Stops every child of this process that is not kept (tools/kept.h: the
 * reaper of a running command, the namespace holder): what escaped a
 * reaper the command killed (possible where Landlock cannot stop a
 * command signalling it, below ABI 6). SIGTERM, then SIGKILL after
 * grace_ms (at once when 0); reaps them. bash_run calls it when a
 * reaper dies without reporting; huddle calls it at quit.
 * The process must be a child subreaper (PR_SET_CHILD_SUBREAPER) for the
 * escapees to be its children; in any other it does nothing, so that
 * children it did not start through a reaper live on.
 */
void bash_sweep_orphans(int grace_ms);

#endif
