/*
 * Text for the screen. Model output, tool output and messages are
 * untrusted: before they reach the terminal they lose every escape
 * sequence and control character and their invalid UTF-8 is repaired.
 * Clean text is then measured in display columns, word-wrapped into rows
 * and cut to fit cells. Pure text logic: nothing here draws, so this file
 * does not include curses.
 */
#ifndef HUDDLE_UI_TEXT_H
#define HUDDLE_UI_TEXT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Sanitiser state for text that arrives in pieces (streamed model output).
 * Treat the fields as private; set them up with text_stream_init.
 */
struct text_stream {
	int		state;		/* where the escape parser is */
	unsigned char	part[4];	/* a UTF-8 sequence cut by a piece's end */
	size_t		partlen;
	unsigned int	prev;		/* the last code point kept, 0: none */
	int32_t		cluster;	/* utf8proc's grapheme-break state */
	int		trimming;	/* the rest of this cluster is dropped */
};

/*
 * Returns a malloc'd, NUL-terminated clean copy of the len bytes at s
 * (which may hold NULs; s may be NULL when len is 0). Removed: CSI
 * (ESC [ ... final byte), OSC (ESC ] ... BEL or ST), DCS, SOS, PM and APC
 * strings (ESC P, X, ^, _ ... ST), other ESC sequences, and the same
 * introduced by C1 controls, whether as UTF-8 (U+0080..U+009F) or as raw
 * bytes 0x80..0x9f; CAN and SUB abort a sequence. A newline ends a
 * string too (unlike on a terminal), so an unterminated one hides the
 * rest of its line only. '\n' is kept,
 * '\t' becomes one space, '\r' and every other control character (C0,
 * DEL, C1) is dropped, a bidirectional embedding, override or isolate
 * (U+202A..U+202E, U+2066..U+2069) becomes U+FFFD, and any other invalid
 * UTF-8 byte becomes U+FFFD.
 *
 * Grapheme clusters (found with utf8proc) that terminals draw at widths
 * of their own are made plain, so that what curses counts (wcwidth per
 * code point) is what every terminal draws: an emoji sequence keeps its
 * first code point and loses its joiners, variation selectors, skin
 * tones, keycap mark and tags and whatever they joined (a family emoji
 * becomes its first person); a regional indicator becomes its letter (a
 * flag becomes "FR"). Combining accents stay on their letter. The result
 * is never more than 3 * len + 1 bytes.
 */
char *text_sanitize(const char *s, size_t len);

/* Starts (or restarts) a stream in its initial state. */
void text_stream_init(struct text_stream *ts);

/*
 * Sanitises the next piece of a stream exactly as text_sanitize would the
 * whole: an escape or UTF-8 sequence split between pieces is handled as
 * if whole. The clean text is appended to *out, a malloc'd buffer of *outcap
 * bytes holding *outlen (*out may start NULL with both sizes 0); the buffer
 * grows as needed and is always left NUL-terminated.
 */
void text_stream_feed(struct text_stream *ts, const char *s, size_t len,
    char **out, size_t *outlen, size_t *outcap);

/*
 * Ends the stream, appending to *out as text_stream_feed does: an
 * unfinished escape sequence is dropped and an unfinished UTF-8 sequence
 * becomes U+FFFD. The stream is then ready for reuse.
 */
void text_stream_flush(struct text_stream *ts, char **out, size_t *outlen,
    size_t *outcap);

/*
 * Returns the display columns of code point cp, from wcwidth(3) in the
 * current LC_CTYPE: 0 for combining marks and zero-width characters, 2 for
 * East Asian wide characters and most emoji, else 1. Code points wcwidth
 * calls non-printable count 1 (U+FFFD and unknowns still take a cell; the
 * draw code should show such a code point as U+FFFD). In a locale that is
 * not multibyte (LC_CTYPE "C", Latin-1) wcwidth knows no wide or combining
 * characters, so a small built-in table stands in for it: combining
 * diacritics and zero-width characters 0; Hangul, CJK, fullwidth forms and
 * emoji U+1F300..U+1FAFF 2; the rest 1.
 */
int text_cp_width(unsigned int cp);

/* Returns the display width of the len bytes at s (clean, valid UTF-8). */
size_t text_width(const char *s, size_t len);

/*
 * Word-wraps one logical line (clean text without '\n') into rows of at
 * most cols columns (cols < 1 counts as 1). A row breaks after a space when
 * it can; a word too long for a row is broken between characters; a wide
 * character never straddles the edge, so a row may end a column short; a
 * character wider than cols gets a row of its own. When a row breaks at a
 * space, that one space is dropped: the next row starts after it (further
 * spaces are kept), and a trailing space alone makes no new row.
 *
 * Stores the byte offset at which each row starts in starts[] (starts[0]
 * is 0), at most maxrows of them; starts may be NULL to only count. Returns
 * the number of rows, at least 1 (an empty line is one empty row), which
 * may exceed maxrows. Row i is the bytes from starts[i] to starts[i + 1]
 * (or len); it may end in the space it broke at, which can lie beyond the
 * edge, so draw text_fit(row, rowlen, cols) bytes of it.
 */
size_t text_wrap(const char *s, size_t len, int cols, size_t *starts,
    size_t maxrows);

/*
 * Returns how many of the len bytes at s fit in cols columns (0 when
 * cols < 1), cutting on a character boundary and keeping any zero-width
 * characters that follow the last one kept (a base letter keeps its
 * combining accents). For titles, cells and rows of text_wrap.
 */
size_t text_fit(const char *s, size_t len, int cols);

/* What a cut ends in. */
#define TEXT_ELLIPSIS "\xe2\x80\xa6"	/* U+2026, one column */

/*
 * Where to cut the len bytes at s (clean UTF-8, one line) to show them in
 * cols columns saying so. Returns how many bytes to keep and sets *cut:
 * 0 when the whole fits (all len bytes are kept), 1 when the kept bytes
 * must be followed by TEXT_ELLIPSIS (together at most cols columns). The
 * cut falls on a character boundary (a wide character is never split, a
 * letter keeps its accents), at a word's end when one lies in the last
 * third of the room, and without the blanks and separators ("·", ":",
 * ",", "—", "→") that would hang before the "…". cols < 1 keeps nothing; cols 1
 * keeps no byte of a text that does not fit (the "…" alone).
 */
size_t text_cut_len(const char *s, size_t len, int cols, int *cut);

/*
 * The len bytes at s cut to cols columns as text_cut_len says, ending
 * in "…" when cut (malloc'd). For every title, hint, cell and line the
 * screen cuts: a cut always says so.
 */
char *text_cut(const char *s, size_t len, int cols);

/*
 * Writes the len bytes at s (clean UTF-8) to out as ASCII of the same
 * display width, for a terminal whose locale is not UTF-8: the marks the
 * screen uses become their nearest ASCII ("→" ">", "✉" "@", "·" "-",
 * "…" "."), anything else one '?' per column. out must hold len bytes
 * (a code point is never narrower than its ASCII); returns the length
 * written.
 */
size_t text_ascii(const char *s, size_t len, char *out);

#endif
