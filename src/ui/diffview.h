/*
 * The diff view: what a teammate changed in its worktree (/diff NAME, or
 * F7 on its pane) — a line of totals, the files with their +/- counts,
 * then the hunks, coloured by kind, cleaned like all text, and scrolled
 * with the arrows and pages; Esc closes it.
 */
#ifndef HUDDLE_UI_DIFFVIEW_H
#define HUDDLE_UI_DIFFVIEW_H

#include <jansson.h>
#include <stddef.h>

#include "ui/color.h"

struct diffview {
	char		*title;
	char		**lines;	/* clean, one row each */
	enum color_role	*roles;
	size_t		 n, cap, rcap;
	int		 first;		/* first line shown */
};

/* Fills the view from a /diff report (agent/team.h places_diff). */
void diffview_open(struct diffview *d, json_t *report);

void diffview_free(struct diffview *d);

/* Scrolls by delta lines (INT_MAX: to the end). */
void diffview_scroll(struct diffview *d, int delta);

/* Draws the lines from `first` into the rectangle. */
void diffview_draw(struct diffview *d, int top, int left, int height,
    int width);

#endif
