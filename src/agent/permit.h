/*
 * The one gate every shell command a model wrote passes before it runs,
 * and the gate of a file tool an ask rule matches (permit.c).
 */
#ifndef HUDDLE_AGENT_PERMIT_H
#define HUDDLE_AGENT_PERMIT_H

struct agent;
struct cancel;
struct team;

/* Why the policy (or an ask rule of the project's Claude Code settings)
 * flags command at root (with no sandbox: every one), or NULL
 * when it runs without asking (malloc'd). */
char *permit_risk(struct team *t, const char *root, const char *command);

/*
 * The one gate of every shell command a model wrote (a bash call, a
 * task's check), at root where it will run: a command permit_risk flags
 * waits for the person's answer to a permission request whose body
 * (core/permbody.h) records it, what asks (`what`: "bash", "t3's check,
 * written by lead"), why and where it was flagged, root and who asks.
 * a is the agent that waits (its status shows it); NULL for the person's
 * own /task done, whose thread waits until cancel fires. Returns 0 when
 * the command may run, -1 with a sentence in *why (malloc'd) when not.
 */
int permit_command(struct team *t, struct agent *a, const char *what,
    const char *command, const char *root, struct cancel *cancel,
    char **why);

/*
 * The gate of a file tool's call that an ask rule of the project's Claude
 * Code settings matches (`rule`, as written there): a permission request
 * recording the tool, the path, the rule and who asks, which agent a
 * waits for. Returns 0 when approved, -1 with *why (malloc'd) when not.
 */
int permit_file(struct agent *a, const char *tool, const char *path,
    const char *rule, char **why);

/* Cancels the permission requests a check of the person's /task done
 * left pending when huddle last stopped: nobody waits for them now (an
 * agent cancels its own when it starts). */
void permit_forget(struct team *t);

#endif
