/*
 * Permission requests on the screen (see permline.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/permbody.h"
#include "ui/permline.h"
#include "ui/text.h"
#include "util/xmalloc.h"

#define PERMLINE_ELLIPSIS	"…"
#define PERMLINE_GAP		" … "	/* between the start and the flagged */
#define PERMLINE_HEAD_MIN	4	/* columns of a start worth showing */
#define PERMLINE_LABEL_MAX	40	/* columns of a reason, at most */

/* Appends the n bytes at s to buf (len, cap). */
static void
permline_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	*buf = xappend(*buf, len, cap, s, n);
}

/*
 * A malloc'd copy of the len bytes at s fit for the screen with nothing
 * hidden: '\n' kept, a tab one space, other C0 controls and DEL as their
 * U+2400 pictures, C1 controls as U+FFFD, then cleaned by text_sanitize.
 */
static char *
permline_visible(const char *s, size_t len)
{
	char *buf = NULL, *out, pic[3];
	size_t blen = 0, cap = 0, i;
	unsigned char c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == '\n')
			permline_put(&buf, &blen, &cap, "\n", 1);
		else if (c == '\t')
			permline_put(&buf, &blen, &cap, " ", 1);
		else if (c < 0x20 || c == 0x7f) {
			/* U+2400 + c; U+2421 for DEL. */
			pic[0] = (char)0xe2;
			pic[1] = (char)0x90;
			pic[2] = (char)(c == 0x7f ? 0xa1 : 0x80 + c);
			permline_put(&buf, &blen, &cap, pic, 3);
		} else if (c == 0xc2 && i + 1 < len &&
		    (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f) {
			permline_put(&buf, &blen, &cap, "\xef\xbf\xbd", 3);
			i++;
		} else
			permline_put(&buf, &blen, &cap, s + i, 1);
	}
	out = text_sanitize(buf, blen);
	free(buf);
	return out;
}

/* A one-line field: visible, with its line ends as spaces. */
static char *
permline_field(const char *s)
{
	char *v = permline_visible(s, strlen(s)), *p;

	for (p = v; (p = strchr(p, '\n')) != NULL; p++)
		*p = ' ';
	return v;
}

/* The bytes of the blank at s (a space, a line end or a Unicode space
 * such as U+00A0 or U+3000), or 0. */
static size_t
permline_space(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	if (u[0] == ' ' || u[0] == '\n')
		return 1;
	if (u[0] == 0xc2 && u[1] == 0xa0)
		return 2;
	if ((u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80) ||
	    (u[0] == 0xe2 && u[1] == 0x80 && ((u[2] >= 0x80 &&
	    u[2] <= 0x8a) || u[2] == 0xa8 || u[2] == 0xa9 ||
	    u[2] == 0xaf)) || (u[0] == 0xe2 && u[1] == 0x81 &&
	    u[2] == 0x9f) || (u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80))
		return 3;
	return 0;
}

/* The lines of a visible command, blanks at its end aside. */
static size_t
permline_count(const char *s)
{
	size_t i, last = 0, k, lines = 1, n = 0;

	for (i = 0; s[i] != '\0'; i += k > 0 ? k : 1)
		if ((k = permline_space(s + i)) == 0)
			last = i + 1;
	for (i = 0; i < last; i++)
		n += s[i] == '\n';
	return lines + n;
}

int
permline_from_body(const char *body, struct permline *pl)
{
	struct permbody b;
	size_t fs, fe;
	char *a, *m, *z;

	memset(pl, 0, sizeof *pl);
	if (permbody_parse(body, &b) == -1)
		return -1;
	fs = b.flag_start;
	fe = b.flag_end;
	/* Made visible in three pieces, so that the flagged part is
	 * found again in what is shown. */
	a = permline_visible(b.command, fs);
	m = permline_visible(b.command + fs, fe - fs);
	z = permline_visible(b.command + fe, strlen(b.command + fe));
	pl->command = xasprintf("%s%s%s", a, m, z);
	if (fs < fe && *m != '\0') {
		pl->flag_start = strlen(a);
		pl->flag_end = strlen(a) + strlen(m);
	}
	free(a);
	free(m);
	free(z);
	pl->tool = permline_field(b.tool);
	pl->reason = permline_field(b.reason);
	pl->detail = permline_field(b.detail);
	pl->directory = permline_field(b.directory);
	pl->who = permline_field(b.who);
	pl->lines = permline_count(pl->command);
	permbody_clear(&b);
	return 0;
}

void
permline_clear(struct permline *pl)
{
	free(pl->tool);
	free(pl->reason);
	free(pl->detail);
	free(pl->command);
	free(pl->directory);
	free(pl->who);
	memset(pl, 0, sizeof *pl);
}

/*
 * The command with each run of blanks one space and none at either end
 * (malloc'd); the flagged part's place in it into [*cs, *ce), or both 0
 * when it is not known.
 */
static char *
permline_collapse(const struct permline *pl, size_t *cs, size_t *ce)
{
	const char *s = pl->command;
	char *out = xmalloc(strlen(s) + 1);
	size_t i = 0, o = 0, k;
	int pending = 0, flag = pl->flag_start < pl->flag_end, seen = 0;

	*cs = *ce = 0;
	while (s[i] != '\0') {
		if ((k = permline_space(s + i)) > 0) {
			pending = o > 0;
			i += k;
			continue;
		}
		if (pending)
			out[o++] = ' ';
		pending = 0;
		if (flag && !seen && i >= pl->flag_start) {
			*cs = o;
			seen = 1;
		}
		out[o++] = s[i];
		if (flag && i < pl->flag_end)
			*ce = o;
		i++;
	}
	out[o] = '\0';
	if (!seen || *ce <= *cs)
		*cs = *ce = 0;
	return out;
}

/* The first bytes of s (len) that fit in cols columns with "…" after
 * them, cut where text_cut would (at a word's end where it can, without
 * a blank at the end), then "…" (malloc'd), also when all of s would
 * have fitted; "" when cols < 2. */
static char *
permline_cut(const char *s, size_t len, int cols)
{
	size_t n;
	int cut;

	if (cols < 2)
		return xstrdup("");
	n = text_cut_len(s, len, cols, &cut);
	if (!cut) {
		n = text_fit(s, len, cols - 1);
		while (n > 0 && s[n - 1] == ' ')
			n--;
	}
	return xasprintf("%.*s%s", (int)n, s, PERMLINE_ELLIPSIS);
}

static int
permline_width(const char *s, size_t len)
{
	return (int)text_width(s, len);
}

/*
 * The collapsed command c in cols columns, when it does not fit whole:
 * its start cut, unless the flagged part [cs, ce) would not be seen;
 * then as much of the start as fits, " … ", the flagged part, and " …"
 * when more follows it.
 */
static char *
permline_fit(const char *c, size_t cs, size_t ce, int cols)
{
	size_t len = strlen(c);
	int tailw, headw, fw;
	char *head, *mid, *out;

	if (cs == ce || permline_width(c, ce) + 1 <= cols)
		return permline_cut(c, len, cols);
	tailw = ce < len ? permline_width(PERMLINE_GAP, 4) : 0;
	fw = permline_width(c + cs, ce - cs);
	headw = cols - fw - tailw - permline_width(PERMLINE_GAP,
	    strlen(PERMLINE_GAP));
	if (cs > 0 && headw >= PERMLINE_HEAD_MIN) {
		head = permline_cut(c, cs, headw + 1);
		/* The cut's own "…" stands for the gap. */
		head[strlen(head) - strlen(PERMLINE_ELLIPSIS)] = '\0';
		out = xasprintf("%s%s%.*s%s", head, PERMLINE_GAP,
		    (int)(ce - cs), c + cs, ce < len ? " …" : "");
		free(head);
		return out;
	}
	/* No room for the start: the flagged part, cut if it must be. */
	if (fw + tailw + 2 <= cols)
		return xasprintf("… %.*s%s", (int)(ce - cs), c + cs,
		    ce < len ? " …" : "");
	mid = permline_cut(c + cs, ce - cs, cols - 2);
	out = xasprintf("… %s", mid);
	free(mid);
	return out;
}

char *
permline_summary(const struct permline *pl, int cols, int *whole)
{
	const char *reason = *pl->reason != '\0' ? pl->reason : "risky";
	char *c, *label, *lead, *suffix, *body, *line;
	size_t cs, ce, n;
	int room, cut;

	if (whole != NULL)
		*whole = 0;
	c = permline_collapse(pl, &cs, &ce);
	label = permline_width(reason, strlen(reason)) > PERMLINE_LABEL_MAX ?
	    permline_cut(reason, strlen(reason), PERMLINE_LABEL_MAX) :
	    xstrdup(reason);
	lead = xasprintf("%s · ", label);
	suffix = pl->lines > 1 ? xasprintf(" (%zu lines)", pl->lines) :
	    xstrdup("");
	line = xasprintf("%s%s%s", lead, c, suffix);
	if (permline_width(line, strlen(line)) <= cols) {
		if (whole != NULL)
			*whole = pl->lines <= 1 && *label == *reason &&
			    strcmp(label, reason) == 0;
	} else {
		free(line);
		room = cols - permline_width(lead, strlen(lead)) -
		    permline_width(suffix, strlen(suffix));
		/* Short of room the count goes before the flagged part. */
		if (room < 16 && *suffix != '\0') {
			room += permline_width(suffix, strlen(suffix));
			*suffix = '\0';
		}
		body = permline_fit(c, cs, ce, room);
		line = xasprintf("%s%s%s", lead, body, suffix);
		free(body);
	}
	/* (It fits: this only makes sure, and would say so.) */
	n = text_cut_len(line, strlen(line), cols, &cut);
	if (cut) {
		body = text_cut(line, strlen(line), cols);
		free(line);
		line = body;
	} else
		line[n] = '\0';
	free(c);
	free(label);
	free(lead);
	free(suffix);
	return line;
}

/* Whether bytes [a, b) of pl's command hold some of the flagged part. */
static int
permline_flagged(const struct permline *pl, size_t a, size_t b)
{
	return pl->flag_start < pl->flag_end && a < pl->flag_end &&
	    pl->flag_start < b;
}

char **
permline_rows(const struct permline *pl, int cols, size_t *n)
{
	const char *p = pl->command, *nl;
	char **rows = NULL, num[24];
	size_t cap = 0, len, i, k, nrows, line, *starts, at, end;
	int digits, w;

	*n = 0;
	digits = snprintf(num, sizeof num, "%zu", pl->lines);
	w = cols - digits - 3;
	if (w < 1)
		w = 1;
	/* Blank lines after the last line of text are not shown. */
	for (line = 1; line <= pl->lines; line++, p = nl + 1) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		/* Blanks at a line's end show nothing: no rows for them. */
		while (len > 0 && p[len - 1] == ' ')
			len--;
		nrows = text_wrap(p, len, w, NULL, 0);
		starts = xcalloc(nrows, sizeof *starts);
		text_wrap(p, len, w, starts, nrows);
		for (k = 0; k < nrows; k++) {
			at = starts[k];
			end = k + 1 < nrows ? starts[k + 1] : len;
			i = (size_t)(p - pl->command);
			rows = xgrow(rows, &cap, *n + 1, sizeof *rows);
			rows[(*n)++] = xasprintf("%*s %s %.*s", digits,
			    k == 0 ? (snprintf(num, sizeof num, "%zu", line),
			    num) : "", permline_flagged(pl, i + at, i + end) ?
			    "▶" : "│", (int)text_fit(p + at, end - at, w),
			    p + at);
		}
		free(starts);
		if (nl == NULL)
			break;
	}
	return rows;
}

size_t
permline_flag_line(const struct permline *pl)
{
	size_t i, line = 1;

	if (pl->flag_start >= pl->flag_end)
		return 0;
	for (i = 0; i < pl->flag_start; i++)
		line += pl->command[i] == '\n';
	return line;
}

void
permline_rows_free(char **rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
}
