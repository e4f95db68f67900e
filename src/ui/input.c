/*
 * The input line editor (see input.h).
 */
#include "config.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "ui/color.h"
#include "ui/draw.h"
#include "ui/input.h"
#include "ui/text.h"
#include "util/xmalloc.h"

void
input_init(struct input *in)
{
	memset(in, 0, sizeof *in);
	in->cap = 64;
	in->buf = xcalloc(1, in->cap);
	in->browsing = -1;
}

void
input_free(struct input *in)
{
	int i;

	for (i = 0; i < in->nhistory; i++)
		free(in->history[i]);
	free(in->buf);
	memset(in, 0, sizeof *in);
}

/* The fold that holds byte at strictly inside it, or NULL. */
static struct input_fold *
input_fold_around(struct input *in, size_t at)
{
	int i;

	for (i = 0; i < in->nfolds; i++)
		if (in->folds[i].start < at && at < in->folds[i].end)
			return &in->folds[i];
	return NULL;
}

/* The fold that starts at byte at, or NULL. */
static struct input_fold *
input_fold_at(struct input *in, size_t at)
{
	int i;

	for (i = 0; i < in->nfolds; i++)
		if (in->folds[i].start == at)
			return &in->folds[i];
	return NULL;
}

/* The fold that ends at byte at, or NULL. */
static struct input_fold *
input_fold_before(struct input *in, size_t at)
{
	int i;

	for (i = 0; i < in->nfolds; i++)
		if (in->folds[i].end == at)
			return &in->folds[i];
	return NULL;
}

/* With the pastes shown (C-o), an edit inside one makes it text. */
static void
input_fold_dissolve(struct input *in, struct input_fold *f)
{
	size_t i = (size_t)(f - in->folds);

	memmove(f, f + 1, ((size_t)in->nfolds - i - 1) * sizeof *f);
	in->nfolds--;
}

/* Bytes inserted (by > 0) at byte at: the folds from there on move. A
 * paste coming in at its own start does not move. */
static void
input_fold_shift(struct input *in, size_t at, long by)
{
	struct input_fold *f;
	int i;

	if ((f = input_fold_around(in, at)) != NULL)
		input_fold_dissolve(in, f);

	for (i = 0; i < in->nfolds; i++)
		if (in->folds[i].start >= at) {
			in->folds[i].start += (size_t)by;
			in->folds[i].end += (size_t)by;
		}
	if (in->pasting && in->paste_from > at)
		in->paste_from += (size_t)by;
}

void
input_set(struct input *in, const char *text, size_t cursor)
{
	size_t len = strlen(text);

	in->buf = xgrow(in->buf, &in->cap, len + 1, 1);
	memcpy(in->buf, text, len + 1);
	in->len = len;
	in->cursor = cursor < len ? cursor : len;
	in->browsing = -1;
	in->nfolds = 0;
	in->pasting = 0;
}

static size_t
input_encode(wchar_t wc, char *out)
{
	unsigned int c = (unsigned int)wc;

	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c >= 0xd800 && c <= 0xdfff)
		c = 0xfffd;
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c > 0x10ffff)
		return input_encode(0xfffd, out);
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

void
input_insert(struct input *in, wchar_t wc)
{
	char enc[4];
	size_t n = input_encode(wc, enc);

	if (((unsigned int)wc < 0x20 && wc != L'\n') || wc == 0x7f)
		return;
	in->buf = xgrow(in->buf, &in->cap, in->len + n + 1, 1);
	memmove(in->buf + in->cursor + n, in->buf + in->cursor,
	    in->len - in->cursor + 1);
	memcpy(in->buf + in->cursor, enc, n);
	input_fold_shift(in, in->cursor, (long)n);
	in->len += n;
	in->cursor += n;
}

void
input_paste_begin(struct input *in)
{
	in->pasting = 1;
	in->paste_from = in->cursor;
}

void
input_paste_end(struct input *in)
{
	struct input_fold *f;
	size_t lines = 1, i;

	if (!in->pasting || in->paste_from > in->cursor)
		return;
	in->pasting = 0;
	for (i = in->paste_from; i < in->cursor; i++)
		lines += in->buf[i] == '\n' && i + 1 < in->cursor;
	if (lines <= INPUT_FOLD_LINES || in->nfolds == INPUT_FOLDS)
		return;
	/* In order of place: the folds after it move up one. */
	for (i = (size_t)in->nfolds; i > 0 &&
	    in->folds[i - 1].start >= in->cursor; i--)
		in->folds[i] = in->folds[i - 1];
	f = &in->folds[i];
	f->start = in->paste_from;
	f->end = in->cursor;
	f->lines = lines;
	in->nfolds++;
}

/* The start of the character before byte offset at. */
static size_t
input_prev(const struct input *in, size_t at)
{
	while (at > 0 && ((unsigned char)in->buf[--at] & 0xc0) == 0x80)
		;
	return at;
}

static size_t
input_next(const struct input *in, size_t at)
{
	if (at < in->len)
		at++;
	while (at < in->len && ((unsigned char)in->buf[at] & 0xc0) == 0x80)
		at++;
	return at;
}

/* Removes bytes from..to; a fold they reach into goes whole. */
static void
input_cut(struct input *in, size_t from, size_t to)
{
	struct input_fold *f;
	int i, kept = 0;

	/* Folded, a paste goes whole; shown, it becomes text. */
	while (in->unfold && (f = input_fold_around(in, from)) != NULL)
		input_fold_dissolve(in, f);
	while (in->unfold && (f = input_fold_around(in, to)) != NULL)
		input_fold_dissolve(in, f);
	if ((f = input_fold_around(in, from)) != NULL)
		from = f->start;
	if ((f = input_fold_around(in, to)) != NULL)
		to = f->end;
	for (i = 0; i < in->nfolds; i++) {
		f = &in->folds[i];
		if (f->end <= from)
			in->folds[kept++] = *f;
		else if (f->start >= to) {
			in->folds[kept] = *f;
			in->folds[kept].start -= to - from;
			in->folds[kept++].end -= to - from;
		}
	}
	in->nfolds = kept;
	memmove(in->buf + from, in->buf + to, in->len - to + 1);
	in->len -= to - from;
	in->cursor = from;
}

/* The cursor never rests inside a fold: it goes to the end dir says. */
static void
input_fold_snap(struct input *in, int dir)
{
	struct input_fold *f = in->unfold ? NULL : input_fold_around(in,
	    in->cursor);

	if (f != NULL)
		in->cursor = dir < 0 ? f->start : f->end;
}

void
input_backspace(struct input *in)
{
	if (in->cursor > 0)
		input_cut(in, input_prev(in, in->cursor), in->cursor);
}

void
input_delete(struct input *in)
{
	if (in->cursor < in->len)
		input_cut(in, in->cursor, input_next(in, in->cursor));
}

void
input_left(struct input *in)
{
	in->cursor = input_prev(in, in->cursor);
	input_fold_snap(in, -1);
}

void
input_right(struct input *in)
{
	in->cursor = input_next(in, in->cursor);
	input_fold_snap(in, 1);
}

void
input_home(struct input *in)
{
	in->cursor = 0;
}

void
input_end(struct input *in)
{
	in->cursor = in->len;
}

void
input_kill(struct input *in)
{
	in->len = in->cursor = 0;
	in->buf[0] = '\0';
	in->nfolds = 0;
	in->pasting = 0;
}

/* Whether the byte at i separates words. */
static int
input_blank(const struct input *in, size_t i)
{
	return in->buf[i] == ' ' || in->buf[i] == '\n';
}

/* Where the word before the cursor starts; a folded paste's end is a
 * word's edge too. */
static size_t
input_word_start(struct input *in)
{
	size_t at = in->cursor;

	while (at > 0 && input_blank(in, at - 1))
		at--;
	while (at > 0 && !input_blank(in, at - 1) &&
	    (in->unfold || input_fold_before(in, at) == NULL))
		at--;
	return at;
}

void
input_kill_word(struct input *in)
{
	struct input_fold *f = in->unfold ? NULL : input_fold_before(in,
	    in->cursor);

	input_cut(in, f != NULL ? f->start : input_word_start(in),
	    in->cursor);
}

void
input_word_left(struct input *in)
{
	struct input_fold *f = in->unfold ? NULL : input_fold_before(in,
	    in->cursor);

	in->cursor = f != NULL ? f->start : input_word_start(in);
	input_fold_snap(in, -1);
}

void
input_word_right(struct input *in)
{
	size_t at = in->cursor;
	struct input_fold *f = in->unfold ? NULL : input_fold_at(in, at);

	if (f != NULL) {
		in->cursor = f->end;
		return;
	}
	while (at < in->len && input_blank(in, at))
		at++;
	while (at < in->len && !input_blank(in, at) &&
	    (in->unfold || at == in->cursor || input_fold_at(in, at) == NULL))
		at++;
	in->cursor = at;
	input_fold_snap(in, 1);
}

void
input_history(struct input *in, int dir)
{
	int i;

	if (in->nhistory == 0)
		return;
	i = in->browsing < 0 ? in->nhistory : in->browsing;
	i += dir;
	if (i < 0)
		i = 0;
	if (i >= in->nhistory) {
		in->browsing = -1;
		input_kill(in);
		return;
	}
	input_set(in, in->history[i], strlen(in->history[i]));
	in->browsing = i;
}

char *
input_take(struct input *in)
{
	char *line = xstrdup(in->buf);

	if (*line != '\0') {
		if (in->nhistory == INPUT_HISTORY) {
			free(in->history[0]);
			memmove(in->history, in->history + 1,
			    (INPUT_HISTORY - 1) * sizeof *in->history);
			in->nhistory--;
		}
		in->history[in->nhistory++] = xstrdup(line);
	}
	in->browsing = -1;
	input_kill(in);
	return line;
}

/* Draws len bytes of the line, each newline in it as one "↵". */
static void
input_draw_text(const char *s, size_t len, int y, int x)
{
	const char *end = s + len, *nl;

	move(y, x);
	while (s < end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		draw_text(s, (size_t)((nl ? nl : end) - s));
		if (nl == NULL)
			break;
		attrset(color_attr(ROLE_DIM));
		draw_text("↵", strlen("↵"));
		attrset(A_NORMAL);
		s = nl + 1;
	}
}

/* A fold's label: "[Pasted 500 lines]" (malloc'd). */
static char *
input_fold_label(const struct input_fold *f)
{
	return xasprintf("[Pasted %zu lines]", f->lines);
}

/* The width of what lies from byte from to byte to (a fold whole). */
static int
input_span_width(struct input *in, size_t from, size_t to)
{
	struct input_fold *f;
	char *label;
	int w;

	if (!in->unfold && (f = input_fold_at(in, from)) != NULL &&
	    f->end == to) {
		label = input_fold_label(f);
		w = (int)text_width(label, strlen(label));
		free(label);
		return w;
	}
	return (int)text_width(in->buf + from, to - from);
}

/* Draws the line from byte start in avail columns at (y, x): text as
 * input_draw_text does, each fold as its label. */
static void
input_draw_from(struct input *in, size_t start, int y, int x, int avail)
{
	struct input_fold *f;
	size_t at = start, next, fit;
	char *label;
	int used = 0, w, i;

	while (at < in->len && used < avail) {
		if (!in->unfold && (f = input_fold_at(in, at)) != NULL) {
			label = input_fold_label(f);
			w = (int)text_width(label, strlen(label));
			if (used + w <= avail) {
				move(y, x + used);
				attrset(color_attr(ROLE_DIM) | A_REVERSE);
				draw_text(label, strlen(label));
				attrset(A_NORMAL);
			}
			free(label);
			used += w;
			at = f->end;
			continue;
		}
		next = in->len;
		for (i = 0; !in->unfold && i < in->nfolds; i++)
			if (in->folds[i].start > at && in->folds[i].start < next)
				next = in->folds[i].start;
		fit = text_fit(in->buf + at, next - at, avail - used);
		input_draw_text(in->buf + at, fit, y, x + used);
		used += (int)text_width(in->buf + at, fit);
		if (fit < next - at)
			break;
		at = next;
	}
}

void
input_draw(struct input *in, const char *prompt, int y, int x, int width)
{
	size_t plen = strlen(prompt), start = 0;
	int pw = (int)text_width(prompt, plen), avail = width - pw - 1, cw;

	/* Folded again (C-o) with the cursor in a paste: after it. */
	input_fold_snap(in, 1);
	attrset(color_attr(ROLE_YOU));
	draw_cut_at(y, x, prompt, width);
	attrset(A_NORMAL);
	if (avail < 1)
		return;
	/* Scroll the text so the cursor stays within the line: from the
	 * cursor back, the characters that fit (what is shown is measured,
	 * not the whole line: a pasted log of 70 KiB measured again and
	 * again froze the screen for seconds); a fold is one piece. */
	start = in->cursor;
	cw = 0;
	while (start > 0) {
		struct input_fold *f = in->unfold ? NULL :
		    input_fold_before(in, start);
		size_t prev = f != NULL ? f->start : start - 1;
		int w;

		while (f == NULL && prev > 0 &&
		    ((unsigned char)in->buf[prev] & 0xC0) == 0x80)
			prev--;
		w = input_span_width(in, prev, start);
		if (cw + w > avail)
			break;
		cw += w;
		start = prev;
	}
	input_draw_from(in, start, y, x + pw, avail);
	move(y, x + pw + cw);
}
