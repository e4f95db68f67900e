/*
 * The task board: the team's shared list of work (struct task, task.h),
 * in the store. A claim takes the lowest ready task (or the one named)
 * in one transaction, so two teammates never own one task. Every change
 * commits with the messages it sends (a task_completed to the lead, news
 * to an owner) and is announced to listeners after the commit, like the
 * protocol engine's. Autonomous members are woken when a task may have
 * become ready.
 *
 * The lead and the person manage the board: they may change any task.
 * A teammate changes the tasks it owns.
 */
#ifndef HUDDLE_CORE_TASKBOARD_H
#define HUDDLE_CORE_TASKBOARD_H

#include "core/bus.h"
#include "core/task.h"

struct taskboard;

/* Called after a task is created or changed, on the thread that changed
 * it, with the store's lock still held (see bus_listener_fn); `what` is
 * the struct task, valid only during the call. */
typedef listener_fn task_listener_fn;

struct taskboard *taskboard_new(struct bus *bus);
void taskboard_free(struct taskboard *tb);

/* Registers a listener; call before threads start. */
void taskboard_listen(struct taskboard *tb, task_listener_fn fn, void *ud);



/*
 * Adds a task made by `by` (a member or MSG_USER). Unknown ids in
 * blocked_by, too many open tasks and empty or oversized fields are
 * refused. Fills *out (when not NULL). Returns 0 or -1 with *err.
 */
int taskboard_create(struct taskboard *tb, const char *by,
    const struct task_new *n, struct task *out, char **err);

/*
 * Member `who` claims task `id`, or with id NULL its next ready task:
 * one assigned to it first, then the lowest unowned one. The task becomes
 * in_progress and `who`'s. With `entry` not NULL, a user turn that gives
 * the task to `who`'s model is added to its transcript in the same
 * transaction and returned there (a new reference). Returns 1 when
 * claimed (*out filled), 0 when id is NULL and nothing is ready, -1 with
 * *err (the task named is not ready, and why).
 */
int taskboard_claim(struct taskboard *tb, const char *who, const char *id,
    struct task *out, json_t **entry, char **err);

/*
 * `who` changes task `id` as c says, when it may: the lead and the person
 * may change any task; a teammate the tasks it owns, to in_progress,
 * completed or back to pending (released). Dependencies that would make a
 * cycle are refused. Returns 0 with *out (when not NULL), or -1 with
 * *err.
 */
int taskboard_update(struct taskboard *tb, const char *who, const char *id,
    const struct task_change *c, struct task *out, char **err);

/* Whether `who` may move task `id` to `status` now: 0, or -1 with *err
 * saying why not. Nothing is changed. */
int taskboard_may_move(struct taskboard *tb, const char *who, const char *id,
    enum task_status status, char **err);

/*
 * `who` (the lead or the person) gives task `id` to `teammate`: it
 * becomes in_progress, or stays pending while it waits for others, and
 * the teammate is sent the task. Returns 0 with *out, or -1 with *err.
 */
int taskboard_assign(struct taskboard *tb, const char *who, const char *id,
    const char *teammate, struct task *out, char **err);

/* Reads task `id` into *out. Returns 0, or -1 when there is none. */
int taskboard_get(struct taskboard *tb, const char *id, struct task *out);

/*
 * Lists the tasks of a status (-1: every one), by number. Returns the
 * count; free *out with task_free_array.
 */
size_t taskboard_list(struct taskboard *tb, int status, struct task **out);

/* The worktree `who` works in now: the one its in-progress tasks name
 * (malloc'd), or NULL. */
char *taskboard_place(struct taskboard *tb, const char *who);

/* Who holds a task in progress in worktree `name` (malloc'd), or NULL. */
char *taskboard_worktree_holder(struct taskboard *tb, const char *name);

/* The open tasks that name worktree `name`, as "t3, t5" (malloc'd), or
 * NULL when none. */
char *taskboard_worktree_open(struct taskboard *tb, const char *name);

/* The lowest-numbered task `who` has in progress into *out. Returns 0,
 * or -1 when it has none. */
int taskboard_current(struct taskboard *tb, const char *who,
    struct task *out);

/*
 * Inside a transaction: a sentence on the tasks `name` leaves in
 * progress ("It leaves t3 (subject) in progress: …"), or NULL when none
 * (malloc'd). For the notice of a teammate's end.
 */
char *taskboard_left_text_tx(struct store *s, const char *name);

#endif
