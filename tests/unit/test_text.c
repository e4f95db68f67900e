/*
 * Unit tests of ui/text: escape sequences and control characters stripped
 * from untrusted text, whole and streamed; display widths; word wrapping
 * and cutting to a number of columns.
 */
#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "ui/text.h"

#define REPL "\xef\xbf\xbd"	/* U+FFFD */

static void
setup_locale(void)
{
	ck_assert_ptr_nonnull(setlocale(LC_CTYPE, "C.UTF-8"));
}

/* Sanitises len bytes (strings may hold NULs) and compares. */
static void
check_clean_len(const char *in, size_t len, const char *want)
{
	char *out = text_sanitize(in, len);

	ck_assert_str_eq(out, want);
	free(out);
}

static void
check_clean(const char *in, const char *want)
{
	check_clean_len(in, strlen(in), want);
}

START_TEST(sanitize_plain_text)
{
	check_clean_len(NULL, 0, "");
	check_clean("", "");
	check_clean("plain ascii, 100% {ok} ~", "plain ascii, 100% {ok} ~");
	check_clean("h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80 \xe4\xb8\xad",
	    "h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80 \xe4\xb8\xad");
	/* U+015B has a 0x9b byte; it is a letter, not a CSI. */
	check_clean("\xc5\x9b!", "\xc5\x9b!");
}
END_TEST

START_TEST(sanitize_controls)
{
	check_clean("a\nb\n\n", "a\nb\n\n");
	check_clean("a\r\nb\rc", "a\nbc");
	check_clean("a\tb\t\tc", "a b  c");
	check_clean_len("a\0b\x07" "c\x7f" "d\x01\x08\x0b\x0c\x1f" "e", 13,
	    "abcde");
	/* C1 controls other than sequence introducers: NEL, as UTF-8. */
	check_clean("a\xc2\x85z", "az");
}
END_TEST

START_TEST(sanitize_bidi_controls)
{
	/* Text a terminal honouring RLO would show reversed: every
	 * embedding, override and isolate is shown as U+FFFD. */
	check_clean("if (\xe2\x80\xae" "admin\xe2\x81\xa6)",
	    "if (\xef\xbf\xbd" "admin\xef\xbf\xbd)");
	check_clean("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad"
	    "\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* The marks that right-to-left text needs stay. */
	check_clean("a\xe2\x80\x8f" "b", "a\xe2\x80\x8f" "b");
}
END_TEST

START_TEST(sanitize_grapheme_clusters)
{
	/* An emoji sequence keeps its first code point: family, skin
	 * tone, keycap, a heart with VS16, a tag sequence (Scotland). */
	check_clean("a\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9"
	    "\xe2\x80\x8d\xf0\x9f\x91\xa7" "b", "a\xf0\x9f\x91\xa8" "b");
	check_clean("\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd!",
	    "\xf0\x9f\x91\x8d!");
	check_clean("1\xef\xb8\x8f\xe2\x83\xa3 2", "1 2");
	check_clean("\xe2\x9d\xa4\xef\xb8\x8f x", "\xe2\x9d\xa4 x");
	check_clean("\xf0\x9f\x8f\xb4\xf3\xa0\x81\xa7\xf3\xa0\x81\xa2"
	    "\xf3\xa0\x81\xb3\xf3\xa0\x81\xa3\xf3\xa0\x81\xb4"
	    "\xf3\xa0\x81\xbf.", "\xf0\x9f\x8f\xb4.");
	/* Flags become their letters. */
	check_clean("\xf0\x9f\x87\xab\xf0\x9f\x87\xb7/\xf0\x9f\x87\xaf"
	    "\xf0\x9f\x87\xb5", "FR/JP");
	/* Accents stay on their letter; Hangul and Devanagari stay whole;
	 * a joiner between letters goes, the letters stay. */
	check_clean("e\xcc\x81\xcc\xa7", "e\xcc\x81\xcc\xa7");
	check_clean("\xe1\x84\x80\xe1\x85\xa1", "\xe1\x84\x80\xe1\x85\xa1");
	check_clean("\xe0\xa4\x95\xe0\xa5\x8d\xe0\xa4\xb7",
	    "\xe0\xa4\x95\xe0\xa5\x8d\xe0\xa4\xb7");
	check_clean("a\xe2\x80\x8d" "b", "ab");
	/* A dropped control or a tab joins what it separated, as the
	 * clean text will: cleaning it again changes nothing. */
	check_clean("-\x01\xef\xb8\x8fz", "-z");
	check_clean("a\t\xef\xb8\x8f", "a ");
	/* What is left is as wide as curses counts it. */
	ck_assert_uint_eq(text_width("\xf0\x9f\x91\xa8", 4), 2);
}
END_TEST

START_TEST(sanitize_csi)
{
	check_clean("\x1b[31mred\x1b[0m plain", "red plain");
	check_clean("\x1b[1;38;5;208mx\x1b[m", "x");
	check_clean("a\x1b[10;20Hb\x1b[Ac\x1b[2Jd\x1b[K", "abcd");
	check_clean("\x1b[?25l\x1b[?1049hscreen\x1b[>c", "screen");
	check_clean("\x1b[ q.", ".");		/* intermediate byte */
	/* A byte that cannot be in a CSI ends it and shows. */
	check_clean("\x1b[3\nx", "\nx");
	check_clean("\x1b[3\xc3\xa9x", "\xc3\xa9x");
	/* CAN and SUB abort a sequence; ESC starts a new one. */
	check_clean("\x1b[31\x18x", "x");
	check_clean("\x1b[31\x1ax", "x");
	check_clean("\x1b[31\x1b[32mx", "x");
}
END_TEST

START_TEST(sanitize_osc)
{
	check_clean("\x1b]0;my title\x07text", "text");
	check_clean("\x1b]2;my title\x1b\\text", "text");
	check_clean("\x1b]0;t\xc3\xa9tle \xc5\x9b\x07ok", "ok");
	check_clean("see \x1b]8;;https://example.com/\x1b\\the link"
	    "\x1b]8;;\x1b\\ here", "see the link here");
	check_clean("\x1b]52;c;aGVsbG8=\x07x", "x");
	/* ESC ends an OSC; so does a newline, which is kept: an
	 * unterminated string hides the rest of its line, no more. */
	check_clean("\x1b]0;a\nb\x07" "c", "\nbc");
	check_clean("\x1b]0;t\x1b[1mx", "x");
	check_clean("a\x1b]0;never ended\nmore", "a\nmore");
	check_clean("a\x1bPnever ended\nmore\x1b_x\n", "a\nmore\n");
	check_clean("a\x9dnever ended\nmore", "a\nmore");
}
END_TEST

START_TEST(sanitize_strings_and_short_escapes)
{
	check_clean("\x1bPq#0;2;0;0;0#0~~@@\x1b\\six", "six");
	check_clean("\x1bP1$r0m\x1b\\x", "x");
	check_clean("\x1bXsos\x1b\\a\x1b^pm\x1b\\b\x1b_Gf=100;AAAA\x1b\\c",
	    "abc");
	/* BEL ends an OSC only. */
	check_clean("\x1bPx\x07y\x1b\\z", "z");
	check_clean("\x1b(Ba\x1b)0b\x1b" "7c\x1b" "8d\x1b" "ce\x1b=f\x1b>g"
	    "\x1b#8h\x1bMi\x1b\\j", "abcdefghij");
	check_clean("\x1b\x1b[1mx", "x");
	/* An ESC before a control or non-ASCII is dropped alone. */
	check_clean("a\x1b\nb", "a\nb");
	check_clean("a\x1b\xc3\xa9", "a\xc3\xa9");
	/* A bare ESC at the end, alone, or a sequence cut short. */
	check_clean("abc\x1b", "abc");
	check_clean("\x1b", "");
	check_clean("abc\x1b[", "abc");
	check_clean("abc\x1b[12;", "abc");
}
END_TEST

START_TEST(sanitize_c1_sequences)
{
	/* 8-bit CSI, OSC, DCS and ST as raw bytes. */
	check_clean("\x9b" "31mx\x9b" "0m", "x");
	check_clean("\x9d" "0;title\x07x", "x");
	check_clean("\x9d" "0;title\x9cx", "x");
	check_clean("\x90q#0\x9cx", "x");
	/* The same as UTF-8 (U+009B, U+009D, U+0090, U+009C). */
	check_clean("\xc2\x9b" "31mx\xc2\x9b" "0m", "x");
	check_clean("\xc2\x9d" "0;t\xc2\x9cx", "x");
	check_clean("\xc2\x90q#0\xc2\x9cx", "x");
	check_clean("\x1b]0;t\xc2\x9cx", "x");
}
END_TEST

START_TEST(sanitize_invalid_utf8)
{
	check_clean("a\xffz", "a" REPL "z");
	check_clean("\xc3(", REPL "(");
	check_clean("\xc0\xaf", REPL REPL);		/* overlong '/' */
	check_clean("\xf5\xbf\xbf\xbf", REPL REPL REPL REPL);
	check_clean("\xe2\x82", REPL);			/* cut short */
	/* A surrogate: 0xed and 0xa0 are repaired, the 0x80 is a C1. */
	check_clean("\xed\xa0\x80", REPL REPL);
	/* A stray 0x80..0x9f is a C1 control, not U+FFFD. */
	check_clean("a\x80z\x85", "az");
}
END_TEST

/* A sample that mixes everything, for the streaming tests. */
static const char stream_sample[] =
    "plain \xc3\xa9t\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80\n"
    "\x1b[1;31mred\x1b[0m\r\n\ttab\x1b]0;ti\xc5\x9btle\x07 "
    "\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\ \x1bPq#0\x1b\\dcs "
    "\x9b" "2Jraw \xc2\x9b" "5mutf \xc2\x9d" "0;t\xc2\x9c "
    "bad\xff\xc3(\xe2\x82 \xed\xa0\x80 \xf0\x9f\x98 x\x1b(B\x1b" "7y"
    "\x18\x1b[3\x1a z\x07\x7f\xc2\x85 \xf4\x8f\xbf\xbf "
    /* A family (ZWJ), a flag, a thumb with a skin tone, an accent. */
    "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d"
    "\xf0\x9f\x91\xa7 \xf0\x9f\x87\xab\xf0\x9f\x87\xb7 "
    "\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd e\xcc\x81 end\x1b";

static char *
stream_pieces(const char *s, size_t len, const size_t *cuts, size_t ncuts)
{
	struct text_stream ts;
	char *out = NULL;
	size_t outlen = 0, outcap = 0, at = 0, i;

	text_stream_init(&ts);
	for (i = 0; i <= ncuts; i++) {
		size_t end = i < ncuts ? cuts[i] : len;

		text_stream_feed(&ts, s + at, end - at, &out, &outlen, &outcap);
		ck_assert_ptr_nonnull(out);
		ck_assert_uint_eq(strlen(out), outlen);
		at = end;
	}
	text_stream_flush(&ts, &out, &outlen, &outcap);
	ck_assert_uint_eq(strlen(out), outlen);
	return out;
}

START_TEST(stream_matches_whole_at_every_split)
{
	size_t len = sizeof stream_sample - 1, cuts[2], i, j;
	char *whole = text_sanitize(stream_sample, len), *got;

	/* Guard against a sample that sanitises to nothing. */
	ck_assert_uint_gt(strlen(whole), 40);
	ck_assert_ptr_nonnull(strstr(whole, "link dcs raw utf "));

	for (i = 0; i <= len; i++) {
		cuts[0] = i;
		got = stream_pieces(stream_sample, len, cuts, 1);
		ck_assert_str_eq(got, whole);
		free(got);
		for (j = i; j <= len; j++) {
			cuts[1] = j;
			got = stream_pieces(stream_sample, len, cuts, 2);
			ck_assert_str_eq(got, whole);
			free(got);
		}
	}
	free(whole);
}
END_TEST

START_TEST(stream_matches_whole_byte_by_byte)
{
	size_t len = sizeof stream_sample - 1, cuts[sizeof stream_sample], i;
	char *whole = text_sanitize(stream_sample, len), *got;

	for (i = 0; i < len; i++)
		cuts[i] = i + 1;
	got = stream_pieces(stream_sample, len, cuts, len);
	ck_assert_str_eq(got, whole);
	free(got);
	free(whole);
}
END_TEST

START_TEST(stream_appends_and_flushes)
{
	struct text_stream ts;
	char *out = NULL;
	size_t outlen = 0, outcap = 0;

	text_stream_init(&ts);
	/* Nothing clean yet: still a NUL-terminated buffer. */
	text_stream_feed(&ts, "\x1b[3", 3, &out, &outlen, &outcap);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(outlen, 0);
	text_stream_feed(&ts, "1mab\xe2\x82", 6, &out, &outlen, &outcap);
	ck_assert_str_eq(out, "ab");
	text_stream_feed(&ts, "\xac!", 2, &out, &outlen, &outcap);
	ck_assert_str_eq(out, "ab\xe2\x82\xac!");
	/* A cut UTF-8 sequence left at the end becomes U+FFFD. */
	text_stream_feed(&ts, "\xf0\x9f", 2, &out, &outlen, &outcap);
	ck_assert_str_eq(out, "ab\xe2\x82\xac!");
	text_stream_flush(&ts, &out, &outlen, &outcap);
	ck_assert_str_eq(out, "ab\xe2\x82\xac!" REPL);
	ck_assert_uint_eq(outlen, strlen(out));
	/* An unfinished sequence is dropped and the stream starts over. */
	text_stream_feed(&ts, "\x1b]0;title", 9, &out, &outlen, &outcap);
	text_stream_flush(&ts, &out, &outlen, &outcap);
	text_stream_feed(&ts, "x", 1, &out, &outlen, &outcap);
	ck_assert_str_eq(out, "ab\xe2\x82\xac!" REPL "x");
	free(out);
}
END_TEST

START_TEST(widths)
{
	ck_assert_int_eq(text_cp_width('a'), 1);
	ck_assert_int_eq(text_cp_width(' '), 1);
	ck_assert_int_eq(text_cp_width(0xe9), 1);	/* é */
	ck_assert_int_eq(text_cp_width(0x301), 0);	/* combining acute */
	ck_assert_int_eq(text_cp_width(0x200b), 0);	/* zero-width space */
	ck_assert_int_eq(text_cp_width(0x4e2d), 2);	/* 中 */
	ck_assert_int_eq(text_cp_width(0xac00), 2);	/* 가 */
	ck_assert_int_eq(text_cp_width(0xff21), 2);	/* fullwidth A */
	ck_assert_int_eq(text_cp_width(0x1f600), 2);	/* 😀 */
	ck_assert_int_eq(text_cp_width(0xfffd), 1);
	/* Not printable still takes a cell. */
	ck_assert_int_eq(text_cp_width(0x9b), 1);
	ck_assert_int_eq(text_cp_width(0x378), 1);	/* unassigned */
	/* Unassigned, in a range the built-in table calls wide: in a UTF-8
	 * locale wcwidth rules, and it says not printable. */
	ck_assert_int_eq(text_cp_width(0x3097), 1);
	ck_assert_int_eq(text_cp_width(0x110000), 1);

	ck_assert_uint_eq(text_width(NULL, 0), 0);
	ck_assert_uint_eq(text_width("hello", 5), 5);
	ck_assert_uint_eq(text_width("caf\xc3\xa9", 5), 4);
	ck_assert_uint_eq(text_width("cafe\xcc\x81", 6), 4);
	ck_assert_uint_eq(text_width("\xe4\xb8\xad\xe6\x96\x87", 6), 4);
	ck_assert_uint_eq(text_width("a\xf0\x9f\x98\x80" "b", 6), 4);
	ck_assert_uint_eq(text_width(REPL REPL, 6), 2);
}
END_TEST

START_TEST(widths_without_utf8_locale)
{
	/* In "C", wcwidth knows no wide or combining characters. */
	ck_assert_ptr_nonnull(setlocale(LC_CTYPE, "C"));
	ck_assert_int_eq(text_cp_width('a'), 1);
	ck_assert_int_eq(text_cp_width(0xe9), 1);
	ck_assert_int_eq(text_cp_width(0x301), 0);
	ck_assert_int_eq(text_cp_width(0x4e2d), 2);
	ck_assert_int_eq(text_cp_width(0xac00), 2);
	ck_assert_int_eq(text_cp_width(0x1f600), 2);
	ck_assert_int_eq(text_cp_width(0xfffd), 1);
	ck_assert_uint_eq(text_width("cafe\xcc\x81 \xe4\xb8\xad", 10), 7);
}
END_TEST

/* text_ascii of s, as a string. */
static char *
ascii_of(const char *s)
{
	char *out = malloc(strlen(s) + 1);
	size_t n = text_ascii(s, strlen(s), out);

	out[n] = '\0';
	return out;
}

START_TEST(ascii_keeps_widths)
{
	static const char *const samples[] = {
		"alice \xc2\xb7 coder \xc2\xb7 idle",
		"bob \xe2\x86\x92 lead \xe2\x9c\x89 hi \xe2\x80\xa6",
		"\xe2\x96\xb8 bash \xe2\x9c\x97 \xe2\x9a\x91 \xe2\xa0\x8b",
		"caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 e\xcc\x81 "
		    "\xf0\x9f\x98\x80 \xef\xbf\xbd",
	};
	static const char *const want[] = {
		"alice - coder - idle",
		"bob > lead @ hi .",
		"> bash x ! *",
		"caf? ???? e ?? ?",
	};
	const char *locales[] = { "C.UTF-8", "C" };
	size_t i, l;
	char *got;

	/* The same ASCII, as wide as the text it stands for, whichever
	 * locale measures it. */
	for (l = 0; l < 2; l++) {
		ck_assert_ptr_nonnull(setlocale(LC_CTYPE, locales[l]));
		for (i = 0; i < sizeof samples / sizeof *samples; i++) {
			got = ascii_of(samples[i]);
			ck_assert_str_eq(got, want[i]);
			ck_assert_uint_eq(strlen(got), text_width(samples[i],
			    strlen(samples[i])));
			free(got);
		}
	}
}
END_TEST

/*
 * Wraps s to cols and returns its rows, each cut with text_fit as the
 * screen draws them, joined with '|'; checks the row count on the way.
 */
static char *
wrapped(const char *s, int cols)
{
	size_t len = strlen(s), starts[64], n, i, end, fit;
	char *out, *o;

	n = text_wrap(s, len, cols, starts, 64);
	ck_assert_uint_ge(n, 1);
	ck_assert_uint_le(n, 64);
	ck_assert_uint_eq(text_wrap(s, len, cols, NULL, 0), n);
	ck_assert_uint_eq(starts[0], 0);
	o = out = malloc(len + n + 1);
	ck_assert_ptr_nonnull(out);
	for (i = 0; i < n; i++) {
		end = i + 1 < n ? starts[i + 1] : len;
		ck_assert_uint_lt(starts[i], end + (i + 1 == n));
		fit = text_fit(s + starts[i], end - starts[i], cols < 1 ? 1 :
		    cols);
		if (i > 0)
			*o++ = '|';
		memcpy(o, s + starts[i], fit);
		o += fit;
	}
	*o = '\0';
	return out;
}

static void
check_wrap(const char *s, int cols, const char *want)
{
	char *got = wrapped(s, cols);

	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(wrap_edges)
{
	size_t starts[4] = { 99, 99, 99, 99 };

	ck_assert_uint_eq(text_wrap("", 0, 10, starts, 4), 1);
	ck_assert_uint_eq(starts[0], 0);
	ck_assert_uint_eq(starts[1], 99);
	ck_assert_uint_eq(text_wrap(NULL, 0, 10, NULL, 0), 1);
	check_wrap("", 10, "");
	check_wrap("hello", 5, "hello");
	check_wrap("hello", 80, "hello");
	check_wrap("hello ", 5, "hello");
	check_wrap("hello!", 5, "hello|!");
	/* More rows than room: all counted, only maxrows stored. */
	ck_assert_uint_eq(text_wrap("abcdefghij", 10, 2, starts, 2), 5);
	ck_assert_uint_eq(starts[0], 0);
	ck_assert_uint_eq(starts[1], 2);
	ck_assert_uint_eq(starts[2], 99);
}
END_TEST

START_TEST(wrap_words)
{
	size_t starts[4];

	ck_assert_uint_eq(text_wrap("hello world", 11, 5, starts, 4), 2);
	ck_assert_uint_eq(starts[1], 6);
	check_wrap("hello world", 5, "hello|world");
	check_wrap("hello world", 8, "hello |world");
	check_wrap("the quick brown fox", 10, "the quick |brown fox");
	check_wrap("the quick brown fox", 9, "the quick|brown fox");
	check_wrap("a b c d e", 3, "a b|c d|e");
	/* The space broken at goes; others stay. */
	check_wrap("hello   world", 6, "hello | world");
	check_wrap("hello   world", 7, "hello  |world");
	/* Long words break between characters. */
	check_wrap("abcdefghij", 4, "abcd|efgh|ij");
	check_wrap("a verylongword", 5, "a |veryl|ongwo|rd");
	check_wrap("go supercalifragilistic", 8, "go |supercal|ifragili|stic");
	/* Breaking at the space would not make the word fit. */
	check_wrap(" abc\xe4\xb8\xad", 4, " abc|\xe4\xb8\xad");
	/* A combining accent stays with its letter, or its space. */
	check_wrap("abcde\xcc\x81", 5, "abcde\xcc\x81");
	check_wrap("ab \xcc\x81" "cd", 4, "ab \xcc\x81|cd");
	check_wrap("abcdef\xcc\x81 g", 5, "abcde|f\xcc\x81 g");
}
END_TEST

START_TEST(wrap_wide_and_narrow)
{
	size_t starts[4];

	/* A wide character never straddles the edge. */
	ck_assert_uint_eq(text_wrap("abcd\xe4\xb8\xad", 7, 5, starts, 4), 2);
	ck_assert_uint_eq(starts[1], 4);
	check_wrap("abcd\xe4\xb8\xad\xe6\x96\x87", 5,
	    "abcd|\xe4\xb8\xad\xe6\x96\x87");
	check_wrap("\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad", 5,
	    "\xe4\xb8\xad\xe6\x96\x87|\xe4\xb8\xad");
	check_wrap("\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad", 4,
	    "\xe4\xb8\xad\xe6\x96\x87|\xe4\xb8\xad");
	check_wrap("ok \xf0\x9f\x98\x80\xf0\x9f\x98\x80", 4,
	    "ok |\xf0\x9f\x98\x80\xf0\x9f\x98\x80");
	/* One column, and less. */
	check_wrap("abc", 1, "a|b|c");
	check_wrap("a b", 1, "a|b");
	check_wrap("abc", 0, "a|b|c");
	check_wrap("abc", -5, "a|b|c");
	/* Too wide for any row: a row of its own (text_fit then shows none). */
	ck_assert_uint_eq(text_wrap("\xe4\xb8\xad", 3, 1, starts, 4), 1);
	ck_assert_uint_eq(text_wrap("a\xe4\xb8\xad" "b", 5, 1, starts, 4), 3);
	ck_assert_uint_eq(starts[1], 1);
	ck_assert_uint_eq(starts[2], 4);
}
END_TEST

static double
elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* Wraps a 100 KB line of pattern, timing it; returns the row count. */
static size_t
wrap_big(const char *pattern, int cols, size_t *starts, size_t maxrows)
{
	size_t plen = strlen(pattern), len = 100 * 1024, i, rows;
	char *s = malloc(len);
	struct timespec t0, t1;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i + plen <= len; i += plen)
		memcpy(s + i, pattern, plen);
	len = i;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rows = text_wrap(s, len, cols, starts, maxrows);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* About 0.3 ms optimised and 15 ms under TSan on a busy machine;
	 * a quadratic wrap would take seconds. */
	ck_assert_msg(elapsed_ms(&t0, &t1) < 250.0,
	    "wrapping 100 KB took %.2f ms", elapsed_ms(&t0, &t1));
	free(s);
	return rows;
}

START_TEST(wrap_100k_is_fast)
{
	size_t *starts = calloc(20000, sizeof *starts), i;

	ck_assert_ptr_nonnull(starts);
	/* 8-byte words ("lorem 1 ") at 80 columns: 10 per row. */
	ck_assert_uint_eq(wrap_big("lorem 1 ", 80, starts, 20000),
	    100 * 1024 / 80);
	for (i = 1; i < 100 * 1024 / 80; i++)
		ck_assert_uint_eq(starts[i] - starts[i - 1], 80);
	/* One long word of CJK: 40 characters (120 bytes) a row. */
	ck_assert_uint_eq(wrap_big("\xe4\xb8\xad", 80, starts, 20000),
	    (100 * 1024 / 3 + 39) / 40);
	ck_assert_uint_eq(starts[1], 120);
	free(starts);
}
END_TEST

START_TEST(fit)
{
	const char *cjk = "\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad";

	ck_assert_uint_eq(text_fit(NULL, 0, 5), 0);
	ck_assert_uint_eq(text_fit("abc", 3, 10), 3);
	ck_assert_uint_eq(text_fit("abc", 3, 3), 3);
	ck_assert_uint_eq(text_fit("abc", 3, 2), 2);
	ck_assert_uint_eq(text_fit("abc", 3, 0), 0);
	ck_assert_uint_eq(text_fit("abc", 3, -1), 0);
	ck_assert_uint_eq(text_fit(cjk, 9, 6), 9);
	ck_assert_uint_eq(text_fit(cjk, 9, 5), 6);
	ck_assert_uint_eq(text_fit(cjk, 9, 4), 6);
	ck_assert_uint_eq(text_fit(cjk, 9, 3), 3);
	ck_assert_uint_eq(text_fit(cjk, 9, 1), 0);
	ck_assert_uint_eq(text_fit("a\xf0\x9f\x98\x80", 5, 2), 1);
	ck_assert_uint_eq(text_fit("a\xf0\x9f\x98\x80", 5, 3), 5);
	/* Combining accents stay with the letter before them. */
	ck_assert_uint_eq(text_fit("e\xcc\x81x", 4, 1), 3);
	ck_assert_uint_eq(text_fit("caf\xc3\xa9!", 6, 4), 5);
}
END_TEST

/* Cuts s to cols and compares. */
static void
check_cut(const char *s, int cols, const char *want)
{
	char *out = text_cut(s, strlen(s), cols);

	ck_assert_str_eq(out, want);
	ck_assert_int_le((int)text_width(out, strlen(out)), cols < 0 ? 0 :
	    cols);
	free(out);
}

START_TEST(cut_marks)
{
	int cut, cols;
	size_t keep;
	char *out;
	static const char *const samples[] = {
		"t1 Write unit tests for the parser",
		"\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97 wide \xe5\xad\x97",
		"cafe\xcc\x81 cafe\xcc\x81 cafe\xcc\x81",
		"alice \xc2\xb7 coder \xc2\xb7 working \xc2\xb7 12k tok",
		"averyveryverylongwordwithoutanyblank",
	};
	size_t i;

	/* What fits is kept whole, with no "…". */
	check_cut("abc", 3, "abc");
	check_cut("abc", 10, "abc");
	check_cut("", 5, "");
	keep = text_cut_len("abc", 3, 3, &cut);
	ck_assert_uint_eq(keep, 3);
	ck_assert_int_eq(cut, 0);
	/* Nothing fits in no room; the "…" alone in one column. */
	check_cut("abc", 0, "");
	check_cut("abc", -2, "");
	check_cut("abc", 1, "\xe2\x80\xa6");
	/* A cut says so, at a word's end when that leaves enough. */
	check_cut("F9 shuts a teammate down", 15, "F9 shuts a\xe2\x80\xa6");
	check_cut("t1 Write unit tests for the parser", 22,
	    "t1 Write unit tests\xe2\x80\xa6");
	/* A word that would leave too little is cut between characters. */
	check_cut("ab averyverylongword", 12, "ab averyver\xe2\x80\xa6");
	check_cut("averyveryverylongword", 8, "averyve\xe2\x80\xa6");
	/* A blank right at the cut ends a word there. */
	check_cut("hello world", 6, "hello\xe2\x80\xa6");
	/* No separator hangs before the "…". */
	check_cut("alice \xc2\xb7 coder \xc2\xb7 working", 16,
	    "alice \xc2\xb7 coder\xe2\x80\xa6");
	check_cut("why: something long", 6, "why\xe2\x80\xa6");
	/* A wide character is never split: the row may end short. */
	check_cut("\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 4,
	    "\xe4\xb8\xad\xe2\x80\xa6");
	check_cut("\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 5,
	    "\xe4\xb8\xad\xe6\x96\x87\xe2\x80\xa6");
	/* A letter keeps its accent. */
	check_cut("cafe\xcc\x81s and more", 6, "cafe\xcc\x81s\xe2\x80\xa6");
	check_cut("cafe\xcc\x81 and more", 5, "cafe\xcc\x81\xe2\x80\xa6");
	/* At every width: never wider than the room, the "…" exactly when
	 * cut, and what is kept is the text's start. */
	for (i = 0; i < sizeof samples / sizeof *samples; i++)
		for (cols = 1; cols < 40; cols++) {
			size_t len = strlen(samples[i]);

			keep = text_cut_len(samples[i], len, cols, &cut);
			out = text_cut(samples[i], len, cols);
			ck_assert_int_le((int)text_width(out, strlen(out)),
			    cols);
			ck_assert_int_eq(cut, (int)text_width(samples[i],
			    len) > cols);
			ck_assert_int_eq(memcmp(out, samples[i], keep), 0);
			ck_assert_int_eq(cut, strstr(out, TEXT_ELLIPSIS) !=
			    NULL);
			free(out);
		}
}
END_TEST

static Suite *
text_suite(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("text");

	tcase_add_checked_fixture(tc, setup_locale, NULL);
	tcase_add_test(tc, sanitize_plain_text);
	tcase_add_test(tc, sanitize_controls);
	tcase_add_test(tc, sanitize_bidi_controls);
	tcase_add_test(tc, sanitize_grapheme_clusters);
	tcase_add_test(tc, sanitize_csi);
	tcase_add_test(tc, sanitize_osc);
	tcase_add_test(tc, sanitize_strings_and_short_escapes);
	tcase_add_test(tc, sanitize_c1_sequences);
	tcase_add_test(tc, sanitize_invalid_utf8);
	tcase_add_test(tc, stream_matches_whole_at_every_split);
	tcase_add_test(tc, stream_matches_whole_byte_by_byte);
	tcase_add_test(tc, stream_appends_and_flushes);
	tcase_add_test(tc, widths);
	tcase_add_test(tc, widths_without_utf8_locale);
	tcase_add_test(tc, ascii_keeps_widths);
	tcase_add_test(tc, wrap_edges);
	tcase_add_test(tc, wrap_words);
	tcase_add_test(tc, wrap_wide_and_narrow);
	tcase_add_test(tc, wrap_100k_is_fast);
	tcase_add_test(tc, fit);
	tcase_add_test(tc, cut_marks);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(text_suite());
}
