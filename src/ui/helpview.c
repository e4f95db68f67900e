/*
 * The help's text, scrolling and search (see helpview.h).
 */
#include "config.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent/command.h"
#include "ui/helpview.h"
#include "ui/keymap.h"
#include "ui/text.h"
#include "ui/view.h"
#include "util/xmalloc.h"

/* The column of the keys' help, after their names. */
#define HELPVIEW_KEY_COL 16
/* The widest the box grows. */
#define HELPVIEW_MAX_W 100

void
helpview_size(int *h, int *w, int *rows, int *width)
{
	*h = LINES - 2 > 6 ? LINES - 2 : LINES;
	*w = COLS - 4 > HELPVIEW_MAX_W ? HELPVIEW_MAX_W : COLS - 4 > 20 ?
	    COLS - 4 : COLS;
	/* The borders and the row of keys at the bottom. */
	*rows = *h - 3 > 1 ? *h - 3 : 1;
	*width = *w - 4 > 10 ? *w - 4 : 10;
}

/* Where a line's continuation rows start: after the first gap of two
 * spaces that follows its first word (the column of what a key or a
 * command does), or 0. */
static int
helpview_indent(const char *s, size_t len, int width)
{
	size_t i = 0;

	while (i < len && s[i] == ' ')
		i++;
	for (; i + 2 < len; i++) {
		if (s[i] == ' ' && s[i + 1] == ' ') {
			while (i < len && s[i] == ' ')
				i++;
			i = text_width(s, i);
			return (int)i < width / 2 ? (int)i : 4;
		}
	}
	return 0;
}

/* Adds line s (len bytes) wrapped to width, its continuations indented
 * under what it says. */
static char **
helpview_add(char **lines, size_t *n, size_t *cap, const char *s, size_t len,
    int width)
{
	int indent = helpview_indent(s, len, width), cols = width;
	size_t starts[2], k, fit;

	for (;;) {
		k = text_wrap(s, len, cols, starts, 2);
		fit = k > 1 ? starts[1] : len;
		lines = xgrow(lines, cap, *n + 1, sizeof *lines);
		lines[(*n)++] = xasprintf("%*s%.*s", cols < width ? indent : 0,
		    "", (int)text_fit(s, fit, cols), s);
		if (k < 2)
			return lines;
		s += fit;
		len -= fit;
		cols = width - indent;
	}
}

/* Adds every line of text. */
static char **
helpview_text(char **lines, size_t *n, size_t *cap, const char *text,
    int width)
{
	const char *p, *nl;

	for (p = text; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		lines = helpview_add(lines, n, cap, p, (size_t)(nl - p), width);
		if (*nl == '\0')
			break;
	}
	return lines;
}

char **
helpview_lines(struct view *v, int width, size_t *n)
{
	char **lines = NULL, *keys = keymap_help(HELPVIEW_KEY_COL);
	size_t cap = 0;

	*n = 0;
	/* How commands are confined comes first. */
	lines = helpview_text(lines, n, &cap, team_sandbox_brief(v->team),
	    width);
	lines = helpview_text(lines, n, &cap, "\n", width);
	lines = helpview_text(lines, n, &cap, keys, width);
	lines = helpview_text(lines, n, &cap, "\nCommands (type them on the "
	    "input line):\n", width);
	lines = helpview_text(lines, n, &cap, command_help(), width);
	free(keys);
	return lines;
}

void
helpview_free(char **lines, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

void
helpview_open(struct view *v)
{
	v->popup = POPUP_HELP;
	v->help_first = 0;
	v->help_hit = -1;
	v->help_typing = 0;
}

/* The first line the help may start at, at most. */
static int
helpview_last(struct view *v)
{
	int h, w, rows, width;
	size_t n;
	char **lines;

	helpview_size(&h, &w, &rows, &width);
	lines = helpview_lines(v, width, &n);
	helpview_free(lines, n);
	return (int)n - rows > 0 ? (int)n - rows : 0;
}

void
helpview_scroll(struct view *v, int delta)
{
	int last = helpview_last(v);
	long first = (long)v->help_first + delta;

	v->help_first = first < 0 ? 0 : first > last ? last : (int)first;
}

int
helpview_find(struct view *v, int from)
{
	int h, w, rows, width, last = helpview_last(v);
	size_t n, i, k;
	char **lines;

	if (v->help_query[0] == '\0')
		return -1;
	helpview_size(&h, &w, &rows, &width);
	lines = helpview_lines(v, width, &n);
	for (k = 0; k < n; k++) {
		i = ((size_t)(from < 0 ? 0 : from) + k) % n;
		if (strcasestr(lines[i], v->help_query) != NULL) {
			v->help_hit = (int)i;
			/* In sight, a few lines below the top. */
			v->help_first = (int)i - 2 < 0 ? 0 : (int)i - 2;
			if (v->help_first > last)
				v->help_first = last;
			helpview_free(lines, n);
			return 0;
		}
	}
	helpview_free(lines, n);
	v->help_hit = -1;
	return -1;
}
