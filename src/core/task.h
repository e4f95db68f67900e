/*
 * The task board: the team's shared list of work, in the store. A task
 * has a subject, a description, an owner, the tasks it waits for
 * (blocked_by), who made it, a result and a status:
 *
 *	pending --claim or assign--> in_progress --complete--> completed
 *	pending or in_progress --cancel (lead, person)--> cancelled
 *	in_progress --release (owner)--> pending
 *	anything --reopen (lead, person)--> pending
 *
 * A task is ready when it is pending, nobody else owns it, and every task
 * it waits for is completed.
 *
 * A task may name a git worktree (core/wtrecord.h) it is done in: while
 * a teammate holds it in progress, that teammate works there, and no one
 * else holds a task in that worktree. A teammate works in one place at
 * a time: its in-progress tasks all name one worktree, or none. A claim
 * takes the lowest ready one (or the one named) in one transaction, so
 * two teammates never own one task. Every change commits with the
 * messages it sends (a task_completed to the lead, news to an owner) and
 * is announced to listeners after the commit, like the protocol
 * engine's. Autonomous members are woken when a task may have become
 * ready.
 *
 * The lead and the person manage the board: they may change any task.
 * A teammate changes the tasks it owns.
 */
#ifndef HUDDLE_CORE_TASK_H
#define HUDDLE_CORE_TASK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/bus.h"

enum task_status {
	TASK_PENDING,
	TASK_IN_PROGRESS,
	TASK_COMPLETED,
	TASK_CANCELLED,
	TASK_STATUS_COUNT
};

/* What the task's verification said when it was last completed. */
enum task_check {
	TASK_UNCHECKED,
	TASK_PASSED,
	TASK_FAILED
};

/* "t" and a number. */
#define TASK_ID_SIZE 24

/* Limits that keep a model from flooding the board. */
#define TASK_MAX_OPEN		1000	/* pending and in progress */
#define TASK_MAX_OPEN_MADE	50	/* of those, made by one teammate */
#define TASK_MAX_SUBJECT	200	/* bytes */
#define TASK_MAX_TEXT		16384	/* description, result, verify */
#define TASK_MAX_BLOCKERS	32

struct task {
	int64_t			 num;
	char			 id[TASK_ID_SIZE];	/* "t" + num */
	char			*subject;
	char			*description;		/* "" when none */
	enum task_status	 status;
	char			*owner;			/* NULL: nobody */
	int			 owner_gone;		/* it has terminated */
	int64_t			*blocked_by;		/* task numbers */
	size_t			 nblocked_by;
	int			 blocked;		/* one of them is not
							 * completed */
	char			*created_by;
	char			*result;		/* "" when none */
	char			*verify;		/* its own command, or
							 * NULL */
	enum task_check		 checked;
	char			*check_output;		/* of a failed check */
	char			*worktree;		/* the worktree it is
							 * done in, or NULL */
	int			 worktree_busy;		/* pending, and someone
							 * else works there */
	int			 lead_awaits;		/* the lead made or
							 * assigned it */
	int64_t			 created_at;		/* wall-clock ms */
	int64_t			 updated_at;
};

/* A new task. */
struct task_new {
	const char		*subject;
	const char		*description;	/* NULL: none */
	const char *const	*blocked_by;	/* ids ("t3" or "3") */
	size_t			 nblocked_by;
	const char		*verify;	/* NULL: the team's, if any */
	const char		*worktree;	/* NULL: where its owner
						 * works */
};

/* A change to a task; each field is left alone when unset. */
struct task_change {
	int			 status;	/* enum task_status, or -1 */
	const char		*result;
	const char *const	*blocked_by;	/* more tasks to wait for */
	size_t			 nblocked_by;
	int			 checked;	/* enum task_check, or -1 */
	const char		*check_output;
	int64_t			 if_updated_at;	/* refuse unless the task
						 * is still as it was read
						 * then (0: any) */
};

#define TASK_CHANGE_NONE { -1, NULL, NULL, 0, -1, NULL, 0 }

struct taskboard;

/* Called after a task is created or changed, on the thread that changed
 * it, with the store's lock still held (see bus_listener_fn); `what` is
 * the struct task, valid only during the call. */
typedef listener_fn task_listener_fn;

struct taskboard *taskboard_new(struct bus *bus);
void taskboard_free(struct taskboard *tb);

/* Registers a listener; call before threads start. */
void taskboard_listen(struct taskboard *tb, task_listener_fn fn, void *ud);

/* "pending", "in_progress", "completed", "cancelled". */
const char *task_status_name(enum task_status status);
/* The status of a name, or -1. */
int task_status_parse(const char *name);
/* "none", "passed", "failed". */
const char *task_check_name(enum task_check check);

/* Reads "t12" (or "12") into *num. Returns 0, or -1 when it is no id. */
int task_id_parse(const char *id, int64_t *num);

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

/* The task as a model reads it: header lines from the board, then the
 * description and result indented, so no text can pose as a header
 * (malloc'd). */
char *task_render(const struct task *t);

/* What hands task t to a model: "[task tN HEADER]", the task, then
 * `opening` and how to complete it or give it back (malloc'd). */
char *task_handover(const struct task *t, const char *header,
    const char *opening);

/* The same as a user turn for a transcript (a new reference). */
json_t *task_handover_entry(const struct task *t, const char *header,
    const char *opening);

/* One line: "t3 in_progress alice: subject (after t1, t2)" (malloc'd). */
char *task_line(const struct task *t);

void task_clear(struct task *t);
void task_free_array(struct task *array, size_t n);

#endif
