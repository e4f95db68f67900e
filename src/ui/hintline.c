/*
 * The selected request on the hint line (see hintline.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/hintline.h"
#include "ui/keymap.h"
#include "ui/permline.h"
#include "ui/reqkeys.h"
#include "ui/text.h"
#include "ui/view.h"
#include "util/xmalloc.h"

/* Columns of a command's summary on the hint line below which the
 * hint's own key help makes way. */
#define HINTLINE_ROOM 40

/* The person's word for a request's kind. */
static const char *
hintline_kind(enum req_type type)
{
	if (type == REQ_PERMISSION)
		return "command";
	if (type == REQ_SHUTDOWN)
		return "shutdown request";
	return req_type_name(type);
}

/*
 * The hint line's text for r in cols columns, with what the keys say
 * they do when the command (or whose and what request it is) is shown
 * whole (`whole`) or not; *shown is whether it is, within cols.
 */
static char *
hintline_try(struct view *v, const struct table_row *r, int cols,
    int whole, const char *more, size_t *must)
{
	char *head, *keys, *text, *what;
	int room, shown = 0;

	keys = keymap_request_phrase(v, r, whole);
	if (!view_decidable(v, r))
		head = xasprintf("selected: %s's %s to %s, for %s to answer",
		    r->from, hintline_kind(r->type), r->to, r->to);
	else
		head = xasprintf("%s's %s%s%s", r->from,
		    reqkeys_is_network(r) ? "network request" :
		    hintline_kind(r->type), *keys ? " " : "", keys);
	/* A command leads with why it was flagged and keeps the flagged
	 * part in view, in the room the line has; when the keys would
	 * leave it too little, the ones that decide (shown on the last
	 * row too) give way, but never a promise that F5 shows first. */
	room = cols - (int)text_width(head, strlen(head)) - 2 -
	    (int)text_width(more, strlen(more));
	if (r->perm != NULL && room < HINTLINE_ROOM) {
		/* The count is in the table's title too. */
		room += (int)text_width(more, strlen(more));
		more = "";
	}
	if (r->perm != NULL && room < HINTLINE_ROOM && whole &&
	    view_decidable(v, r)) {
		room += (int)text_width(head, strlen(head));
		free(head);
		head = xasprintf("%s's %s", r->from, hintline_kind(r->type));
		room -= (int)text_width(head, strlen(head));
	}
	what = r->perm != NULL ? permline_summary(r->perm, room > 0 ? room :
	    0, &shown) : xstrdup(r->summary);
	text = xasprintf("%s: %s%s", head, what, more);
	/* A command must be seen whole, on one line, before a key runs
	 * it; of anything else, whose it is and what it is. */
	*must = HINTLINE_NOT_WHOLE;
	if (r->type != REQ_PERMISSION)
		*must = strlen(head);
	else if (shown || (r->perm == NULL && strchr(r->body, '\n') == NULL))
		*must = strlen(text) - strlen(more);
	if (*must != HINTLINE_NOT_WHOLE && (int)text_width(text, *must) > cols)
		*must = HINTLINE_NOT_WHOLE;
	free(what);
	free(head);
	free(keys);
	return text;
}

char *
hintline_selection(struct view *v, int cols, size_t *must)
{
	const struct table_row *r = table_selected(&v->table);
	size_t waiting = table_pending(&v->table);
	char more[48] = "", *text;

	*must = HINTLINE_NOT_WHOLE;
	if (r == NULL || !r->pending)
		return NULL;
	if (waiting > 1)
		snprintf(more, sizeof more, " · %zu pending", waiting);
	/* What the keys promise is what they will do: that they decide
	 * when the request is shown whole, else that they show it first. */
	text = hintline_try(v, r, cols, 1, more, must);
	if (*must != HINTLINE_NOT_WHOLE)
		return text;
	free(text);
	text = hintline_try(v, r, cols, 0, more, must);
	*must = HINTLINE_NOT_WHOLE;
	return text;
}
