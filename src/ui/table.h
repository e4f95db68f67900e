/*
 * The request table: every protocol request the team has seen, pending
 * ones first (oldest at the top), then the latest decisions. It keeps a
 * selection that F5/F6 act on; the selection follows its request as rows
 * move. Put by the person (Up/Down, a click) it stays there; else it
 * goes to the oldest pending request. It moves by itself when its
 * request is decided while others wait (to the oldest pending one) or
 * leaves the table (to the first row).
 */
#ifndef HUDDLE_UI_TABLE_H
#define HUDDLE_UI_TABLE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/protocol.h"
#include "ui/permline.h"

/* Decided requests kept on show, at most. */
#define TABLE_KEEP_DECIDED 30
/* A decided request is drawn dim after TABLE_FADE_MS and leaves the table
 * after TABLE_LEAVE_MS (/requests still lists it). */
#define TABLE_FADE_MS	(30 * 1000)
#define TABLE_LEAVE_MS	(5 * 60 * 1000)
/* The width of a permission's summary kept in its row (for lists). */
#define TABLE_SUMMARY_COLS 160

struct table_row {
	char		 id[16];
	enum req_type	 type;
	enum req_status	 status;
	char		*from;
	char		*to;
	char		*summary;	/* the first line of the body; of a
					   permission, its permline_summary
					   at TABLE_SUMMARY_COLS */
	struct permline	*perm;		/* a permission body, read; or NULL */
	char		*body;		/* all of it, clean */
	char		*response;	/* the decision's feedback, clean */
	char		*decided_by;	/* "" while pending or on expiry */
	int64_t		 created_at;	/* wall-clock ms */
	int64_t		 changed_at;	/* when decided (or seen decided) */
	int		 pending;
	int		 withdrawn;	/* withdrawn at a quit (its status
					   shows so): above the rest */
};

/* The longest filter (bytes). */
#define TABLE_FILTER_MAX 63

struct table {
	struct table_row	*rows;		/* in display order */
	size_t			 n, cap;
	char			 selected[16];	/* an id, or "" */
	int			 first;		/* first row shown, as a place
						 * among those the filter
						 * lets through */
	int			 shown;		/* rows drawn last time */
	size_t			*drawn;		/* ... their indexes */
	size_t			 capdrawn;
	int			 chosen;	/* the person chose it */
	size_t			 faded;		/* decided rows drawn dim */
	/* Rows shown: those whose id, type, who, status or summary hold
	 * these words (ASCII case aside); "" shows all. */
	char			 filter[TABLE_FILTER_MAX + 1];
};

void table_init(struct table *t);
void table_free(struct table *t);

/* Applies a request event's data ({id, type, from, to, status, body,
 * response, decided_by, created_at, decided_at}); data that names no
 * known type or status is ignored. */
void table_update(struct table *t, json_t *request);

/* Lets decided requests older than TABLE_LEAVE_MS leave (now: wall-clock
 * ms). Returns whether any row left or faded since the last call. */
int table_expire(struct table *t, int64_t now_ms);

/* The row of request id, or NULL. */
const struct table_row *table_find(struct table *t, const char *id);

/* The row selected, or NULL (also when the filter hides it). */
const struct table_row *table_selected(struct table *t);

/* Shows only the rows that hold text (table.filter; "" shows all); the
 * selection goes to the first of them when the filter hides it. */
void table_set_filter(struct table *t, const char *text);

/* How many rows the filter lets through. */
size_t table_shown(const struct table *t);

/* Moves the selection by delta rows (of those the filter lets
 * through). */
void table_move(struct table *t, int delta);

/* Selects row index i (the person's choice), when the filter lets it
 * through. */
void table_select(struct table *t, size_t i);

/* The index of the row drawn `line` lines below the table's top (its
 * header is line 0) at the last table_draw, or -1 when no row is there
 * (the header, the line that counts rows out of view, empty room). */
int table_row_at(const struct table *t, int line);

/* Selects the oldest pending request not from `from`, if any: where
 * the selection goes once all of from's are decided. */
void table_select_past(struct table *t, const char *from);

/* The number of pending requests. */
size_t table_pending(const struct table *t);

/* The number of pending permission requests: those the person answers
 * and a quit withdraws. */
size_t table_waiting(const struct table *t);

/* Who has requests pending, most first: "mallory 60, bob 4", cut to at
 * most cols columns (the rest counted: "mallory 60, 2 more"; "" when not
 * even the first fits, or nothing is pending). Free it. */
char *table_pending_by(const struct table *t, int cols);

/* Draws rows into the rectangle (a header row first). */
void table_draw(struct table *t, int top, int left, int height, int width,
    int focused, int64_t now_ms);

/*
 * The widths of the table's columns, each as wide as its widest cell
 * (its header's name at least): id, type, from → to, age, status. The
 * summary gets the rest; when that would be under TABLE_SUMMARY_MIN
 * columns, a from → to column wider than TABLE_WHO_KEEP gives way down
 * to that (its names cut with "…").
 */
struct table_cols {
	int	id;
	int	type;
	int	who;
	int	age;
	int	status;
};

#define TABLE_SUMMARY_MIN 30
#define TABLE_WHO_KEEP	16
#define TABLE_GAP	2	/* blanks between two columns */

/* The columns for t's rows in a table cols wide, at now_ms. */
void table_columns(const struct table *t, int cols, int64_t now_ms,
    struct table_cols *c);

/*
 * Row r as the table draws it in cols columns (malloc'd), in the columns
 * c: id, type, who → whom, age, status, then what is asked, cut with
 * "…" to fit; a permission leads with why it was flagged and keeps its
 * flagged part in view (permline_summary).
 */
char *table_row_text(const struct table_row *r, const struct table_cols *c,
    int cols, int64_t now_ms);

/* Formats an age ("12s", "3m", "2h", "4d") into buf. */
void table_age(int64_t ms, char *buf, size_t len);

#endif
