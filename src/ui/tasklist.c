/*
 * The tasks view of the bottom table (see tasklist.h).
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/event.h"
#include "ui/color.h"
#include "ui/draw.h"
#include "ui/table.h"
#include "ui/tasklist.h"
#include "ui/text.h"
#include "util/xmalloc.h"

void
tasklist_init(struct tasklist *l)
{
	memset(l, 0, sizeof *l);
}

static void
tasklist_row_clear(struct tasklist_row *r)
{
	free(r->subject);
	free(r->owner);
	free(r->after);
	free(r->worktree);
	memset(r, 0, sizeof *r);
}

void
tasklist_free(struct tasklist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		tasklist_row_clear(&l->rows[i]);
	free(l->rows);
	memset(l, 0, sizeof *l);
}

/* Whether a row is ready: pending, and waiting for nothing. */
static int
tasklist_ready(const struct tasklist_row *r)
{
	return r->status == TASK_PENDING && !r->blocked && !r->worktree_busy;
}

/* Where a row goes: ready, in progress, waiting, completed, cancelled. */
static int
tasklist_rank(const struct tasklist_row *r)
{
	switch (r->status) {
	case TASK_PENDING:
		return tasklist_ready(r) ? 0 : 2;
	case TASK_IN_PROGRESS:
		return 1;
	case TASK_COMPLETED:
		return 3;
	default:
		return 4;
	}
}

static int
tasklist_order(const void *a, const void *b)
{
	const struct tasklist_row *x = a, *y = b;
	int rx = tasklist_rank(x), ry = tasklist_rank(y);

	if (rx != ry)
		return rx - ry;
	return (x->num > y->num) - (x->num < y->num);
}

void
tasklist_update(struct tasklist *l, json_t *task)
{
	const char *subject = event_str(task, "subject");
	struct tasklist_row *r = NULL;
	int status = task_status_parse(event_str(task, "status"));
	int64_t num;
	json_t *after = event_array(task, "blocked_by"), *e;
	const char *checked = event_str(task, "checked");
	char *ids = NULL;
	size_t len = 0, cap = 0, i;

	if (task_id_parse(event_str(task, "id"), &num) == -1 || status < 0)
		return;
	for (i = 0; i < l->n && r == NULL; i++) {
		if (l->rows[i].num == num)
			r = &l->rows[i];
	}
	if (r == NULL) {
		l->rows = xgrow(l->rows, &l->cap, l->n + 1, sizeof *l->rows);
		r = &l->rows[l->n++];
		memset(r, 0, sizeof *r);
	}
	tasklist_row_clear(r);
	r->num = num;
	snprintf(r->id, sizeof r->id, "t%lld", (long long)num);
	r->status = status;
	/* One line: what a model wrote is cut at its first break. */
	r->subject = text_sanitize(subject, strcspn(subject, "\r\n"));
	r->owner = text_sanitize(event_str(task, "owner"),
	    strlen(event_str(task, "owner")));
	r->owner_gone = event_bool(task, "owner_gone");
	r->blocked = event_bool(task, "blocked");
	r->worktree = text_sanitize(event_str(task, "worktree"),
	    strlen(event_str(task, "worktree")));
	r->worktree_busy = event_bool(task, "worktree_busy");
	r->checked = strcmp(checked, "passed") == 0 ? TASK_PASSED :
	    strcmp(checked, "failed") == 0 ? TASK_FAILED : TASK_UNCHECKED;
	r->updated_at = event_int(task, "updated_at");
	ids = xappend(ids, &len, &cap, "", 0);
	json_array_foreach(after, i, e) {
		const char *id = json_string_value(e);

		if (id == NULL)
			continue;
		if (len > 0)
			ids = xappend(ids, &len, &cap, ",", 1);
		ids = xappend(ids, &len, &cap, id, strlen(id));
	}
	r->after = text_sanitize(ids, len);
	free(ids);
	qsort(l->rows, l->n, sizeof *l->rows, tasklist_order);
}

void
tasklist_counts(const struct tasklist *l, size_t *ready,
    size_t *in_progress, size_t *open)
{
	size_t i;

	*ready = *in_progress = *open = 0;
	for (i = 0; i < l->n; i++) {
		*ready += tasklist_ready(&l->rows[i]);
		*in_progress += l->rows[i].status == TASK_IN_PROGRESS;
		*open += l->rows[i].status == TASK_PENDING ||
		    l->rows[i].status == TASK_IN_PROGRESS;
	}
}

const struct tasklist_row *
tasklist_current(const struct tasklist *l, const char *owner)
{
	const struct tasklist_row *best = NULL;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct tasklist_row *r = &l->rows[i];

		if (r->status == TASK_IN_PROGRESS &&
		    strcmp(r->owner, owner) == 0 &&
		    (best == NULL || r->num < best->num))
			best = r;
	}
	return best;
}

void
tasklist_owner_gone(struct tasklist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (strcmp(l->rows[i].owner, name) == 0)
			l->rows[i].owner_gone = 1;
	}
}

void
tasklist_scroll(struct tasklist *l, int delta)
{
	l->first += delta;
	if (l->first > (int)l->n - 1)
		l->first = (int)l->n - 1;
	if (l->first < 0)
		l->first = 0;
}

static enum color_role
tasklist_role(const struct tasklist_row *r)
{
	switch (tasklist_rank(r)) {
	case 0:
		return ROLE_PENDING;
	case 1:
		return ROLE_NORMAL;
	case 3:
		return r->checked == TASK_FAILED ? ROLE_REJECTED :
		    ROLE_APPROVED;
	default:
		return ROLE_DIM;
	}
}

void
tasklist_draw(struct tasklist *l, int top, int left, int height, int width,
    int64_t now_ms)
{
	static const char header[] = "id    status       owner        "
	    "after        age   ✓ subject";
	int rows = height - 1, y, marker = 0, below;
	size_t i;
	char *more;

	if (height <= 0 || width <= 0)
		return;
	attrset(color_attr(ROLE_TABLE_HEADER));
	draw_cut_at(top, left, header, width);
	if (l->n == 0) {
		static const char none[] = "no tasks yet: /task add SUBJECT, "
		    "or the lead's task_create";

		attrset(color_attr(ROLE_DIM));
		if (rows > 0)
			draw_cut_at(top + 1, left, none, width);
		attrset(A_NORMAL);
		return;
	}
	/* More rows than room: the last row says how many are out of view. */
	if ((int)l->n > rows && rows > 1) {
		rows--;
		marker = 1;
	}
	if (l->first > (int)l->n - 1)
		l->first = 0;
	for (i = (size_t)l->first, y = top + 1; i < l->n && y < top + 1 + rows;
	    i++, y++) {
		const struct tasklist_row *r = &l->rows[i];
		const char *status = tasklist_ready(r) ? "ready" :
		    task_status_name(r->status);
		char age[16], owner[64], *line;

		table_age(now_ms - r->updated_at, age, sizeof age);
		snprintf(owner, sizeof owner, "%s%s", *r->owner ? r->owner :
		    "-", r->owner_gone ? "†" : "");
		line = xasprintf("%-5s %-12s %s%*s %-12s %-5s %s %s%s%s%s",
		    r->id, status, owner, (int)(12 - text_width(owner,
		    strlen(owner)) > 0 ? 12 - text_width(owner,
		    strlen(owner)) : 0), "", *r->after ? r->after : "-", age,
		    r->checked == TASK_PASSED ? "✓" : r->checked ==
		    TASK_FAILED ? "✗" : " ", *r->worktree ? "[" : "",
		    r->worktree, *r->worktree ? (r->worktree_busy ?
		    ", in use] " : "] ") : "", r->subject);
		attrset(color_attr(tasklist_role(r)));
		draw_cut_at(y, left, line, width);
		free(line);
	}
	if (marker) {
		below = (int)l->n - l->first - rows;
		more = xasprintf("%d more above · %d more below (Tab to the "
		    "table, Up/Down)", l->first, below > 0 ? below : 0);
		attrset(color_attr(ROLE_DIM));
		draw_cut_at(top + 1 + rows, left, more, width);
		free(more);
	}
	attrset(A_NORMAL);
}
