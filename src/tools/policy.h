/*
 * The risk policy: which bash commands of a teammate need the person's
 * consent before they run. A policy is a list of rules; the first rule a
 * command matches names the reason. The built-in rules read the command
 * as shell words (tools/shlex.h); rules from a policy file are regular
 * expressions over the raw command text.
 *
 * This is a tripwire for honest mistakes, not a sandbox: a command can
 * always hide what it does (variables, eval of computed strings, scripts
 * it wrote a moment ago). In particular the path rule is a heuristic over
 * shell words and its limits are these:
 *   - no expansion: $VAR, globs and command output are not evaluated, so
 *     `cat $F` passes whatever F holds; only ~, ~/x, $HOME and ${HOME}
 *     are expanded (from HOME), and ~user counts as outside;
 *   - no state: `cd sub && cat ../x` is judged from the working
 *     directory, and a cd elsewhere is itself flagged;
 *   - lexical only: symbolic links are not resolved;
 *   - a word with blanks in it (a quoted message or script) is not taken
 *     for a path, and the command word itself is not either (running
 *     /usr/bin/make touches nothing by being run);
 *   - URLs (anything with ://) are not paths.
 * /dev/null, /dev/zero, /dev/random, /dev/urandom, /dev/stdin,
 * /dev/stdout, /dev/stderr and /dev/fd/N are harmless and allowed. /tmp
 * is outside the working directory like any other place, so it counts.
 */
#ifndef HUDDLE_TOOLS_POLICY_H
#define HUDDLE_TOOLS_POLICY_H

#include <stddef.h>

struct policy;

/*
 * The built-in policy, its rules in this order (the first match names
 * the reason, so the most specific comes first):
 *   - a download piped into a shell: curl or wget earlier in a pipeline
 *     than sh, bash, zsh, dash, ksh or ash (sudo or not), and a shell
 *     running a download's output directly: `bash <(curl ...)`,
 *     `sh -c "$(wget -O- ...)"`;
 *   - rm with a recursive flag (-r, -R, --recursive, alone or in a
 *     cluster such as -rf or -fR, anywhere before `--`);
 *   - sudo (or doas) anywhere a command starts;
 *   - git push (past git's own options such as -C dir);
 *   - any path outside the working directory (see above).
 * Commands are found wherever sh would run them: after ; & && || | and
 * newlines, inside $(...), backquotes and sh -c / bash -c strings, after
 * wrappers (env, nice, nohup, timeout, xargs, command, exec, time...),
 * after `find ... -exec`, and after keywords (if, then, do...).
 * Never NULL; free with policy_free.
 */
struct policy *policy_default(void);

/*
 * Loads a policy file: one rule per line, '#' comments and blank lines
 * skipped, blanks around a rule ignored; a rule is a POSIX extended regex
 * matched against the command (anywhere in it, unless anchored), or the
 * word `outside-workdir` for the path rule, or `defaults` to include the
 * built-in rules at that point. Returns NULL with *err (malloc'd) naming
 * the file and line of a bad regex, or why the file cannot be read.
 */
struct policy *policy_load(const char *path, char **err);

/* Why a command was flagged, and where. */
struct policy_verdict {
	char	*label;		/* short, to lead a line: "rm -r", "sudo",
				   "git push", "curl | sh", "outside the
				   working directory", "rule 3" */
	char	*detail;	/* a sentence: "deletes recursively (rm -r)",
				   "touches /etc/passwd outside the working
				   directory", "matches rule 3: ^docker" */
	size_t	 start;		/* the flagged part of the command: bytes */
	size_t	 end;		/* [start, end), the whole simple command
				   (or what sh -c ran it from, or what a
				   regex matched); start == end: unknown */
};

/*
 * Judges command: 1 when it needs the person's consent, with *v filled
 * (clear it with policy_verdict_clear); 0 when it may run freely, with
 * *v empty. workdir is absolute; a NULL policy or command is free to run.
 */
int policy_judge(const struct policy *p, const char *workdir,
    const char *command, struct policy_verdict *v);

/* Frees what a verdict holds and empties it. */
void policy_verdict_clear(struct policy_verdict *v);

/*
 * NULL when command may run freely; else a malloc'd reason naming the
 * rule: the verdict's detail ("uses sudo", "touches /etc/passwd outside
 * the working directory", "matches rule 3: ^docker", where 3 is the
 * rule's line in the file).
 */
char *policy_check(const struct policy *p, const char *workdir,
    const char *command);

/* Called with one simple command: its words, and at cmd the command
 * word past assignments, keywords and wrappers (argc when none). */
typedef int (*policy_command_fn)(char *const *argv, size_t argc, size_t cmd,
    void *arg);

/*
 * Calls fn with each simple command of command that policy_judge reads,
 * wherever sh would run one (chains, pipelines, $(...), sh -c strings,
 * eval, find -exec). Stops at fn's first nonzero return and returns it;
 * 0 when fn returned 0 for all (or there were none).
 */
int policy_commands(const char *command, policy_command_fn fn, void *arg);

void policy_free(struct policy *p);

#endif
