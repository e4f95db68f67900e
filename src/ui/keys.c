/*
 * What the keys do (see keys.h), and the input line's commands on the
 * screen (keys_command). keys_press finds a key's entry in the key table
 * (keymap.c) and runs it; each action returns KEY_* flags that the loop
 * in ui.c acts on (redraw, repaint, quit), as htop's panels do.
 */
#include "config.h"

#include <curses.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/command.h"
#include "agent/netgate.h"
#include "agent/team.h"
#include "core/message.h"
#include "core/roster.h"
#include "ui/complete.h"
#include "ui/draft.h"
#include "ui/helpview.h"
#include "ui/keymap.h"
#include "ui/keyread.h"
#include "ui/keys.h"
#include "ui/panefind.h"
#include "ui/reqkeys.h"
#include "ui/report.h"
#include "ui/view.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* Rows one turn of the mouse wheel scrolls a pane. */
#define KEYS_WHEEL_ROWS 3

/* The wheel turning down is button 5, which only the version-2 mouse
 * protocol of ncurses knows; without it the wheel scrolls up only. */
#if NCURSES_MOUSE_VERSION > 1
#define KEYS_WHEEL_DOWN BUTTON5_PRESSED
#else
#define KEYS_WHEEL_DOWN 0
#endif

static int keys_command(struct view *v, const char *line);

/* --- what the person decides -------------------------------------------- */

static int
keys_detail_open(struct view *v, const struct table_row *r)
{
	memcpy(v->detail_id, r->id, sizeof v->detail_id);
	v->detail_first = 0;
	v->popup = POPUP_DETAIL;
	return KEY_REDRAW;
}

/* The request F5 or F6 acts on (the detail view's, or the selected),
 * or NULL with a hint saying why there is none. */
static const struct table_row *
keys_target(struct view *v)
{
	const struct table_row *r = v->popup == POPUP_DETAIL ?
	    table_find(&v->table, v->detail_id) : table_selected(&v->table);

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
	return r;
}

/* Whether the request must be shown first: then it is. */
static int
keys_show_first(struct view *v, const struct table_row *r)
{
	if (reqkeys_decides(v, r, strcmp(v->shown_id, r->id) == 0))
		return 0;
	keys_detail_open(v, r);
	return 1;
}

/* F5 and F6 with the tasks on show: the requests come back first, as
 * the request must be in sight to be decided. */
static int
keys_tasks_shown(struct view *v, const char *key)
{
	if (v->popup != POPUP_NONE || !v->show_tasks)
		return 0;
	v->show_tasks = 0;
	view_hint(v, ROLE_HINT, "the table shows the requests again: %s "
	    "decides the one the hint line names", key);
	return 1;
}

static int
keys_approve(struct view *v, int arg)
{
	const struct table_row *r;
	char *msg = NULL;
	int ok;

	if (keys_tasks_shown(v, "F5") || (r = keys_target(v)) == NULL ||
	    keys_show_first(v, r))
		return KEY_REDRAW;
	v->popup = POPUP_NONE;
	ok = team_decide(v->team, r->id, 1, NULL, &msg) == PROTO_DECIDED;
	view_hint(v, ok ? ROLE_HINT : ROLE_ERROR, "%s", msg);
	free(msg);
	return KEY_REDRAW;
}

static int
keys_reject(struct view *v, int arg)
{
	const struct table_row *r;

	if (keys_tasks_shown(v, "F6") || (r = keys_target(v)) == NULL ||
	    keys_show_first(v, r))
		return KEY_REDRAW;
	/* A reason typed for this request and left with Esc is there
	 * again; another request's is not. */
	if (strcmp(v->reject_id, r->id) != 0)
		input_kill(&v->feedback);
	memcpy(v->reject_id, r->id, sizeof v->reject_id);
	v->popup = POPUP_FEEDBACK;
	return KEY_REDRAW;
}

/* R: every request waiting for the person from the agent that asked the
 * request shown or selected is rejected at once (a flood's way out). */
static int
keys_reject_all(struct view *v, int arg)
{
	const struct table_row *r;
	char *msg = NULL, *name;
	int n;

	if (keys_tasks_shown(v, "R"))
		return KEY_REDRAW;
	r = v->popup == POPUP_DETAIL ? table_find(&v->table, v->detail_id) :
	    table_selected(&v->table);
	v->popup = POPUP_NONE;
	if (r == NULL) {
		view_hint(v, ROLE_ERROR, "no request is selected (Tab to the "
		    "table, Up/Down to choose)");
		return KEY_REDRAW;
	}
	/* Deciding may change the table: the name is kept apart. */
	name = xstrdup(r->from);
	n = team_reject_all(v->team, name, NULL, &msg);
	/* The selection moves on now, so that the sentence is not taken
	 * away by the decisions arriving (view_request). */
	if (n > 0)
		table_select_past(&v->table, name);
	view_hint(v, n > 0 ? ROLE_HINT : ROLE_ERROR, "%s", msg);
	free(msg);
	free(name);
	return KEY_REDRAW;
}

/* t in the detail view of a network request: allowed for the whole
 * team (agent/netgate.h). */
static int
keys_allow_team(struct view *v, int arg)
{
	const struct table_row *r;
	char *msg = NULL;
	int ok;

	if ((r = keys_target(v)) == NULL)
		return KEY_REDRAW;
	if (!reqkeys_is_network(r)) {
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
keys_enter(struct view *v, int arg)
{
	const struct table_row *r = reqkeys_enter_shows(v);
	struct pane *p = reqkeys_fold_selected(v);
	char *line;
	int flags;

	if (p != NULL) {
		pane_toggle(p, p->sel_seq);
		return KEY_REDRAW;
	}
	if (r != NULL)
		return keys_detail_open(v, r);
	if (draft_kept(v))
		return KEY_REDRAW;
	/* A message keeps MSG_MAX_CONTENT: more (a huge paste) is not
	 * sent cut without a word; it stays in the line. */
	if (v->input.len > MSG_MAX_CONTENT) {
		view_hint(v, ROLE_ERROR, "not sent: this is %zu KiB and a "
		    "message keeps %d KiB; shorten it, or write it to a file "
		    "in the working tree and point to that",
		    (v->input.len + 1023) / 1024, MSG_MAX_CONTENT / 1024);
		return KEY_REDRAW;
	}
	line = input_take(&v->input);
	flags = keys_command(v, line);
	free(line);
	return KEY_REDRAW | flags;
}

/* --- the detail view, the menu, the feedback, the diff ------------------ */

/* A scroll key's argument as lines, a page being `page` of them. */
static int
keys_scroll_lines(int arg, int page)
{
	if (arg == SCROLL_ALL || arg == -SCROLL_ALL)
		return arg < 0 ? INT_MIN / 2 : INT_MAX / 2;
	if (arg == SCROLL_PAGE || arg == -SCROLL_PAGE)
		return arg < 0 ? -page : page;
	return arg;
}

/* The detail view's scroll keys: a page is ten lines. */
static int
keys_detail_scroll(struct view *v, int arg)
{
	long first = (long)v->detail_first + keys_scroll_lines(arg, 10);

	/* Drawing stops it at the end of the text. */
	v->detail_first = first < 0 ? 0 : first > INT_MAX / 2 ? INT_MAX / 2 :
	    (int)first;
	return KEY_REDRAW;
}







static int
keys_close(struct view *v, int arg)
{
	v->popup = POPUP_NONE;
	v->help_typing = 0;
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
keys_menu_choose(struct view *v, int arg)
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
keys_menu_up(struct view *v, int arg)
{
	if (v->menu_sel > 0)
		v->menu_sel--;
	return KEY_REDRAW;
}

static int
keys_menu_down(struct view *v, int arg)
{
	struct pane *items[64];

	if ((size_t)v->menu_sel + 1 < keys_menu_items(v, items, 64))
		v->menu_sel++;
	return KEY_REDRAW;
}

static int
keys_feedback_send(struct view *v, int arg)
{
	char *text = input_take(&v->feedback), *msg = NULL;

	team_decide(v->team, v->reject_id, 0, text, &msg);
	view_hint(v, ROLE_HINT, "%s", msg);
	free(msg);
	free(text);
	v->popup = POPUP_NONE;
	return KEY_REDRAW;
}

static int
keys_feedback_backspace(struct view *v, int arg)
{
	input_backspace(&v->feedback);
	return KEY_REDRAW;
}

static int
keys_feedback_left(struct view *v, int arg)
{
	input_left(&v->feedback);
	return KEY_REDRAW;
}

static int
keys_feedback_right(struct view *v, int arg)
{
	input_right(&v->feedback);
	return KEY_REDRAW;
}

/* The diff view's scroll keys: a page is its height less its frame. */
static int
keys_diff_scroll(struct view *v, int arg)
{
	diffview_scroll(&v->diff, keys_scroll_lines(arg, LINES - 6 > 1 ?
	    LINES - 6 : 1));
	return KEY_REDRAW;
}







/* --- the help --------------------------------------------------------- */

static int
keys_help_open(struct view *v, int arg)
{
	helpview_open(v);
	return KEY_REDRAW;
}

/* The help's scroll keys: a page is its rows less one, so a line is
 * seen twice. */
static int
keys_help_scroll(struct view *v, int arg)
{
	int h, w, rows, width;

	helpview_size(&h, &w, &rows, &width);
	helpview_scroll(v, keys_scroll_lines(arg, rows > 2 ? rows - 1 : 1));
	return KEY_REDRAW;
}







static int
keys_help_find(struct view *v, int arg)
{
	v->help_typing = 1;
	v->help_query[0] = '\0';
	v->help_hit = -1;
	return KEY_REDRAW;
}

static int
keys_help_next(struct view *v, int arg)
{
	if (v->help_query[0] == '\0')
		return keys_help_find(v, 0);
	if (helpview_find(v, v->help_hit + 1) == -1)
		view_hint(v, ROLE_HINT, "the help has no '%s'", v->help_query);
	return KEY_REDRAW;
}

static int
keys_search_done(struct view *v, int arg)
{
	v->help_typing = 0;
	if (v->help_hit < 0 && v->help_query[0] != '\0')
		view_hint(v, ROLE_HINT, "the help has no '%s'", v->help_query);
	return KEY_REDRAW;
}

static int
keys_search_cancel(struct view *v, int arg)
{
	v->help_typing = 0;
	v->help_query[0] = '\0';
	v->help_hit = -1;
	return KEY_REDRAW;
}

/* The search again from the top, as it is now typed. */
static int
keys_search_again(struct view *v)
{
	if (helpview_find(v, 0) == -1)
		v->help_hit = -1;
	return KEY_REDRAW;
}

static int
keys_search_backspace(struct view *v, int arg)
{
	size_t len = strlen(v->help_query);

	/* One UTF-8 character off its end. */
	while (len > 0 && ((unsigned char)v->help_query[--len] & 0xc0) ==
	    0x80)
		;
	v->help_query[len] = '\0';
	return keys_search_again(v);
}

/* A character typed into the search. */
static int
keys_search_type(struct view *v, wint_t wc)
{
	char bytes[8];
	size_t len = strlen(v->help_query);
	int n = wctomb(bytes, (wchar_t)wc);

	if (wc < ' ' || n <= 0 || len + (size_t)n >= sizeof v->help_query)
		return KEY_HANDLED;
	memcpy(v->help_query + len, bytes, (size_t)n);
	v->help_query[len + (size_t)n] = '\0';
	return keys_search_again(v);
}

/* --- the main screen ------------------------------------------------------ */

/* Whether Tab and S-Up/Down stop at pane i: not at a teammate that
 * has ended (a click still focuses one). */
static int
keys_stops_at(struct view *v, size_t i)
{
	return !view_hidden(v, i) && (i == 0 ||
	    v->panes[i]->status != MEMBER_TERMINATED);
}

/* Tab and S-Tab: the next pane on show, or the table. */
static void
keys_focus(struct view *v, int dir)
{
	int n = (int)v->npanes + 1, i = v->focus == FOCUS_TABLE ?
	    (int)v->npanes : v->focus, tries;

	for (tries = 0; tries < n; tries++) {
		i = ((i + dir) % n + n) % n;
		if (i == (int)v->npanes || keys_stops_at(v, (size_t)i))
			break;
	}
	draft_focus(v, i == (int)v->npanes ? FOCUS_TABLE : i);
}

/* Tab: on a command line ('/' first), completes its command or the
 * name it ends in (ui/complete.h); else the focus goes on. */
static int
keys_tab(struct view *v, int arg)
{
	const char *names[64];
	char *line, *choices = NULL;
	size_t n, i;

	if (v->input.len == 0 || v->input.buf[0] != '/' ||
	    v->input.cursor != v->input.len) {
		keys_focus(v, 1);
		return KEY_REDRAW;
	}
	for (n = i = 0; i < v->npanes && n < 64; i++)
		names[n++] = v->panes[i]->name;
	line = complete_line(v->input.buf, names, n, &choices);
	input_set(&v->input, line, strlen(line));
	if (choices != NULL)
		view_hint(v, ROLE_HINT, "%s", choices);
	free(choices);
	free(line);
	return KEY_REDRAW;
}

static int
keys_btab(struct view *v, int arg)
{
	keys_focus(v, -1);
	return KEY_REDRAW;
}

/* --- the table's filter ------------------------------------------------- */

/* /: typing a filter for the request table begins (the table has the
 * focus, nothing is typed). What is typed filters the table as it is
 * typed, unless it reads as a command ("reject-all mallory"): Enter
 * runs that as the input line would. */
static int
keys_filter(struct view *v, int arg)
{
	if (v->show_tasks) {
		view_hint(v, ROLE_HINT, "/ filters the requests: F4 shows "
		    "them");
		return KEY_REDRAW;
	}
	v->filter_typing = 1;
	snprintf(v->filter_query, sizeof v->filter_query, "%s",
	    v->table.filter);
	memcpy(v->filter_from, v->table.selected, sizeof v->filter_from);
	v->filter_chosen = v->table.chosen;
	return KEY_REDRAW;
}

/* The query as the table's filter, unless it is a command; while it is
 * typed and filters nothing (a command, or nothing typed yet), the
 * selection is the one / found. */
static void
keys_filter_apply(struct view *v)
{
	int command = complete_is_command(v->filter_query);

	table_set_filter(&v->table, command ? "" : v->filter_query);
	if (v->filter_typing && (command || *v->filter_query == '\0') &&
	    table_find(&v->table, v->filter_from) != NULL) {
		memcpy(v->table.selected, v->filter_from,
		    sizeof v->table.selected);
		v->table.chosen = v->filter_chosen;
	}
}

static int
keys_filter_keep(struct view *v, int arg)
{
	char *line;
	int flags;

	if (complete_is_command(v->filter_query)) {
		line = xasprintf("/%s", v->filter_query);
		v->filter_query[0] = '\0';
		keys_filter_apply(v);
		v->filter_typing = 0;
		/* As if typed in the input line: Up brings it back. */
		input_set(&v->input, line, strlen(line));
		free(line);
		line = input_take(&v->input);
		flags = keys_command(v, line);
		free(line);
		return KEY_REDRAW | flags;
	}
	v->filter_typing = 0;
	if (*v->table.filter != '\0' && table_shown(&v->table) == 0)
		view_hint(v, ROLE_HINT, "no request holds '%s' (Esc on the "
		    "table clears the filter)", v->table.filter);
	return KEY_REDRAW;
}

static int
keys_filter_clear(struct view *v, int arg)
{
	v->filter_query[0] = '\0';
	keys_filter_apply(v);
	v->filter_typing = 0;
	return KEY_REDRAW;
}

static int
keys_filter_backspace(struct view *v, int arg)
{
	size_t n = strlen(v->filter_query);

	while (n > 0 && ((unsigned char)v->filter_query[--n] & 0xc0) == 0x80)
		;
	v->filter_query[n] = '\0';
	keys_filter_apply(v);
	return KEY_REDRAW;
}

/* A character typed into the filter: applied as it is typed. */
static int
keys_filter_type(struct view *v, wint_t wc)
{
	char bytes[MB_LEN_MAX];
	size_t n = strlen(v->filter_query);
	int k = wctomb(bytes, (wchar_t)wc);

	if (k <= 0 || n + (size_t)k > TABLE_FILTER_MAX)
		return KEY_HANDLED;
	memcpy(v->filter_query + n, bytes, (size_t)k);
	v->filter_query[n + (size_t)k] = '\0';
	keys_filter_apply(v);
	return KEY_REDRAW;
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
keys_escape(struct view *v, int arg)
{
	struct pane *p = keys_focused_pane(v);
	char *err = NULL;

	if (v->input.len > 0)
		return KEY_HANDLED;
	/* The table's filter goes first, then a selection in the pane. */
	if (v->focus == FOCUS_TABLE && *v->table.filter != '\0')
		return keys_filter_clear(v, 0);
	if (p != NULL && p->sel_on) {
		p->sel_on = 0;
		return KEY_REDRAW;
	}
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

static int
keys_pgup(struct view *v, int arg)
{
	return keys_page(v, 1);
}

static int
keys_pgdn(struct view *v, int arg)
{
	return keys_page(v, -1);
}

static int
keys_updown(struct view *v, int dir)
{
	if (v->focus == FOCUS_TABLE && v->show_tasks)
		tasklist_scroll(&v->tasks, dir);
	else if (v->focus == FOCUS_TABLE)
		table_move(&v->table, dir);
	else
		input_history(&v->input, dir);
	return KEY_REDRAW;
}

static int
keys_up(struct view *v, int arg)
{
	return keys_updown(v, -1);
}

static int
keys_down(struct view *v, int arg)
{
	return keys_updown(v, 1);
}

/* The input line's editing keys. */
#define KEYS_EDIT(name, call)						\
static int								\
name(struct view *v, int arg)						\
{									\
	call(&v->input);						\
	return KEY_REDRAW;						\
}
KEYS_EDIT(keys_home, input_home)
KEYS_EDIT(keys_left, input_left)
KEYS_EDIT(keys_right, input_right)
KEYS_EDIT(keys_word_left, input_word_left)
KEYS_EDIT(keys_word_right, input_word_right)
KEYS_EDIT(keys_backspace, input_backspace)
KEYS_EDIT(keys_delete, input_delete)
KEYS_EDIT(keys_line_start, input_home)
KEYS_EDIT(keys_line_end, input_end)
KEYS_EDIT(keys_kill_line, input_kill)
KEYS_EDIT(keys_kill_word, input_kill_word)

static int
keys_newline(struct view *v, int arg)
{
	input_insert(&v->input, L'\n');
	return KEY_REDRAW;
}

/* End returns a scrolled pane to its live tail first. */
static int
keys_end(struct view *v, int arg)
{
	struct pane *p = keys_focused_pane(v);

	if (p != NULL && p->scroll > 0)
		pane_scroll_end(p);
	else
		input_end(&v->input);
	return KEY_REDRAW;
}

static int
keys_tasks(struct view *v, int arg)
{
	v->show_tasks = !v->show_tasks;
	return KEY_REDRAW;
}

/* F7: the focused teammate's worktree, where it works now: the one its
 * task names, else its own. */
static int
keys_diff(struct view *v, int arg)
{
	const struct tasklist_row *task;
	struct pane *p = keys_focused_pane(v);
	char *line;
	int flags;

	if (p == NULL || strcmp(p->name, ROSTER_LEAD) == 0) {
		view_hint(v, ROLE_HINT, "F7 shows a teammate's changes: "
		    "focus its pane first (Tab)");
		return KEY_REDRAW;
	}
	task = tasklist_current(&v->tasks, p->name);
	line = xasprintf("/diff %s", task != NULL && *task->worktree ?
	    task->worktree : p->name);
	flags = keys_command(v, line);
	free(line);
	return KEY_REDRAW | flags;
}

static int
keys_zoom(struct view *v, int arg)
{
	v->zoom = !v->zoom;
	return KEY_REDRAW;
}

/* F9: the shutdown menu, on the focused teammate when it is in it. */
static int
keys_menu(struct view *v, int arg)
{
	struct pane *items[64], *p = keys_focused_pane(v);
	size_t n = keys_menu_items(v, items, 64), i;

	v->popup = POPUP_MENU;
	v->menu_sel = 0;
	for (i = 0; p != NULL && i < n; i++)
		if (items[i] == p)
			v->menu_sel = (int)i;
	return KEY_REDRAW;
}

static int keys_run_action(struct view *v, const struct keydef *d);

/* F10: quits; when permissions wait for the person, first closes any
 * popup and says how many and whose, which the quit withdraws (F10
 * again quits). */
static int
keys_quit(struct view *v, int arg)
{
	size_t n = table_waiting(&v->table);
	char *who;

	if (n == 0 || v->quit_armed || team_quitting(v->team))
		return KEY_QUIT;
	v->quit_armed = 1;
	/* The warning and the table it is about are on the main screen:
	 * a popup would hide them. */
	v->popup = POPUP_NONE;
	v->help_typing = 0;
	who = table_pending_by(&v->table, COLS / 2);
	view_hint(v, ROLE_ERROR, "F10 again quits and withdraws the %zu "
	    "request%s waiting for you%s%s%s (named at --resume); any other "
	    "key stays", n, n == 1 ? "" : "s", *who ? " (" : "", who,
	    *who ? ")" : "");
	free(who);
	return KEY_REDRAW;
}

/* C-c forgives: text typed in the input line is cleared (kept in the
 * history: Up brings it back), and in the reason of a rejection too; a
 * search being typed is left as Esc leaves it. Anywhere else it quits
 * as F10, and a second C-c within 2 s is F10 again. */
static int
keys_interrupt(struct view *v, int arg)
{
	unsigned where = keymap_where(v);
	int64_t now = clock_mono_ms();

	if ((where == KW_MAIN || where == KW_FOUND) && v->input.len > 0) {
		free(input_take(&v->input));
		view_hint(v, ROLE_HINT, "the line was cleared: Up brings it "
		    "back");
		return KEY_REDRAW;
	}
	if (where == KW_FEEDBACK && v->feedback.len > 0) {
		input_kill(&v->feedback);
		return KEY_REDRAW;
	}
	if (where == KW_FEEDBACK || where == KW_FIND || where == KW_SEARCH ||
	    where == KW_FILTER)
		return keys_run_action(v, keymap_find(v, 0, 0x1b));
	if (v->ctrl_c_ms != 0 && now - v->ctrl_c_ms < 2000)
		v->quit_armed = 1;
	v->ctrl_c_ms = now;
	return keys_quit(v, 0);
}

/* C-o: every pane's thinking and tool outputs in full, or all folded
 * again. */
static int
keys_thinking(struct view *v, int arg)
{
	size_t i;

	v->show_thinking = !v->show_thinking;
	v->input.unfold = v->show_thinking;
	if (!v->show_thinking)
		for (i = 0; i < v->npanes; i++)
			pane_expand_all(v->panes[i], 0);
	view_hint(v, ROLE_HINT, "thinking and tool output are %s (C-o)",
	    v->show_thinking ? "shown in full" : "folded");
	return KEY_REDRAW;
}

/* C-p: the whole of a long output, for the front end to page (the
 * searched pane's selected output, else the focused pane's, else its
 * newest kept whole; the lead's when the table has the focus). */
static int
keys_pager(struct view *v, int arg)
{
	struct pane *p = v->find_on && v->find_pane >= 0 &&
	    (size_t)v->find_pane < v->npanes ? v->panes[v->find_pane] :
	    keys_focused_pane(v);
	const char *whole;

	if (p == NULL && v->npanes > 0)
		p = v->panes[0];
	if (p == NULL || (whole = pane_whole(p)) == NULL) {
		view_hint(v, ROLE_HINT, "no output of %s's is kept whole "
		    "(outputs over 1000 lines, or cut for the model, are)",
		    p != NULL ? p->name : "the team");
		return KEY_REDRAW;
	}
	if (access(whole, R_OK) != 0) {
		view_hint(v, ROLE_HINT, "that output is no longer kept (a "
		    "team keeps its newest 64)");
		return KEY_REDRAW;
	}
	free(v->page);
	v->page = xstrdup(whole);
	return KEY_REDRAW;
}

/* --- a search in a pane -------------------------------------------------- */

static int
keys_find(struct view *v, int arg)
{
	panefind_open(v);
	return KEY_REDRAW;
}

static int
keys_find_keep(struct view *v, int arg)
{
	v->find_typing = 0;
	if (!v->find_hit)
		view_hint(v, ROLE_HINT, "no match of '%s'", v->find_query);
	return KEY_REDRAW;
}

static int
keys_find_end(struct view *v, int arg)
{
	panefind_end(v);
	return KEY_REDRAW;
}

static int
keys_find_backspace(struct view *v, int arg)
{
	panefind_backspace(v);
	return KEY_REDRAW;
}

static int
keys_find_next(struct view *v, int arg)
{
	panefind_step(v, -1);
	return KEY_REDRAW;
}

static int
keys_find_prev(struct view *v, int arg)
{
	panefind_step(v, 1);
	return KEY_REDRAW;
}

/* Enter on a match: expands the folded output it is on, else goes on
 * to the next. */
static int
keys_find_enter(struct view *v, int arg)
{
	struct pane_line *head;

	if (v->find_hit && v->find_pane >= 0 && (size_t)v->find_pane <
	    v->npanes && (head = pane_fold_head(v->panes[v->find_pane],
	    v->find_seq)) != NULL && !head->expanded && !v->show_thinking) {
		head->expanded = 1;
		return KEY_REDRAW;
	}
	return keys_find_next(v, 0);
}

/* S-Up and S-Down: the teammate before or after the focused pane (the
 * lead's, from the table), its pane focused; x then stops it. */
static int
keys_pick(struct view *v, int dir)
{
	int n = (int)v->npanes, i = v->focus == FOCUS_TABLE ? 0 : v->focus,
	    tries;

	if (n < 2) {
		view_hint(v, ROLE_HINT, "there is no teammate to pick yet");
		return KEY_REDRAW;
	}
	for (tries = 0; tries < n; tries++) {
		i = ((i + dir) % n + n) % n;
		if (i > 0 && keys_stops_at(v, (size_t)i))
			break;
	}
	if (i == 0 || !keys_stops_at(v, (size_t)i))
		return KEY_REDRAW;
	draft_focus(v, i);
	v->picked = 1;
	view_hint(v, ROLE_HINT, "%s picked: type to write to it, x stops it "
	    "(asks first)", v->panes[i]->name);
	return KEY_REDRAW;
}

static int
keys_pick_up(struct view *v, int arg)
{
	return keys_pick(v, -1);
}

static int
keys_pick_down(struct view *v, int arg)
{
	return keys_pick(v, 1);
}

/* x after a pick: the shutdown menu on that teammate, so that stopping
 * it asks first, as F9 does. */
static int
keys_stop_picked(struct view *v, int arg)
{
	struct pane *items[64], *p = keys_focused_pane(v);
	size_t n = keys_menu_items(v, items, 64), i;

	for (i = 0; i < n; i++)
		if (items[i] == p)
			break;
	if (p == NULL || i == n) {
		view_hint(v, ROLE_HINT, "%s is not running", p ? p->name :
		    "no teammate");
		return KEY_REDRAW;
	}
	return keys_menu(v, 0);
}

static int
keys_redraw(struct view *v, int arg)
{
	(void)v;
	return KEY_FULL_REDRAW;
}

/* C-g: the error on the status line is seen. */
static int
keys_ack_error(struct view *v, int arg)
{
	free(v->error);
	v->error = NULL;
	v->errors = 0;
	return KEY_REDRAW;
}

static int
keys_hide_ended(struct view *v, int arg)
{
	v->hide_ended = !v->hide_ended;
	view_hint(v, ROLE_HINT, "ended teammates are %s (h on the table)",
	    v->hide_ended ? "hidden" : "shown");
	return KEY_REDRAW;
}

static int
keys_resize(struct view *v, int arg)
{
	(void)v;
	return KEY_REDRAW;
}

mmask_t
keys_mouse_mask(void)
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
keys_mouse(struct view *v, int arg)
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
	if (pane >= 0) {
		struct pane *p = v->panes[pane];
		uint64_t seq;

		draft_focus(v, pane);
		/* The line clicked is selected: Enter expands it. */
		if (pane_line_at_row(p, me.y - v->rects[pane].y - 1, &seq) ==
		    0) {
			p->sel_on = 1;
			p->sel_seq = seq;
		}
	} else if (in_table) {
		/* The table is drawn inside the box, its header on the
		 * box's first line; a click on a task row selects no
		 * request. */
		int row = table_row_at(&v->table, me.y - v->table_rect.y - 1);

		draft_focus(v, FOCUS_TABLE);
		if (!v->show_tasks && row >= 0)
			table_select(&v->table, (size_t)row);
	}
	return KEY_REDRAW;
}

/* --- the way in ---------------------------------------------------------- */

/* What each action of the key table runs. */
static int (*const keys_run[KA_N])(struct view *v, int arg) = {
	[KA_DETAIL_SCROLL] = keys_detail_scroll,
	[KA_DIFF_SCROLL] = keys_diff_scroll,
	[KA_HELP_SCROLL] = keys_help_scroll,
	/* The main screen. */
	[KA_ENTER] = keys_enter,
	[KA_NEWLINE] = keys_newline,
	[KA_TAB] = keys_tab,
	[KA_BTAB] = keys_btab,
	[KA_UP] = keys_up,
	[KA_DOWN] = keys_down,
	[KA_PGUP] = keys_pgup,
	[KA_PGDN] = keys_pgdn,
	[KA_HOME] = keys_home,
	[KA_END] = keys_end,
	[KA_LEFT] = keys_left,
	[KA_RIGHT] = keys_right,
	[KA_WORD_LEFT] = keys_word_left,
	[KA_WORD_RIGHT] = keys_word_right,
	[KA_BACKSPACE] = keys_backspace,
	[KA_DELETE] = keys_delete,
	[KA_LINE_START] = keys_line_start,
	[KA_LINE_END] = keys_line_end,
	[KA_KILL_LINE] = keys_kill_line,
	[KA_KILL_WORD] = keys_kill_word,
	[KA_HELP_OPEN] = keys_help_open,
	[KA_TASKS] = keys_tasks,
	[KA_APPROVE] = keys_approve,
	[KA_REJECT] = keys_reject,
	[KA_DIFF] = keys_diff,
	[KA_ZOOM] = keys_zoom,
	[KA_MENU] = keys_menu,
	[KA_QUIT] = keys_quit,
	[KA_INTERRUPT] = keys_interrupt,
	[KA_ESCAPE] = keys_escape,
	[KA_THINKING] = keys_thinking,
	[KA_PAGER] = keys_pager,
	[KA_FILTER] = keys_filter,
	[KA_FILTER_KEEP] = keys_filter_keep,
	[KA_FILTER_CLEAR] = keys_filter_clear,
	[KA_FILTER_BACKSPACE] = keys_filter_backspace,
	[KA_PICK_UP] = keys_pick_up,
	[KA_PICK_DOWN] = keys_pick_down,
	[KA_STOP_PICKED] = keys_stop_picked,
	[KA_REDRAW] = keys_redraw,
	[KA_ACK_ERROR] = keys_ack_error,
	[KA_HIDE_ENDED] = keys_hide_ended,
	[KA_MOUSE] = keys_mouse,
	[KA_RESIZE] = keys_resize,

	/* The detail view of a request. */
	[KA_ALLOW_TEAM] = keys_allow_team,
	[KA_REJECT_ALL] = keys_reject_all,

	/* Any popup: closes it. */
	[KA_CLOSE] = keys_close,

	/* The help. */
	[KA_HELP_FIND] = keys_help_find,
	[KA_HELP_NEXT] = keys_help_next,
	[KA_SEARCH_DONE] = keys_search_done,
	[KA_SEARCH_CANCEL] = keys_search_cancel,
	[KA_SEARCH_BACKSPACE] = keys_search_backspace,

	/* The diff view. */

	/* The shutdown menu. */
	[KA_MENU_UP] = keys_menu_up,
	[KA_MENU_DOWN] = keys_menu_down,
	[KA_MENU_CHOOSE] = keys_menu_choose,

	/* The feedback line of a rejection. */
	[KA_FEEDBACK_SEND] = keys_feedback_send,
	[KA_FEEDBACK_BACKSPACE] = keys_feedback_backspace,
	[KA_FEEDBACK_LEFT] = keys_feedback_left,
	[KA_FEEDBACK_RIGHT] = keys_feedback_right,

	/* A search in a pane. */
	[KA_FIND] = keys_find,
	[KA_FIND_KEEP] = keys_find_keep,
	[KA_FIND_END] = keys_find_end,
	[KA_FIND_BACKSPACE] = keys_find_backspace,
	[KA_FIND_NEXT] = keys_find_next,
	[KA_FIND_PREV] = keys_find_prev,
	[KA_FIND_ENTER] = keys_find_enter,
};

/* Runs what row d of the key table does. */
static int
keys_run_action(struct view *v, const struct keydef *d)
{
	return keys_run[d->action](v, d->arg);
}

/* A paste's bounds: one into the input line is noted there (a long one
 * is folded); one over a message's size is named at once, before any
 * Enter. */
static int
keys_paste(struct view *v, int begin)
{
	unsigned where = keymap_where(v);

	if (where != KW_MAIN && where != KW_FOUND)
		return KEY_HANDLED;
	if (begin) {
		input_paste_begin(&v->input);
		return KEY_HANDLED;
	}
	input_paste_end(&v->input);
	if (v->input.len > MSG_MAX_CONTENT)
		view_hint(v, ROLE_ERROR, "this line is %zu KiB and a message "
		    "keeps %d KiB: Enter will not send it; shorten it, or "
		    "write it to a file in the working tree and point to that",
		    (v->input.len + 1023) / 1024, MSG_MAX_CONTENT / 1024);
	return KEY_REDRAW;
}

int
keys_press(struct view *v, int is_key, wint_t wc)
{
	const struct keydef *d;
	unsigned where;

	/* A notice lasts until the next key. */
	if (!(is_key && (wc == KEY_MOUSE || wc == KEY_RESIZE))) {
		free(v->hint);
		v->hint = NULL;
	}
	/* One Enter, one Backspace, however the terminal sends them. */
	if ((!is_key && wc == '\n') || (is_key && wc == KEY_ENTER)) {
		is_key = 0;
		wc = '\r';
	} else if (!is_key && (wc == 127 || wc == 8)) {
		is_key = 1;
		wc = KEY_BACKSPACE;
	}
	if (is_key && (wc == KEYREAD_PASTE_BEGIN || wc == KEYREAD_PASTE_END))
		return keys_paste(v, wc == KEYREAD_PASTE_BEGIN);
	d = keymap_find(v, is_key, (int)wc);
	/* A pick lasts one key (the mouse and a resize aside); so does
	 * a quit's warning, and C-c's count of two. */
	if (!(is_key && (wc == KEY_MOUSE || wc == KEY_RESIZE))) {
		v->picked = 0;
		if (d == NULL || (d->action != KA_QUIT &&
		    d->action != KA_INTERRUPT)) {
			v->quit_armed = 0;
			v->ctrl_c_ms = 0;
		}
	}
	if (d != NULL)
		return keys_run_action(v, d);
	/* Anything else is typed, where something is being typed. */
	where = keymap_where(v);
	if (is_key || wc < ' ')
		return KEY_HANDLED;
	if (where == KW_FOUND)
		panefind_end(v);
	if (where == KW_FIND) {
		char bytes[8];
		int n = wctomb(bytes, (wchar_t)wc);

		if (n > 0)
			panefind_type(v, bytes, (size_t)n);
	} else if (where == KW_FILTER)
		return keys_filter_type(v, wc);
	else if (where == KW_MAIN || where == KW_FOUND)
		input_insert(&v->input, (wchar_t)wc);
	else if (where == KW_FEEDBACK)
		input_insert(&v->feedback, (wchar_t)wc);
	else if (where == KW_SEARCH)
		return keys_search_type(v, wc);
	else
		return KEY_HANDLED;
	return KEY_REDRAW;
}

/* Runs one line of the input line. Returns KEY_QUIT for /quit, else 0. */
static int
keys_command(struct view *v, const char *line)
{
	const struct table_row *sel = table_selected(&v->table);
	struct command c;
	struct command_result res;
	int flags = 0;

	command_parse(line, &c);
	execute_command(v->team, &c, view_focus_name(v), sel != NULL &&
	    sel->pending ? sel->id : "", &res);
	switch (res.outcome) {
	case OUTCOME_DONE:
		/* As R does: the sentence stays while the decisions come. */
		if (c.kind == CMD_REJECT_ALL)
			table_select_past(&v->table, c.name);
		if (res.message != NULL)
			view_hint(v, ROLE_HINT, "%s", res.message);
		break;
	case OUTCOME_ERROR:
		view_hint(v, ROLE_ERROR, "%s", res.message);
		break;
	case OUTCOME_REPORT:
		report_show(v, c.kind, res.data);
		break;
	case OUTCOME_FRONT:
		if (c.kind == CMD_ZOOM)
			keys_zoom(v, 0);
		else if (c.kind == CMD_HELP)
			keys_help_open(v, 0);
		else if (c.kind == CMD_QUIT)
			flags = keys_quit(v, 0);
		break;
	}
	execute_result_clear(&res);
	command_clear(&c);
	return flags;
}
