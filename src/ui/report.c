/*
 * A command's report on the screen (ui/report.h): /team as a table, the
 * requests, the tasks, the worktrees and the roles as lines in the lead's
 * pane, /diff in its view.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/team.h"
#include "ui/diffview.h"
#include "ui/draft.h"
#include "ui/pane.h"
#include "ui/permline.h"
#include "ui/report.h"
#include "ui/text.h"
#include "ui/view.h"
#include "util/xmalloc.h"

/* The columns of /team's table. */
#define REPORT_TEAM_COLS	6

/* One row of a table: each cell padded to its column's width, two
 * blanks between, the last not padded (malloc'd). */
static char *
report_row(char *const *cells, const size_t *w, size_t ncols)
{
	char *out = NULL;
	size_t len = 0, cap = 0, c, have, pad;

	for (c = 0; c < ncols; c++) {
		if (c > 0)
			out = xappend(out, &len, &cap, "  ", 2);
		out = xappend(out, &len, &cap, cells[c], strlen(cells[c]));
		have = text_width(cells[c], strlen(cells[c]));
		for (pad = have; c + 1 < ncols && pad < w[c]; pad++)
			out = xappend(out, &len, &cap, " ", 1);
	}
	return out != NULL ? out : xstrdup("");
}

/* The cells of one member's row of /team's table. */
static void
report_member_cells(json_t *m, char *cells[REPORT_TEAM_COLS])
{
	int need = json_is_true(json_object_get(m, "plan_required"));
	int ok = json_is_true(json_object_get(m, "plan_approved"));
	int64_t window = (int64_t)json_integer_value(json_object_get(m,
	    "context_window"));
	int64_t in = (int64_t)json_integer_value(json_object_get(m,
	    "input_tokens")) + (int64_t)json_integer_value(json_object_get(m,
	    "cache_write_tokens")) + (int64_t)json_integer_value(
	    json_object_get(m, "cache_read_tokens"));

	cells[0] = xstrdup(json_string_value(json_object_get(m, "name")));
	cells[1] = xasprintf("%s%s", json_string_value(json_object_get(m,
	    "status")), !need ? "" : ok ? " (plan ok)" : " (plan waits)");
	cells[2] = window > 0 ? xasprintf("%lld%%", (long long)
	    (json_integer_value(json_object_get(m, "context_tokens")) * 100 /
	    window)) : xstrdup("-");
	cells[3] = xasprintf("%lld/%lld", (long long)in, (long long)
	    json_integer_value(json_object_get(m, "output_tokens")));
	cells[4] = xasprintf("$%.2f", json_real_value(json_object_get(m,
	    "cost_usd")));
	cells[5] = xasprintf("%s, %s", json_string_value(json_object_get(m,
	    "role")), json_string_value(json_object_get(m, "model")));
}

/* /team's report in the lead's pane: a table of the members, one row
 * each, its columns as wide as their widest cell, the widest-varying
 * (role and model) last so that a narrow pane wraps only them; then the
 * budget and the sandbox. */
static void
report_team(struct view *v, json_t *report)
{
	static const char *const head[REPORT_TEAM_COLS] = {
		"member", "status", "ctx", "tokens in/out", "cost",
		"role, model"
	};
	json_t *members = json_object_get(report, "members"), *m;
	size_t n = json_array_size(members), i, c, w[REPORT_TEAM_COLS];
	char *(*cells)[REPORT_TEAM_COLS] = xcalloc(n + 1, sizeof *cells);
	struct pane *lead = v->panes[0];
	char *line;

	for (c = 0; c < REPORT_TEAM_COLS; c++) {
		cells[0][c] = xstrdup(head[c]);
		w[c] = text_width(head[c], strlen(head[c]));
	}
	json_array_foreach(members, i, m) {
		report_member_cells(m, cells[i + 1]);
		for (c = 0; c < REPORT_TEAM_COLS; c++)
			if (text_width(cells[i + 1][c], strlen(cells[i + 1][c]))
			    > w[c])
				w[c] = text_width(cells[i + 1][c],
				    strlen(cells[i + 1][c]));
	}
	pane_add(lead, ROLE_DIM, "team:");
	for (i = 0; i <= n; i++) {
		line = report_row(cells[i], w, REPORT_TEAM_COLS);
		pane_add(lead, i == 0 ? ROLE_TABLE_HEADER : ROLE_DIM, line);
		free(line);
		for (c = 0; c < REPORT_TEAM_COLS; c++)
			free(cells[i][c]);
	}
	free(cells);
	line = team_budget_text(v->team);
	pane_add(lead, ROLE_DIM, line);
	free(line);
	pane_add(lead, ROLE_DIM, json_string_value(json_object_get(report,
	    "sandbox")));
}

/* /requests' report as lines in the lead's pane (the table shows the
 * requests too; this keeps a record): the first line of each body, and
 * a mark when there is more. */
static void
report_requests(struct view *v, json_t *report)
{
	json_t *list = json_object_get(report, "requests"), *r;
	struct pane *lead = v->panes[0];
	const char *body, *nl, *by;
	size_t i;
	char *line;

	pane_add(lead, ROLE_DIM, json_array_size(list) == 0 ?
	    "requests: none yet" :
	    "requests (pending first, then the last decided):");
	json_array_foreach(list, i, r) {
		struct permline pl;
		char *what = NULL;

		body = json_string_value(json_object_get(r, "body"));
		by = json_string_value(json_object_get(r, "decided_by"));
		nl = strchr(body, '\n');
		if (strcmp(json_string_value(json_object_get(r, "type")),
		    "permission") == 0 && permline_from_body(body, &pl) == 0) {
			what = permline_summary(&pl, TABLE_SUMMARY_COLS, NULL);
			permline_clear(&pl);
		}
		line = xasprintf("  %s · %s · %s → %s · %s%s%s · %.*s%s",
		    json_string_value(json_object_get(r, "id")),
		    json_string_value(json_object_get(r, "type")),
		    json_string_value(json_object_get(r, "from")),
		    json_string_value(json_object_get(r, "to")),
		    json_string_value(json_object_get(r, "status")),
		    by ? " by " : "", by ? by : "", what != NULL ?
		    (int)strlen(what) : (int)(nl ? (size_t)(nl - body) :
		    strlen(body)), what != NULL ? what : body,
		    what == NULL && nl ? " …" : "");
		free(what);
		pane_add(lead, ROLE_DIM, line);
		free(line);
	}
}

/* With label NULL, the string o[key]; else label when o has it; "" when
 * it has not. */
static const char *
report_opt(json_t *o, const char *key, const char *label)
{
	const char *value = json_string_value(json_object_get(o, key));

	if (value == NULL)
		return "";
	return label != NULL ? label : value;
}

/* /worktrees's report as lines in the lead's pane. */
static void
report_worktrees(struct view *v, json_t *report)
{
	json_t *list = json_object_get(report, "worktrees"), *w;
	struct pane *lead = v->panes[0];
	size_t i;
	char *line;

	pane_add(lead, ROLE_DIM, json_array_size(list) == 0 ?
	    "worktrees: none" : "worktrees:");
	json_array_foreach(list, i, w) {
		if (json_is_true(json_object_get(w, "missing")))
			line = xasprintf("  %s · %s · MISSING (%s)",
			    json_string_value(json_object_get(w, "name")),
			    json_string_value(json_object_get(w, "branch")),
			    json_string_value(json_object_get(w, "path")));
		else
			line = xasprintf("  %s · %s · %d ahead, %d behind"
			    "%s%s%s%s%s%s%s", json_string_value(
			    json_object_get(w, "name")), json_string_value(
			    json_object_get(w, "branch")),
			    (int)json_integer_value(json_object_get(w,
			    "ahead")), (int)json_integer_value(
			    json_object_get(w, "behind")), json_is_true(
			    json_object_get(w, "dirty")) ?
			    " · uncommitted work" : "",
			    json_is_true(json_object_get(w, "merged")) ?
			    " · merged" : " · not merged",
			    report_opt(w, "holder", " · worked by "),
			    report_opt(w, "holder", NULL),
			    report_opt(w, "tasks", " · tasks "),
			    report_opt(w, "tasks", NULL),
			    json_is_string(json_object_get(w, "member")) ? "" :
			    " · the board's");
		pane_add(lead, ROLE_DIM, line);
		free(line);
	}
}

/* /tasks's report as lines in the lead's pane. */
static void
report_tasks(struct view *v, json_t *report)
{
	json_t *list = json_object_get(report, "tasks"), *k;
	struct pane *lead = v->panes[0];
	const char *owner, *checked;
	size_t i;
	char *line;

	pane_add(lead, ROLE_DIM, json_array_size(list) == 0 ?
	    "tasks: none yet (/task add SUBJECT)" : "tasks:");
	json_array_foreach(list, i, k) {
		owner = json_string_value(json_object_get(k, "owner"));
		checked = json_string_value(json_object_get(k, "checked"));
		line = xasprintf("  %s · %s%s%s%s · %s%s",
		    json_string_value(json_object_get(k, "id")),
		    json_string_value(json_object_get(k, "status")),
		    owner ? " · " : "", owner ? owner : "",
		    json_is_true(json_object_get(k, "owner_gone")) ?
		    " (gone)" : "", checked && strcmp(checked, "passed") == 0 ?
		    "✓ " : checked && strcmp(checked, "failed") == 0 ? "✗ " :
		    "", json_string_value(json_object_get(k, "subject")));
		pane_add(lead, ROLE_DIM, line);
		free(line);
	}
}

/* /roles' report as lines in the lead's pane. */
static void
report_roles(struct view *v, json_t *report)
{
	struct pane *lead = v->panes[0];
	json_t *r, *n, *tools;
	size_t i, j;
	char *line, *list;

	pane_add(lead, ROLE_DIM, json_array_size(json_object_get(report,
	    "roles")) ? "roles:" : "roles: none defined");
	json_array_foreach(json_object_get(report, "roles"), i, r) {
		tools = json_object_get(r, "tools");
		list = json_is_array(tools) ? xstrdup("") : xstrdup("all");
		json_array_foreach(tools, j, n) {
			char *next = xasprintf("%s%s%s", list, j ? ", " : "",
			    json_string_value(n));

			free(list);
			list = next;
		}
		line = xasprintf("  %s · %s · model %s · tools: %s%s%s · %s "
		    "(%s)%s%s", json_string_value(json_object_get(r, "name")),
		    json_string_value(json_object_get(r, "description")),
		    json_is_string(json_object_get(r, "model")) ?
		    json_string_value(json_object_get(r, "model")) : "the team's",
		    *list ? list : "the team's own only",
		    json_is_true(json_object_get(r, "plan_required")) ?
		    " · plan required" : "",
		    json_is_true(json_object_get(r, "autonomous")) ?
		    " · autonomous" : "",
		    json_string_value(json_object_get(r, "origin")),
		    json_string_value(json_object_get(r, "path")),
		    json_is_string(json_object_get(r, "note")) ? " · " : "",
		    json_is_string(json_object_get(r, "note")) ?
		    json_string_value(json_object_get(r, "note")) : "");
		pane_add(lead, ROLE_DIM, line);
		free(line);
		free(list);
	}
	json_array_foreach(json_object_get(report, "notices"), i, n)
		pane_add(lead, ROLE_DIM, json_string_value(n));
}

void
report_show(struct view *v, enum command_kind kind, json_t *data)
{
	switch (kind) {
	case CMD_TEAM:
		report_team(v, data);
		break;
	case CMD_REQUESTS:
		report_requests(v, data);
		draft_focus(v, FOCUS_TABLE);
		v->show_tasks = 0;
		break;
	case CMD_TASKS:
		report_tasks(v, data);
		draft_focus(v, FOCUS_TABLE);
		v->show_tasks = 1;
		break;
	case CMD_DIFF:
		diffview_open(&v->diff, data);
		v->popup = POPUP_DIFF;
		break;
	case CMD_WORKTREES:
		report_worktrees(v, data);
		break;
	case CMD_ROLES:
		report_roles(v, data);
		break;
	default:
		break;
	}
}

