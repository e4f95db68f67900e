/*
 * The key table and what is drawn from it (see keymap.h).
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/keymap.h"
#include "ui/keyread.h"
#include "ui/reqkeys.h"
#include "ui/view.h"
#include "util/xmalloc.h"

#define CTRL(c) ((c) & 0x1f)
#define K 1	/* a KEY_* code */
#define C 0	/* a character */
#define EMPTY KEYF_EMPTY
#define TABLE (KEYF_TABLE | KEYF_EMPTY)

/*
 * Every key, in the order they are looked up and F1 lists them: the
 * first entry that matches the key where the view is wins. An entry
 * without help is told by the one before it.
 */
/* The bar's label of F4: what it switches to. */
static const char *
keymap_tasks_label(struct view *v)
{
	return v->show_tasks ? "Requests" : "Tasks";
}

/* A row names its fields in order and stops at its action and says; its
 * arg, when it has one, follows (0 otherwise). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct keydef keymap[] = {
	/* Anywhere. */
	{ K, KEY_F(10), "F10", KW_ANY, 0, "Quit", NULL,
	    "quit, from anywhere: teammates are asked to shut down (when "
	    "requests wait for you, it first says which the quit withdraws: "
	    "F10 again quits); again: stop everyone now (the state is kept)",
	    KA_QUIT, NULL },
	{ C, CTRL('c'), "C-c", KW_ANY, 0, NULL, NULL, "with a line typed: "
	    "clear it (Up brings it back); in a search or a reason being "
	    "typed: clear or leave it; else quit, as F10 (twice within 2 s: "
	    "F10 twice)", KA_INTERRUPT, NULL },
	{ K, KEY_RESIZE, "", KW_ANY, 0, NULL, NULL, NULL, KA_RESIZE,
	    NULL },

	/* The main screen. */
	{ K, KEYREAD_NEWLINE, "M-Enter, C-j", KW_MAIN, 0, NULL, NULL,
	    "a new line in the input", KA_NEWLINE, NULL },
	{ C, '\t', "Tab/S-Tab", KW_MAIN, 0, NULL, NULL,
	    "focus: lead, teammates, the table; Tab on a line starting with "
	    "/ completes the command, then a name", KA_TAB, NULL },
	{ K, KEY_BTAB, "S-Tab", KW_MAIN, 0, NULL, NULL, NULL, KA_BTAB,
	    NULL },
	{ C, '?', "?", KW_MAIN, EMPTY, NULL, NULL,
	    "this help, with nothing typed", KA_HELP_OPEN, NULL },
	{ K, KEY_F(1), "F1", KW_MAIN, 0, "Help", NULL, "this help",
	    KA_HELP_OPEN, NULL },
	{ C, 'a', "a r t z s", KW_MAIN, TABLE, NULL, NULL,
	    "on the table with nothing typed: as F5 F6 F4 F8 F9",
	    KA_APPROVE, NULL },
	{ C, 'r', "r", KW_MAIN, TABLE, NULL, NULL, NULL, KA_REJECT, NULL },
	{ C, 't', "t", KW_MAIN, TABLE, NULL, NULL, NULL, KA_TASKS, NULL },
	{ C, 'z', "z", KW_MAIN, TABLE, NULL, NULL, NULL, KA_ZOOM, NULL },
	{ C, 's', "s", KW_MAIN, TABLE, NULL, NULL, NULL, KA_MENU, NULL },
	{ C, 'R', "R", KW_MAIN, TABLE, NULL, NULL,
	    "on the table with nothing typed: reject every request waiting "
	    "for you from the selected request's agent (as /reject-all)",
	    KA_REJECT_ALL, NULL },
	{ C, 'h', "h", KW_MAIN, TABLE, NULL, NULL,
	    "on the table with nothing typed: hide or show ended "
	    "teammates", KA_HIDE_ENDED, NULL },
	{ C, 'j', "j k", KW_MAIN, TABLE, NULL, NULL,
	    "on the table with nothing typed: down and up, as the arrows",
	    KA_DOWN, NULL },
	{ C, 'k', "k", KW_MAIN, TABLE, NULL, NULL, NULL, KA_UP, NULL },
	{ C, '/', "/", KW_MAIN, TABLE, NULL, NULL,
	    "on the table with nothing typed: filter its rows by what they "
	    "say (Esc there clears it; commands are typed with a pane "
	    "focused)", KA_FILTER, NULL },
	{ K, KEY_F(4), "F4", KW_MAIN, 0, "Tasks", keymap_tasks_label,
	    "the table shows the tasks, or the requests", KA_TASKS, NULL },
	{ K, KEY_F(5), "F5", KW_MAIN, KEYF_REQUEST, "Approve",
	    reqkeys_approve_label,
	    "approve the request the hint line names; when the hint could "
	    "not show it all, show it first", KA_APPROVE,
	    reqkeys_approve_says },
	{ K, KEY_F(6), "F6", KW_MAIN, KEYF_REQUEST, "Reject",
	    reqkeys_reject_label,
	    "reject it, with feedback (likewise)", KA_REJECT,
	    reqkeys_reject_says },
	{ C, '\r', "Enter", KW_MAIN, KEYF_REQUEST, NULL, NULL,
	    "send the input line to the focused agent; with nothing typed, "
	    "expand or fold the output selected in the pane (a search's "
	    "match, a click), else show the whole request the hint line "
	    "names", KA_ENTER, reqkeys_enter_says },
	{ K, KEY_F(7), "F7", KW_MAIN, 0, NULL, NULL,
	    "the focused teammate's changes in its worktree", KA_DIFF,
	    NULL },
	{ K, KEY_F(8), "F8", KW_MAIN, 0, "Zoom", NULL,
	    "zoom the focused pane, or back", KA_ZOOM, NULL },
	{ K, KEY_F(9), "F9", KW_MAIN, 0, "Shutdown", NULL,
	    "shut a teammate down (a forced stop after no answer)",
	    KA_MENU, NULL },
	{ C, 0x1b, "Esc", KW_MAIN, 0, NULL, NULL,
	    "interrupt the focused agent (nothing typed)", KA_ESCAPE,
	    NULL },
	{ K, KEY_UP, "Up/Down", KW_MAIN, 0, NULL, NULL,
	    "choose a request or task (table focused); else the input "
	    "history", KA_UP, NULL },
	{ K, KEY_DOWN, "Down", KW_MAIN, 0, NULL, NULL, NULL, KA_DOWN,
	    NULL },
	{ K, KEY_PPAGE, "PgUp/PgDn", KW_MAIN, 0, NULL, NULL,
	    "scroll the focused pane", KA_PGUP, NULL },
	{ K, KEY_NPAGE, "PgDn", KW_MAIN, 0, NULL, NULL, NULL, KA_PGDN,
	    NULL },
	{ K, KEY_END, "End", KW_MAIN, 0, NULL, NULL,
	    "a scrolled pane back to its live tail; else the line's end",
	    KA_END, NULL },
	{ K, KEY_HOME, "Home", KW_MAIN, 0, NULL, NULL, "the line's start",
	    KA_HOME, NULL },
	{ K, KEY_LEFT, "Left/Right", KW_MAIN, 0, NULL, NULL,
	    "move in the input line", KA_LEFT, NULL },
	{ K, KEY_RIGHT, "Right", KW_MAIN, 0, NULL, NULL, NULL, KA_RIGHT,
	    NULL },
	{ K, KEYREAD_WORD_LEFT, "C-Left/Right", KW_MAIN, 0, NULL, NULL,
	    "move by a word (M-b, M-f too)", KA_WORD_LEFT, NULL },
	{ K, KEYREAD_WORD_RIGHT, "C-Right", KW_MAIN, 0, NULL, NULL, NULL,
	    KA_WORD_RIGHT, NULL },
	{ K, KEY_BACKSPACE, "Bksp/Del", KW_MAIN, 0, NULL, NULL,
	    "delete before, under the cursor", KA_BACKSPACE, NULL },
	{ K, KEY_DC, "Del", KW_MAIN, 0, NULL, NULL, NULL, KA_DELETE,
	    NULL },
	{ C, CTRL('a'), "C-a/C-e", KW_MAIN, 0, NULL, NULL,
	    "the line's start, end", KA_LINE_START, NULL },
	{ C, CTRL('e'), "C-e", KW_MAIN, 0, NULL, NULL, NULL, KA_LINE_END,
	    NULL },
	{ C, CTRL('u'), "C-u/C-w", KW_MAIN, 0, NULL, NULL,
	    "delete the line, the word before the cursor", KA_KILL_LINE,
	    NULL },
	{ C, CTRL('w'), "C-w", KW_MAIN, 0, NULL, NULL, NULL, KA_KILL_WORD,
	    NULL },
	{ K, KEY_SR, "S-Up/S-Down", KW_MAIN, 0, NULL, NULL,
	    "pick the teammate before or after: its pane gets the focus",
	    KA_PICK_UP, NULL },
	{ K, KEY_SF, "S-Down", KW_MAIN, 0, NULL, NULL, NULL, KA_PICK_DOWN,
	    NULL },
	{ C, 'x', "x", KW_MAIN, KEYF_PICKED | EMPTY, NULL, NULL,
	    "right after S-Up/S-Down: stop the picked teammate (asks "
	    "first, as F9)", KA_STOP_PICKED, NULL },
	{ C, CTRL('t'), "C-t", KW_MAIN, 0, NULL, NULL,
	    "the table shows the tasks, or the requests (as F4)",
	    KA_TASKS, NULL },
	{ C, CTRL('o'), "C-o", KW_MAIN, 0, NULL, NULL,
	    "show what is folded in full (the models' thinking, tool "
	    "output's further lines, a long paste), or fold it all again",
	    KA_THINKING,
	    NULL },
	{ C, CTRL('p'), "C-p", KW_MAIN, 0, NULL, NULL,
	    "the whole of a long output in $PAGER (less): the selected "
	    "one, else the focused pane's newest kept whole", KA_PAGER, NULL },
	{ C, CTRL('f'), "C-f", KW_MAIN, 0, NULL, NULL,
	    "search the focused pane: type, n/N or Enter for the next, "
	    "previous; Esc ends", KA_FIND, NULL },
	{ C, CTRL('l'), "C-l", KW_MAIN, 0, NULL, NULL, "redraw the screen",
	    KA_REDRAW, NULL },
	{ C, CTRL('g'), "C-g", KW_MAIN, 0, NULL, NULL,
	    "clear the error on the status line", KA_ACK_ERROR, NULL },
	{ K, KEY_MOUSE, "mouse", KW_MAIN, 0, NULL, NULL,
	    "a click focuses a pane or a row; the wheel scrolls",
	    KA_MOUSE, NULL },

	/* A request's detail view. */
	{ K, KEY_F(5), "F5", KW_DETAIL, 0, NULL, NULL,
	    "approve this request (a network one: for its command)",
	    KA_APPROVE, reqkeys_approve_says },
	{ K, KEY_F(6), "F6", KW_DETAIL, 0, NULL, NULL,
	    "reject it, with feedback", KA_REJECT, reqkeys_reject_says },
	{ C, 't', "t", KW_DETAIL, 0, NULL, NULL,
	    "allow a network request for the whole team", KA_ALLOW_TEAM,
	    reqkeys_team_says },
	{ C, 'T', "T", KW_DETAIL, 0, NULL, NULL, NULL, KA_ALLOW_TEAM,
	    NULL },
	{ C, 'R', "R", KW_DETAIL, 0, NULL, NULL,
	    "reject every request waiting for you from this one's agent",
	    KA_REJECT_ALL, NULL },
	{ K, KEY_UP, "Up/Down", KW_DETAIL, 0, "scroll", NULL,
	    "scroll (PgUp/PgDn, Home/End too)", KA_DETAIL_SCROLL, NULL, -1 },
	{ K, KEY_DOWN, "Down", KW_DETAIL, 0, NULL, NULL, NULL,
	    KA_DETAIL_SCROLL, NULL, 1 },
	{ K, KEY_PPAGE, "PgUp", KW_DETAIL, 0, NULL, NULL, NULL,
	    KA_DETAIL_SCROLL, NULL, -SCROLL_PAGE },
	{ K, KEY_NPAGE, "PgDn", KW_DETAIL, 0, NULL, NULL, NULL,
	    KA_DETAIL_SCROLL, NULL, SCROLL_PAGE },
	{ K, KEY_HOME, "Home", KW_DETAIL, 0, NULL, NULL, NULL,
	    KA_DETAIL_SCROLL, NULL, -SCROLL_ALL },
	{ K, KEY_END, "End", KW_DETAIL, 0, NULL, NULL, NULL,
	    KA_DETAIL_SCROLL, NULL, SCROLL_ALL },
	{ C, 0x1b, "Esc", KW_DETAIL, 0, "closes", NULL, "close (q, Enter too)",
	    KA_CLOSE, NULL },
	{ C, 'q', "q", KW_DETAIL, 0, NULL, NULL, NULL, KA_CLOSE, NULL },
	{ C, '\r', "Enter", KW_DETAIL, 0, NULL, NULL, NULL, KA_CLOSE,
	    NULL },

	/* The help. */
	{ K, KEY_UP, "Up/Down", KW_HELP, 0, "scroll", NULL,
	    "scroll (PgUp/PgDn, Home/End too)", KA_HELP_SCROLL, NULL, -1 },
	{ K, KEY_DOWN, "Down", KW_HELP, 0, NULL, NULL, NULL,
	    KA_HELP_SCROLL, NULL, 1 },
	{ K, KEY_PPAGE, "PgUp", KW_HELP, 0, NULL, NULL, NULL,
	    KA_HELP_SCROLL, NULL, -SCROLL_PAGE },
	{ K, KEY_NPAGE, "PgDn", KW_HELP, 0, NULL, NULL, NULL,
	    KA_HELP_SCROLL, NULL, SCROLL_PAGE },
	{ K, KEY_HOME, "Home", KW_HELP, 0, NULL, NULL, NULL,
	    KA_HELP_SCROLL, NULL, -SCROLL_ALL },
	{ K, KEY_END, "End", KW_HELP, 0, NULL, NULL, NULL, KA_HELP_SCROLL,
	    NULL, SCROLL_ALL },
	{ C, '/', "/", KW_HELP, 0, "search", NULL,
	    "search: type, then Enter", KA_HELP_FIND, NULL },
	{ C, 'n', "n", KW_HELP, 0, "next", NULL, "the next match",
	    KA_HELP_NEXT, NULL },
	{ C, 0x1b, "Esc/q", KW_HELP, 0, "closes", NULL, "close the help",
	    KA_CLOSE, NULL },
	{ C, 'q', "q", KW_HELP, 0, NULL, NULL, NULL, KA_CLOSE, NULL },
	{ K, KEY_F(1), "F1", KW_HELP, 0, NULL, NULL, NULL, KA_CLOSE,
	    NULL },
	{ C, '\r', "Enter", KW_SEARCH, 0, "finds", NULL,
	    "the search typed so far", KA_SEARCH_DONE, NULL },
	{ C, 0x1b, "Esc", KW_SEARCH, 0, "cancels", NULL, "no search",
	    KA_SEARCH_CANCEL, NULL },
	{ K, KEY_BACKSPACE, "Bksp", KW_SEARCH, 0, NULL, NULL, NULL,
	    KA_SEARCH_BACKSPACE, NULL },

	/* Typing the table's filter. */
	{ C, '\r', "Enter", KW_FILTER, 0, "keeps", NULL,
	    "keep the filter: the table shows only the rows that hold it",
	    KA_FILTER_KEEP, NULL },
	{ C, 0x1b, "Esc", KW_FILTER, 0, "clears", NULL,
	    "no filter: every row again", KA_FILTER_CLEAR, NULL },
	{ K, KEY_BACKSPACE, "Bksp", KW_FILTER, 0, NULL, NULL, NULL,
	    KA_FILTER_BACKSPACE, NULL },
	{ K, KEY_UP, "Up/Down", KW_FILTER, 0, NULL, NULL,
	    "move the selection among the rows shown", KA_UP, NULL },
	{ K, KEY_DOWN, "Down", KW_FILTER, 0, NULL, NULL, NULL, KA_DOWN,
	    NULL },

	/* A search in a pane. */
	{ C, '\r', "Enter", KW_FIND, 0, "keeps", NULL,
	    "keep the search: n and N go through its matches", KA_FIND_KEEP,
	    NULL },
	{ C, 0x1b, "Esc", KW_FIND, 0, "ends", NULL, "end the search",
	    KA_FIND_END, NULL },
	{ K, KEY_BACKSPACE, "Bksp", KW_FIND, 0, NULL, NULL, NULL,
	    KA_FIND_BACKSPACE, NULL },
	{ C, 'n', "n", KW_FOUND, 0, "next", NULL,
	    "the next match, older", KA_FIND_NEXT, NULL },
	{ C, 'N', "N", KW_FOUND, 0, "previous", NULL,
	    "the previous match, newer", KA_FIND_PREV, NULL },
	{ K, KEY_UP, "Up/Down", KW_FOUND, 0, NULL, NULL,
	    "as N and n", KA_FIND_PREV, NULL },
	{ K, KEY_DOWN, "Down", KW_FOUND, 0, NULL, NULL, NULL,
	    KA_FIND_NEXT, NULL },
	{ C, '\r', "Enter", KW_FOUND, 0, "expands", NULL,
	    "expand the folded output the match is in, else the next match",
	    KA_FIND_ENTER, NULL },
	{ K, KEY_PPAGE, "PgUp/PgDn", KW_FOUND, 0, NULL, NULL,
	    "scroll the pane", KA_PGUP, NULL },
	{ K, KEY_NPAGE, "PgDn", KW_FOUND, 0, NULL, NULL, NULL, KA_PGDN,
	    NULL },
	{ C, CTRL('f'), "C-f", KW_FOUND, 0, NULL, NULL, "a new search",
	    KA_FIND, NULL },
	{ C, CTRL('o'), "C-o", KW_FOUND, 0, NULL, NULL,
	    "everything folded in full, or folded (as on the main screen)",
	    KA_THINKING, NULL },
	{ C, CTRL('p'), "C-p", KW_FOUND, 0, NULL, NULL,
	    "the whole output the match is in, in $PAGER", KA_PAGER, NULL },
	{ C, 0x1b, "Esc", KW_FOUND, 0, "ends", NULL,
	    "end the search; the match stays selected for Enter (any other "
	    "key is typed in the input line)", KA_FIND_END, NULL },

	/* A worktree's changes. */
	{ K, KEY_UP, "Up/Down", KW_DIFF, 0, "scroll", NULL,
	    "scroll (PgUp/PgDn, Home/End too)", KA_DIFF_SCROLL, NULL, -1 },
	{ K, KEY_DOWN, "Down", KW_DIFF, 0, NULL, NULL, NULL,
	    KA_DIFF_SCROLL, NULL, 1 },
	{ K, KEY_PPAGE, "PgUp", KW_DIFF, 0, NULL, NULL, NULL,
	    KA_DIFF_SCROLL, NULL, -SCROLL_PAGE },
	{ K, KEY_NPAGE, "PgDn", KW_DIFF, 0, NULL, NULL, NULL,
	    KA_DIFF_SCROLL, NULL, SCROLL_PAGE },
	{ K, KEY_HOME, "Home", KW_DIFF, 0, NULL, NULL, NULL,
	    KA_DIFF_SCROLL, NULL, -SCROLL_ALL },
	{ K, KEY_END, "End", KW_DIFF, 0, NULL, NULL, NULL, KA_DIFF_SCROLL,
	    NULL, SCROLL_ALL },
	{ C, 0x1b, "Esc", KW_DIFF, 0, "closes", NULL,
	    "close (q, Enter, F7 too)", KA_CLOSE, NULL },
	{ C, 'q', "q", KW_DIFF, 0, NULL, NULL, NULL, KA_CLOSE, NULL },
	{ C, '\r', "Enter", KW_DIFF, 0, NULL, NULL, NULL, KA_CLOSE, NULL },
	{ K, KEY_F(7), "F7", KW_DIFF, 0, NULL, NULL, NULL, KA_CLOSE, NULL },

	/* The shutdown menu. */
	{ K, KEY_UP, "Up/Down", KW_MENU, 0, NULL, NULL, "choose a teammate",
	    KA_MENU_UP, NULL },
	{ K, KEY_DOWN, "Down", KW_MENU, 0, NULL, NULL, NULL, KA_MENU_DOWN,
	    NULL },
	{ C, '\r', "Enter", KW_MENU, 0, "asks it to shut down", NULL,
	    "ask it to shut down (stop it, after no answer)",
	    KA_MENU_CHOOSE, NULL },
	{ C, 0x1b, "Esc", KW_MENU, 0, "closes", NULL, "close (F9 too)",
	    KA_CLOSE, NULL },
	{ K, KEY_F(9), "F9", KW_MENU, 0, NULL, NULL, NULL, KA_CLOSE, NULL },

	/* The feedback of a rejection. */
	{ C, '\r', "Enter", KW_FEEDBACK, 0, "sends", NULL,
	    "reject, with what was typed", KA_FEEDBACK_SEND, NULL },
	{ C, 0x1b, "Esc", KW_FEEDBACK, 0, "cancels", NULL, "do not reject",
	    KA_CLOSE, NULL },
	{ K, KEY_BACKSPACE, "Bksp", KW_FEEDBACK, 0, NULL, NULL, NULL,
	    KA_FEEDBACK_BACKSPACE, NULL },
	{ K, KEY_LEFT, "Left", KW_FEEDBACK, 0, NULL, NULL, NULL,
	    KA_FEEDBACK_LEFT, NULL },
	{ K, KEY_RIGHT, "Right", KW_FEEDBACK, 0, NULL, NULL, NULL,
	    KA_FEEDBACK_RIGHT, NULL },
};
#pragma GCC diagnostic pop

#define KEYMAP_N (sizeof keymap / sizeof *keymap)

/* The places, in F1's order, with their headings. */
static const struct {
	unsigned	 where;
	const char	*title;
} keymap_places[] = {
	{ KW_ANY, "Anywhere" },
	{ KW_MAIN, "On the main screen" },
	{ KW_DETAIL, "In a request's detail view (Enter)" },
	{ KW_HELP, "In this help" },
	{ KW_SEARCH, "Typing a search in the help" },
	{ KW_FIND, "Typing a search in a pane (C-f)" },
	{ KW_FOUND, "Going through a pane's matches" },
	{ KW_FILTER, "Typing a filter for the table (/)" },
	{ KW_DIFF, "In a worktree's changes (F7)" },
	{ KW_MENU, "In the shutdown menu (F9)" },
	{ KW_FEEDBACK, "Typing why a request is rejected (F6)" },
};

unsigned
keymap_where(struct view *v)
{
	switch (v->popup) {
	case POPUP_HELP:
		return v->help_typing ? KW_SEARCH : KW_HELP;
	case POPUP_DETAIL:
		return KW_DETAIL;
	case POPUP_DIFF:
		return KW_DIFF;
	case POPUP_MENU:
		return KW_MENU;
	case POPUP_FEEDBACK:
		return KW_FEEDBACK;
	case POPUP_NONE:
		break;
	}
	if (v->find_on)
		return v->find_typing ? KW_FIND : KW_FOUND;
	if (v->filter_typing)
		return KW_FILTER;
	return KW_MAIN;
}

/* Whether d's conditions hold now. */
static int
keymap_holds(struct view *v, const struct keydef *d)
{
	if ((d->when & KEYF_EMPTY) && v->input.len > 0)
		return 0;
	if ((d->when & KEYF_TABLE) && v->focus != FOCUS_TABLE)
		return 0;
	if ((d->when & KEYF_PICKED) && !v->picked)
		return 0;
	return 1;
}

const struct keydef *
keymap_find(struct view *v, int is_key, int code)
{
	unsigned where = keymap_where(v);
	size_t i;

	for (i = 0; i < KEYMAP_N; i++) {
		const struct keydef *d = &keymap[i];

		if (d->is_key == is_key && d->code == code &&
		    (d->where & where) && keymap_holds(v, d))
			return d;
	}
	return NULL;
}

char *
keymap_request_phrase(struct view *v, const struct table_row *r, int whole)
{
	const char *says[8], *names[8];
	char *text = NULL;
	size_t len = 0, cap = 0, i, j, n = 0;
	int used[8] = { 0 };

	for (i = 0; i < KEYMAP_N && n < 8; i++) {
		const struct keydef *d = &keymap[i];

		if (!(d->when & KEYF_REQUEST) || d->says == NULL ||
		    !(d->where & KW_MAIN) ||
		    (says[n] = d->says(v, r, whole)) == NULL)
			continue;
		names[n++] = d->name;
	}
	if (n == 0)
		return xstrdup("");
	/* Keys that do the same are named together: "F5 or Enter shows
	 * all". */
	text = xappend(text, &len, &cap, "(", 1);
	for (i = 0; i < n; i++) {
		if (used[i])
			continue;
		if (len > 1)
			text = xappend(text, &len, &cap, ", ", 2);
		text = xappend(text, &len, &cap, names[i], strlen(names[i]));
		for (j = i + 1; j < n; j++) {
			if (used[j] || strcmp(says[i], says[j]) != 0)
				continue;
			used[j] = 1;
			text = xappend(text, &len, &cap, " or ", 4);
			text = xappend(text, &len, &cap, names[j],
			    strlen(names[j]));
		}
		text = xappend(text, &len, &cap, " ", 1);
		text = xappend(text, &len, &cap, says[i], strlen(says[i]));
	}
	return xappend(text, &len, &cap, ")", 1);
}

size_t
keymap_bar(struct view *v, unsigned where, const char **names,
    const char **labels, size_t max)
{
	const struct keydef *bar[32], *d;
	size_t i, j, n = 0;

	for (i = 0; i < KEYMAP_N && n < max && n < 32; i++) {
		d = &keymap[i];
		if (d->bar == NULL || !(d->where & where))
			continue;
		/* In the order of their codes: F1 before F10. */
		for (j = n++; j > 0 && bar[j - 1]->code > d->code; j--)
			bar[j] = bar[j - 1];
		bar[j] = d;
	}
	for (i = 0; i < n; i++) {
		names[i] = bar[i]->name;
		labels[i] = bar[i]->label != NULL ? bar[i]->label(v) :
		    bar[i]->bar;
	}
	return n;
}

char *
keymap_line(struct view *v, unsigned where)
{
	const struct table_row *r = v->popup == POPUP_DETAIL ?
	    table_find(&v->table, v->detail_id) : NULL;
	char *text = NULL, *one;
	size_t len = 0, cap = 0, i;
	const char *label;

	for (i = 0; i < KEYMAP_N; i++) {
		const struct keydef *d = &keymap[i];

		if (!(d->where & where) || d->where == KW_ANY)
			continue;
		/* What a key would do with the request shown, when it can
		 * do something. */
		if (d->says != NULL && where == KW_DETAIL)
			label = r != NULL ? d->says(v, r, 1) : NULL;
		else
			label = d->bar;
		if (label == NULL)
			continue;
		one = xasprintf("%s%s %s", len ? " · " : "", d->name, label);
		text = xappend(text, &len, &cap, one, strlen(one));
		free(one);
	}
	return text != NULL ? text : xstrdup("");
}

char *
keymap_help(int col)
{
	char *text = NULL, *one;
	size_t len = 0, cap = 0, i, p;

	for (p = 0; p < sizeof keymap_places / sizeof *keymap_places; p++) {
		unsigned where = keymap_places[p].where;

		one = xasprintf("%s%s:\n", p ? "\n" : "",
		    keymap_places[p].title);
		text = xappend(text, &len, &cap, one, strlen(one));
		free(one);
		for (i = 0; i < KEYMAP_N; i++) {
			const struct keydef *d = &keymap[i];

			/* Each under the first place it works. */
			if (d->help == NULL || d->where != where)
				continue;
			one = xasprintf("  %-*s %s\n", col - 3, d->name,
			    d->help);
			text = xappend(text, &len, &cap, one, strlen(one));
			free(one);
		}
	}
	return text;
}
