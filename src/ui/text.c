/*
 * Text for the screen (see text.h): a sanitiser that strips terminal
 * escape sequences and control characters from untrusted output and
 * repairs its UTF-8, and the column arithmetic the panes draw with.
 *
 * The sanitiser works in two layers. The lower one decodes bytes into code
 * points; validity is utf8_valid_len's, so the screen and the store agree
 * on what valid UTF-8 is. The upper one is a small escape-sequence parser
 * in the manner of the DEC VT500 state machine, run on code points rather
 * than bytes: a UTF-8 character inside an OSC title cannot be mistaken for
 * a C1 control because one of its bytes happens to be 0x9b. Both layers
 * keep their state in struct text_stream, so text sanitised in pieces comes
 * out exactly as if sanitised whole.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <utf8proc.h>

#include "ui/text.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

/* Where the escape-sequence parser is (struct text_stream's state). */
enum text_state {
	TEXT_GROUND,		/* plain text */
	TEXT_ESC,		/* after ESC */
	TEXT_ESC_INTER,		/* after ESC and intermediate bytes */
	TEXT_CSI,		/* in a control sequence, before its final byte */
	TEXT_OSC,		/* in an OSC string: BEL, ST or a newline ends it */
	TEXT_STRING		/* in a DCS, SOS, PM or APC string: ST or a newline */
};

#define TEXT_REPLACEMENT 0xfffd

/*
 * Returns 1 if the avail bytes at p (fewer than need, the length their
 * first byte announces) can still become a valid sequence. Only the second
 * byte has a narrower range than 0x80..0xbf (after 0xe0, 0xed, 0xf0 and
 * 0xf4), and either 0x80 or 0xbf is always inside it, so padding with one
 * of the two and asking utf8_valid_len settles it.
 */
static int
text_prefix_valid(const unsigned char *p, size_t avail, size_t need)
{
	unsigned char buf[4];

	memcpy(buf, p, avail);
	memset(buf + avail, 0x80, need - avail);
	if (utf8_valid_len(buf, need) == need)
		return 1;
	memset(buf + avail, 0xbf, need - avail);
	return utf8_valid_len(buf, need) == need;
}

/*
 * Decodes the character at p (avail > 0 bytes) into *cp and returns its
 * length. An invalid byte decodes on its own: a raw 0x80..0x9f as the C1
 * control an 8-bit terminal would take it for, any other as U+FFFD. If more
 * bytes may follow (final is 0) and the bytes run out in what may still
 * become a valid sequence, returns 0 and leaves *cp alone.
 */
static size_t
text_decode(const unsigned char *p, size_t avail, int final, unsigned int *cp)
{
	size_t n, need, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	n = utf8_valid_len(p, avail);
	if (n > 0) {
		*cp = p[0] & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
		for (i = 1; i < n; i++)
			*cp = (*cp << 6) | (p[i] & 0x3f);
		return n;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xf4 && !final) {
		need = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
		if (avail < need && text_prefix_valid(p, avail, need))
			return 0;
	}
	*cp = p[0] <= 0x9f ? p[0] : TEXT_REPLACEMENT;
	return 1;
}

/* Writes cp (at most U+10FFFF) in UTF-8 at o; returns the end. */
static char *
text_put(char *o, unsigned int cp)
{
	if (cp < 0x80)
		*o++ = (char)cp;
	else if (cp < 0x800) {
		*o++ = (char)(0xc0 | (cp >> 6));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | (cp >> 12));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | (cp >> 18));
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/*
 * Whether cp is a bidirectional embedding, override or isolate: a
 * terminal that honours them would show text in another order than it
 * is read (a line of code that does not do what it seems to). They are
 * shown as U+FFFD, so the person sees that something was there.
 */
static int
text_bidi_control(unsigned int cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 &&
	    cp <= 0x2069);
}

/* Whether cp only decorates an emoji (or a letter, as a variation
 * selector): joiner, variation selectors, skin tones, the keycap mark,
 * tags. Terminals disagree on the width of what these make. */
static int
text_emoji_extension(unsigned int cp)
{
	return cp == 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) ||
	    (cp >= 0x1f3fb && cp <= 0x1f3ff) || cp == 0x20e3 ||
	    (cp >= 0xe0020 && cp <= 0xe007f) ||
	    (cp >= 0xe0100 && cp <= 0xe01ef);
}

/*
 * Writes a printable code point, made plain within its grapheme cluster
 * (see text_sanitize): from an emoji extension on, the rest of a cluster
 * is dropped; a regional indicator is written as its letter.
 */
static char *
text_put_plain(struct text_stream *ts, unsigned int cp, char *o)
{
	int joined = ts->prev != 0 && !utf8proc_grapheme_break_stateful(
	    (utf8proc_int32_t)ts->prev, (utf8proc_int32_t)cp, &ts->cluster);

	ts->prev = cp;
	if (!joined)
		ts->trimming = 0;
	if (cp >= 0x1f1e6 && cp <= 0x1f1ff) {
		*o++ = (char)('A' + (cp - 0x1f1e6));
		return o;
	}
	if (joined && (ts->trimming || text_emoji_extension(cp))) {
		ts->trimming = 1;
		return o;
	}
	return text_put(o, cp);
}

/* Notes a break in the text (a line end, a control) for the clusters. */
static void
text_cluster_break(struct text_stream *ts)
{
	ts->prev = 0;
	ts->cluster = 0;
	ts->trimming = 0;
}

/*
 * Runs one code point through the escape parser, writing what is left of
 * it to o; returns the new end. A byte that cannot continue a sequence
 * ends it and is then taken as text (unlike a real terminal, which may
 * act on a control in the middle of a sequence and go on with it): a
 * stray ESC then costs at most the character after it.
 */
static char *
text_stream_cp(struct text_stream *ts, unsigned int cp, char *o)
{
	/* These act wherever the parser is, inside strings too. */
	switch (cp) {
	case 0x18:		/* CAN */
	case 0x1a:		/* SUB */
		ts->state = TEXT_GROUND;
		return o;
	case 0x1b:		/* ESC */
		ts->state = TEXT_ESC;
		return o;
	case 0x7f:		/* DEL is ignored */
		return o;
	case 0x90:		/* DCS */
	case 0x98:		/* SOS */
	case 0x9e:		/* PM */
	case 0x9f:		/* APC */
		ts->state = TEXT_STRING;
		return o;
	case 0x9b:		/* CSI */
		ts->state = TEXT_CSI;
		return o;
	case 0x9d:		/* OSC */
		ts->state = TEXT_OSC;
		return o;
	}
	if (cp >= 0x80 && cp <= 0x9f) {	/* ST and the other C1 controls */
		ts->state = TEXT_GROUND;
		return o;
	}

	switch (ts->state) {
	case TEXT_ESC:
		switch (cp) {
		case '[':
			ts->state = TEXT_CSI;
			return o;
		case ']':
			ts->state = TEXT_OSC;
			return o;
		case 'P':
		case 'X':
		case '^':
		case '_':
			ts->state = TEXT_STRING;
			return o;
		}
		/* FALLTHROUGH */
	case TEXT_ESC_INTER:
		if (cp >= 0x20 && cp <= 0x2f) {
			ts->state = TEXT_ESC_INTER;
			return o;
		}
		if (cp >= 0x30 && cp <= 0x7e) {	/* final; ESC \ is ST */
			ts->state = TEXT_GROUND;
			return o;
		}
		break;
	case TEXT_CSI:
		if (cp >= 0x20 && cp <= 0x3f)	/* parameter, intermediate */
			return o;
		if (cp >= 0x40 && cp <= 0x7e) {	/* final */
			ts->state = TEXT_GROUND;
			return o;
		}
		break;
	case TEXT_OSC:
	case TEXT_STRING:
		/* BEL ends an OSC. A newline ends any string here, though
		 * not on a terminal: what was lost to one is then a line at
		 * most, not the rest of a reply. */
		if (cp == 0x07 && ts->state == TEXT_OSC)
			ts->state = TEXT_GROUND;
		if (cp != '\n')
			return o;
		break;
	}

	/* Clusters are judged on what is written, so that cleaning clean
	 * text changes nothing: a control that is dropped breaks none. */
	ts->state = TEXT_GROUND;
	if (cp == '\n') {
		text_cluster_break(ts);
		*o++ = '\n';
	} else if (cp == '\t')
		o = text_put_plain(ts, ' ', o);
	else if (text_bidi_control(cp))
		o = text_put_plain(ts, TEXT_REPLACEMENT, o);
	else if (cp >= 0x20)
		o = text_put_plain(ts, cp, o);
	return o;
}

/*
 * Sanitises len bytes at s after whatever the stream holds back, appending
 * to *out. Unless final, a UTF-8 sequence cut by the end of s is held back
 * for the next piece.
 */
static void
text_stream_run(struct text_stream *ts, const unsigned char *s, size_t len,
    int final, char **out, size_t *outlen, size_t *outcap)
{
	unsigned char tmp[8];
	unsigned int cp;
	size_t pos, n, take, have, held = ts->partlen;
	char *o;

	/* No byte makes more than 3 (an invalid one becomes U+FFFD). */
	*out = xgrow(*out, outcap, *outlen + 3 * (held + len) + 1, 1);
	o = *out + *outlen;

	if (held > 0) {
		/*
		 * Finish the held-back sequence from the first bytes of s. With
		 * 3 of them, at least 4 bytes follow any start inside the held
		 * ones, so a sequence is only still cut if s ran out.
		 */
		take = len < 3 ? len : 3;
		memcpy(tmp, ts->part, held);
		if (take > 0)
			memcpy(tmp + held, s, take);
		have = held + take;
		ts->partlen = 0;
		for (pos = 0; pos < held; pos += n) {
			if ((n = text_decode(tmp + pos, have - pos, final,
			    &cp)) == 0) {
				ts->partlen = have - pos;
				memcpy(ts->part, tmp + pos, ts->partlen);
				goto out;
			}
			o = text_stream_cp(ts, cp, o);
		}
		if (pos > held) {	/* s may be NULL */
			s += pos - held;
			len -= pos - held;
		}
	}

	for (pos = 0; pos < len; pos += n) {
		if ((n = text_decode(s + pos, len - pos, final, &cp)) == 0) {
			ts->partlen = len - pos;
			memcpy(ts->part, s + pos, ts->partlen);
			break;
		}
		o = text_stream_cp(ts, cp, o);
	}

out:
	*o = '\0';
	*outlen = (size_t)(o - *out);
}

void
text_stream_init(struct text_stream *ts)
{
	memset(ts, 0, sizeof *ts);
	ts->state = TEXT_GROUND;
}

void
text_stream_feed(struct text_stream *ts, const char *s, size_t len,
    char **out, size_t *outlen, size_t *outcap)
{
	text_stream_run(ts, (const unsigned char *)s, len, 0, out, outlen,
	    outcap);
}

void
text_stream_flush(struct text_stream *ts, char **out, size_t *outlen,
    size_t *outcap)
{
	text_stream_run(ts, NULL, 0, 1, out, outlen, outcap);
	text_stream_init(ts);
}

char *
text_sanitize(const char *s, size_t len)
{
	struct text_stream ts;
	char *out = NULL;
	size_t outlen = 0, outcap = 0;

	text_stream_init(&ts);
	text_stream_feed(&ts, s, len, &out, &outlen, &outcap);
	text_stream_flush(&ts, &out, &outlen, &outcap);
	if (outcap > 2 * (outlen + 1))
		out = xrealloc(out, outlen + 1);
	return out;
}

/*
 * Widths for a locale whose wcwidth knows nothing beyond its own small
 * character set: the common zero-width and wide ranges, nothing more.
 */
static const struct {
	unsigned int	first;
	unsigned int	last;
	int		width;
} text_widths[] = {
	{ 0x0300, 0x036f, 0 },		/* combining diacritical marks */
	{ 0x1100, 0x115f, 2 },		/* Hangul Jamo initials */
	{ 0x1ab0, 0x1aff, 0 },		/* combining marks, extended */
	{ 0x1dc0, 0x1dff, 0 },		/* combining marks, supplement */
	{ 0x200b, 0x200f, 0 },		/* zero-width space, joiners, marks */
	{ 0x20d0, 0x20ff, 0 },		/* combining marks for symbols */
	{ 0x2e80, 0x303e, 2 },		/* CJK radicals, punctuation */
	{ 0x3041, 0x33ff, 2 },		/* kana, bopomofo, CJK compatibility */
	{ 0x3400, 0x4dbf, 2 },		/* CJK extension A */
	{ 0x4e00, 0x9fff, 2 },		/* CJK unified ideographs */
	{ 0xa000, 0xa4cf, 2 },		/* Yi */
	{ 0xac00, 0xd7a3, 2 },		/* Hangul syllables */
	{ 0xf900, 0xfaff, 2 },		/* CJK compatibility ideographs */
	{ 0xfe00, 0xfe0f, 0 },		/* variation selectors */
	{ 0xfe20, 0xfe2f, 0 },		/* combining half marks */
	{ 0xfe30, 0xfe4f, 2 },		/* CJK compatibility forms */
	{ 0xff00, 0xff60, 2 },		/* fullwidth forms */
	{ 0xffe0, 0xffe6, 2 },		/* fullwidth signs */
	{ 0x1f300, 0x1faff, 2 },	/* emoji and pictographs */
	{ 0x20000, 0x3fffd, 2 },	/* CJK extensions B and beyond */
};

int
text_cp_width(unsigned int cp)
{
	size_t i;
	int w;

	if (cp >= 0x20 && cp < 0x7f)
		return 1;
	if (cp > 0x10ffff)
		return 1;
	if ((w = wcwidth((wchar_t)cp)) >= 0)
		return w;
	/* In a multibyte (UTF-8) locale, -1 means not printable. */
	if (MB_CUR_MAX > 1)
		return 1;
	for (i = 0; i < sizeof text_widths / sizeof text_widths[0]; i++) {
		if (cp >= text_widths[i].first && cp <= text_widths[i].last)
			return text_widths[i].width;
	}
	return 1;
}

size_t
text_width(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int cp;
	size_t width = 0, off, n;

	for (off = 0; off < len; off += n) {
		n = text_decode(p + off, len - off, 1, &cp);
		width += (size_t)text_cp_width(cp);
	}
	return width;
}

size_t
text_wrap(const char *s, size_t len, int cols, size_t *starts,
    size_t maxrows)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int cp;
	size_t rows = 1, off, n, max, row = 0, col = 0, brk = 0, brkcol = 0;
	int w;

	max = cols < 1 ? 1 : (size_t)cols;
	if (starts != NULL && maxrows > 0)
		starts[0] = 0;

	/*
	 * One greedy pass. row is where the current row starts and col its
	 * width so far; brk, if past row, is just after the row's last space
	 * and brkcol the width up to there.
	 */
	for (off = 0; off < len; off += n) {
		n = text_decode(p + off, len - off, 1, &cp);
		w = text_cp_width(cp);

		if (w > 0 && col > 0 && col + (size_t)w > max) {
			if (cp == ' ') {
				/* Break at this space and drop it. */
				if (off + n >= len)
					break;
				row = off + n;
				col = 0;
			} else if (brk > row && col - brkcol + (size_t)w <= max) {
				/* Move the word after the last space down. */
				row = brk;
				col -= brkcol;
			} else {
				/* No space, or the word is too long anyway. */
				row = off;
				col = 0;
			}
			if (starts != NULL && rows < maxrows)
				starts[rows] = row;
			rows++;
			brk = row;
			if (cp == ' ')
				continue;
		}

		col += (size_t)w;
		if (cp == ' ') {
			brk = off + n;
			brkcol = col;
		} else if (w == 0 && brk > row && brk == off)
			brk = off + n;	/* keep marks on their space */
	}
	return rows;
}

/* The ASCII that stands in for the screen's own marks. */
static const struct {
	unsigned int	cp;
	char		ascii;
} text_ascii_marks[] = {
	{ 0x00b7, '-' },	/* · */
	{ 0x2013, '-' },	/* – */
	{ 0x2014, '-' },	/* — */
	{ 0x2018, '\'' }, { 0x2019, '\'' }, { 0x201c, '"' }, { 0x201d, '"' },
	{ 0x2022, '*' },	/* • */
	{ 0x2026, '.' },	/* … */
	{ 0x2190, '<' }, { 0x2191, '^' }, { 0x2192, '>' }, { 0x2193, 'v' },
	{ 0x21b5, '|' },	/* ↵, a newline in the input line */
	{ 0x21bb, '~' },	/* ↻, a retry */
	{ 0x2500, '-' }, { 0x2502, '|' },
	{ 0x25b8, '>' },	/* ▸, a tool call */
	{ 0x2691, '!' },	/* ⚑, a protocol message */
	{ 0x2709, '@' },	/* ✉, a message */
	{ 0x2713, '+' },	/* ✓ */
	{ 0x2717, 'x' },	/* ✗, an error */
};

size_t
text_ascii(const char *s, size_t len, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int cp;
	size_t off, n, i, o = 0;
	int w;
	char c;

	for (off = 0; off < len; off += n) {
		n = text_decode(p + off, len - off, 1, &cp);
		if (cp < 0x80) {
			out[o++] = (char)cp;
			continue;
		}
		c = '?';
		if (cp >= 0x2800 && cp <= 0x28ff)
			c = '*';	/* braille: the spinner */
		for (i = 0; i < sizeof text_ascii_marks /
		    sizeof *text_ascii_marks; i++) {
			if (text_ascii_marks[i].cp == cp)
				c = text_ascii_marks[i].ascii;
		}
		/* As many columns as the code point takes, no more bytes
		 * than it had (a wide one has 3 or 4). */
		for (w = text_cp_width(cp); w > 0 && o < off + n; w--)
			out[o++] = c;
	}
	return o;
}

size_t
text_fit(const char *s, size_t len, int cols)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int cp;
	size_t off, n, col = 0;
	int w;

	if (cols < 1)
		return 0;
	for (off = 0; off < len; off += n) {
		n = text_decode(p + off, len - off, 1, &cp);
		w = text_cp_width(cp);
		if (col + (size_t)w > (size_t)cols)
			break;
		col += (size_t)w;
	}
	return off;
}

/* Whether cp may hang before a cut's "…" and is better left out: a
 * blank, or a separator that would then separate nothing. */
static int
text_cut_trailer(unsigned int cp)
{
	return cp == ' ' || cp == 0x00b7 || cp == ':' || cp == ',' ||
	    cp == ';' || cp == 0x2014 || cp == 0x2013 || cp == 0x2192;
}

/* The start of the character that ends at byte end of s (end > 0). */
static size_t
text_prev(const char *s, size_t end)
{
	size_t i = end - 1;

	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

size_t
text_cut_len(const char *s, size_t len, int cols, int *cut)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int cp;
	size_t n, keep, room, word = 0, at, off, k;

	*cut = 0;
	if (cols < 1)
		return 0;
	if (text_fit(s, len, cols) == len)
		return len;
	*cut = 1;
	room = (size_t)cols - 1;
	n = text_fit(s, len, (int)room);
	/* A blank right after the cut: it already ends a word there. */
	keep = n;
	if (n < len && s[n] != ' ') {
		/* The last blank before the cut, if it leaves two thirds. */
		for (off = 0; off < n; off += k) {
			k = text_decode(p + off, n - off, 1, &cp);
			if (cp == ' ' && off > 0)
				word = off;
		}
		if (word > 0 && 3 * text_width(s, word) >= 2 * room)
			keep = word;
	}
	/* No blank or separator before the "…". */
	while (keep > 0) {
		at = text_prev(s, keep);
		text_decode(p + at, keep - at, 1, &cp);
		if (!text_cut_trailer(cp))
			break;
		keep = at;
	}
	/* Nothing but separators: cut between characters after all. */
	if (keep == 0)
		keep = n;
	return keep;
}

char *
text_cut(const char *s, size_t len, int cols)
{
	size_t keep;
	int cut;

	keep = text_cut_len(s, len, cols, &cut);
	return xasprintf("%.*s%s", (int)keep, s, cut ? TEXT_ELLIPSIS : "");
}
