/*
 * The screen's layout (layout.c): the panes, the table, the hint line,
 * the input line, the bar of keys and the open popup, drawn from the
 * view in one pass.
 */
#ifndef HUDDLE_UI_LAYOUT_H
#define HUDDLE_UI_LAYOUT_H

struct view;

/* Draws the whole screen (no refresh). */
void layout_draw(struct view *v);

#endif
