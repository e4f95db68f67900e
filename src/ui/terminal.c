/*
 * The terminal check (see terminal.h). term.h defines macros named like
 * terminfo capabilities (lines, columns, …), so it is included here
 * alone, away from the rest of the screen's code.
 */
#include "config.h"

#include <curses.h>
#include <stdlib.h>
#include <term.h>
#include <unistd.h>

#include "ui/terminal.h"
#include "util/xmalloc.h"

int
terminal_check(char **err)
{
	const char *term = getenv("TERM");
	char *cup;
	int bad = 0;

	if (term == NULL || *term == '\0' || setupterm(NULL, STDOUT_FILENO,
	    &bad) == ERR)
		bad = 1;
	else {
		cup = tigetstr("cup");
		bad = cup == NULL || cup == (char *)-1;
		del_curterm(cur_term);
	}
	if (!bad)
		return 0;
	*err = xasprintf("the terminal '%s' cannot show huddle's screen (it "
	    "is unknown, or cannot move the cursor); set TERM to your "
	    "terminal's (xterm-256color, say), or run with --headless",
	    term != NULL ? term : "");
	return -1;
}
