/*
 * The detail view of one request: a block of numbered lines, then
 * labelled fields (see detailview.h).
 */
#include "config.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "ui/color.h"
#include "ui/detailview.h"
#include "ui/draw.h"
#include "ui/text.h"
#include "util/xmalloc.h"

char **
detailview_field(const char *label, const char *value, int cols, size_t *n)
{
	size_t len = strlen(value), nrows, k, starts[DETAILVIEW_FIELD_ROWS];
	size_t end;
	char **rows, *part;
	int w = cols - DETAILVIEW_LABEL_COLS;

	/* Too narrow for a column of labels: the value under its label. */
	if (w < 8) {
		rows = xcalloc(2, sizeof *rows);
		rows[0] = text_cut(label, strlen(label), cols);
		rows[1] = text_cut(value, len, cols);
		*n = 2;
		return rows;
	}
	nrows = text_wrap(value, len, w, starts, DETAILVIEW_FIELD_ROWS);
	*n = nrows < DETAILVIEW_FIELD_ROWS ? nrows : DETAILVIEW_FIELD_ROWS;
	rows = xcalloc(*n, sizeof *rows);
	for (k = 0; k < *n; k++) {
		end = k + 1 < *n ? starts[k + 1] : len;
		/* The last row of a value longer than the field says so. */
		if (k + 1 == *n && nrows > *n)
			part = text_cut(value + starts[k], len - starts[k], w);
		else
			part = xasprintf("%.*s", (int)text_fit(value +
			    starts[k], end - starts[k], w), value + starts[k]);
		/* Labels are ASCII: padding by bytes pads by columns. */
		rows[k] = xasprintf("%-*s%s", DETAILVIEW_LABEL_COLS,
		    k == 0 ? label : "", part);
		free(part);
	}
	return rows;
}

/* The lines of s, blank ones at its end aside. */
static size_t
detailview_lines(const char *s)
{
	size_t lines = 0, line = 1;
	const char *p;
	int blank = 1;

	for (p = s; ; p++) {
		if (*p == '\n' || *p == '\0') {
			if (!blank)
				lines = line;
			if (*p == '\0')
				break;
			line++;
			blank = 1;
		} else if (*p != ' ')
			blank = 0;
	}
	return lines > 0 ? lines : 1;
}

char **
detailview_block(const struct table_row *r, int cols, size_t *n,
    char **heading)
{
	struct permline text;
	size_t flag;

	if (r->perm != NULL) {
		flag = permline_flag_line(r->perm);
		if (flag > 0)
			*heading = xasprintf("the command, %zu line%s (▶ marks "
			    "what was flagged, from line %zu):",
			    r->perm->lines, r->perm->lines == 1 ? "" : "s",
			    flag);
		else
			*heading = xasprintf("the command, %zu line%s:",
			    r->perm->lines, r->perm->lines == 1 ? "" : "s");
		return permline_rows(r->perm, cols, n);
	}
	/* Any other body numbered the same way, nothing flagged. */
	memset(&text, 0, sizeof text);
	text.command = r->body;
	text.lines = detailview_lines(r->body);
	*heading = xasprintf("the %s, %zu line%s:", r->type ==
	    REQ_PLAN_APPROVAL ? "plan" : "request", text.lines,
	    text.lines == 1 ? "" : "s");
	return permline_rows(&text, cols, n);
}

/* Appends field label: value's rows to rows. */
static char **
detailview_add(char **rows, size_t *n, size_t *cap, const char *label,
    const char *value, int cols)
{
	size_t k, m;
	char **field = detailview_field(label, value, cols, &m);

	for (k = 0; k < m; k++) {
		rows = xgrow(rows, cap, *n + 1, sizeof *rows);
		rows[(*n)++] = field[k];
	}
	free(field);
	return rows;
}

/*
 * The fields of r at now_ms in cols columns, as rows (every field's
 * rows one after another); free with permline_rows_free.
 */
static char **
detailview_fields(const struct table_row *r, int cols, int64_t now_ms,
    size_t *n)
{
	const struct permline *pl = r->perm;
	char **rows = NULL, age[16], *value;
	size_t cap = 0;

	*n = 0;
	if (pl != NULL) {
		const char *reason = *pl->reason ? pl->reason : "risky";
		int same = strcmp(pl->detail, reason) == 0 || !*pl->detail;

		value = xasprintf("%s%s%s", reason, same ? "" : " — ",
		    same ? "" : pl->detail);
		rows = detailview_add(rows, n, &cap, "why flagged", value,
		    cols);
		free(value);
		rows = detailview_add(rows, n, &cap, "directory",
		    *pl->directory ? pl->directory : "(not recorded)", cols);
		value = xasprintf("%s%s%s%s, to %s", *pl->who ? pl->who :
		    r->from, *pl->tool ? " (" : "", pl->tool, *pl->tool ?
		    ")" : "", r->to);
	} else
		value = xasprintf("%s, to %s", r->from, r->to);
	rows = detailview_add(rows, n, &cap, "who asked", value, cols);
	free(value);
	table_age(now_ms - r->created_at, age, sizeof age);
	value = xasprintf("asked %s ago", age);
	rows = detailview_add(rows, n, &cap, "when", value, cols);
	free(value);
	value = xasprintf("%s · %s · %s", r->id, req_type_name(r->type),
	    req_status_name(r->status));
	rows = detailview_add(rows, n, &cap, "request", value, cols);
	free(value);
	if (!r->pending) {
		table_age(now_ms - r->changed_at, age, sizeof age);
		value = xasprintf("%s %s%s %s ago%s%s",
		    req_status_name(r->status), *r->decided_by ? "by " : "",
		    r->decided_by, age, *r->response ? ": " : "",
		    r->response);
		rows = detailview_add(rows, n, &cap, "decided", value, cols);
		free(value);
	}
	return rows;
}

void
detailview_draw(const struct table_row *r, int y, int x, int rows,
    int cols, int *first, int64_t now_ms)
{
	char **block, **fields, *heading, *line;
	size_t nblock, nfields, i;
	int room, row, red = 0;

	if (rows < 1 || cols < 1)
		return;
	block = detailview_block(r, cols - 2, &nblock, &heading);
	fields = detailview_fields(r, cols, now_ms, &nfields);
	/* The block gets what the heading, a blank row and the fields
	 * leave; three rows at least, the fields then losing their end. */
	room = rows - 2 - (int)nfields;
	if (room < 3)
		room = rows - 2 < 3 ? rows - 2 : 3;
	if (room < 1)
		room = 1;
	/* A short block: the fields follow it. */
	if ((int)nblock < room)
		room = (int)nblock > 0 ? (int)nblock : 1;
	if (*first > (int)nblock - room)
		*first = (int)nblock - room > 0 ? (int)nblock - room : 0;
	if ((int)nblock > room) {
		line = xasprintf("%s (rows %d-%d of %zu)", heading, *first + 1,
		    *first + room < (int)nblock ? *first + room : (int)nblock,
		    nblock);
		free(heading);
		heading = line;
	}
	attrset(color_attr(ROLE_POPUP));
	draw_cut_at(y, x, heading, cols);
	/* The block: the terminal's own colours, a column of margin. */
	attrset(color_attr(ROLE_NORMAL));
	for (row = 0; row < room; row++) {
		mvhline(y + 1 + row, x, ' ', cols);
		i = (size_t)(*first + row);
		if (i < nblock)
			draw_cut_at(y + 1 + row, x + 1, block[i], cols - 2);
	}
	for (i = 0, row = room + 2; i < nfields && row < rows; i++, row++) {
		/* Why it was flagged, all its rows, in red. */
		red = r->perm != NULL && (i == 0 || (red && *fields[i] == ' '));
		attrset(color_attr(red ? ROLE_ERROR : ROLE_POPUP));
		draw_cut_at(y + row, x, fields[i], cols);
	}
	attrset(A_NORMAL);
	free(heading);
	permline_rows_free(block, nblock);
	permline_rows_free(fields, nfields);
}
