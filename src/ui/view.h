/*
 * The view is everything the screen shows, owned by the main thread: one
 * pane per agent (the lead's first), the table of requests or of tasks,
 * the input line, which pane has the focus, zoom, the open popup and the
 * hint line's notice. Team events change it (view_apply); keys change it
 * (keys_press, in keys.c); it is drawn in one pass (layout_draw, in
 * layout.c). The files of the screen above it read and change it; it
 * calls none of them.
 */
#ifndef HUDDLE_UI_VIEW_H
#define HUDDLE_UI_VIEW_H

#include <curses.h>
#include <stdint.h>
#include <wchar.h>

#include "agent/event.h"
#include "agent/team.h"
#include "ui/color.h"
#include "ui/diffview.h"
#include "ui/input.h"
#include "ui/pane.h"
#include "ui/table.h"
#include "ui/tasklist.h"

#define FOCUS_TABLE (-1)

enum popup {
	POPUP_NONE,
	POPUP_HELP,
	POPUP_MENU,		/* F9: shut a teammate down */
	POPUP_FEEDBACK,		/* F6: why the request is rejected */
	POPUP_DETAIL,		/* Enter on a request: all of it */
	POPUP_DIFF		/* /diff NAME or F7: a worktree's changes */
};

/* What a key did (keys_press's result flags). */
#define KEY_HANDLED	0x1
#define KEY_REDRAW	0x2
#define KEY_FULL_REDRAW	0x4	/* Ctrl-L: repaint every cell */
#define KEY_QUIT	0x8

struct rect {
	int	y, x, h, w;
};

struct view {
	struct team	*team;
	struct pane	**panes;
	size_t		 npanes, cap;
	struct table	 table;
	struct tasklist	 tasks;
	struct diffview	 diff;		/* POPUP_DIFF's */
	int		 show_tasks;	/* F4: the table shows the tasks */
	struct input	 input;
	int		 focus;		/* pane index or FOCUS_TABLE */
	int		 zoom;
	enum popup	 popup;
	int		 menu_sel;
	struct input	 feedback;
	char		 reject_id[16];
	char		*hint;		/* a notice, until the next key */
	enum color_role	 hint_role;
	/* What the hint line showed of the selection when last drawn: F5
	 * and F6 act at once only on a request shown there whole. */
	char		 shown_id[16];
	char		 detail_id[16];	/* POPUP_DETAIL's request */
	int		 detail_first;	/* its first line shown */
	int		 help_first;	/* the help's first line shown */
	int		 help_hit;	/* its line the search found, or -1 */
	int		 help_typing;	/* a search is being typed */
	char		 help_query[64]; /* what is searched */
	int64_t		 started_ms;	/* for the status line's clock */
	int		 quit_armed;	/* F10 said what a quit withdraws:
					 * again quits */
	int64_t		 ctrl_c_ms;	/* the last C-c on an empty line */
	unsigned	 spin;		/* its spinner's frame */
	int		 show_thinking;	/* Ctrl-O: thinking and outputs
					 * unfolded */
	uint64_t	 focus_seq;	/* counts focus as drawn: pane.h */
	char		*page;		/* C-p: a file for the front end to
					 * show in a pager, then free */
	/* A search in a pane (panefind.c). */
	int		 find_on;	/* a search is open */
	int		 find_typing;	/* its words are being typed */
	int		 filter_typing;	/* the table's filter is being
					 * typed ... */
	char		 filter_query[TABLE_FILTER_MAX + 1]; /* ... this: the
					 * filter, or a command */
	char		 filter_from[16]; /* the selection when / was
					 * pressed, and whether the person
					 * chose it: a command typed there
					 * acts on it, not on a row the
					 * filter's letters passed by */
	int		 filter_chosen;
	char		 find_query[64];
	int		 find_pane;	/* the pane searched */
	int		 find_hit;	/* a match is current */
	uint64_t	 find_seq;	/* its line */
	size_t		 find_off;	/* and its byte */
	int		 picked;	/* the last key picked a teammate */
	int		 hide_ended;	/* terminated teammates not drawn */
	/* The last error, on the status line until Ctrl-G acknowledges
	 * it, and how many came since the last acknowledgement. */
	char		*error;
	size_t		 errors;

	/* Where things were drawn, for the mouse. */
	struct rect	*rects;		/* per pane */
	size_t		 caprects;
	struct rect	 table_rect;
	int		 too_small;
};

struct view *view_new(struct team *t);
void view_free(struct view *v);

/* Fills the panes with the last `last` stored turns of every member
 * (after --resume). */
void view_load_history(struct view *v, size_t last);

/* Applies one event. Returns 1 when the screen should be redrawn. */
int view_apply(struct view *v, const struct event *e);

/* The pane of agent `name`, created when missing. */
struct pane *view_pane(struct view *v, const char *name, const char *role);

/* "retrying in 12s (attempt 3)": a pane whose call waits to retry
 * (p->retry_at_ms is not 0). Free it. */
char *view_retry_text(const struct pane *p);

/* Sets the notice on the hint line, before the selected request; it
 * stays until the next key. */
void view_hint(struct view *v, enum color_role role, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether r waits for the person (F5 and F6 can decide it). */
int view_decidable(struct view *v, const struct table_row *r);

/* The name of the focused agent (the lead when the table has focus). */
const char *view_focus_name(struct view *v);

/* Whether pane i is left out of the screen (a terminated teammate while
 * they are hidden). */
int view_hidden(struct view *v, size_t i);

#endif
