/*
 * A pane is one agent's window on the screen: a title (name, role,
 * status, model, tokens, cost) over a scrollback of lines, each with a
 * colour role. Text that streams in joins the open line; anything else
 * starts a new one. Lines are stored whole and wrapped only when drawn, so
 * a resize costs nothing until the next frame and only visible lines are
 * wrapped. The model's thinking is kept whole but drawn folded — each run
 * of thinking lines as one row showing its newest words — unless asked.
 */
#ifndef HUDDLE_UI_PANE_H
#define HUDDLE_UI_PANE_H

#include <stddef.h>
#include <stdint.h>

#include "core/roster.h"
#include "ui/color.h"
#include "ui/text.h"

/* Lines kept per pane; older ones are dropped. */
#define PANE_MAX_LINES 5000

struct pane_held {
	enum color_role	 role;
	char		*text;
};

struct pane_line {
	enum color_role	 role;
	char		*text;		/* sanitized UTF-8, no '\n' */
	size_t		 len;
	size_t		 cap;
	/* A folded tool output: its first line is the head, which ends in
	 * " (+N lines)" from byte fold_at on (0: not a head), and the lines
	 * after it are hidden until the head is expanded. */
	size_t		 fold_at;
	int		 hidden;	/* a line of a folded output */
	int		 expanded;	/* a head: its lines are shown */
	char		*whole;		/* a head: the file that keeps the
					 * whole output, or NULL */
};

/* How a pane is drawn besides its lines: everything unfolded (Ctrl-O,
 * zoom), and a search's matches highlighted. */
struct pane_look {
	int		 verbose;	/* thinking and outputs unfolded */
	int		 show_thinking;	/* thinking unfolded */
	const char	*find;		/* the search, or NULL */
	uint64_t	 hit_seq;	/* the line of the current match */
	size_t		 hit_off;	/* and its byte */
	int		 hit;		/* there is a current match */
};

/* Lines of a tool's output kept to be expanded: its first HEAD and its
 * last TAIL (the end of a build or a test run is what people read);
 * between them, a line says how many were left out. */
#define PANE_FOLD_HEAD 200
#define PANE_FOLD_TAIL 800
#define PANE_FOLD_MAX (PANE_FOLD_HEAD + PANE_FOLD_TAIL)

struct pane {
	char			*name;
	char			*role;
	enum member_status	 status;
	char			*model;		/* shown when not the lead's;
						 * or NULL */
	int64_t			 tokens;
	int			 ctx_pct;	/* its window's use; -1: unknown */
	double			 cost;		/* US dollars */
	int64_t			 retry_at_ms;	/* a failed call's next attempt
						 * (clock_mono_ms); 0: none */
	uint64_t		 reply_seq;	/* the first line of the reply
						 * streaming now (pane_drop_from) */
	int			 retry_attempt;	/* that attempt's number */
	uint64_t		 retry_seq;	/* the line telling of it: the
						 * next retry replaces it */
	struct pane_line	*lines;		/* a ring of PANE_MAX_LINES */
	size_t			 first;		/* index of the oldest line */
	size_t			 count;
	int			 streaming;	/* the last line is open */
	enum color_role		 stream_role;	/* the open line's */
	struct text_stream	 ts;
	int			 scroll;	/* rows up from the live tail */
	/* While scrolled back, the view is held by its top row — a line (by
	 * its number since the pane began) and a byte in it — so that what
	 * arrives below never moves it. */
	uint64_t		 seq_first;	/* number of lines[first] */
	int			 anchored;
	uint64_t		 anchor_seq;
	size_t			 anchor_off;
	int			 new_lines;	/* arrived while scrolled back */
	/* Lines from others (pane_note) that came while the agent's text
	 * streamed: they wait for its end, so a turn is never split. */
	int			 in_stream;
	struct pane_held	*held;
	size_t			 nheld, capheld;
	/* What the input line held for this agent while another pane had
	 * the focus (ui/draft.c), and where its cursor was. */
	char			*draft;
	size_t			 draft_cursor;
	/* The line the person selected (a search's match, a click), by
	 * its number: Enter expands or folds it. */
	int			 sel_on;
	uint64_t		 sel_seq;
	/* For the layout: a pane (not a folded row) last frame, and when it
	 * last had the focus (view.focus_seq). */
	int			 was_pane;
	uint64_t		 focus_seq;
	/* The line of each row drawn last, top first, for the mouse. */
	uint64_t		*drawn;
	size_t			 ndrawn, capdrawn;
};

struct pane *pane_new(const char *name, const char *role);
void pane_free(struct pane *p);

void pane_set_status(struct pane *p, enum member_status status);

/* Adds text (sanitized here; '\n' starts further lines) as new lines. */
void pane_add(struct pane *p, enum color_role role, const char *text);

/* Adds a line that comes from outside the agent's own turn (a message
 * to it): at once, or, while its text streams, right after that text. */
void pane_note(struct pane *p, enum color_role role, const char *text);

/* Appends streamed text to the open line (opening one if needed); text
 * of another role than the open line's starts a new line. */
void pane_stream(struct pane *p, enum color_role role, const char *text,
    size_t len);

/* Closes the open line, if any. */
void pane_end_stream(struct pane *p);

/* The number the next line will get: a mark for pane_drop_from. */
uint64_t pane_next_seq(const struct pane *p);

/* Drops the lines numbered seq and on, and the text still streaming: a
 * reply that turned out void (its call is retried). Notes held for the
 * stream's end follow at once. */
void pane_drop_from(struct pane *p, uint64_t seq);

/* Scrolls by rows (positive: back in time); End is pane_scroll_end. A
 * scrolled pane stays put as lines arrive, and counts them (new_lines). */
void pane_scroll(struct pane *p, int rows);
void pane_scroll_end(struct pane *p);

/* Adds a tool output of several lines, folded: head (clean or not) is
 * its first line as shown folded, " (+N lines)" from byte fold_at on;
 * rest, the lines after it, are kept hidden under it (their first
 * PANE_FOLD_HEAD and last PANE_FOLD_TAIL when there are more than
 * PANE_FOLD_MAX); whole (may be NULL) is the file keeping the whole
 * output, for a pager. */
void pane_add_folded(struct pane *p, enum color_role role, const char *head,
    size_t fold_at, enum color_role rest_role, const char *rest,
    const char *whole);

/* The file that keeps the whole output of the selected line's output,
 * or else of the newest output that has one (pane_add_folded's `whole`);
 * NULL when there is none. */
const char *pane_whole(struct pane *p);

/* The line numbered seq, or NULL when it is gone. */
struct pane_line *pane_line_by_seq(struct pane *p, uint64_t seq);

/* The head of the folded output line seq is, or is under; NULL when
 * there is none. */
struct pane_line *pane_fold_head(struct pane *p, uint64_t seq);

/* Expands or folds the output that line seq is (or is under). Returns
 * 1 when it did, 0 when that line folds nothing. */
int pane_toggle(struct pane *p, uint64_t seq);

/* Expands every output (expand 1) or folds them all again (0). */
void pane_expand_all(struct pane *p, int expand);

/* The number of the line drawn at row (0: the pane's top row) when it
 * was last drawn; -1 when none. */
int pane_line_at_row(const struct pane *p, int row, uint64_t *seq);

/*
 * Draws the scrollback into the rectangle, newest line at the bottom,
 * wrapped to `width` columns, thinking and outputs folded unless look
 * says otherwise, a search's matches highlighted. Keeps the scroll offset
 * within bounds.
 */
void pane_draw(struct pane *p, int top, int left, int height, int width,
    const struct pane_look *look);

/* Scrolls so that line seq is in view, held a few rows from the top. */
void pane_show_line(struct pane *p, uint64_t seq, size_t off);

#endif
