/*
 * A permission request as the screen shows it. On one line (the table
 * row, the hint line) it leads with why the command was flagged, then
 * the command with every run of blanks and line ends made one space, and
 * the number of lines when there are several:
 *
 *	rm -r · echo harmless … rm -rf junk2 (41 lines)
 *
 * When the command does not fit, its start is cut, never the part that
 * was flagged. In the detail view the command is shown verbatim, one
 * numbered row per line (wrapped when long). Control characters are
 * made visible (U+2400 pictures: ␛ for ESC, ␍ for a carriage return),
 * everything else is cleaned as text_sanitize does. Pure text logic: no
 * curses.
 */
#ifndef HUDDLE_UI_PERMLINE_H
#define HUDDLE_UI_PERMLINE_H

#include <stddef.h>

struct permline {
	char	*tool;		/* clean, one line */
	char	*reason;	/* the short label, clean, one line */
	char	*detail;	/* the sentence, clean, one line */
	char	*command;	/* visible; line ends kept */
	char	*directory;	/* clean, one line */
	char	*who;		/* clean, one line */
	size_t	 flag_start;	/* the flagged part of command: bytes */
	size_t	 flag_end;	/* [start, end); start == end: not known */
	size_t	 lines;		/* of the command, trailing blanks aside */
};

/*
 * Reads a permission request's body (core/permbody.h, either form) into
 * *pl, ready for the screen (free with permline_clear). Returns 0, or -1
 * (with *pl empty) for a body that is not a permission body.
 */
int permline_from_body(const char *body, struct permline *pl);

/* Frees what pl holds and empties it. */
void permline_clear(struct permline *pl);

/*
 * pl on one line of at most cols columns (malloc'd): reason · command
 * (N lines). *whole (when not NULL) is 1 when the line shows the command
 * whole and on one line, so that nothing more is to be seen of it; 0 when
 * it is cut, or has more than one line.
 */
char *permline_summary(const struct permline *pl, int cols, int *whole);

/*
 * The command's lines, numbered and wrapped to cols columns: a malloc'd
 * array of *n malloc'd rows ("  3 │ rm -rf junk2"; a wrapped line goes
 * on in rows without a number; a row holding the flagged part is marked
 * ▶ instead of │; blanks at the end of a line make no rows). Free with
 * permline_rows_free.
 */
char **permline_rows(const struct permline *pl, int cols, size_t *n);
void permline_rows_free(char **rows, size_t n);

/* The line of the command where its flagged part starts, or 0. */
size_t permline_flag_line(const struct permline *pl);

#endif
