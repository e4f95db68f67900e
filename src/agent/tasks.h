/*
 * The task board as the agents work it (tasks.c): completing a task
 * after its check passes, and an autonomous teammate's next task.
 */
#ifndef HUDDLE_AGENT_TASKS_H
#define HUDDLE_AGENT_TASKS_H

struct agent;
struct cancel;
struct task;
struct team;

/*
 * Agent a (NULL: the person) completes task `id` with `result` (NULL:
 * leave it): its check — the task's own command, else the team's
 * --verify — runs first, and only a zero exit completes it; otherwise it
 * stays in progress with the check's output, and its owner is told. A
 * task's own check passes the permission gate first (permit.c); one the
 * person refuses is not run and counts as failed. Returns 0 when
 * completed, 1 when the check failed or was not run, -1 when it may not
 * (each with a sentence in *msg).
 */
int tasks_complete(struct team *t, struct agent *a, const char *id,
    const char *result, struct cancel *cancel, char **msg);

/* The command that checks task k: its own, else the team's (NULL:
 * none). */
const char *tasks_check_command(struct team *t, const struct task *k);



/* Why agent a may not give a task this check command, or NULL when it
 * may: a teammate whose plan is not approved may not (malloc'd). Whether
 * the check needs the person's permission is asked when it runs. */
char *tasks_check_refused(struct agent *a, const char *command);

/*
 * An autonomous teammate with nothing to answer takes its next task: it
 * is reminded, once, of a task it still has in progress; else it claims
 * the next ready one, which its transcript records in the claim's own
 * transaction. Returns 1 when its model has work now, 0 when not.
 */
int tasks_next(struct agent *a);

#endif
