/*
 * The layout of the screen and drawing it (see layout.h):
 *
 *	┌ lead ─────────┐┌ alice ────────┐
 *	│               ││               │   teammates stacked on the right,
 *	│               │├ bob ──────────┤   two columns when they no longer
 *	│               ││               │   fit one above the other
 *	├ requests (F4: tasks) ─────────────┤
 *	│ id  type  from → to  age  status │
 *	├ hint ─────────────────────────────┤
 *	lead> input line
 *	F1 Help  F4 Tasks  F5 Approve  F6 Reject  F8 Zoom  F9 Shutdown  F10 Quit
 *
 * Everything is drawn on stdscr in one pass; curses sends only the cells
 * that changed, so a redraw never flickers.
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/complete.h"
#include "ui/detailview.h"
#include "ui/draft.h"
#include "ui/draw.h"
#include "ui/helpview.h"
#include "ui/hintline.h"
#include "ui/keymap.h"
#include "ui/keys.h"
#include "ui/layout.h"
#include "ui/panefind.h"
#include "ui/text.h"
#include "ui/view.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define LAYOUT_MIN_COLS	80
#define LAYOUT_MIN_ROWS	24
/* The table's rows, at least: border, header and 4 requests. */
#define LAYOUT_TABLE_ROWS	6
#define LAYOUT_MIN_PANE_ROWS	5
#define LAYOUT_ERROR_ROOM 24	/* the status line's error, at least */
#define LAYOUT_ERROR_ACK " (C-g)"

/* s in width columns from (y, x), cut with "…" when it does not fit. */
static void
layout_text(int y, int x, int width, enum color_role role, const char *s)
{
	if (width <= 0)
		return;
	attrset(color_attr(role));
	draw_cut_at(y, x, s, width);
	attrset(A_NORMAL);
}

/* A box with a title in its top border. */
static void
layout_box(int y, int x, int h, int w, const char *title, int focused)
{
	char *t;

	if (h < 2 || w < 4)
		return;
	/* The wide-character forms draw real box characters in a UTF-8
	 * locale, not the terminal's alternate character set. */
	attrset(color_attr(ROLE_BORDER));
	mvhline_set(y, x + 1, WACS_HLINE, w - 2);
	mvhline_set(y + h - 1, x + 1, WACS_HLINE, w - 2);
	mvvline_set(y + 1, x, WACS_VLINE, h - 2);
	mvvline_set(y + 1, x + w - 1, WACS_VLINE, h - 2);
	mvadd_wch(y, x, WACS_ULCORNER);
	mvadd_wch(y, x + w - 1, WACS_URCORNER);
	mvadd_wch(y + h - 1, x, WACS_LLCORNER);
	mvadd_wch(y + h - 1, x + w - 1, WACS_LRCORNER);
	t = xasprintf(" %s ", title);
	layout_text(y, x + 1, w - 2, focused ? ROLE_TITLE_FOCUS : ROLE_TITLE,
	    t);
	free(t);
}

/* "alice · coder · working · t3 parser · ctx 63% · claude-x · 12k tok ·
 * $0.04"; without the
 * role (and then the model) when that does not fit in width columns, so
 * the status always shows. */
static char *
layout_pane_title(const struct pane *p, const struct tasklist_row *task,
    int width)
{
	char tokens[48] = "", *model = NULL, *title, *status, *doing;
	char *subject;

	/* The task it is on goes with its status: both say what it does. */
	subject = task == NULL ? NULL : text_cut(task->subject,
	    strlen(task->subject), 24);
	doing = task == NULL ? xstrdup("") : xasprintf(" · %s %s%s%s%s",
	    task->id, subject, *task->worktree ? " [" : "", task->worktree,
	    *task->worktree ? "]" : "");
	free(subject);
	/* A call waiting to retry says so where its status is. */
	if (p->retry_at_ms != 0) {
		char *retry = view_retry_text(p), *with = xasprintf(" · %s%s",
		    retry, doing);

		free(retry);
		free(doing);
		doing = with;
	}
	/* The window's use goes with the status: both say how it is. */
	if (p->ctx_pct >= 0)
		status = xasprintf("%s%s · ctx %d%%",
		    member_status_name(p->status), doing, p->ctx_pct);
	else
		status = xasprintf("%s%s", member_status_name(p->status),
		    doing);
	free(doing);
	if (p->tokens >= 10000)
		snprintf(tokens, sizeof tokens, " · %.0fk tok · $%.2f",
		    (double)p->tokens / 1000.0, p->cost);
	else if (p->tokens > 0)
		snprintf(tokens, sizeof tokens, " · %lld tok · $%.2f",
		    (long long)p->tokens, p->cost);
	if (p->model != NULL)
		model = xasprintf(" · %s", p->model);
	if (strcmp(p->name, "lead") == 0 || *p->role == '\0')
		title = xasprintf("%s · %s%s%s", p->name, status,
		    model ? model : "", tokens);
	else
		title = xasprintf("%s · %s · %s%s%s", p->name, p->role,
		    status, model ? model : "", tokens);
	if ((int)text_width(title, strlen(title)) > width) {
		free(title);
		title = xasprintf("%s · %s%s", p->name, status,
		    (int)(strlen(p->name) + strlen(status) + strlen(tokens) +
		    3) <= width ? tokens : "");
	}
	free(model);
	free(status);
	return title;
}

/* What an empty lead pane says: the first thing to do, and where the
 * keys are. */
static void
layout_welcome(int y, int x, int h, int w)
{
	static const char *const lines[] = {
		"Type what the team should do, and Enter: the lead",
		"plans it and spawns teammates, each in a pane.",
		"",
		"F1 (or ? on an empty line) shows every key and command;",
		"F10 quits, and huddle --resume goes on later.",
	};
	size_t i;

	for (i = 0; i < sizeof lines / sizeof *lines && (int)i < h; i++)
		layout_text(y + (int)i, x, w, ROLE_DIM, lines[i]);
}

static void
layout_pane(struct view *v, size_t i, int y, int x, int h, int w)
{
	struct pane *p = v->panes[i];
	char *title = layout_pane_title(p, tasklist_current(&v->tasks,
	    p->name), w - 4);

	v->rects[i] = (struct rect){ y, x, h, w };
	layout_box(y, x, h, w, title, v->focus == (int)i);
	free(title);
	struct pane_look look = {
		/* Zoomed, a pane shows its outputs in full. */
		.verbose = v->show_thinking || (v->zoom && v->focus == (int)i),
		.show_thinking = v->show_thinking,
		.find = v->find_on && v->find_pane == (int)i &&
		    v->find_query[0] != '\0' ? v->find_query : NULL,
		.hit = v->find_hit,
		.hit_seq = v->find_seq,
		.hit_off = v->find_off,
	};

	pane_draw(p, y + 1, x + 1, h - 2, w - 2, &look);
	/* A new team's empty lead pane says what to do first. */
	if (i == 0 && p->count == 0)
		layout_welcome(y + 1, x + 2, h - 2, w - 4);
	if (p->scroll > 0) {
		char *mark = p->new_lines > 0 ? xasprintf(" ↑ scrolled · ↓ %d "
		    "new (End) ", p->new_lines) : xstrdup(" ↑ scrolled ");
		int mw = (int)text_width(mark, strlen(mark));

		if (mw <= w - 4)
			layout_text(y + h - 1, x + w - 2 - mw, mw, ROLE_HINT,
			    mark);
		free(mark);
	}
}

/* How much a teammate's pane is wanted: the focused one most, then the
 * busy, then the idle; a terminated one folds to a row. */
static int
layout_want(struct view *v, size_t i)
{
	enum member_status st = v->panes[i]->status;

	if (v->focus == (int)i)
		return 4;
	if (st == MEMBER_TERMINATED)
		return 0;
	if (st == MEMBER_IDLE)
		return 1;
	return st == MEMBER_WORKING ? 3 : 2;
}

/* Pane indexes of view arg: the most wanted first; of as much want,
 * the one shown as a pane last time, then the one focused more lately,
 * then the roster's order. */
static int
layout_by_want(const void *a, const void *b, void *arg)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	struct view *v = arg;
	const struct pane *p = v->panes[i], *q = v->panes[j];
	int wi = layout_want(v, i), wj = layout_want(v, j);

	if (wi != wj)
		return wj - wi;
	if (p->was_pane != q->was_pane)
		return q->was_pane - p->was_pane;
	if (p->focus_seq != q->focus_seq)
		return p->focus_seq < q->focus_seq ? 1 : -1;
	return (i > j) - (i < j);
}

static int
layout_by_index(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	return (i > j) - (i < j);
}

/* Teammates in the rectangle as panes, stacked or in two columns. */
static void
layout_panes(struct view *v, const size_t *which, size_t n, int y, int x,
    int h, int w)
{
	size_t i, cols, rows;

	if (n == 0)
		return;
	cols = n * LAYOUT_MIN_PANE_ROWS > (size_t)h ? 2 : 1;
	rows = (n + cols - 1) / cols;
	for (i = 0; i < n; i++) {
		size_t r = i / cols, c = i % cols;
		int py = y + (int)(r * (size_t)h / rows);
		int ph = y + (int)((r + 1) * (size_t)h / rows) - py;
		int px = x + (int)(c * (size_t)w / cols);
		int pw = x + (int)((c + 1) * (size_t)w / cols) - px;

		/* The last pane of an odd grid takes the whole row. */
		if (cols == 2 && i == n - 1 && n % 2 == 1)
			pw = w;
		layout_pane(v, which[i], py, px, ph, pw);
	}
}

/* A folded teammate: one row with its name, status and spend. */
static void
layout_folded(struct view *v, size_t i, int y, int x, int w)
{
	struct pane *p = v->panes[i];
	char *title = layout_pane_title(p, tasklist_current(&v->tasks,
	    p->name), w - 2), *line;

	v->rects[i] = (struct rect){ y, x, 1, w };
	line = xasprintf("▸ %s", title);
	layout_text(y, x, w, v->focus == (int)i ? ROLE_TITLE_FOCUS :
	    p->status == MEMBER_TERMINATED ? ROLE_DIM : ROLE_TITLE,
	    line);
	free(line);
	free(title);
}

/*
 * The teammates in the rectangle: as many as fit as panes (at least
 * LAYOUT_MIN_PANE_ROWS tall, in up to two columns), the focused and the busiest
 * first; the others, and every terminated one, folded to a row each
 * below them; and where the rows run out, a last row that counts the
 * teammates not shown. Every teammate is drawn or counted.
 */
static void
layout_teammates(struct view *v, int y, int x, int h, int w)
{
	size_t n = 0, i, j, k, live = 0, *order, *panes, hidden = 0;
	size_t nfold, fold_rows, shown;
	char *line;

	for (i = 1; i < v->npanes; i++)
		hidden += view_hidden(v, i);
	/* Hidden teammates are counted on the last row. */
	if (hidden > 0 && h > 0) {
		line = xasprintf("%zu ended teammate%s hidden (h on the table "
		    "shows them)", hidden, hidden == 1 ? "" : "s");
		layout_text(y + --h, x, w, ROLE_DIM, line);
		free(line);
	}
	if (v->npanes - 1 == hidden)
		return;
	order = xcalloc(v->npanes, sizeof *order);
	panes = xcalloc(v->npanes, sizeof *panes);
	if (v->focus > 0 && (size_t)v->focus < v->npanes)
		v->panes[v->focus]->focus_seq = ++v->focus_seq;
	/* By want, highest first; of as much, the panes already shown,
	 * then the ones focused last: Tab through more teammates than fit
	 * slides through them, one pane in and one out. */
	for (i = 1; i < v->npanes; i++)
		if (!view_hidden(v, i))
			order[n++] = i;
	qsort_r(order, n, sizeof *order, layout_by_want, v);
	for (i = 0; i < n; i++)
		live += layout_want(v, order[i]) > 0;
	/* The most panes that leave room for the folded rows. */
	for (k = live; k > 0; k--) {
		nfold = n - k;
		fold_rows = nfold < (size_t)h / 2 ? nfold : (size_t)h / 2;
		if (2 * ((size_t)(h - (int)fold_rows) /
		    LAYOUT_MIN_PANE_ROWS) >= k)
			break;
	}
	nfold = n - k;
	fold_rows = nfold < (size_t)h / 2 ? nfold : (size_t)h / 2;
	if (k == 0)
		fold_rows = nfold < (size_t)h ? nfold : (size_t)h;
	/* The panes in their own order. */
	for (i = 1, j = 0; i < v->npanes; i++) {
		v->panes[i]->was_pane = 0;
		for (shown = 0; shown < k; shown++)
			if (order[shown] == i) {
				panes[j++] = i;
				v->panes[i]->was_pane = 1;
			}
	}
	/* The folded ones in their own order too, so rows do not trade
	 * places as statuses change. */
	qsort(order + k, n - k, sizeof *order, layout_by_index);
	layout_panes(v, panes, k, y, x, h - (int)fold_rows, w);
	/* The folded rows, then how many did not fit. */
	for (i = 0, shown = 0; i < nfold && shown < fold_rows; i++) {
		if (shown + 1 == fold_rows && nfold - i > 1) {
			char *more = xasprintf("+%zu more teammates (Tab "
			    "reaches them)", nfold - i);

			layout_text(y + h - (int)fold_rows + (int)shown, x, w,
			    ROLE_DIM, more);
			free(more);
			break;
		}
		layout_folded(v, order[k + i], y + h - (int)fold_rows +
		    (int)shown++, x, w);
	}
	free(order);
	free(panes);
}

/* The table's height: four rows at least, more while more requests are
 * pending (or for every task, when it shows them; one row spare), up to
 * a third of the screen. */
static int
layout_table_height(struct view *v)
{
	int want, most = LINES / 3;

	want = (int)(v->show_tasks ? v->tasks.n : table_pending(&v->table)) +
	    1 + 3;

	if (want > most)
		want = most;
	return want > LAYOUT_TABLE_ROWS ? want : LAYOUT_TABLE_ROWS;
}

/* "requests · 64 pending (mallory 60, bob 4) · F4 tasks (2 open)": who
 * asks, as much as fits in the table's top border. */
static char *
layout_requests_title(struct view *v, size_t pending, const char *tasks)
{
	char *head = xasprintf("requests · %zu pending", pending), *by, *title;
	/* The border's corners, the blanks around the title, " (" and ")". */
	int room = COLS - 4 - (int)text_width(head, strlen(head)) -
	    (int)text_width(tasks, strlen(tasks)) - 3;

	by = table_pending_by(&v->table, room);
	title = *by != '\0' ? xasprintf("%s (%s)%s", head, by, tasks) :
	    xasprintf("%s%s", head, tasks);
	free(by);
	free(head);
	return title;
}

/* The table: the requests, or (F4) the tasks; each title names the
 * other, so a pending request is never out of sight. */
static void
layout_table(struct view *v, int y, int h, int64_t now)
{
	size_t ready, doing, open, pending = table_pending(&v->table);
	char *title, *tasks;

	tasklist_counts(&v->tasks, &ready, &doing, &open);
	tasks = v->tasks.n > 0 ? xasprintf(" · F4 tasks (%zu open)", open) :
	    xstrdup("");
	if (v->show_tasks)
		title = xasprintf("tasks · %zu ready · %zu in progress · %zu "
		    "open · F4 requests (%zu pending)", ready, doing, open,
		    pending);
	else
		title = layout_requests_title(v, pending, tasks);
	free(tasks);
	v->table_rect = (struct rect){ y, 0, h, COLS };
	layout_box(y, 0, h, COLS, title, v->focus == FOCUS_TABLE);
	free(title);
	if (v->show_tasks)
		tasklist_draw(&v->tasks, y + 1, 1, h - 2, COLS - 2, now);
	else
		table_draw(&v->table, y + 1, 1, h - 2, COLS - 2,
		    v->focus == FOCUS_TABLE, now);
}

/* "2 working 1 idle": the agents by status, those there are. */
static char *
layout_counts(size_t working, size_t waiting, size_t idle)
{
	const size_t n[] = { working, waiting, idle };
	static const char *const what[] = { "working", "waiting", "idle" };
	char *text = NULL, num[32];
	size_t len = 0, cap = 0, i;

	text = xappend(text, &len, &cap, "", 0);
	for (i = 0; i < 3; i++) {
		if (n[i] == 0)
			continue;
		snprintf(num, sizeof num, "%s%zu ", len ? " " : "", n[i]);
		text = xappend(text, &len, &cap, num, strlen(num));
		text = xappend(text, &len, &cap, what[i], strlen(what[i]));
	}
	return text;
}

/*
 * The status line, right of the F-keys: the workdir's last name, the
 * lead's model, the team's spend, the time since start, how many agents
 * are working, waiting and idle, and a spinner while any works. As room
 * runs out the folder's name goes first, then the model, the clock and a
 * retry's wait; the spend and the counts always stay (the text may then
 * be wider than room). Returns the text to draw.
 */
static char *
layout_status(struct view *v, int room)
{
	const char *wd = team_workdir(v->team), *base = strrchr(wd, '/');
	static const char *const spin[] = { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴",
	    "⠦", "⠧", "⠇", "⠏" };
	/* The fields that give way, first to last. */
	static const int gives[] = { 0, 1, 3, 5 };
	size_t i, working = 0, waiting = 0, idle = 0, len, cap;
	int64_t s = (clock_mono_ms() - v->started_ms) / 1000;
	char *fields[7], *text = NULL, *retry = NULL;
	int dropped[7] = { 0 }, g;

	for (i = 0; i < v->npanes; i++) {
		enum member_status st = v->panes[i]->status;

		working += st == MEMBER_WORKING;
		waiting += st == MEMBER_WAITING;
		idle += st == MEMBER_IDLE;
		/* The first member waiting to retry, by name. */
		if (retry == NULL && v->panes[i]->retry_at_ms != 0) {
			char *what = view_retry_text(v->panes[i]);

			retry = xasprintf("%s %s", v->panes[i]->name, what);
			free(what);
		}
	}
	fields[0] = xstrdup(base != NULL && base[1] != '\0' ? base + 1 : wd);
	fields[1] = xstrdup(team_lead_model(v->team));
	fields[2] = xasprintf("$%.2f", team_cost(v->team));
	/* To the minute: an idle screen is redrawn once a minute for it. */
	fields[3] = s < 3600 ? xasprintf("%lldm", (long long)(s / 60)) :
	    xasprintf("%lldh%02lld", (long long)(s / 3600),
	    (long long)(s / 60 % 60));
	/* The counts that are not zero: "2 working 1 idle". */
	fields[4] = layout_counts(working, waiting, idle);
	fields[5] = retry != NULL ? retry : xstrdup("");
	fields[6] = xstrdup(working > 0 ? spin[v->spin++ % 10] : " ");
	for (g = 0; ; g++) {
		len = 0;
		cap = 0;
		for (i = 0; i < 6; i++) {
			if (*fields[i] == '\0' || dropped[i])
				continue;
			text = xappend(text, &len, &cap, fields[i],
			    strlen(fields[i]));
			text = xappend(text, &len, &cap, " · ",
			    strlen(" · "));
		}
		/* The last separator gives way to a plain space. */
		if (len >= strlen(" · ")) {
			len -= strlen(" · ");
			text = xappend(text, &len, &cap, " ", 1);
		}
		text = xappend(text, &len, &cap, fields[6], strlen(fields[6]));
		if ((int)text_width(text, len) <= room ||
		    g == (int)(sizeof gives / sizeof *gives))
			break;
		free(text);
		text = NULL;
		dropped[gives[g]] = 1;
	}
	for (i = 0; i < 7; i++)
		free(fields[i]);
	return text;
}

/* s cut to `width` columns with "…" where it was cut, then tail. */
static char *
layout_cut(const char *s, int width, const char *tail)
{
	char *cut, *out;

	if (width < 2)
		return xstrdup(tail);
	cut = text_cut(s, strlen(s), width);
	out = xasprintf("%s%s", cut, tail);
	free(cut);
	return out;
}

/* The keys whose labels give way, first to last, when the bar is short
 * of room: the keys stay, named ("F8"), and F1 lists what they do. */
static const char *const layout_label_order[] = {
	"F8", "F4", "F9", "F1", "F10", "F6", "F5",
};

/* The bar's width with the labels not dropped. */
static int
layout_bar_width(const char **names, const char **labels, const int *bare,
    size_t n)
{
	size_t i;
	int w = 0;

	for (i = 0; i < n; i++)
		w += (int)(text_width(names[i], strlen(names[i])) + (bare[i] ?
		    0 : text_width(labels[i], strlen(labels[i])))) +
		    (i + 1 < n);
	return w;
}

/*
 * The F-key bar in room columns from the left of row y: every key with
 * its label while they fit, else the labels give way in
 * layout_label_order (a key not in it first), and as a last resort the
 * bar is cut with "…". Returns the columns it took.
 */
static int
layout_bar(struct view *v, int y, int room)
{
	const char *names[16], *labels[16];
	int bare[16] = { 0 }, x = 0;
	size_t i, k, n = keymap_bar(v, KW_MAIN, names, labels, 16);

	for (k = 0; k <= sizeof layout_label_order /
	    sizeof *layout_label_order; k++) {
		if (layout_bar_width(names, labels, bare, n) <= room)
			break;
		for (i = 0; i < n; i++) {
			size_t j;

			for (j = 0; j < sizeof layout_label_order /
			    sizeof *layout_label_order; j++)
				if (strcmp(names[i], layout_label_order[j]) ==
				    0)
					break;
			/* Unknown keys at k == 0, then one known per k. */
			if ((k == 0 && j == sizeof layout_label_order /
			    sizeof *layout_label_order) || (k > 0 && j ==
			    k - 1))
				bare[i] = 1;
		}
	}
	for (i = 0; i < n && x < room; i++) {
		int nw = (int)text_width(names[i], strlen(names[i]));
		int lw = bare[i] ? 0 : (int)text_width(labels[i],
		    strlen(labels[i]));

		/* What does not fit whole is cut, and says so. */
		if (x + nw + lw > room) {
			layout_text(y, x, room - x, ROLE_FKEY, names[i]);
			if (x + nw < room && !bare[i])
				layout_text(y, x + nw, room - x - nw,
				    ROLE_FKEY_LABEL, labels[i]);
			return room;
		}
		layout_text(y, x, nw, ROLE_FKEY, names[i]);
		if (!bare[i])
			layout_text(y, x + nw, lw, ROLE_FKEY_LABEL, labels[i]);
		x += nw + lw + 1;
	}
	return x;
}

static void
layout_fkeys(struct view *v, int y)
{
	char *status;
	int room, width = 0, x;

	move(y, 0);
	attrset(color_attr(ROLE_FKEY_LABEL));
	mvhline(y, 0, ' ', COLS);
	attrset(A_NORMAL);
	/* The status line's spend and counts first, and the last error's
	 * LAYOUT_ERROR_ROOM: the bar gets the rest. */
	status = layout_status(v, 0);
	room = COLS - 2 - (int)text_width(status, strlen(status)) -
	    (v->error != NULL ? LAYOUT_ERROR_ROOM + 1 : 0);
	free(status);
	x = layout_bar(v, y, room);
	/* The last error keeps at least LAYOUT_ERROR_ROOM columns: the
	 * status fields that can give way do. */
	room = COLS - x - 2;
	if (v->error != NULL)
		room -= room / 2 > LAYOUT_ERROR_ROOM ? room / 2 :
		    LAYOUT_ERROR_ROOM;
	status = layout_status(v, room);
	width = (int)text_width(status, strlen(status));
	layout_text(y, COLS - 1 - width, width, ROLE_FKEY_LABEL, status);
	free(status);
	if (v->error != NULL) {
		char *what = v->errors > 1 ? xasprintf("✗ %zu errors, the "
		    "last: %s", v->errors, v->error) : xasprintf("✗ %s",
		    v->error);
		char *line = layout_cut(what, COLS - x - width - 3 -
		    (int)strlen(LAYOUT_ERROR_ACK), LAYOUT_ERROR_ACK);

		layout_text(y, x, COLS - x - width - 2, ROLE_ERROR, line);
		free(line);
		free(what);
	}
}

/* --- popups ------------------------------------------------------------------ */

static void
layout_popup_box(int h, int w, const char *title, int *py, int *px)
{
	int y = (LINES - h) / 2, x = (COLS - w) / 2, r;

	attrset(color_attr(ROLE_POPUP));
	for (r = 0; r < h; r++)
		mvhline(y + r, x, ' ', w);
	attrset(A_NORMAL);
	layout_box(y, x, h, w, title, 1);
	*py = y;
	*px = x;
}

/*
 * The help: as many of its lines as fit from help_first, the line a
 * search found marked, and on its last row either the search being
 * typed or its keys and where it is ("12-31 of 80").
 */
static void
layout_help(struct view *v)
{
	int h, w, rows, width, y, x, r;
	size_t n, i;
	char **lines, *foot, *keys;

	helpview_size(&h, &w, &rows, &width);
	lines = helpview_lines(v, width, &n);
	if (v->help_first > (int)n - rows)
		v->help_first = (int)n - rows > 0 ? (int)n - rows : 0;
	layout_popup_box(h, w, "help · Esc or q closes", &y, &x);
	for (r = 0, i = (size_t)v->help_first; r < rows && i < n; r++, i++)
		layout_text(y + 1 + r, x + 2, width, (int)i == v->help_hit ?
		    ROLE_SELECTED : ROLE_POPUP, lines[i]);
	if (v->help_typing)
		foot = xasprintf("search: %s_  (Enter finds, Esc cancels)",
		    v->help_query);
	else {
		keys = keymap_line(v, KW_HELP);
		foot = xasprintf("%s · %d-%d of %zu", keys, v->help_first + 1,
		    v->help_first + r, n);
		free(keys);
	}
	layout_text(y + h - 2, x + 2, width, ROLE_HINT, foot);
	free(foot);
	helpview_free(lines, n);
}

static void
layout_menu(struct view *v)
{
	struct pane *items[64];
	size_t n = keys_menu_items(v, items, 64), i;
	int h = (int)n + 4, w = 56, y, x;
	char *keys;

	if (h < 5)
		h = 5;
	if (h > LINES - 2)
		h = LINES - 2;
	layout_popup_box(h, w, "shut a teammate down", &y, &x);
	if (n == 0)
		layout_text(y + 1, x + 2, w - 4, ROLE_POPUP, "no live teammates");
	for (i = 0; i < n && (int)i < h - 3; i++) {
		int forced = keys_shutdown_expired(v, items[i]->name);
		char *line = xasprintf("%s · %s%s", items[i]->name,
		    member_status_name(items[i]->status), forced ?
		    " · no answer: Enter stops it now" : "");

		if ((int)i == v->menu_sel) {
			attrset(color_attr(ROLE_SELECTED));
			mvhline(y + 1 + (int)i, x + 1, ' ', w - 2);
		}
		layout_text(y + 1 + (int)i, x + 2, w - 4, (int)i == v->menu_sel ?
		    ROLE_SELECTED : ROLE_POPUP, line);
		free(line);
	}
	keys = keymap_line(v, KW_MENU);
	layout_text(y + h - 2, x + 2, w - 4, ROLE_POPUP, keys);
	free(keys);
}

static void
layout_feedback(struct view *v)
{
	const struct table_row *r = table_find(&v->table, v->reject_id);
	int h = 5, w = 64, y, x;
	char *title = r != NULL ? xasprintf("reject %s's %s (%s)", r->from,
	    req_type_name(r->type), r->id) : xasprintf("reject %s",
	    v->reject_id), *keys = keymap_line(v, KW_FEEDBACK);

	layout_popup_box(h, w, title, &y, &x);
	free(title);
	layout_text(y + 3, x + 2, w - 4, ROLE_POPUP, keys);
	free(keys);
	input_draw(&v->feedback, "feedback: ", y + 1, x + 2, w - 4);
}

/* The diff view: nearly the whole screen, the keys on its last row. */
static void
layout_diff(struct view *v)
{
	int h = LINES - 2, w = COLS - 2, y, x;
	char *keys = keymap_line(v, KW_DIFF), *line;

	layout_popup_box(h, w, v->diff.title ? v->diff.title : "diff", &y,
	    &x);
	diffview_draw(&v->diff, y + 1, x + 1, h - 3, w - 2);
	line = xasprintf("%s · /merge NAME merges it", keys);
	layout_text(y + h - 2, x + 2, w - 4, ROLE_POPUP, line);
	free(line);
	free(keys);
}

/* The detail view's keys, as the key table has them for its request. */
static void
layout_detail_keys(struct view *v, int y, int x, int w)
{
	char *keys = keymap_line(v, KW_DETAIL);

	layout_text(y, x, w, ROLE_POPUP, keys);
	free(keys);
}

/*
 * The detail view of one request (detailview.h): its text as a block of
 * numbered lines, then its fields; the keys on the last row.
 */
static void
layout_detail(struct view *v, int64_t now)
{
	const struct table_row *r = table_find(&v->table, v->detail_id);
	int h = LINES - 4, w = COLS - 8, y, x;
	char *title;

	title = r != NULL ? xasprintf("%s's %s", r->from,
	    req_type_name(r->type)) : xstrdup("request");
	layout_popup_box(h, w, title, &y, &x);
	free(title);
	if (r == NULL) {
		layout_text(y + 1, x + 2, w - 4, ROLE_POPUP, "this request is "
		    "no longer in the table · Esc closes");
		return;
	}
	detailview_draw(r, y + 1, x + 2, h - 4, w - 4, &v->detail_first,
	    now);
	layout_detail_keys(v, y + h - 2, x + 2, w - 4);
}

/*
 * The hint line: the notice, if any, then what the selected request is
 * and what the keys do with it. Notes which request it showed whole, for
 * F5 and F6 (keys_target).
 */
static void
layout_hint(struct view *v)
{
	const struct table_row *r = table_selected(&v->table);
	enum color_role role = v->hint ? v->hint_role : ROLE_HINT;
	size_t must, lead;
	char *before, *sel, *line;
	int cut;

	*v->shown_id = '\0';
	/* The selection gets what the notice leaves of the line. */
	before = xasprintf(" %s%s", v->hint ? v->hint : "", v->hint ? " · " :
	    "");
	sel = hintline_selection(v, COLS - 3 - (int)text_width(before,
	    strlen(before)), &must);
	free(before);
	if (v->hint == NULL && sel == NULL)
		return;
	line = xasprintf(" %s%s%s ", v->hint ? v->hint : "", v->hint && sel ?
	    " · " : "", sel ? sel : "");
	lead = strlen(line) - 1 - (sel ? strlen(sel) : 0);
	/* hintline_selection promised F5 decides only when this shows:
	 * the cut, if any, must leave all of it. */
	if (sel != NULL && r != NULL && must != HINTLINE_NOT_WHOLE &&
	    text_cut_len(line, strlen(line), COLS - 2, &cut) >= lead + must)
		memcpy(v->shown_id, r->id, sizeof v->shown_id);
	layout_text(LINES - 3, 1, COLS - 2, role, line);
	free(line);
	free(sel);
}

/* The input line's row during a search in a pane: what is searched,
 * then its keys. */
/* The input row while something other than a message is typed: the
 * prompt and the words, with the keys at the right when there is
 * room. */
static void
layout_typing(struct view *v, const char *prompt, const char *words)
{
	char *keys = keymap_line(v, keymap_where(v));
	int kw = (int)text_width(keys, strlen(keys)), w = COLS;
	struct input q;

	if (kw + 30 < COLS) {
		w = COLS - kw - 1;
		layout_text(LINES - 2, w + 1, kw, ROLE_DIM, keys);
	}
	input_init(&q);
	input_set(&q, words, strlen(words));
	input_draw(&q, prompt, LINES - 2, 0, w);
	input_free(&q);
	free(keys);
}

/* A search in a pane (C-f). */
static void
layout_find(struct view *v)
{
	char *prompt = panefind_prompt(v);

	layout_typing(v, prompt, v->find_query);
	free(prompt);
}

/* The table's filter (/), with how many rows it lets through; or the
 * command it reads as, which Enter runs. */
static void
layout_filter(struct view *v)
{
	char *prompt = complete_is_command(v->filter_query) ?
	    xstrdup("command (Enter runs it)> /") : xasprintf("filter (%zu "
	    "of %zu)> ", table_shown(&v->table), v->table.n);

	layout_typing(v, prompt, v->filter_query);
	free(prompt);
}

/* --- the whole screen ---------------------------------------------------------- */

void
layout_draw(struct view *v)
{
	int64_t now = clock_wall_ms();
	int top_h, table_y, table_h, lead_w;
	char *prompt;

	erase();
	v->rects = xgrow(v->rects, &v->caprects, v->npanes, sizeof *v->rects);
	memset(v->rects, 0, v->npanes * sizeof *v->rects);
	v->table_rect = (struct rect){ 0, 0, 0, 0 };
	v->too_small = COLS < LAYOUT_MIN_COLS || LINES < LAYOUT_MIN_ROWS;
	if (v->too_small) {
		char *msg = xasprintf("terminal too small: huddle needs %dx%d, "
		    "this is %dx%d", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS, COLS,
		    LINES);

		layout_text(LINES / 2, 0, COLS, ROLE_HINT, msg);
		free(msg);
		return;
	}
	table_h = layout_table_height(v);
	table_y = LINES - 3 - table_h;
	top_h = table_y;
	if (v->zoom && v->focus == FOCUS_TABLE)
		layout_table(v, 0, LINES - 3, now);
	else if (v->zoom && v->focus >= 0)
		layout_pane(v, (size_t)v->focus, 0, 0, LINES - 3, COLS);
	else {
		lead_w = v->npanes > 1 ? COLS / 2 : COLS;
		layout_pane(v, 0, 0, 0, top_h, lead_w);
		layout_teammates(v, 0, lead_w, top_h, COLS - lead_w);
		layout_table(v, table_y, table_h, now);
	}
	/* The hint line, then the input line and the keys. */
	attrset(color_attr(ROLE_BORDER));
	mvhline_set(LINES - 3, 0, WACS_HLINE, COLS);
	layout_hint(v);
	layout_fkeys(v, LINES - 1);
	if (v->find_on)
		layout_find(v);
	else if (v->filter_typing)
		layout_filter(v);
	else {
		prompt = draft_prompt(v);
		v->input.unfold = v->show_thinking;
		input_draw(&v->input, prompt, LINES - 2, 0, COLS);
		free(prompt);
	}
	switch (v->popup) {
	case POPUP_HELP:
		layout_help(v);
		break;
	case POPUP_MENU:
		layout_menu(v);
		break;
	case POPUP_FEEDBACK:
		layout_feedback(v);
		break;
	case POPUP_DETAIL:
		layout_detail(v, now);
		break;
	case POPUP_DIFF:
		layout_diff(v);
		break;
	case POPUP_NONE:
		break;
	}
}
