/*
 * Keys and the input line's commands (see view.h). Each handler returns
 * KEY_* flags; the loop in ui.c acts on them (redraw, repaint, quit), as
 * htop's panels do.
 */
#include "config.h"

#include <curses.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "agent/command.h"
#include "agent/netgate.h"
#include "core/roster.h"
#include "ui/keyread.h"
#include "ui/view.h"
#include "util/xmalloc.h"

#define CTRL(c) ((c) & 0x1f)
/* A key of our own: h on the table hides or shows ended teammates. */
#define KEYS_HIDE_ENDED	(KEY_MAX + 64)

/* Rows one turn of the mouse wheel scrolls a pane. */
#define KEYS_WHEEL_ROWS 3

/* The wheel turning down is button 5, which only the version-2 mouse
 * protocol of ncurses knows; without it the wheel scrolls up only. */
#if NCURSES_MOUSE_VERSION > 1
#define KEYS_WHEEL_DOWN BUTTON5_PRESSED
#else
#define KEYS_WHEEL_DOWN 0
#endif

/* --- what the person decides -------------------------------------------- */

static int
keys_detail_open(struct view *v, const struct table_row *r)
{
	memcpy(v->detail_id, r->id, sizeof v->detail_id);
	v->detail_first = 0;
	v->popup = POPUP_DETAIL;
	return KEY_REDRAW;
}

/*
 * The request F5 or F6 may act on now: the one the detail view shows,
 * or the selected one if the hint line showed it whole when last drawn.
 * Anything else opens the detail view of the selected request first, so
 * no key ever decides a request the person has not been shown.
 */
static const struct table_row *
keys_target(struct view *v, int *flags)
{
	const struct table_row *r = v->popup == POPUP_DETAIL ?
	    table_find(&v->table, v->detail_id) : table_selected(&v->table);

	*flags = KEY_REDRAW;
	if (r == NULL || !r->pending) {
		v->popup = POPUP_NONE;
		view_hint(v, ROLE_ERROR, "no pending request is selected (Tab "
		    "to the table, Up/Down to choose)");
		return NULL;
	}
	if (!view_decidable(v, r)) {
		v->popup = POPUP_NONE;
		view_hint(v, ROLE_ERROR, "%s's %s is for %s to answer, not "
		    "you", r->from, req_type_name(r->type), r->to);
		return NULL;
	}
	if (v->popup != POPUP_DETAIL && strcmp(v->shown_id, r->id) != 0) {
		*flags = keys_detail_open(v, r);
		return NULL;
	}
	return r;
}

static int
keys_approve(struct view *v)
{
	const struct table_row *r;
	char *msg = NULL;
	int flags, ok;

	if ((r = keys_target(v, &flags)) == NULL)
		return flags;
	v->popup = POPUP_NONE;
	ok = team_decide(v->team, r->id, 1, NULL, &msg) == PROTO_DECIDED;
	view_hint(v, ok ? ROLE_HINT : ROLE_ERROR, "%s", msg);
	free(msg);
	return KEY_REDRAW;
}

/* t in the detail view of a network request: allowed for the whole
 * team (agent/netgate.h). */
static int
keys_allow_team(struct view *v)
{
	const struct table_row *r;
	char *msg = NULL;
	int flags, ok;

	if ((r = keys_target(v, &flags)) == NULL)
		return flags;
	if (strncmp(r->body, NETGATE_PREFIX, strlen(NETGATE_PREFIX)) != 0) {
		view_hint(v, ROLE_ERROR, "t allows a network request for the "
		    "whole team; this is not one");
		return KEY_REDRAW;
	}
	v->popup = POPUP_NONE;
	ok = team_decide(v->team, r->id, 1, NETGATE_TEAM, &msg) ==
	    PROTO_DECIDED;
	view_hint(v, ok ? ROLE_HINT : ROLE_ERROR, "%s%s", msg, ok ?
	    ", for the whole team" : "");
	free(msg);
	return KEY_REDRAW;
}

static int
keys_reject_prompt(struct view *v)
{
	const struct table_row *r;
	int flags;

	if ((r = keys_target(v, &flags)) == NULL)
		return flags;
	memcpy(v->reject_id, r->id, sizeof v->reject_id);
	input_kill(&v->feedback);
	v->popup = POPUP_FEEDBACK;
	return KEY_REDRAW;
}

/* The detail view: F5/F6 decide (t: a network request for the team),
 * arrows and pages scroll, Esc or Enter
 * closes. */
static int
keys_detail(struct view *v, int is_key, wint_t wc)
{
	if (is_key && wc == KEY_F(5))
		return keys_approve(v);
	if (is_key && wc == KEY_F(6))
		return keys_reject_prompt(v);
	if (!is_key && (wc == 't' || wc == 'T'))
		return keys_allow_team(v);
	if (is_key && (wc == KEY_UP || wc == KEY_PPAGE))
		v->detail_first -= wc == KEY_UP ? 1 : 10;
	else if (is_key && (wc == KEY_DOWN || wc == KEY_NPAGE))
		v->detail_first += wc == KEY_DOWN ? 1 : 10;
	else if ((!is_key && (wc == '\r' || wc == '\n' || wc == 'q')) ||
	    (is_key && wc == KEY_ENTER))
		v->popup = POPUP_NONE;
	if (v->detail_first < 0)
		v->detail_first = 0;
	return KEY_REDRAW;
}

size_t
keys_menu_items(struct view *v, struct pane **items, size_t max)
{
	size_t i, n = 0;

	for (i = 1; i < v->npanes && n < max; i++) {
		if (v->panes[i]->status != MEMBER_TERMINATED)
			items[n++] = v->panes[i];
	}
	return n;
}

int
keys_shutdown_expired(struct view *v, const char *name)
{
	const struct table_row *newest = NULL;
	size_t i;

	for (i = 0; i < v->table.n; i++) {
		const struct table_row *r = &v->table.rows[i];

		if (r->type == REQ_SHUTDOWN &&
		    strcmp(r->to, name) == 0 && (newest == NULL ||
		    r->created_at > newest->created_at))
			newest = r;
	}
	return newest != NULL && newest->status == REQ_EXPIRED;
}

static int
keys_menu_choose(struct view *v)
{
	struct pane *items[64];
	size_t n = keys_menu_items(v, items, 64);
	char *err = NULL;
	const char *name;

	v->popup = POPUP_NONE;
	if (n == 0 || v->menu_sel < 0 || (size_t)v->menu_sel >= n)
		return KEY_REDRAW;
	name = items[v->menu_sel]->name;
	if (keys_shutdown_expired(v, name)) {
		if (team_force_stop(v->team, name, &err) == -1)
			view_hint(v, ROLE_ERROR, "%s", err);
		else
			view_hint(v, ROLE_HINT, "stopping %s now", name);
	} else if (team_request_shutdown(v->team, name, &err) == -1)
		view_hint(v, ROLE_ERROR, "%s", err);
	else
		view_hint(v, ROLE_HINT, "asked %s to shut down", name);
	free(err);
	return KEY_REDRAW;
}

static int
keys_popup(struct view *v, int is_key, wint_t wc)
{
	struct pane *items[64];
	size_t n;
	char *text, *msg = NULL;

	if (!is_key && wc == 0x1b) {
		v->popup = POPUP_NONE;
		return KEY_REDRAW;
	}
	switch (v->popup) {
	case POPUP_HELP:
		v->popup = POPUP_NONE;
		break;
	case POPUP_DETAIL:
		return keys_detail(v, is_key, wc);
	case POPUP_DIFF:
		if (is_key && (wc == KEY_UP || wc == KEY_DOWN))
			diffview_scroll(&v->diff, wc == KEY_UP ? -1 : 1);
		else if (is_key && (wc == KEY_PPAGE || wc == KEY_NPAGE))
			diffview_scroll(&v->diff, (wc == KEY_PPAGE ? -1 : 1) *
			    (LINES - 6 > 1 ? LINES - 6 : 1));
		else if (is_key && (wc == KEY_HOME || wc == KEY_END))
			diffview_scroll(&v->diff, wc == KEY_HOME ? INT_MIN / 2 :
			    INT_MAX);
		else if ((!is_key && (wc == 'q' || wc == '\r' ||
		    wc == '\n')) || (is_key && (wc == KEY_ENTER ||
		    wc == KEY_F(7))))
			v->popup = POPUP_NONE;
		break;
	case POPUP_MENU:
		n = keys_menu_items(v, items, 64);
		if (is_key && wc == KEY_UP && v->menu_sel > 0)
			v->menu_sel--;
		else if (is_key && wc == KEY_DOWN && (size_t)v->menu_sel + 1 < n)
			v->menu_sel++;
		else if ((!is_key && (wc == '\r' || wc == '\n')) ||
		    (is_key && wc == KEY_ENTER))
			return keys_menu_choose(v);
		else if (is_key && wc == KEY_F(9))
			v->popup = POPUP_NONE;
		break;
	case POPUP_FEEDBACK:
		if ((!is_key && (wc == '\r' || wc == '\n')) ||
		    (is_key && wc == KEY_ENTER)) {
			text = input_take(&v->feedback);
			team_decide(v->team, v->reject_id, 0, text, &msg);
			view_hint(v, ROLE_HINT, "%s", msg);
			free(msg);
			free(text);
			v->popup = POPUP_NONE;
		} else if (!is_key && (wc == 127 || wc == 8))
			input_backspace(&v->feedback);
		else if (is_key && wc == KEY_BACKSPACE)
			input_backspace(&v->feedback);
		else if (is_key && wc == KEY_LEFT)
			input_left(&v->feedback);
		else if (is_key && wc == KEY_RIGHT)
			input_right(&v->feedback);
		else if (!is_key)
			input_insert(&v->feedback, (wchar_t)wc);
		break;
	case POPUP_NONE:
		break;
	}
	return KEY_REDRAW;
}

/* --- focus, scrolling, the mouse ------------------------------------------- */

/* Tab and S-Tab: the next pane on show, or the table. */
static void
keys_focus(struct view *v, int dir)
{
	int n = (int)v->npanes + 1, i = v->focus == FOCUS_TABLE ?
	    (int)v->npanes : v->focus, tries;

	for (tries = 0; tries < n; tries++) {
		i = ((i + dir) % n + n) % n;
		if (i == (int)v->npanes || !view_hidden(v, (size_t)i))
			break;
	}
	v->focus = i == (int)v->npanes ? FOCUS_TABLE : i;
}

/*
 * Letters that stand for F-keys while the table has the focus and the
 * input line is empty (typing could not mean them): for terminals that
 * have no F-keys or keep them. Returns the F-key, or 0.
 */
static int
keys_table_letter(struct view *v, wint_t wc)
{
	if (v->focus != FOCUS_TABLE || v->input.len > 0)
		return 0;
	switch (wc) {
	case 'a':
		return KEY_F(5);
	case 'r':
		return KEY_F(6);
	case '?':
		return KEY_F(1);
	case 'z':
		return KEY_F(8);
	case 's':
		return KEY_F(9);
	case 'h':
		return KEYS_HIDE_ENDED;
	case 't':
		return KEY_F(4);
	}
	return 0;
}

static struct pane *
keys_focused_pane(struct view *v)
{
	if (v->focus < 0 || (size_t)v->focus >= v->npanes)
		return NULL;
	return v->panes[v->focus];
}

/* Esc: with the input line empty, interrupts the focused agent's turn
 * (the lead's when the table has the focus). */
static int
keys_interrupt(struct view *v)
{
	char *err = NULL;

	if (v->input.len > 0)
		return KEY_HANDLED;
	if (team_interrupt(v->team, view_focus_name(v), &err) == -1) {
		view_hint(v, ROLE_HINT, "%s", err);
		free(err);
	} else
		view_hint(v, ROLE_HINT, "interrupting %s", view_focus_name(v));
	return KEY_REDRAW;
}

static int
keys_page(struct view *v, int dir)
{
	struct pane *p = keys_focused_pane(v);
	size_t i = v->focus < 0 ? 0 : (size_t)v->focus;
	int rows = i < v->npanes && v->rects ? v->rects[i].h - 1 : 10;

	/* dir 1 is PgUp: back in a pane, up the table. */
	if (v->focus == FOCUS_TABLE)
		table_move(&v->table, -dir * 5);
	else if (p != NULL)
		pane_scroll(p, dir * (rows > 1 ? rows : 1));
	return KEY_REDRAW;
}

mmask_t
view_mouse_mask(void)
{
	return BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED |
	    BUTTON4_PRESSED | KEYS_WHEEL_DOWN;
}

/* The pane at a screen cell, or -1. */
static int
keys_pane_at(struct view *v, int y, int x)
{
	size_t i;

	for (i = 0; i < v->npanes && v->rects != NULL; i++) {
		struct rect *r = &v->rects[i];

		if (y >= r->y && y < r->y + r->h && x >= r->x &&
		    x < r->x + r->w)
			return (int)i;
	}
	return -1;
}

/* A click focuses a pane or selects a table row; the wheel scrolls the
 * pane under the pointer, or moves the table's selection. */
static int
keys_mouse(struct view *v)
{
	MEVENT me;
	int pane, in_table, wheel = 0;

	if (getmouse(&me) != OK)
		return KEY_HANDLED;
	if (me.bstate & BUTTON4_PRESSED)
		wheel = 1;
	else if (me.bstate & KEYS_WHEEL_DOWN)
		wheel = -1;
	else if (!(me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED |
	    BUTTON1_RELEASED)))
		return KEY_HANDLED;
	pane = keys_pane_at(v, me.y, me.x);
	in_table = me.y > v->table_rect.y && me.y < v->table_rect.y +
	    v->table_rect.h;
	if (wheel != 0) {
		if (pane >= 0)
			pane_scroll(v->panes[pane], wheel * KEYS_WHEEL_ROWS);
		else if (in_table && v->show_tasks)
			tasklist_scroll(&v->tasks, -wheel);
		else if (in_table)
			table_move(&v->table, -wheel);
		return KEY_REDRAW;
	}
	if (pane >= 0)
		v->focus = pane;
	else if (in_table) {
		v->focus = FOCUS_TABLE;
		/* A click on a task row selects no request. */
		if (!v->show_tasks)
			table_select(&v->table, (size_t)(v->table.first +
			    me.y - v->table_rect.y - 1));
	}
	return KEY_REDRAW;
}

/* --- the input line ----------------------------------------------------------- */

int
view_key(struct view *v, int is_key, wint_t wc)
{
	const struct tasklist_row *task;
	struct pane *p;
	char *line;
	int flags, fkey;

	/* A notice lasts until the next key. */
	if (!(is_key && (wc == KEY_MOUSE || wc == KEY_RESIZE))) {
		free(v->hint);
		v->hint = NULL;
	}
	if (v->popup != POPUP_NONE)
		return keys_popup(v, is_key, wc);
	if (!is_key) {
		switch (wc) {
		case '\r':
			/* Enter on the table with nothing typed: details. */
			if (v->focus == FOCUS_TABLE && v->input.len == 0 &&
			    !v->show_tasks && table_selected(&v->table) != NULL)
				return keys_detail_open(v,
				    table_selected(&v->table));
			line = input_take(&v->input);
			flags = view_command(v, line);
			free(line);
			return KEY_REDRAW | flags;
		case '\t':
			keys_focus(v, 1);
			return KEY_REDRAW;
		case 127:
		case CTRL('h'):
			input_backspace(&v->input);
			return KEY_REDRAW;
		case CTRL('l'):
			return KEY_FULL_REDRAW;
		case CTRL('u'):
			input_kill(&v->input);
			return KEY_REDRAW;
		case CTRL('w'):
			input_kill_word(&v->input);
			return KEY_REDRAW;
		case CTRL('a'):
			input_home(&v->input);
			return KEY_REDRAW;
		case CTRL('e'):
			input_end(&v->input);
			return KEY_REDRAW;
		case CTRL('c'):
			return KEY_QUIT;
		case CTRL('g'):
			/* The error on the status line is seen. */
			free(v->error);
			v->error = NULL;
			v->errors = 0;
			return KEY_REDRAW;
		case CTRL('t'):
			v->show_thinking = !v->show_thinking;
			view_hint(v, ROLE_HINT, "thinking is %s (C-t)",
			    v->show_thinking ? "shown in full" : "folded");
			return KEY_REDRAW;
		case 0x1b:
			return keys_interrupt(v);
		default:
			if ((fkey = keys_table_letter(v, wc)) != 0)
				return view_key(v, 1, (wint_t)fkey);
			input_insert(&v->input, (wchar_t)wc);
			return KEY_REDRAW;
		}
	}
	switch (wc) {
	case KEY_ENTER:
		return view_key(v, 0, '\r');
	case KEYREAD_NEWLINE:
		input_insert(&v->input, L'\n');
		break;
	case KEYREAD_WORD_LEFT:
		input_word_left(&v->input);
		break;
	case KEYREAD_WORD_RIGHT:
		input_word_right(&v->input);
		break;
	case KEY_BACKSPACE:
		input_backspace(&v->input);
		break;
	case KEY_DC:
		input_delete(&v->input);
		break;
	case KEY_LEFT:
		input_left(&v->input);
		break;
	case KEY_RIGHT:
		input_right(&v->input);
		break;
	case KEY_HOME:
		input_home(&v->input);
		break;
	case KEY_END:
		/* End returns a scrolled pane to its live tail first. */
		if ((p = keys_focused_pane(v)) != NULL && p->scroll > 0)
			pane_scroll_end(p);
		else
			input_end(&v->input);
		break;
	case KEY_UP:
	case KEY_DOWN:
		if (v->focus == FOCUS_TABLE && v->show_tasks)
			tasklist_scroll(&v->tasks, wc == KEY_UP ? -1 : 1);
		else if (v->focus == FOCUS_TABLE)
			table_move(&v->table, wc == KEY_UP ? -1 : 1);
		else
			input_history(&v->input, wc == KEY_UP ? -1 : 1);
		break;
	case KEY_PPAGE:
		return keys_page(v, 1);
	case KEY_NPAGE:
		return keys_page(v, -1);
	case KEY_BTAB:
		keys_focus(v, -1);
		break;
	case KEY_F(1):
		v->popup = POPUP_HELP;
		break;
	case KEY_F(4):
		v->show_tasks = !v->show_tasks;
		break;
	case KEY_F(7):
		/* The focused teammate's worktree. */
		if ((p = keys_focused_pane(v)) == NULL || strcmp(p->name,
		    ROSTER_LEAD) == 0) {
			view_hint(v, ROLE_HINT, "F7 shows a teammate's changes: "
			    "focus its pane first (Tab)");
			break;
		}
		/* Where it works now: the worktree its task names, else
		 * its own. */
		task = tasklist_current(&v->tasks, p->name);
		line = xasprintf("/diff %s", task != NULL && *task->worktree ?
		    task->worktree : p->name);
		flags = view_command(v, line);
		free(line);
		return KEY_REDRAW | flags;
	case KEY_F(5):
	case KEY_F(6):
		/* The request must be in sight to be decided. */
		if (v->show_tasks) {
			v->show_tasks = 0;
			view_hint(v, ROLE_HINT, "the table shows the requests "
			    "again: %s decides the one the hint line names",
			    wc == KEY_F(5) ? "F5" : "F6");
			break;
		}
		return wc == KEY_F(5) ? keys_approve(v) :
		    keys_reject_prompt(v);
	case KEY_F(8):
		v->zoom = !v->zoom;
		break;
	case KEY_F(9):
		v->popup = POPUP_MENU;
		v->menu_sel = 0;
		break;
	case KEY_F(10):
		return KEY_QUIT;
	case KEYS_HIDE_ENDED:
		v->hide_ended = !v->hide_ended;
		view_hint(v, ROLE_HINT, "ended teammates are %s (h on the "
		    "table)", v->hide_ended ? "hidden" : "shown");
		break;
	case KEY_MOUSE:
		return keys_mouse(v);
	case KEY_RESIZE:
		return KEY_REDRAW;
	default:
		return KEY_HANDLED;
	}
	return KEY_REDRAW;
}

/* /team's report as lines in the lead's pane. */
static void
keys_team_lines(struct view *v, json_t *report)
{
	struct pane *lead = v->panes[0];
	json_t *m;
	size_t i;
	char *line;

	pane_add(lead, ROLE_DIM, "team:");
	json_array_foreach(json_object_get(report, "members"), i, m) {
		int need = json_is_true(json_object_get(m, "plan_required"));
		int ok = json_is_true(json_object_get(m, "plan_approved"));
		int64_t window = (int64_t)json_integer_value(json_object_get(m,
		    "context_window"));
		char ctx[32] = "";

		if (window > 0)
			snprintf(ctx, sizeof ctx, " · ctx %lld%%", (long long)
			    (json_integer_value(json_object_get(m,
			    "context_tokens")) * 100 / window));
		line = xasprintf("  %s · %s · %s%s%s · %s · %lld in, %lld out, "
		    "%lld cache write, %lld cache read · $%.2f",
		    json_string_value(json_object_get(m, "name")),
		    json_string_value(json_object_get(m, "role")),
		    json_string_value(json_object_get(m, "status")), ctx,
		    !need ? "" : ok ? " · plan approved" :
		    " · plan not approved",
		    json_string_value(json_object_get(m, "model")),
		    (long long)json_integer_value(json_object_get(m,
		    "input_tokens")), (long long)json_integer_value(
		    json_object_get(m, "output_tokens")), (long long)
		    json_integer_value(json_object_get(m, "cache_write_tokens")),
		    (long long)json_integer_value(json_object_get(m,
		    "cache_read_tokens")), json_real_value(json_object_get(m,
		    "cost_usd")));
		pane_add(lead, ROLE_DIM, line);
		free(line);
	}
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
keys_request_lines(struct view *v, json_t *report)
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
keys_opt(json_t *o, const char *key, const char *label)
{
	const char *value = json_string_value(json_object_get(o, key));

	if (value == NULL)
		return "";
	return label != NULL ? label : value;
}

/* /worktrees's report as lines in the lead's pane. */
static void
keys_worktree_lines(struct view *v, json_t *report)
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
			    keys_opt(w, "holder", " · worked by "),
			    keys_opt(w, "holder", NULL),
			    keys_opt(w, "tasks", " · tasks "),
			    keys_opt(w, "tasks", NULL),
			    json_is_string(json_object_get(w, "member")) ? "" :
			    " · the board's");
		pane_add(lead, ROLE_DIM, line);
		free(line);
	}
}

/* /tasks's report as lines in the lead's pane. */
static void
keys_task_lines(struct view *v, json_t *report)
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

int
view_command(struct view *v, const char *line)
{
	const struct table_row *sel = table_selected(&v->table);
	struct command c;
	struct command_result res;
	int flags = 0;

	command_parse(line, &c);
	command_run(v->team, &c, view_focus_name(v), sel != NULL &&
	    sel->pending ? sel->id : "", &res);
	switch (res.outcome) {
	case OUTCOME_DONE:
		if (res.message != NULL)
			view_hint(v, ROLE_HINT, "%s", res.message);
		break;
	case OUTCOME_ERROR:
		view_hint(v, ROLE_ERROR, "%s", res.message);
		break;
	case OUTCOME_TEAM:
		keys_team_lines(v, res.data);
		break;
	case OUTCOME_REQUESTS:
		keys_request_lines(v, res.data);
		v->focus = FOCUS_TABLE;
		v->show_tasks = 0;
		break;
	case OUTCOME_TASKS:
		keys_task_lines(v, res.data);
		v->focus = FOCUS_TABLE;
		v->show_tasks = 1;
		break;
	case OUTCOME_DIFF:
		diffview_open(&v->diff, res.data);
		v->popup = POPUP_DIFF;
		break;
	case OUTCOME_WORKTREES:
		keys_worktree_lines(v, res.data);
		break;
	case OUTCOME_FRONT:
		if (c.kind == CMD_ZOOM)
			v->zoom = !v->zoom;
		else if (c.kind == CMD_HELP)
			v->popup = POPUP_HELP;
		else if (c.kind == CMD_QUIT)
			flags = KEY_QUIT;
		break;
	}
	command_result_clear(&res);
	command_clear(&c);
	return flags;
}
