/*
 * The key reader: turns what curses hands over (keys it decoded from the
 * terminal's terminfo entry, and plain characters) into the keys the view
 * acts on. Curses knows only the sequences of the terminal it was told
 * of; everything else arrives as ESC and loose characters, which would
 * land in the input line as text ("abc[1;5D") or, worse, act as Esc. This
 * decodes what terminals send beyond their terminfo (xterm's modified
 * keys, screen and tmux, rxvt, the vt100 and Linux console F-keys, Alt as
 * an ESC prefix), swallows any other escape sequence whole, and takes
 * bracketed pastes apart, so that a pasted newline inserts a newline
 * instead of sending the line.
 *
 * Pure logic, no curses calls: it is tested on recorded sequences.
 */
#ifndef HUDDLE_UI_KEYREAD_H
#define HUDDLE_UI_KEYREAD_H

#include <curses.h>
#include <stddef.h>
#include <wchar.h>

/* Keys beyond curses' own KEY_* codes. */
#define KEYREAD_WORD_LEFT	(KEY_MAX + 1)	/* Ctrl-Left, Alt-Left, Alt-b */
#define KEYREAD_WORD_RIGHT	(KEY_MAX + 2)	/* Ctrl-Right, Alt-f */
#define KEYREAD_NEWLINE		(KEY_MAX + 3)	/* Alt-Enter, Ctrl-J, pasted */
#define KEYREAD_PASTE_BEGIN	(KEY_MAX + 4)	/* a bracketed paste's ... */
#define KEYREAD_PASTE_END	(KEY_MAX + 5)	/* ... bounds */

/* Most keys one call can produce. */
#define KEYREAD_MAX		4

struct keyread_key {
	int	is_key;		/* code is a KEY_* or KEYREAD_* code */
	wint_t	code;		/* else a character; 0x1b is the Esc key */
};

struct keyread {
	int	state;
	char	seq[24];	/* parameters of a control sequence */
	size_t	len;
	int	pasting;	/* between ESC [200~ and ESC [201~ */
	int	after_cr;	/* a pasted CR just became a newline */
};

void keyread_init(struct keyread *kr);

/*
 * Feeds one result of wget_wch (is_key: KEY_CODE_YES). Stores the keys it
 * completes in out and returns how many (often 0 inside a sequence).
 */
size_t keyread_feed(struct keyread *kr, int is_key, wint_t wc,
    struct keyread_key out[KEYREAD_MAX]);

/*
 * Ends a batch of input: an ESC that nothing followed is the Esc key.
 * Returns the keys completed, as keyread_feed.
 */
size_t keyread_flush(struct keyread *kr, struct keyread_key out[KEYREAD_MAX]);

/* The sequences that turn bracketed paste on and off in the terminal. */
#define KEYREAD_PASTE_ON	"\033[?2004h"
#define KEYREAD_PASTE_OFF	"\033[?2004l"

#endif
