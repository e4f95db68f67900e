/*
 * Colour roles: every part of the screen names what it is (a focused
 * title, a tool call, an error), and this file alone decides how that
 * looks. With NO_COLOR set, or on a terminal without colours, roles map to
 * attributes only (bold, dim, reverse).
 */
#ifndef HUDDLE_UI_COLOR_H
#define HUDDLE_UI_COLOR_H

#include <curses.h>

enum color_role {
	ROLE_NORMAL,
	ROLE_BORDER,
	ROLE_TITLE,
	ROLE_TITLE_FOCUS,
	ROLE_YOU,		/* what the person typed */
	ROLE_TOOL,		/* a tool call */
	ROLE_TOOL_ERROR,
	ROLE_DIM,		/* tool output, notices */
	ROLE_THINKING,		/* the model's thinking */
	ROLE_MESSAGE,		/* a message between agents */
	ROLE_PROTOCOL,		/* a protocol message */
	ROLE_ERROR,
	ROLE_HINT,
	ROLE_TABLE_HEADER,
	ROLE_SELECTED,
	ROLE_PENDING,
	ROLE_APPROVED,
	ROLE_REJECTED,		/* also expired, cancelled */
	ROLE_FKEY,		/* "F5" in the key bar */
	ROLE_FKEY_LABEL,
	ROLE_POPUP,
	ROLE_MATCH,		/* a search's match in a pane */
	ROLE_COUNT
};

/* Sets up the pairs. Call after initscr(). */
void color_init(void);

/* The attributes (colour pair included) of a role. */
attr_t color_attr(enum color_role role);

#endif
