/*
 * One draft per agent (see draft.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/command.h"
#include "core/roster.h"
#include "ui/draft.h"
#include "ui/reqkeys.h"
#include "ui/view.h"
#include "util/xmalloc.h"

/* The pane whose draft the input line holds with focus i: the table's
 * text goes to the lead. */
static size_t
draft_owner(int i)
{
	return i < 0 ? 0 : (size_t)i;
}

void
draft_focus(struct view *v, int i)
{
	size_t from = draft_owner(v->focus), to = draft_owner(i);
	struct pane *a, *b;

	if (from != to && from < v->npanes && to < v->npanes) {
		a = v->panes[from];
		b = v->panes[to];
		free(a->draft);
		a->draft = xstrdup(v->input.buf);
		a->draft_cursor = v->input.cursor;
		input_set(&v->input, b->draft != NULL ? b->draft : "",
		    b->draft_cursor);
		free(b->draft);
		b->draft = NULL;
	}
	v->focus = i;
}

/* The pane of agent name, or NULL. */
static struct pane *
draft_pane(struct view *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->npanes && name != NULL; i++)
		if (strcmp(v->panes[i]->name, name) == 0)
			return v->panes[i];
	return NULL;
}

char *
draft_prompt(struct view *v)
{
	const struct table_row *r;
	const char *name = view_focus_name(v);
	struct pane *p = draft_pane(v, name);

	if (v->focus == FOCUS_TABLE && v->input.len == 0 &&
	    (r = reqkeys_enter_shows(v)) != NULL)
		return xasprintf("Enter shows the %s request %s → %s> ",
		    req_type_name(r->type), r->from, r->to);
	if (p != NULL && p->status == MEMBER_TERMINATED &&
	    strcmp(name, ROSTER_LEAD) != 0)
		return xasprintf("%s (ended: not sent)> ", name);
	return xasprintf("%s> ", name);
}

int
draft_kept(struct view *v)
{
	struct command c;
	struct pane *p = NULL;
	int kept;

	command_parse(v->input.buf, &c);
	if (c.kind == CMD_SAY)
		p = draft_pane(v, view_focus_name(v));
	else if (c.kind == CMD_MSG)
		p = draft_pane(v, c.name);
	kept = p != NULL && p->status == MEMBER_TERMINATED &&
	    strcmp(p->name, ROSTER_LEAD) != 0;
	if (kept)
		view_hint(v, ROLE_ERROR, "%s has ended and reads no more: "
		    "nothing was sent, the text stays in this draft (Tab to "
		    "an agent still at work to write there)", p->name);
	command_clear(&c);
	return kept;
}
