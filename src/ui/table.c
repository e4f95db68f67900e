/*
 * The live table of protocol requests (see table.h).
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/event.h"
#include "agent/team.h"
#include "ui/color.h"
#include "ui/draw.h"
#include "ui/table.h"
#include "ui/text.h"
#include "util/clock.h"
#include "util/xmalloc.h"

void
table_init(struct table *t)
{
	memset(t, 0, sizeof *t);
}

static void
table_row_clear(struct table_row *r)
{
	free(r->from);
	free(r->to);
	free(r->summary);
	free(r->body);
	free(r->response);
	free(r->decided_by);
	if (r->perm != NULL)
		permline_clear(r->perm);
	free(r->perm);
	memset(r, 0, sizeof *r);
}

void
table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		table_row_clear(&t->rows[i]);
	free(t->rows);
	free(t->drawn);
	memset(t, 0, sizeof *t);
}

static const char *table_status(const struct table_row *r);

/* Whether the filter lets row r through. */
static int
table_lets(const struct table *t, const struct table_row *r)
{
	const char *f = t->filter;

	return *f == '\0' || strcasestr(r->id, f) != NULL ||
	    strcasestr(req_type_name(r->type), f) != NULL ||
	    strcasestr(r->from, f) != NULL || strcasestr(r->to, f) != NULL ||
	    strcasestr(table_status(r), f) != NULL ||
	    strcasestr(r->summary, f) != NULL;
}

/* The index of the first row the filter lets through from i on, going
 * by step (1 or -1); -1 when none. */
static long
table_next_shown(const struct table *t, long i, int step)
{
	for (; i >= 0 && i < (long)t->n; i += step)
		if (table_lets(t, &t->rows[i]))
			return i;
	return -1;
}

/* Selects the first row shown, not as the person's choice; with none,
 * nothing. */
static void
table_select_first(struct table *t)
{
	long i = table_next_shown(t, 0, 1);

	*t->selected = '\0';
	if (i >= 0)
		memcpy(t->selected, t->rows[i].id, sizeof t->selected);
	t->chosen = 0;
}

size_t
table_shown(const struct table *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += table_lets(t, &t->rows[i]);
	return n;
}

void
table_set_filter(struct table *t, const char *text)
{
	snprintf(t->filter, sizeof t->filter, "%s", text);
	t->first = 0;
	if (table_selected(t) == NULL)
		table_select_first(t);
}

/* Requests a quit withdrew first (the person did not see them
 * decided), then pending ones, oldest first; then decisions, newest
 * first. */
static int
table_order(const void *a, const void *b)
{
	const struct table_row *x = a, *y = b;

	if (x->withdrawn != y->withdrawn)
		return y->withdrawn - x->withdrawn;
	if (x->pending != y->pending)
		return y->pending - x->pending;
	if (x->pending)
		return (x->created_at > y->created_at) -
		    (x->created_at < y->created_at);
	return (x->changed_at < y->changed_at) -
	    (x->changed_at > y->changed_at);
}

/* Keeps the most recent TABLE_KEEP_DECIDED decisions, and only those
 * younger than TABLE_LEAVE_MS; the selection stays on its request, or
 * falls to the first row when its request left. */
static void
table_prune(struct table *t, int64_t now_ms)
{
	size_t i, keep, decided = 0;

	for (i = keep = 0; i < t->n; i++) {
		if (!t->rows[i].pending && (++decided > TABLE_KEEP_DECIDED ||
		    now_ms - t->rows[i].changed_at >= TABLE_LEAVE_MS)) {
			table_row_clear(&t->rows[i]);
			continue;
		}
		t->rows[keep++] = t->rows[i];
	}
	t->n = keep;
	/* A decision the person did not choose gives way to a request
	 * that waits. */
	if (table_selected(t) == NULL || (!t->chosen &&
	    !table_selected(t)->pending && table_pending(t) > 0))
		table_select_first(t);
}

/* How many decided rows are old enough to be drawn dim. */
static size_t
table_count_faded(const struct table *t, int64_t now_ms)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += !t->rows[i].pending &&
		    now_ms - t->rows[i].changed_at >= TABLE_FADE_MS;
	return n;
}

int
table_expire(struct table *t, int64_t now_ms)
{
	size_t before = t->n, faded;
	int changed;

	table_prune(t, now_ms);
	faded = table_count_faded(t, now_ms);
	changed = t->n != before || faded != t->faded;
	t->faded = faded;
	return changed;
}

void
table_update(struct table *t, json_t *req)
{
	const char *id = event_str(req, "id"), *body = event_str(req, "body");
	int type = req_type_parse(event_str(req, "type"));
	int status = req_status_parse(event_str(req, "status"));
	int64_t decided_at = event_int(req, "decided_at");
	int64_t now = clock_wall_ms();
	struct table_row *r = NULL;
	size_t i;
	char *line, *nl;
	int was_pending = 0, fresh = 0, moves;

	if (type < 0 || status < 0 || *id == '\0')
		return;
	for (i = 0; i < t->n; i++) {
		if (strcmp(t->rows[i].id, id) == 0)
			r = &t->rows[i];
	}
	if (r == NULL) {
		t->rows = xgrow(t->rows, &t->cap, t->n + 1, sizeof *t->rows);
		r = &t->rows[t->n++];
		memset(r, 0, sizeof *r);
		fresh = 1;
	} else {
		was_pending = r->pending;
		table_row_clear(r);
	}
	snprintf(r->id, sizeof r->id, "%s", id);
	r->type = (enum req_type)type;
	r->status = (enum req_status)status;
	r->from = xstrdup(event_str(req, "from"));
	r->to = xstrdup(event_str(req, "to"));
	r->response = text_sanitize(event_str(req, "response"),
	    strlen(event_str(req, "response")));
	r->decided_by = xstrdup(event_str(req, "decided_by"));
	r->perm = xcalloc(1, sizeof *r->perm);
	if (r->type != REQ_PERMISSION ||
	    permline_from_body(body, r->perm) == -1) {
		free(r->perm);
		r->perm = NULL;
	}
	if (r->perm != NULL)
		r->summary = permline_summary(r->perm, TABLE_SUMMARY_COLS,
		    NULL);
	else {
		line = xstrdup(body);
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		r->summary = text_sanitize(line, strlen(line));
		free(line);
	}
	r->body = text_sanitize(body, strlen(body));
	r->created_at = event_int(req, "created_at");
	/* The store's time of the decision; a clock that went back
	 * cannot make it seem to come from the future. */
	r->changed_at = decided_at > 0 && decided_at <= now ? decided_at : now;
	r->pending = r->status == REQ_PENDING;
	r->withdrawn = r->status == REQ_CANCELLED && strncmp(r->response,
	    TEAM_WITHDRAWN, strlen(TEAM_WITHDRAWN)) == 0;
	/* One a quit withdrew, first seen at the next start, stays on show
	 * as long as a decision made now would. */
	if (r->withdrawn && fresh)
		r->changed_at = now;
	/* The selected request just decided, and others wait: the
	 * selection goes to the oldest of them (first after sorting). */
	moves = was_pending && !r->pending && strcmp(t->selected, id) == 0;

	qsort(t->rows, t->n, sizeof *t->rows, table_order);
	if (moves && table_pending(t) > 0)
		table_select_first(t);
	table_prune(t, now);
	t->faded = table_count_faded(t, now);
}

int
table_row_at(const struct table *t, int line)
{
	if (line < 1 || line > t->shown || t->drawn[line - 1] >= t->n)
		return -1;
	return (int)t->drawn[line - 1];
}

const struct table_row *
table_find(struct table *t, const char *id)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (strcmp(t->rows[i].id, id) == 0)
			return &t->rows[i];
	}
	return NULL;
}

const struct table_row *
table_selected(struct table *t)
{
	const struct table_row *r = table_find(t, t->selected);

	return r != NULL && table_lets(t, r) ? r : NULL;
}

static int
table_index(struct table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (strcmp(t->rows[i].id, t->selected) == 0)
			return (int)i;
	}
	return -1;
}

void
table_move(struct table *t, int delta)
{
	long i = table_selected(t) != NULL ? table_index(t) : -1, next;
	int step = delta < 0 ? -1 : 1;

	if (i < 0) {
		if ((i = table_next_shown(t, 0, 1)) >= 0)
			table_select(t, (size_t)i);
		return;
	}
	for (; delta != 0; delta -= step) {
		if ((next = table_next_shown(t, i + step, step)) < 0)
			break;
		i = next;
	}
	table_select(t, (size_t)i);
}

void
table_select(struct table *t, size_t i)
{
	if (i < t->n && table_lets(t, &t->rows[i])) {
		memcpy(t->selected, t->rows[i].id, sizeof t->selected);
		t->chosen = 1;
	}
}

void
table_select_past(struct table *t, const char *from)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->rows[i].pending && strcmp(t->rows[i].from, from) != 0 &&
		    table_lets(t, &t->rows[i])) {
			table_select(t, i);
			t->chosen = 0;
			return;
		}
	}
}

size_t
table_waiting(const struct table *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->rows[i].pending && t->rows[i].type == REQ_PERMISSION;
	return n;
}

size_t
table_pending(const struct table *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->rows[i].pending;
	return n;
}

static int table_width(const char *s);

/* One agent's pending requests, for table_pending_by. */
struct table_asker {
	const char	*name;
	size_t		 n;
};

/* Most first; of as many, by name. */
static int
table_asker_order(const void *a, const void *b)
{
	const struct table_asker *x = a, *y = b;

	if (x->n != y->n)
		return (x->n < y->n) - (x->n > y->n);
	return strcmp(x->name, y->name);
}

/* The agents with pending requests, and how many each (malloc'd). */
static struct table_asker *
table_askers(const struct table *t, size_t *n)
{
	struct table_asker *a = xcalloc(t->n + 1, sizeof *a);
	size_t i, j;

	*n = 0;
	for (i = 0; i < t->n; i++) {
		if (!t->rows[i].pending)
			continue;
		for (j = 0; j < *n && strcmp(a[j].name, t->rows[i].from) != 0;
		    j++)
			;
		if (j == *n)
			a[(*n)++].name = t->rows[i].from;
		a[j].n++;
	}
	qsort(a, *n, sizeof *a, table_asker_order);
	return a;
}

char *
table_pending_by(const struct table *t, int cols)
{
	struct table_asker *a;
	size_t n, i, len = 0, cap = 0;
	char *text = NULL, *one, *rest;

	a = table_askers(t, &n);
	text = xappend(text, &len, &cap, "", 0);
	for (i = 0; i < n; i++) {
		one = xasprintf("%s%s %zu", i ? ", " : "", a[i].name, a[i].n);
		/* Room for this one, and for saying how many more. */
		rest = i + 1 < n ? xasprintf(", %zu more", n - i - 1) :
		    xstrdup("");
		if (table_width(text) + table_width(one) + table_width(rest) >
		    cols) {
			free(one);
			free(rest);
			/* The last one's turn made sure this fits. */
			rest = xasprintf(", %zu more", n - i);
			if (i > 0)
				text = xappend(text, &len, &cap, rest,
				    strlen(rest));
			free(rest);
			break;
		}
		text = xappend(text, &len, &cap, one, strlen(one));
		free(one);
		free(rest);
	}
	free(a);
	return text;
}

void
table_age(int64_t ms, char *buf, size_t len)
{
	int64_t s = ms / 1000;

	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(buf, len, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		snprintf(buf, len, "%lldh", (long long)(s / 3600));
	else
		snprintf(buf, len, "%lldd", (long long)(s / 86400));
}

static enum color_role
table_role(const struct table_row *r, int64_t now_ms)
{
	if (r->pending)
		return ROLE_PENDING;
	if (now_ms - r->changed_at >= TABLE_FADE_MS)
		return ROLE_DIM;
	return r->status == REQ_APPROVED ? ROLE_APPROVED : ROLE_REJECTED;
}

/* "bob → lead" (malloc'd). */
static char *
table_who(const struct table_row *r)
{
	return xasprintf("%s → %s", r->from, r->to);
}

static int
table_width(const char *s)
{
	return (int)text_width(s, strlen(s));
}

/* The status a row shows. */
static const char *
table_status(const struct table_row *r)
{
	return r->withdrawn ? "withdrawn" : req_status_name(r->status);
}

/* The age a row shows: how long a pending request has waited, how long
 * ago a decided one was decided (both count on). */
static void
table_row_age(const struct table_row *r, int64_t now_ms, char *age,
    size_t len)
{
	table_age(now_ms - (r->pending ? r->created_at : r->changed_at), age,
	    len);
}

/* w at least as wide as s. */
static void
table_widen(int *w, const char *s)
{
	if (table_width(s) > *w)
		*w = table_width(s);
}

void
table_columns(const struct table *t, int cols, int64_t now_ms,
    struct table_cols *c)
{
	char age[16], *who;
	size_t i;
	int used, min;

	c->id = table_width("id");
	c->type = table_width("type");
	c->who = table_width("from → to");
	c->age = table_width("age");
	c->status = table_width("status");
	for (i = 0; i < t->n; i++) {
		const struct table_row *r = &t->rows[i];

		table_widen(&c->id, r->id);
		table_widen(&c->type, req_type_name(r->type));
		who = table_who(r);
		table_widen(&c->who, who);
		free(who);
		table_row_age(r, now_ms, age, sizeof age);
		table_widen(&c->age, age);
		table_widen(&c->status, table_status(r));
	}
	/* The summary keeps TABLE_SUMMARY_MIN columns while from → to can
	 * give them. */
	used = c->id + c->type + c->who + c->age + c->status + 5 * TABLE_GAP;
	min = TABLE_WHO_KEEP;
	if (cols - used < TABLE_SUMMARY_MIN && c->who > min) {
		c->who -= TABLE_SUMMARY_MIN - (cols - used);
		if (c->who < min)
			c->who = min;
	}
}

/* Appends s cut to w columns (with "…") and padded to w, then a gap. */
static char *
table_cell(char *line, size_t *len, size_t *cap, const char *s, int w)
{
	char *cut = text_cut(s, strlen(s), w);
	int pad = w - table_width(cut) + TABLE_GAP;

	line = xappend(line, len, cap, cut, strlen(cut));
	while (pad-- > 0)
		line = xappend(line, len, cap, " ", 1);
	free(cut);
	return line;
}

char *
table_row_text(const struct table_row *r, const struct table_cols *c,
    int cols, int64_t now_ms)
{
	char age[16], *who, *summary, *line = NULL;
	size_t len = 0, cap = 0;
	int room;

	table_row_age(r, now_ms, age, sizeof age);
	who = table_who(r);
	line = table_cell(line, &len, &cap, r->id, c->id);
	line = table_cell(line, &len, &cap, req_type_name(r->type), c->type);
	line = table_cell(line, &len, &cap, who, c->who);
	line = table_cell(line, &len, &cap, age, c->age);
	line = table_cell(line, &len, &cap, table_status(r), c->status);
	free(who);
	room = cols - (int)text_width(line, len);
	summary = r->perm != NULL ? permline_summary(r->perm, room > 0 ?
	    room : 0, NULL) : text_cut(r->summary, strlen(r->summary),
	    room);
	line = xappend(line, &len, &cap, summary, strlen(summary));
	free(summary);
	return line;
}

/* The header: the columns' names in their columns (malloc'd). */
static char *
table_header(const struct table_cols *c)
{
	char *header = NULL;
	size_t len = 0, cap = 0;

	header = table_cell(header, &len, &cap, "id", c->id);
	header = table_cell(header, &len, &cap, "type", c->type);
	header = table_cell(header, &len, &cap, "from → to", c->who);
	header = table_cell(header, &len, &cap, "age", c->age);
	header = table_cell(header, &len, &cap, "status", c->status);
	return xappend(header, &len, &cap, "summary", strlen("summary"));
}

void
table_draw(struct table *t, int top, int left, int height, int width,
    int focused, int64_t now_ms)
{
	int sel = -1, y, rows = height - 1, below, marker = 0, nvis = 0;
	int hidden = 0;
	struct table_cols c;
	size_t i, *vis;
	char *more, *header;

	if (height <= 0 || width <= 0)
		return;
	t->shown = 0;
	table_columns(t, width, now_ms, &c);
	header = table_header(&c);
	attrset(color_attr(ROLE_TABLE_HEADER));
	draw_cut_at(top, left, header, width);
	free(header);
	if (t->n == 0) {
		attrset(color_attr(ROLE_DIM));
		if (rows > 0)
			draw_cut_at(top + 1, left, "no requests yet", width);
		attrset(A_NORMAL);
		return;
	}
	/* The rows the filter lets through, and the selection's place. */
	vis = xcalloc(t->n, sizeof *vis);
	for (i = 0; i < t->n; i++) {
		if (!table_lets(t, &t->rows[i])) {
			hidden += t->rows[i].pending;
			continue;
		}
		if (strcmp(t->rows[i].id, t->selected) == 0)
			sel = nvis;
		vis[nvis++] = i;
	}
	t->drawn = xgrow(t->drawn, &t->capdrawn, t->n, sizeof *t->drawn);
	/* More rows than room, or a filter: the last row says how many are
	 * out of view, and what filters. */
	if ((nvis > rows || *t->filter != '\0') && rows > 1) {
		rows--;
		marker = 1;
	}
	/* Keep the selection in view. */
	if (sel >= 0 && sel < t->first)
		t->first = sel;
	if (sel >= 0 && rows > 0 && sel >= t->first + rows)
		t->first = sel - rows + 1;
	if (t->first > nvis - 1)
		t->first = 0;
	for (y = top + 1; t->first + t->shown < nvis && y < top + 1 + rows;
	    y++) {
		int k = t->first + t->shown;
		const struct table_row *r = &t->rows[vis[k]];
		char *line;

		line = table_row_text(r, &c, width, now_ms);
		t->drawn[t->shown++] = vis[k];
		attrset(k == sel ? color_attr(ROLE_SELECTED) |
		    (focused ? A_BOLD : 0) : color_attr(table_role(r, now_ms)));
		mvhline(y, left, ' ', k == sel ? width : 0);
		draw_cut_at(y, left, line, width);
		free(line);
	}
	below = nvis - t->first - rows;
	/* A request that waits, hidden by the filter, is told of first. */
	if (marker && *t->filter != '\0')
		more = xasprintf("/%s: %d of %zu%s%.0d%s · %d above · %d below "
		    "(Esc on the table clears it)", t->filter, nvis, t->n,
		    hidden ? " · " : "", hidden, hidden ? " waiting hidden" :
		    "", t->first, below > 0 ? below : 0);
	else if (marker)
		more = xasprintf("%d more above · %d more below (Tab to the "
		    "table, Up/Down)", t->first, below > 0 ? below : 0);
	if (marker) {
		attrset(color_attr(ROLE_DIM));
		draw_cut_at(top + 1 + rows, left, more, width);
		free(more);
	}
	attrset(A_NORMAL);
	free(vis);
}
