/*
 * The environment a tool's processes get: the person's, less anything
 * that looks like a secret — a name containing KEY, TOKEN, SECRET,
 * PASSWORD, PASSWD, CREDENTIAL, AUTH, COOKIE or SESSION (in any case), or
 * a value that is a URL with a password in it (DATABASE_URL=postgres://
 * user:pw@host/db) — and less every variable that leads to the person's
 * desktop (TMUX, DISPLAY, DBUS_SESSION_BUS_ADDRESS, SSH_AUTH_SOCK,
 * XDG_RUNTIME_DIR …). The person lets a variable through by name with
 * --pass-env.
 */
#ifndef HUDDLE_TOOLS_ENV_H
#define HUDDLE_TOOLS_ENV_H

/* Lets variable `name` through although it looks like a secret. Call
 * before any thread starts; the string must outlive the program's use. */
void env_pass(const char *name);

/* Whether an environment entry "NAME=VALUE" is kept from tools. */
int env_is_secret(const char *entry);

/*
 * Moves every variable that looks like a secret or leads to the desktop
 * (passed or not) out of the process's environment block: its value there is overwritten, so
 * /proc/PID/environ shows none, and environ points at a copy on the heap
 * instead, where getenv() and env_for_tools() still find it. Call from
 * main() before any thread starts and before any setenv().
 */
void env_seal(void);

/* The environment for a tool's process: a new NULL-terminated array of
 * pointers into environ (free the array, not the strings). */
char **env_for_tools(void);

/* The environment for the person's browser, opened for a sign-in (agent/
 * mcpsignin.c): as env_for_tools, but the desktop's variables are kept,
 * since the browser shows a window there. */
char **env_for_browser(void);

#endif
