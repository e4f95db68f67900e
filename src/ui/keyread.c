/*
 * The key reader (see keyread.h).
 *
 * After ESC come, in the forms terminals use: CSI (ESC [) parameters,
 * intermediates and a final byte, as in ESC [1;5D (xterm's Ctrl-Left:
 * the 5 is 1 + Ctrl 4) or ESC [15~ (F5); SS3 (ESC O) and one byte, as
 * in ESC OP (F1); the Linux console's ESC [[A (F1) to ESC [[E (F5); and
 * any other character, which is that character with Alt held. A sequence
 * this table does not know is dropped whole.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ui/keyread.h"

enum keyread_state {
	KEYREAD_GROUND,
	KEYREAD_ESC,		/* after ESC */
	KEYREAD_CSI,		/* after ESC [ */
	KEYREAD_CSI_BRACKET,	/* after ESC [ [ (Linux console F-keys) */
	KEYREAD_SS3		/* after ESC O */
};

/* Modifier bits of xterm's parameter (which is 1 + these). */
#define KEYREAD_MOD_SHIFT	1
#define KEYREAD_MOD_ALT		2
#define KEYREAD_MOD_CTRL	4

void
keyread_init(struct keyread *kr)
{
	memset(kr, 0, sizeof *kr);
}

static size_t
keyread_put(struct keyread_key *out, size_t n, int is_key, wint_t code)
{
	if (n < KEYREAD_MAX) {
		out[n].is_key = is_key;
		out[n].code = code;
		n++;
	}
	return n;
}

/* An arrow, with Ctrl or Alt on Left and Right moving by words, and
 * Shift alone on Up and Down (curses' KEY_SR and KEY_SF). */
static int
keyread_arrow(int final, int mods)
{
	int word = (mods & (KEYREAD_MOD_ALT | KEYREAD_MOD_CTRL)) != 0;

	switch (final) {
	case 'A':
		return mods == KEYREAD_MOD_SHIFT ? KEY_SR : KEY_UP;
	case 'B':
		return mods == KEYREAD_MOD_SHIFT ? KEY_SF : KEY_DOWN;
	case 'C':
		return word ? KEYREAD_WORD_RIGHT : KEY_RIGHT;
	case 'D':
		return word ? KEYREAD_WORD_LEFT : KEY_LEFT;
	case 'H':
		return KEY_HOME;
	case 'F':
		return KEY_END;
	}
	return 0;
}

/* ESC [ n ~ : the editing keys and the F-keys of vt220 and xterm. */
static int
keyread_tilde(int n)
{
	static const int fkeys[] = {
		/* 11..24, with the gaps vt220 left at 16 and 22 */
		KEY_F(1), KEY_F(2), KEY_F(3), KEY_F(4), KEY_F(5), 0,
		KEY_F(6), KEY_F(7), KEY_F(8), KEY_F(9), KEY_F(10), 0,
		KEY_F(11), KEY_F(12)
	};

	switch (n) {
	case 1:
	case 7:
		return KEY_HOME;
	case 4:
	case 8:
		return KEY_END;
	case 3:
		return KEY_DC;
	case 5:
		return KEY_PPAGE;
	case 6:
		return KEY_NPAGE;
	}
	if (n >= 11 && n <= 24)
		return fkeys[n - 11];
	return 0;
}

/* The key of a whole CSI sequence, or 0 to drop it. Paste brackets
 * change the state too. */
static int
keyread_csi(struct keyread *kr, int final)
{
	long n = 1, m = 1;
	char *p = kr->seq, *end;

	/* Private sequences (ESC [ ? … , ESC [ < … , ESC [ > …) are
	 * answers and reports, never keys. */
	if (kr->len > 0 && strchr("?<>=", *p) != NULL)
		return 0;
	if (kr->len > 0) {
		n = strtol(p, &end, 10);
		if (end == p)
			n = 1;
		if (*end == ';')
			m = strtol(end + 1, NULL, 10);
	}
	if (m < 1)
		m = 1;
	if (final == '~') {
		if (n == 200 || n == 201) {
			kr->pasting = n == 200;
			kr->after_cr = 0;
			return n == 200 ? KEYREAD_PASTE_BEGIN :
			    KEYREAD_PASTE_END;
		}
		return keyread_tilde((int)n);
	}
	if (final == 'Z')
		return KEY_BTAB;
	if (final >= 'P' && final <= 'S')
		return KEY_F(1 + final - 'P');
	return keyread_arrow(final, (int)(m - 1));
}

/* A character in the ground state. */
static size_t
keyread_char(struct keyread *kr, wint_t wc, struct keyread_key *out,
    size_t n)
{
	int cr = kr->after_cr;

	kr->after_cr = 0;
	if (!kr->pasting)
		return wc == '\n' ? keyread_put(out, n, 1, KEYREAD_NEWLINE) :
		    keyread_put(out, n, 0, wc);
	/* Pasted text goes into the line as it is: its line ends are
	 * newlines (CR LF once), a tab a space, and no other control
	 * character does anything. */
	if (wc == '\r') {
		kr->after_cr = 1;
		return keyread_put(out, n, 1, KEYREAD_NEWLINE);
	}
	if (wc == '\n')
		return cr ? n : keyread_put(out, n, 1, KEYREAD_NEWLINE);
	if (wc == '\t')
		return keyread_put(out, n, 0, ' ');
	if (wc < 0x20 || wc == 0x7f)
		return n;
	return keyread_put(out, n, 0, wc);
}

/* Whether curses' key wc edits the line or moves in it. */
static int
keyread_edits(wint_t wc)
{
	switch (wc) {
	case KEY_LEFT: case KEY_RIGHT: case KEY_UP: case KEY_DOWN:
	case KEY_HOME: case KEY_END: case KEY_PPAGE: case KEY_NPAGE:
	case KEY_DC: case KEY_IC: case KEY_BACKSPACE: case KEY_BTAB:
	case KEYREAD_WORD_LEFT: case KEYREAD_WORD_RIGHT:
		return 1;
	}
	return 0;
}

size_t
keyread_feed(struct keyread *kr, int is_key, wint_t wc,
    struct keyread_key out[KEYREAD_MAX])
{
	size_t n = 0;
	int key;

	if (is_key) {
		/* Curses decoded it. After a lone ESC it is that key with Alt
		 * (some terminals send Alt-Left so). */
		if (kr->state == KEYREAD_ESC && (wc == KEY_LEFT ||
		    wc == KEY_RIGHT))
			wc = wc == KEY_LEFT ? KEYREAD_WORD_LEFT :
			    KEYREAD_WORD_RIGHT;
		kr->state = KEYREAD_GROUND;
		kr->after_cr = 0;
		if (kr->pasting && wc == KEY_ENTER)
			wc = KEYREAD_NEWLINE;
		/* A pasted sequence curses took for a key that edits or moves
		 * is text that did not survive, not a key: it would move the
		 * cursor into the paste. */
		if (kr->pasting && keyread_edits(wc))
			return 0;
		return keyread_put(out, n, 1, wc);
	}
	switch (kr->state) {
	case KEYREAD_GROUND:
		if (wc == 0x1b) {
			kr->state = KEYREAD_ESC;
			return 0;
		}
		return keyread_char(kr, wc, out, n);
	case KEYREAD_ESC:
		kr->state = KEYREAD_GROUND;
		if (wc == '[' || wc == 'O') {
			kr->state = wc == '[' ? KEYREAD_CSI : KEYREAD_SS3;
			kr->len = 0;
			return 0;
		}
		if (wc == '\r' || wc == '\n')
			return keyread_put(out, n, 1, KEYREAD_NEWLINE);
		if (wc == 0x1b) {		/* Esc, then maybe more */
			kr->state = KEYREAD_ESC;
			return kr->pasting ? 0 : keyread_put(out, n, 0, 0x1b);
		}
		if (wc == 'b' || wc == 'f')
			return keyread_put(out, n, 1, wc == 'b' ?
			    KEYREAD_WORD_LEFT : KEYREAD_WORD_RIGHT);
		if (wc >= 0x20 && wc != 0x7f)
			return 0;		/* Alt with a letter: nothing */
		/* Esc, then a control character. */
		if (!kr->pasting)
			n = keyread_put(out, n, 0, 0x1b);
		return keyread_char(kr, wc, out, n);
	case KEYREAD_CSI:
		if (wc == '[' && kr->len == 0) {
			kr->state = KEYREAD_CSI_BRACKET;
			return 0;
		}
		if (wc >= 0x20 && wc <= 0x3f) {	/* parameters, intermediates */
			if (kr->len + 1 < sizeof kr->seq)
				kr->seq[kr->len++] = (char)wc;
			kr->seq[kr->len] = '\0';
			return 0;
		}
		kr->state = KEYREAD_GROUND;
		kr->seq[kr->len] = '\0';
		if (wc < 0x40 || wc > 0x7e)
			return 0;		/* broken off: dropped */
		key = keyread_csi(kr, (int)wc);
		return key != 0 && (!kr->pasting || key ==
		    KEYREAD_PASTE_BEGIN) ? keyread_put(out, n, 1,
		    (wint_t)key) : 0;
	case KEYREAD_CSI_BRACKET:
		kr->state = KEYREAD_GROUND;
		if (wc >= 'A' && wc <= 'E' && !kr->pasting)
			return keyread_put(out, n, 1, KEY_F(1 + wc - 'A'));
		return 0;
	case KEYREAD_SS3:
		kr->state = KEYREAD_GROUND;
		if (kr->pasting)
			return 0;
		if (wc >= 'P' && wc <= 'S')
			return keyread_put(out, n, 1, KEY_F(1 + wc - 'P'));
		if (wc == 'M')
			return keyread_put(out, n, 0, '\r');	/* keypad Enter */
		key = keyread_arrow((int)wc, 0);
		return key != 0 ? keyread_put(out, n, 1, (wint_t)key) : 0;
	}
	kr->state = KEYREAD_GROUND;
	return 0;
}

size_t
keyread_flush(struct keyread *kr, struct keyread_key out[KEYREAD_MAX])
{
	if (kr->state != KEYREAD_ESC)
		return 0;
	kr->state = KEYREAD_GROUND;
	return kr->pasting ? 0 : keyread_put(out, 0, 0, 0x1b);
}
