/*
 * The tasks view of the bottom table: every task of the board as the
 * team's task events left it, ready ones first, then those in progress,
 * those waiting for others (drawn dim), and the closed ones. F4 switches
 * the table between it and the requests.
 */
#ifndef HUDDLE_UI_TASKLIST_H
#define HUDDLE_UI_TASKLIST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/task.h"

struct tasklist_row {
	int64_t			 num;
	char			 id[TASK_ID_SIZE];
	enum task_status	 status;
	char			*subject;	/* clean, one line */
	char			*owner;		/* "" when nobody */
	int			 owner_gone;
	char			*after;		/* "t1,t2" or "" */
	int			 blocked;
	char			*worktree;	/* clean, or "" */
	int			 worktree_busy;	/* someone else works there */
	enum task_check		 checked;
	int64_t			 updated_at;	/* wall-clock ms */
};

struct tasklist {
	struct tasklist_row	*rows;		/* in display order */
	size_t			 n, cap;
	int			 first;		/* first row shown */
};

void tasklist_init(struct tasklist *l);
void tasklist_free(struct tasklist *l);

/* Applies a task event's data (event.h); data that names no task or a
 * status this build does not know is ignored. */
void tasklist_update(struct tasklist *l, json_t *task);

/* How many tasks are ready, in progress, and open at all. */
void tasklist_counts(const struct tasklist *l, size_t *ready,
    size_t *in_progress, size_t *open);

/* The lowest-numbered task `owner` has in progress, or NULL. */
const struct tasklist_row *tasklist_current(const struct tasklist *l,
    const char *owner);

/* Notes that member `name` has ended: its tasks' owner is gone. */
void tasklist_owner_gone(struct tasklist *l, const char *name);

/* Scrolls by delta rows. */
void tasklist_scroll(struct tasklist *l, int delta);

/* Draws the rows into the rectangle (a header row first). */
void tasklist_draw(struct tasklist *l, int top, int left, int height,
    int width, int64_t now_ms);

#endif
