/*
 * The hint line's part on the selected request: who asks what, and what
 * F5, F6 and Enter do with it, in the words of the key table
 * (keymap_request_phrase), so the line promises what the keys do. The
 * notice before it is the view's (view_hint); layout.c draws the two.
 */
#ifndef HUDDLE_UI_HINTLINE_H
#define HUDDLE_UI_HINTLINE_H

#include <stddef.h>

struct view;

/* *must when no part of the hint line is enough for F5 and F6. */
#define HINTLINE_NOT_WHOLE ((size_t)-1)

/* What the hint line says of the selected request in cols columns: who
 * asks what, and what F5, F6 and Enter do with it; NULL when no pending
 * request is selected. Free it. *must is how many of its bytes the person
 * must see for F5 and F6 to act at once (all of a command, which must be
 * one line that fits; whose and what of the rest), or HINTLINE_NOT_WHOLE
 * when a command does not fit whole: F5 and F6 then show the details
 * first. */
char *hintline_selection(struct view *v, int cols, size_t *must);

#endif
