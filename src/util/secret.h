/*
 * Keeping the API key out of reach of what huddle runs. The key is taken
 * out of the environment once, at start, and its bytes in the process's
 * environment block are overwritten: unsetenv() alone would leave them in
 * /proc/PID/environ for any process allowed to read it. The process is
 * made non-dumpable, with no core files, so neither a core dump nor a
 * debugger attach by a tool's process finds it in memory.
 *
 * Call these from main() before any thread starts.
 */
#ifndef HUDDLE_UTIL_SECRET_H
#define HUDDLE_UTIL_SECRET_H

/* Returns a copy of environment variable `name` (NULL when unset or
 * empty), overwrites its bytes in place and removes it. */
char *secret_take(const char *name);

/* No core dumps, and not dumpable (ptrace and /proc/PID/mem need
 * privileges). */
void secret_harden(void);

#endif
