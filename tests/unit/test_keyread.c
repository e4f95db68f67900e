/*
 * Unit tests of ui/keyread: sequences recorded from xterm, screen and
 * tmux, rxvt, the vt100 and the Linux console, fed as curses hands them
 * over when the terminfo entry does not know them (ESC and loose
 * characters); Alt as an ESC prefix; unknown sequences swallowed whole;
 * bracketed paste; a lone Esc.
 */
#include "config.h"

#include <string.h>

#include "ui/keyread.h"
#include "testutil.h"

/* Feeds the bytes of s as characters, then ends the batch; writes the
 * keys to got as "K<code>" or "C<char>" words and returns their count. */
static size_t
feed(struct keyread *kr, const char *s, char *got, size_t cap)
{
	struct keyread_key k[KEYREAD_MAX];
	size_t n, i, total = 0, len = 0;

	got[0] = '\0';
	for (;; s++) {
		n = *s != '\0' ? keyread_feed(kr, 0, (unsigned char)*s, k) :
		    keyread_flush(kr, k);
		for (i = 0; i < n; i++, total++)
			len += (size_t)snprintf(got + len, cap - len, "%s%c%d",
			    len ? " " : "", k[i].is_key ? 'K' : 'C',
			    (int)k[i].code);
		if (*s == '\0')
			break;
	}
	return total;
}

/* Asserts that s decodes to exactly the one key code. */
static void
one_key(const char *s, int code)
{
	struct keyread kr;
	char got[256], want[32];

	keyread_init(&kr);
	ck_assert_uint_eq(feed(&kr, s, got, sizeof got), 1);
	snprintf(want, sizeof want, "K%d", code);
	ck_assert_msg(strcmp(got, want) == 0, "%s: got %s, want %s", s + 1,
	    got, want);
}

/* Asserts that s decodes to nothing at all. */
static void
nothing(const char *s)
{
	struct keyread kr;
	char got[256];

	keyread_init(&kr);
	ck_assert_msg(feed(&kr, s, got, sizeof got) == 0, "%s gave %s",
	    s + 1, got);
}

START_TEST(modified_arrows)
{
	/* xterm, and screen/tmux with xterm-keys: 1;5 Ctrl, 1;3 Alt. */
	one_key("\033[1;5D", KEYREAD_WORD_LEFT);
	one_key("\033[1;5C", KEYREAD_WORD_RIGHT);
	one_key("\033[1;3D", KEYREAD_WORD_LEFT);
	one_key("\033[1;7C", KEYREAD_WORD_RIGHT);
	one_key("\033[1;2D", KEY_LEFT);		/* Shift: a plain move */
	one_key("\033[1;5A", KEY_UP);
	one_key("\033[1;5H", KEY_HOME);
	one_key("\033[1;2F", KEY_END);
	/* Plain arrows, in normal and application mode. */
	one_key("\033[A", KEY_UP);
	one_key("\033OB", KEY_DOWN);
	one_key("\033OH", KEY_HOME);
	/* rxvt's Ctrl-arrows are ESC O d / ESC O c: not known, dropped. */
	nothing("\033Od");
}
END_TEST

START_TEST(function_and_editing_keys)
{
	/* vt100 and xterm F1-F4, vt220 F5-F12, the Linux console. */
	one_key("\033OP", KEY_F(1));
	one_key("\033OS", KEY_F(4));
	one_key("\033[1;2P", KEY_F(1));
	one_key("\033[11~", KEY_F(1));
	one_key("\033[15~", KEY_F(5));
	one_key("\033[17~", KEY_F(6));
	one_key("\033[20~", KEY_F(9));
	one_key("\033[21~", KEY_F(10));
	one_key("\033[24~", KEY_F(12));
	one_key("\033[15;5~", KEY_F(5));
	one_key("\033[[A", KEY_F(1));
	one_key("\033[[E", KEY_F(5));
	/* Editing keys of vt220, rxvt and the console. */
	one_key("\033[1~", KEY_HOME);
	one_key("\033[7~", KEY_HOME);
	one_key("\033[4~", KEY_END);
	one_key("\033[8~", KEY_END);
	one_key("\033[3~", KEY_DC);
	one_key("\033[3;5~", KEY_DC);
	one_key("\033[5~", KEY_PPAGE);
	one_key("\033[6~", KEY_NPAGE);
	one_key("\033[Z", KEY_BTAB);
}
END_TEST

START_TEST(unknown_sequences_are_swallowed)
{
	struct keyread kr;
	char got[256];

	nothing("\033[99~");
	nothing("\033[16~");			/* vt220's gap */
	nothing("\033[?1;2c");			/* a device-attributes answer */
	nothing("\033[>0;276;0c");
	nothing("\033[<0;12;5M");		/* an SGR mouse report */
	nothing("\033[1;5X");
	nothing("\033Ox");
	/* Typing goes on after one, untouched. */
	keyread_init(&kr);
	ck_assert_uint_eq(feed(&kr, "abc\033[1;5Qdef", got, sizeof got), 7);
	ck_assert_str_eq(got, "C97 C98 C99 K266 C100 C101 C102");
	/* A sequence broken by a control character is dropped with it. */
	keyread_init(&kr);
	ck_assert_uint_eq(feed(&kr, "\033[1;\001x", got, sizeof got), 1);
	ck_assert_str_eq(got, "C120");
}
END_TEST

START_TEST(alt_and_esc)
{
	struct keyread kr;
	struct keyread_key k[KEYREAD_MAX];
	char got[256];

	one_key("\033b", KEYREAD_WORD_LEFT);
	one_key("\033f", KEYREAD_WORD_RIGHT);
	one_key("\033\r", KEYREAD_NEWLINE);	/* Alt-Enter */
	one_key("\n", KEYREAD_NEWLINE);		/* Ctrl-J */
	nothing("\033x");			/* Alt-x: no letter typed */
	/* A lone Esc is the Esc key, at the end of the batch. */
	keyread_init(&kr);
	ck_assert_uint_eq(feed(&kr, "\033", got, sizeof got), 1);
	ck_assert_str_eq(got, "C27");
	/* Two: the first at once, the second at the end. */
	keyread_init(&kr);
	ck_assert_uint_eq(feed(&kr, "\033\033", got, sizeof got), 2);
	ck_assert_str_eq(got, "C27 C27");
	/* Esc, then Ctrl-U: both. */
	keyread_init(&kr);
	ck_assert_uint_eq(feed(&kr, "\033\025", got, sizeof got), 2);
	ck_assert_str_eq(got, "C27 C21");
	/* ESC before a key curses decoded: that key with Alt. */
	keyread_init(&kr);
	ck_assert_uint_eq(keyread_feed(&kr, 0, 0x1b, k), 0);
	ck_assert_uint_eq(keyread_feed(&kr, 1, KEY_LEFT, k), 1);
	ck_assert_int_eq(k[0].code, KEYREAD_WORD_LEFT);
	ck_assert_uint_eq(keyread_feed(&kr, 1, KEY_F(5), k), 1);
	ck_assert_int_eq(k[0].code, KEY_F(5));
}
END_TEST

START_TEST(bracketed_paste)
{
	struct keyread kr;
	char got[256];

	/* Two lines pasted, between its bounds (K515, K516): their line
	 * end is a newline, not Enter. */
	keyread_init(&kr);
	ck_assert_uint_eq(feed(&kr, "\033[200~ab\r\ncd\033[201~\r", got,
	    sizeof got), 8);
	ck_assert_str_eq(got, "K515 C97 C98 K514 C99 C100 K516 C13");
	/* A bare CR or LF each once; a tab a space; other control
	 * characters and escape sequences inside are nothing. */
	keyread_init(&kr);
	ck_assert_uint_eq(feed(&kr, "\033[200~a\rb\nc\td\001\033[31me"
	    "\033[201~", got, sizeof got), 10);
	ck_assert_str_eq(got, "K515 C97 K514 C98 K514 C99 C32 C100 C101 "
	    "K516");
	ck_assert_int_eq(kr.pasting, 0);
	/* A key curses decoded inside a paste that would move the cursor
	 * is dropped; after the paste it is a key again. */
	{
		struct keyread_key k[KEYREAD_MAX];

		keyread_init(&kr);
		feed(&kr, "\033[200~a", got, sizeof got);
		ck_assert_uint_eq(keyread_feed(&kr, 1, KEY_LEFT, k), 0);
		ck_assert_uint_eq(keyread_feed(&kr, 1, KEY_F(10), k), 1);
		feed(&kr, "\033[201~", got, sizeof got);
		ck_assert_uint_eq(keyread_feed(&kr, 1, KEY_LEFT, k), 1);
	}
}
END_TEST

static Suite *
keyread_suite(void)
{
	Suite *s = suite_create("keyread");
	TCase *tc = tcase_create("keyread");

	tcase_add_test(tc, modified_arrows);
	tcase_add_test(tc, function_and_editing_keys);
	tcase_add_test(tc, unknown_sequences_are_swallowed);
	tcase_add_test(tc, alt_and_esc);
	tcase_add_test(tc, bracketed_paste);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(keyread_suite());
}
