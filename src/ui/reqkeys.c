/*
 * What the keys that act on a request do with it now (see reqkeys.h).
 */
#include "config.h"

#include <string.h>

#include "agent/netgate.h"
#include "ui/reqkeys.h"
#include "ui/view.h"

int
reqkeys_is_network(const struct table_row *r)
{
	return strncmp(r->body, NETGATE_PREFIX, strlen(NETGATE_PREFIX)) == 0;
}

/*
 * F5 and F6 decide r when the detail view shows it or the hint line
 * showed it whole when last drawn (shown_id; `whole` when the hint line
 * is being written), else they show it whole first, so no key ever
 * decides a request the person has not been shown. The hint's promises
 * and the keys themselves both ask here.
 */
int
reqkeys_decides(struct view *v, const struct table_row *r, int whole)
{
	(void)r;
	return v->popup == POPUP_DETAIL || whole;
}

const char *
reqkeys_approve_says(struct view *v, const struct table_row *r, int whole)
{
	if (!view_decidable(v, r))
		return NULL;
	if (!reqkeys_decides(v, r, whole))
		return "shows all";
	return reqkeys_is_network(r) ? "allows it for this command" :
	    "approves";
}

const char *
reqkeys_reject_says(struct view *v, const struct table_row *r, int whole)
{
	if (!view_decidable(v, r) || !reqkeys_decides(v, r, whole))
		return NULL;
	return reqkeys_is_network(r) ? "denies" : "rejects";
}

const char *
reqkeys_team_says(struct view *v, const struct table_row *r, int whole)
{
	(void)whole;
	return view_decidable(v, r) && reqkeys_is_network(r) ?
	    "for the whole team" : NULL;
}

const char *
reqkeys_enter_says(struct view *v, const struct table_row *r, int whole)
{
	(void)whole;
	if (v->input.len > 0 || r != table_selected(&v->table) ||
	    reqkeys_fold_selected(v) != NULL)
		return NULL;
	return reqkeys_is_network(r) && view_decidable(v, r) ?
	    "then t: for the team" : "shows all";
}

/* Whether F5 and F6 would show the selected request first (drawn after
 * the hint line, which notes what it showed). */
static int
reqkeys_would_show(struct view *v)
{
	const struct table_row *r = table_selected(&v->table);

	return !v->show_tasks && r != NULL && view_decidable(v, r) &&
	    !reqkeys_decides(v, r, strcmp(v->shown_id, r->id) == 0);
}

const char *
reqkeys_approve_label(struct view *v)
{
	return reqkeys_would_show(v) ? "Show" : "Approve";
}

const char *
reqkeys_reject_label(struct view *v)
{
	return reqkeys_would_show(v) ? "Show" : "Reject";
}

struct pane *
reqkeys_fold_selected(struct view *v)
{
	struct pane *p;

	if (v->input.len > 0 || v->focus < 0 || (size_t)v->focus >=
	    v->npanes)
		return NULL;
	p = v->panes[v->focus];
	return p->sel_on && pane_fold_head(p, p->sel_seq) != NULL ? p : NULL;
}

const struct table_row *
reqkeys_enter_shows(struct view *v)
{
	const struct table_row *r = table_selected(&v->table);

	if (v->input.len > 0 || r == NULL || (v->focus == FOCUS_TABLE &&
	    v->show_tasks) || reqkeys_fold_selected(v) != NULL)
		return NULL;
	return r->pending || v->focus == FOCUS_TABLE ? r : NULL;
}
