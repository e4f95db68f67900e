/*
 * The bash tool: one shell command, run to completion (or to its timeout,
 * or until cancelled) with its output captured for the model.
 */
#ifndef HUDDLE_AGENT_BASH_H
#define HUDDLE_AGENT_BASH_H

#include <stddef.h>

#include "tools/tool.h"

struct cancel;

#define BASH_TIMEOUT_S		120		/* default timeout */
#define BASH_OUTPUT_CAP		(32 * 1024)	/* default cap */
#define BASH_GRACE_MS		2000		/* TERM, then KILL */

struct bash_options {
	const char	*workdir;
	int		 timeout_s;	/* default 120 when 0 */
	size_t		 output_cap;	/* 32 KiB when 0 */
	struct cancel	*cancel;	/* may be NULL; firing it kills */
	int		 sandboxed;	/* run in the Landlock sandbox ... */
	int		 sandbox_fd;	/* ... of this ruleset */
	const char	*tmpdir;	/* TMPDIR for the command, or NULL */
};

/*
 * Runs `command` with /bin/sh -c in workdir, in its own process group, stdin
 * /dev/null, stdout and stderr together into one pipe, in the sandbox
 * when `sandboxed` (tools/landlock.h). The environment is huddle's minus
 * every secret (tools/env.h), with TMPDIR set to `tmpdir` when given. The
 * child gets a clean signal mask and default dispositions. Output beyond
 * output_cap is cut, keeping the head and the tail, with a line saying how
 * much was left out; NUL bytes and invalid UTF-8 are repaired. On timeout or
 * cancel the whole process group gets SIGTERM, then SIGKILL after 2 s, and
 * is reaped; the result says "timed out after N s" / "cancelled". The text
 * starts with the output and ends with "[exit status N]" (or the signal). A
 * non-zero exit is NOT a tool error (the model reads the status); timeout,
 * cancel and spawn failure are. Returns 0, or -1 on a tool error. Safe to
 * call from many threads at once.
 *
 * The command is finished when the shell exits: background jobs it leaves
 * behind keep running (only what they wrote by then is captured), unless
 * they are killed with the group on timeout or cancel. A process that
 * moves to another process group or session escapes that kill. Reaping:
 * the shell is our child and always reaped; its orphans are reaped here
 * too when huddle is a child subreaper (PR_SET_CHILD_SUBREAPER), and by
 * init otherwise.
 */
int bash_run(const char *command, const struct bash_options *o,
    struct tool_output *out);

#endif
