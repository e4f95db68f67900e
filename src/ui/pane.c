/*
 * Agent panes: scrollback, streaming text and drawing (see pane.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ui/draw.h"
#include "ui/pane.h"
#include "util/xmalloc.h"

struct pane *
pane_new(const char *name, const char *role)
{
	struct pane *p = xcalloc(1, sizeof *p);

	p->name = xstrdup(name);
	p->role = xstrdup(role ? role : "");
	p->status = MEMBER_STARTING;
	p->ctx_pct = -1;
	p->lines = xcalloc(PANE_MAX_LINES, sizeof *p->lines);
	text_stream_init(&p->ts);
	return p;
}

void
pane_free(struct pane *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < PANE_MAX_LINES; i++) {
		free(p->lines[i].text);
		free(p->lines[i].whole);
	}
	free(p->lines);
	free(p->name);
	free(p->role);
	free(p->model);
	for (i = 0; i < p->nheld; i++)
		free(p->held[i].text);
	free(p->held);
	free(p->draft);
	free(p->drawn);
	free(p);
}

void
pane_set_status(struct pane *p, enum member_status status)
{
	p->status = status;
}

static struct pane_line *
pane_last(struct pane *p)
{
	return &p->lines[(p->first + p->count - 1) % PANE_MAX_LINES];
}

/* Starts a new empty line, dropping the oldest when full. */
static struct pane_line *
pane_open(struct pane *p, enum color_role role)
{
	struct pane_line *l;

	if (p->count == PANE_MAX_LINES) {
		p->first = (p->first + 1) % PANE_MAX_LINES;
		p->count--;
		p->seq_first++;
	}
	p->count++;
	l = pane_last(p);
	l->role = role;
	l->len = 0;
	l->fold_at = 0;
	l->hidden = 0;
	l->expanded = 0;
	free(l->whole);
	l->whole = NULL;
	if (l->text == NULL) {
		l->cap = 64;
		l->text = xmalloc(l->cap);
	}
	l->text[0] = '\0';
	/* A reader looking back keeps its place (pane_draw holds it by
	 * its anchor) and is told how much came. */
	if (p->scroll > 0)
		p->new_lines++;
	return l;
}

static void
pane_append(struct pane_line *l, const char *s, size_t len)
{
	l->text = xappend(l->text, &l->len, &l->cap, s, len);
}

/* Appends clean text to the open line, opening lines at each '\n'. */
static void
pane_put(struct pane *p, enum color_role role, const char *s, size_t len)
{
	const char *nl;

	while (len > 0) {
		if (!p->streaming) {
			pane_open(p, role);
			p->streaming = 1;
		}
		if ((nl = memchr(s, '\n', len)) == NULL) {
			pane_append(pane_last(p), s, len);
			return;
		}
		pane_append(pane_last(p), s, (size_t)(nl - s));
		p->streaming = 0;
		len -= (size_t)(nl - s) + 1;
		s = nl + 1;
	}
}

/* Adds clean text as new lines ('\n' starts another). */
static void
pane_lines(struct pane *p, enum color_role role, const char *clean)
{
	const char *s = clean, *nl;

	do {
		nl = strchr(s, '\n');
		pane_open(p, role);
		pane_append(pane_last(p), s, nl ? (size_t)(nl - s) :
		    strlen(s));
		s = nl ? nl + 1 : NULL;
	} while (s != NULL);
}

void
pane_end_stream(struct pane *p)
{
	char *out = NULL;
	size_t len = 0, cap = 0, i;

	text_stream_flush(&p->ts, &out, &len, &cap);
	if (len > 0)
		pane_put(p, p->stream_role, out, len);
	free(out);
	p->streaming = 0;
	p->in_stream = 0;
	for (i = 0; i < p->nheld; i++) {
		pane_lines(p, p->held[i].role, p->held[i].text);
		free(p->held[i].text);
	}
	p->nheld = 0;
}

uint64_t
pane_next_seq(const struct pane *p)
{
	return p->seq_first + p->count;
}

void
pane_drop_from(struct pane *p, uint64_t seq)
{
	char *out = NULL;
	size_t len = 0, cap = 0, n;

	text_stream_flush(&p->ts, &out, &len, &cap);
	free(out);
	p->streaming = 0;
	if (seq < p->seq_first)
		seq = p->seq_first;
	n = seq < pane_next_seq(p) ? (size_t)(pane_next_seq(p) - seq) : 0;
	p->count -= n;
	p->new_lines -= (size_t)p->new_lines < n ? p->new_lines : (int)n;
	if (p->anchored && p->anchor_seq >= seq)
		p->anchored = 0;
	if (p->sel_on && p->sel_seq >= seq)
		p->sel_on = 0;
	pane_end_stream(p);
}

void
pane_note(struct pane *p, enum color_role role, const char *text)
{
	if (!p->in_stream) {
		pane_add(p, role, text);
		return;
	}
	p->held = xgrow(p->held, &p->capheld, p->nheld + 1, sizeof *p->held);
	p->held[p->nheld].role = role;
	p->held[p->nheld++].text = text_sanitize(text, strlen(text));
}

void
pane_stream(struct pane *p, enum color_role role, const char *text,
    size_t len)
{
	char *out = NULL;
	size_t olen = 0, cap = 0;

	if (role != p->stream_role) {
		pane_end_stream(p);
		p->stream_role = role;
	}
	p->in_stream = 1;
	text_stream_feed(&p->ts, text, len, &out, &olen, &cap);
	if (olen > 0)
		pane_put(p, role, out, olen);
	free(out);
}

void
pane_add(struct pane *p, enum color_role role, const char *text)
{
	char *clean = text_sanitize(text, strlen(text));

	pane_end_stream(p);
	pane_lines(p, role, clean);
	free(clean);
}

/* Adds one hidden line of a folded output. */
static void
pane_hidden(struct pane *p, enum color_role role, const char *s, size_t len)
{
	char *raw = xasprintf("  %.*s", (int)len, s);
	char *clean = text_sanitize(raw, strlen(raw));

	pane_open(p, role)->hidden = 1;
	pane_append(pane_last(p), clean, strcspn(clean, "\n"));
	free(clean);
	free(raw);
}

void
pane_add_folded(struct pane *p, enum color_role role, const char *head,
    size_t fold_at, enum color_role rest_role, const char *rest,
    const char *whole)
{
	char *first = text_sanitize(head, fold_at);
	char *mark = text_sanitize(head + fold_at, strlen(head + fold_at));
	struct pane_line *l;
	const char *s, *nl = NULL;
	size_t n = 0, more = 0, i;
	char *line;

	pane_end_stream(p);
	l = pane_open(p, role);
	pane_append(l, first, strcspn(first, "\n"));
	l->fold_at = l->len;
	pane_append(l, mark, strcspn(mark, "\n"));
	l->whole = whole != NULL ? xstrdup(whole) : NULL;
	free(first);
	free(mark);
	/* Its lines, the last one's line end making no line of its own:
	 * counted first, then the head kept, the middle counted, the tail
	 * kept. */
	for (s = rest; *s != '\0'; s = nl + 1) {
		n++;
		if ((nl = strchr(s, '\n')) == NULL || nl[1] == '\0')
			break;
	}
	if (n > PANE_FOLD_MAX)
		more = n - PANE_FOLD_MAX;
	for (s = rest, i = 0; *s != '\0'; s = nl + 1, i++) {
		nl = strchr(s, '\n');
		if (i == PANE_FOLD_HEAD && more > 0) {
			line = xasprintf("… %zu line%s left out here%s …",
			    more, more == 1 ? "" : "s", whole != NULL ?
			    " (C-p: the whole output in a pager)" : "");
			pane_hidden(p, ROLE_DIM, line, strlen(line));
			free(line);
		}
		if (more == 0 || i < PANE_FOLD_HEAD || i >= PANE_FOLD_HEAD +
		    more)
			pane_hidden(p, rest_role, s, nl ? (size_t)(nl - s) :
			    strlen(s));
		if (nl == NULL)
			break;
	}
}

void
pane_scroll(struct pane *p, int rows)
{
	p->scroll += rows;
	if (p->scroll <= 0)
		pane_scroll_end(p);
	else
		p->anchored = 0;	/* pane_draw anchors the new place */
}

void
pane_scroll_end(struct pane *p)
{
	p->scroll = 0;
	p->anchored = 0;
	p->new_lines = 0;
}

/* The number of the line at l. */
static uint64_t
pane_seq(const struct pane *p, const struct pane_line *l)
{
	return p->seq_first + (((size_t)(l - p->lines) + PANE_MAX_LINES -
	    p->first) % PANE_MAX_LINES);
}

/* One wrapped row of a line; a folded row stands for `folded` lines of
 * thinking. */
struct pane_row {
	const struct pane_line	*line;
	size_t			 start;
	size_t			 end;
	size_t			 folded;
};

#define PANE_FOLD_MARK	"thinking · "
#define PANE_FOLD_COLS	12	/* the mark's columns and an ellipsis */

static const struct pane_line *
pane_line_at(const struct pane *p, size_t i)
{
	return &p->lines[(p->first + i) % PANE_MAX_LINES];
}

struct pane_line *
pane_line_by_seq(struct pane *p, uint64_t seq)
{
	if (seq < p->seq_first || seq - p->seq_first >= p->count)
		return NULL;
	return &p->lines[(p->first + (size_t)(seq - p->seq_first)) %
	    PANE_MAX_LINES];
}

struct pane_line *
pane_fold_head(struct pane *p, uint64_t seq)
{
	struct pane_line *l = pane_line_by_seq(p, seq);

	while (l != NULL && l->hidden && seq > 0)
		l = pane_line_by_seq(p, --seq);
	return l != NULL && l->fold_at > 0 ? l : NULL;
}

int
pane_toggle(struct pane *p, uint64_t seq)
{
	struct pane_line *h = pane_fold_head(p, seq);
	uint64_t head;

	if (h == NULL)
		return 0;
	h->expanded = !h->expanded;
	head = pane_seq(p, h);
	/* A view held by a line that folds away is held by its head. */
	if (!h->expanded && p->anchored && p->anchor_seq > head &&
	    pane_fold_head(p, p->anchor_seq) == h) {
		p->anchor_seq = head;
		p->anchor_off = 0;
	}
	if (!h->expanded && p->sel_on && p->sel_seq > head &&
	    pane_fold_head(p, p->sel_seq) == h)
		p->sel_seq = head;
	return 1;
}

const char *
pane_whole(struct pane *p)
{
	struct pane_line *l;
	uint64_t seq;

	if (p->sel_on && (l = pane_fold_head(p, p->sel_seq)) != NULL)
		return l->whole;
	for (seq = p->seq_first + p->count; seq-- > p->seq_first; ) {
		l = pane_line_by_seq(p, seq);
		if (l->fold_at > 0 && l->whole != NULL)
			return l->whole;
	}
	return NULL;
}

void
pane_expand_all(struct pane *p, int expand)
{
	size_t i;

	for (i = 0; i < p->count; i++)
		p->lines[(p->first + i) % PANE_MAX_LINES].expanded = expand;
}

int
pane_line_at_row(const struct pane *p, int row, uint64_t *seq)
{
	if (row < 0 || (size_t)row >= p->ndrawn ||
	    p->drawn[row] == UINT64_MAX)
		return -1;
	*seq = p->drawn[row];
	return 0;
}

void
pane_show_line(struct pane *p, uint64_t seq, size_t off)
{
	p->anchored = 1;
	p->anchor_seq = seq;
	p->anchor_off = off;
	p->scroll = 1;		/* pane_draw places it */
}

/* Whether the hidden line at index i is shown: its output is expanded.
 * *first is the index of the first hidden line of its run. */
static int
pane_run_shown(const struct pane *p, size_t i, int verbose, size_t *first)
{
	const struct pane_line *head;

	while (i > 0 && pane_line_at(p, i - 1)->hidden)
		i--;
	*first = i;
	head = i > 0 ? pane_line_at(p, i - 1) : NULL;
	return head != NULL && head->fold_at > 0 && (head->expanded ||
	    verbose);
}

/* Highlights the matches of find in the row drawn at (y, left) from
 * the bytes start to end of line l (seq): the current one apart. */
static void
pane_highlight(const struct pane_line *l, uint64_t seq, size_t start,
    size_t end, int y, int left, const struct pane_look *look)
{
	size_t q = strlen(look->find), at;
	attr_t a;

	for (at = start; q > 0 && at + q <= end; at++) {
		if (strncasecmp(l->text + at, look->find, q) != 0)
			continue;
		a = color_attr(look->hit && seq == look->hit_seq &&
		    at == look->hit_off ? ROLE_SELECTED : ROLE_MATCH);
		mvchgat(y, left + (int)text_width(l->text + start, at - start),
		    (int)text_width(l->text + at, q), a & ~A_COLOR,
		    (short)PAIR_NUMBER(a), NULL);
		at += q - 1;
	}
}

/*
 * Folds the run of thinking lines that ends at line `last` (an index) into
 * one row showing the end of its newest non-empty line. Returns the index
 * of the first line of the run.
 */
static size_t
pane_fold(const struct pane *p, size_t last, int width, size_t **starts,
    size_t *capstarts, struct pane_row *row)
{
	size_t first = last, nrows, w = (size_t)width;
	const struct pane_line *l = NULL;

	while (first > 0 && pane_line_at(p, first - 1)->role == ROLE_THINKING)
		first--;
	for (size_t i = last + 1; i > first && l == NULL; i--) {
		if (pane_line_at(p, i - 1)->len > 0)
			l = pane_line_at(p, i - 1);
	}
	if (l == NULL)
		l = pane_line_at(p, last);
	row->line = l;
	row->folded = last - first + 1;
	row->end = l->len;
	row->start = 0;
	w = w > PANE_FOLD_COLS ? w - PANE_FOLD_COLS : 1;
	*starts = xgrow(*starts, capstarts, l->len + 2, sizeof **starts);
	nrows = text_wrap(l->text, l->len, (int)w, *starts, l->len + 1);
	if (nrows > 0)
		row->start = (*starts)[nrows - 1];
	return first;
}

/*
 * Sets the scroll so that the anchored row is the top one: the newest
 * row of the anchor's line that starts at or before its byte (a resize
 * rewraps lines, so the byte may now be inside a row).
 */
static void
pane_hold(struct pane *p, const struct pane_row *rows, size_t n,
    size_t height)
{
	size_t i, at = n;

	/* rows[0] is the newest: the first match is the row that holds
	 * the byte. */
	for (i = 0; i < n; i++) {
		if (pane_seq(p, rows[i].line) == p->anchor_seq &&
		    rows[i].start <= p->anchor_off) {
			at = i;
			break;
		}
	}
	if (at == n && n > 0)
		at = n - 1;		/* the line is folded away: its row */
	p->scroll = at + 1 > height ? (int)(at + 1 - height) : 0;
}

void
pane_draw(struct pane *p, int top, int left, int height, int width,
    const struct pane_look *look)
{
	static struct pane_row *rows;
	static size_t caprows;
	static size_t *starts;
	static size_t capstarts;
	size_t want, n = 0, i, k, r, run_first = SIZE_MAX, len;
	int run_shown = 0, show_thinking = look->show_thinking;

	if (height <= 0 || width <= 0)
		return;
	/* An anchor whose line was dropped holds the oldest line. */
	if (p->anchored && p->anchor_seq < p->seq_first) {
		p->anchor_seq = p->seq_first;
		p->anchor_off = 0;
	}
	want = (size_t)height + (size_t)p->scroll;
	/* Wrap from the newest line back until enough rows are known: to the
	 * anchor's line when anchored. */
	for (i = p->count; i > 0 && (p->anchored ? p->seq_first + i >
	    p->anchor_seq : n < want); i--) {
		const struct pane_line *l = pane_line_at(p, i - 1);
		size_t nrows;

		/* A folded output's lines: shown under an expanded head,
		 * else skipped to it. */
		if (l->hidden) {
			if (run_first == SIZE_MAX || i - 1 < run_first)
				run_shown = pane_run_shown(p, i - 1,
				    look->verbose, &run_first);
			if (!run_shown) {
				i = run_first + 1;
				continue;
			}
		}
		len = l->fold_at > 0 && (l->expanded || look->verbose) ?
		    l->fold_at : l->len;
		if (l->role == ROLE_THINKING && !show_thinking) {
			rows = xgrow(rows, &caprows, n + 1, sizeof *rows);
			i = pane_fold(p, i - 1, width, &starts, &capstarts,
			    &rows[n++]) + 1;
			continue;
		}
		starts = xgrow(starts, &capstarts, len + 2, sizeof *starts);
		nrows = text_wrap(l->text, len, width, starts, len + 1);
		for (r = nrows; r > 0; r--) {
			rows = xgrow(rows, &caprows, n + 1, sizeof *rows);
			rows[n].line = l;
			rows[n].start = starts[r - 1];
			rows[n].end = r < nrows ? starts[r] : len;
			rows[n].folded = 0;
			n++;
		}
	}
	if (p->anchored)
		pane_hold(p, rows, n, (size_t)height);
	/* Not that much history: scroll no further than the top. */
	if ((size_t)p->scroll + (size_t)height > n)
		p->scroll = n > (size_t)height ? (int)(n - (size_t)height) : 0;
	if (p->scroll == 0)
		pane_scroll_end(p);
	else if (!p->anchored) {
		/* Hold the top row from now on. */
		p->anchored = 1;
		p->anchor_seq = pane_seq(p, rows[p->scroll + height - 1].line);
		p->anchor_off = rows[p->scroll + height - 1].start;
	}
	p->drawn = xgrow(p->drawn, &p->capdrawn, (size_t)height,
	    sizeof *p->drawn);
	p->ndrawn = (size_t)height;
	for (k = 0; k < (size_t)height; k++)
		p->drawn[k] = UINT64_MAX;
	for (k = 0; k < (size_t)height; k++) {
		size_t idx = (size_t)p->scroll + k;
		const struct pane_row *row;
		size_t end;
		uint64_t seq;
		int y = top + height - 1 - (int)k;

		if (idx >= n)
			break;
		row = &rows[idx];
		seq = pane_seq(p, row->line);
		p->drawn[height - 1 - (int)k] = seq;
		end = row->end;
		/* The break at a space leaves the space out of the row. */
		while (end > row->start && row->line->text[end - 1] == ' ')
			end--;
		attrset(color_attr(row->line->role));
		if (row->folded > 0) {
			if (width <= PANE_FOLD_COLS)
				continue;
			draw_text_at(top + height - 1 - (int)k, left,
			    PANE_FOLD_MARK, strlen(PANE_FOLD_MARK));
			if (row->start > 0)
				draw_text("…", strlen("…"));
			draw_text(row->line->text + row->start,
			    end - row->start);
			continue;
		}
		/* The selected line stands out. */
		if (p->sel_on && seq == p->sel_seq)
			attron(A_BOLD | A_UNDERLINE);
		draw_text_at(y, left, row->line->text + row->start,
		    end - row->start);
		if (look->find != NULL)
			pane_highlight(row->line, seq, row->start, end, y, left,
			    look);
	}
	attrset(A_NORMAL);
}
