/*
 * The key table: every key the screen knows, once, with where it works,
 * the action it runs and its help. keys_press (keys.c) looks a key up
 * here and runs its action, and F1, the F-key bar, the popups' key lines
 * and the hint line's promises about the selected request are all drawn
 * from it, so a key's help and what the key does come from one entry.
 * The table names actions by id and calls nothing of keys.c: what the
 * keys promise to do with a request comes from reqkeys.c, below both.
 */
#ifndef HUDDLE_UI_KEYMAP_H
#define HUDDLE_UI_KEYMAP_H

#include <stddef.h>
#include <wchar.h>

struct view;
struct table_row;

/* Where a key works: what is open. */
#define KW_MAIN		0x01	/* the panes, the table, the input line */
#define KW_DETAIL	0x02	/* a request's detail view */
#define KW_HELP		0x04	/* the help (F1) */
#define KW_SEARCH	0x08	/* typing a search in the help */
#define KW_DIFF		0x10	/* a worktree's changes (F7) */
#define KW_MENU		0x20	/* the shutdown menu (F9) */
#define KW_FEEDBACK	0x40	/* typing why a request is rejected */
#define KW_FIND		0x80	/* typing a search in a pane (C-f) */
#define KW_FOUND	0x100	/* going through its matches */
#define KW_FILTER	0x200	/* typing a filter for the table (/) */
#define KW_ANY		0x3ff

/* When, besides: */
#define KEYF_EMPTY	0x1	/* the input line is empty */
#define KEYF_TABLE	0x2	/* the table has the focus */
#define KEYF_REQUEST	0x4	/* promised on the hint line of a request */
#define KEYF_PICKED	0x8	/* a teammate was just picked (S-Up/Down) */

/* What a key does: keys.c runs the action of each id. */
enum key_action {
	/* The main screen. */
	KA_ENTER,
	KA_NEWLINE,
	KA_TAB,
	KA_BTAB,
	KA_UP,
	KA_DOWN,
	KA_PGUP,
	KA_PGDN,
	KA_HOME,
	KA_END,
	KA_LEFT,
	KA_RIGHT,
	KA_WORD_LEFT,
	KA_WORD_RIGHT,
	KA_BACKSPACE,
	KA_DELETE,
	KA_LINE_START,
	KA_LINE_END,
	KA_KILL_LINE,
	KA_KILL_WORD,
	KA_HELP_OPEN,
	KA_TASKS,
	KA_APPROVE,
	KA_REJECT,
	KA_REJECT_ALL,
	KA_DIFF,
	KA_ZOOM,
	KA_MENU,
	KA_QUIT,
	KA_INTERRUPT,
	KA_ESCAPE,
	KA_THINKING,
	KA_PAGER,
	KA_FILTER,
	KA_FILTER_KEEP,
	KA_FILTER_CLEAR,
	KA_FILTER_BACKSPACE,
	KA_PICK_UP,
	KA_PICK_DOWN,
	KA_STOP_PICKED,
	KA_REDRAW,
	KA_ACK_ERROR,
	KA_HIDE_ENDED,
	KA_MOUSE,
	KA_RESIZE,

	/* The detail view of a request. */
	KA_ALLOW_TEAM,
	KA_DETAIL_SCROLL,	/* its arg: SCROLL_* or lines */

	/* Any popup: closes it. */
	KA_CLOSE,

	/* The help. */
	KA_HELP_SCROLL,	/* its arg: SCROLL_* or lines */
	KA_HELP_FIND,
	KA_HELP_NEXT,
	KA_SEARCH_DONE,
	KA_SEARCH_CANCEL,
	KA_SEARCH_BACKSPACE,

	/* The diff view. */
	KA_DIFF_SCROLL,	/* its arg: SCROLL_* or lines */

	/* The shutdown menu. */
	KA_MENU_UP,
	KA_MENU_DOWN,
	KA_MENU_CHOOSE,

	/* The feedback line of a rejection. */
	KA_FEEDBACK_SEND,
	KA_FEEDBACK_BACKSPACE,
	KA_FEEDBACK_LEFT,
	KA_FEEDBACK_RIGHT,

	/* A search in a pane. */
	KA_FIND,
	KA_FIND_KEEP,
	KA_FIND_END,
	KA_FIND_BACKSPACE,
	KA_FIND_NEXT,
	KA_FIND_PREV,
	KA_FIND_ENTER,
	KA_N			/* how many */
};

struct keydef {
	int		 is_key;	/* code is a KEY_* code, else a char */
	int		 code;
	const char	*name;		/* as F1 shows it: "F5", "C-t", "?" */
	unsigned	 where, when;
	const char	*bar;		/* its label on a bar of keys, or NULL */
	const char	*(*label)(struct view *v); /* or the label now */
	const char	*help;		/* F1's line; NULL: told by another */
	enum key_action	 action;
	/* What it does now with request r (KEYF_REQUEST), shown whole on
	 * the hint line or not: the same choice the action makes
	 * (reqkeys.c). */
	const char	*(*says)(struct view *v, const struct table_row *r,
			    int whole);
	int		 arg;		/* for the action: one serves keys
					 * that differ by it (a scroll's
					 * lines, SCROLL_PAGE, SCROLL_ALL) */
};

/* A scroll key's argument beyond a count of lines: a page, or all the
 * way (negative: up). */
#define SCROLL_PAGE	100000
#define SCROLL_ALL	200000

/* Where the view is now (one KW_* bit). */
unsigned keymap_where(struct view *v);

/* The entry for a key in the view as it is, or NULL. Enter, Backspace
 * and their aliases arrive as '\r' and KEY_BACKSPACE. */
const struct keydef *keymap_find(struct view *v, int is_key, int code);

/* "(F5 approves, F6 rejects, Enter shows all)": what the KEYF_REQUEST
 * keys do now with r. Free it. */
char *keymap_request_phrase(struct view *v, const struct table_row *r,
    int whole);

/* The bar of keys for where (KW_*): "F1 Help  F4 Tasks …" as pairs of
 * name and label in names[] and labels[]; returns how many (at most
 * max). */
size_t keymap_bar(struct view *v, unsigned where, const char **names,
    const char **labels, size_t max);

/* The keys of where as one line: "Up/Down scroll · Esc closes". Free
 * it. */
char *keymap_line(struct view *v, unsigned where);

/* F1's part on the keys: every entry with help, by where it works, one
 * line each ("name" padded to col, then help), '\n' after each. Free
 * it. */
char *keymap_help(int col);

#endif
