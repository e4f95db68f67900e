/*
 * A task of the team's board (taskboard.h): a subject, a description,
 * an owner, the tasks it waits for (blocked_by), who made it, a result
 * and a status:
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
 * a time: its in-progress tasks all name one worktree, or none.
 *
 * This header is the task as a value and what is said of it in words
 * (task.c); the board that keeps tasks is taskboard.c.
 */
#ifndef HUDDLE_CORE_TASK_H
#define HUDDLE_CORE_TASK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>



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

/* "pending", "in_progress", "completed", "cancelled". */
const char *task_status_name(enum task_status status);
/* The status of a name, or -1. */
int task_status_parse(const char *name);
/* "none", "passed", "failed". */
const char *task_check_name(enum task_check check);
/* The check of a name, or -1. */
int task_check_parse(const char *name);

/* Reads "t12" (or "12") into *num. Returns 0, or -1 when it is no id. */
int task_id_parse(const char *id, int64_t *num);

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


/* What the board posts: the lead's news that every task it waited on is
 * closed, one line each (closed, n); that t was completed by who; an
 * owner's that t waits for nothing now; and the sentence on the tasks a
 * teammate leaves in progress (list, "t3 (subject), …", n of them).
 * Each malloc'd. */
char *task_closed_text(const struct task *closed, size_t n);
char *task_completed_text(const struct task *t, const char *who);
char *task_unblocked_text(const struct task *t);
char *task_left_text(const char *list, int n);

#endif
