/*
 * Colour roles mapped to curses attributes (see color.h).
 */
#include "config.h"

#include <stdlib.h>

#include "ui/color.h"

struct color_spec {
	short	fg;
	short	bg;
	attr_t	attr;		/* with colours */
	attr_t	mono;		/* without */
};

static const struct color_spec color_specs[ROLE_COUNT] = {
	[ROLE_NORMAL] = { -1, -1, A_NORMAL, A_NORMAL },
	[ROLE_BORDER] = { COLOR_BLUE, -1, A_NORMAL, A_NORMAL },
	[ROLE_TITLE] = { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
	[ROLE_TITLE_FOCUS] = { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE },
	[ROLE_YOU] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
	[ROLE_TOOL] = { COLOR_YELLOW, -1, A_NORMAL, A_NORMAL },
	[ROLE_TOOL_ERROR] = { COLOR_RED, -1, A_NORMAL, A_BOLD },
	[ROLE_DIM] = { -1, -1, A_DIM, A_DIM },
	[ROLE_THINKING] = { -1, -1, A_DIM | A_ITALIC, A_DIM },
	[ROLE_MESSAGE] = { COLOR_MAGENTA, -1, A_NORMAL, A_NORMAL },
	[ROLE_PROTOCOL] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[ROLE_ERROR] = { COLOR_RED, -1, A_BOLD, A_BOLD | A_REVERSE },
	[ROLE_HINT] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[ROLE_TABLE_HEADER] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[ROLE_SELECTED] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[ROLE_PENDING] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[ROLE_APPROVED] = { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[ROLE_REJECTED] = { COLOR_RED, -1, A_NORMAL, A_DIM },
	[ROLE_FKEY] = { -1, -1, A_BOLD, A_BOLD },
	[ROLE_FKEY_LABEL] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[ROLE_POPUP] = { COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_REVERSE },
	[ROLE_MATCH] = { COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE },
};

static int color_on;

void
color_init(void)
{
	const char *no = getenv("NO_COLOR");
	int i;

	/* https://no-color.org: any non-empty value turns colour off. */
	color_on = has_colors() && (no == NULL || *no == '\0');
	if (!color_on)
		return;
	start_color();
	use_default_colors();
	for (i = 1; i < ROLE_COUNT; i++)
		init_pair((short)i, color_specs[i].fg, color_specs[i].bg);
}

attr_t
color_attr(enum color_role role)
{
	if ((unsigned)role >= ROLE_COUNT)
		role = ROLE_NORMAL;
	if (!color_on)
		return color_specs[role].mono;
	return color_specs[role].attr | (role ? COLOR_PAIR(role) : 0);
}
