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

/* Encodes wc as UTF-8 into out (4 bytes at most); returns the length. */
void
input_set(struct input *in, const char *text, size_t cursor)
{
	size_t len = strlen(text);

	in->buf = xgrow(in->buf, &in->cap, len + 1, 1);
	memcpy(in->buf, text, len + 1);
	in->len = len;
	in->cursor = cursor < len ? cursor : len;
	in->browsing = -1;
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
	in->len += n;
	in->cursor += n;
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

static void
input_cut(struct input *in, size_t from, size_t to)
{
	memmove(in->buf + from, in->buf + to, in->len - to + 1);
	in->len -= to - from;
	in->cursor = from;
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
}

void
input_right(struct input *in)
{
	in->cursor = input_next(in, in->cursor);
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
}

/* Whether the byte at i separates words. */
static int
input_blank(const struct input *in, size_t i)
{
	return in->buf[i] == ' ' || in->buf[i] == '\n';
}

/* Where the word before the cursor starts. */
static size_t
input_word_start(const struct input *in)
{
	size_t at = in->cursor;

	while (at > 0 && input_blank(in, at - 1))
		at--;
	while (at > 0 && !input_blank(in, at - 1))
		at--;
	return at;
}

void
input_kill_word(struct input *in)
{
	input_cut(in, input_word_start(in), in->cursor);
}

void
input_word_left(struct input *in)
{
	in->cursor = input_word_start(in);
}

void
input_word_right(struct input *in)
{
	size_t at = in->cursor;

	while (at < in->len && input_blank(in, at))
		at++;
	while (at < in->len && !input_blank(in, at))
		at++;
	in->cursor = at;
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

void
input_draw(struct input *in, const char *prompt, int y, int x, int width)
{
	size_t plen = strlen(prompt), start = 0;
	int pw = (int)text_width(prompt, plen), avail = width - pw - 1, cw;

	attrset(color_attr(ROLE_YOU));
	draw_cut_at(y, x, prompt, width);
	attrset(A_NORMAL);
	if (avail < 1)
		return;
	/* Scroll the text so the cursor stays within the line: from the
	 * cursor back, the characters that fit (what is shown is measured,
	 * not the whole line: a pasted log of 70 KiB measured again and
	 * again froze the screen for seconds). */
	start = in->cursor;
	cw = 0;
	while (start > 0) {
		size_t prev = start - 1;
		int w;

		while (prev > 0 && ((unsigned char)in->buf[prev] & 0xC0) == 0x80)
			prev--;
		w = (int)text_width(in->buf + prev, start - prev);
		if (cw + w > avail)
			break;
		cw += w;
		start = prev;
	}
	input_draw_text(in->buf + start, text_fit(in->buf + start,
	    in->len - start, avail), y, x + pw);
	move(y, x + pw + cw);
}
