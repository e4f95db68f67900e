/*
 * The help (F1, ?): the sandbox in one line, every key of the key table
 * by where it works, and every command, wrapped to the box and scrolled
 * and searched by the keys of the help (keymap.c).
 */
#ifndef HUDDLE_UI_HELPVIEW_H
#define HUDDLE_UI_HELPVIEW_H

#include <stddef.h>

struct view;

/* The box for the screen as it is: h rows, w columns; *rows of text
 * show at once, *width columns wide. */
void helpview_size(int *h, int *w, int *rows, int *width);

/* The help's lines, wrapped to width (each a malloc'd string; free
 * them with helpview_free). */
char **helpview_lines(struct view *v, int width, size_t *n);
void helpview_free(char **lines, size_t n);

/* Opens the help at its top. */
void helpview_open(struct view *v);

/* Scrolls it by delta lines, staying within its text. */
void helpview_scroll(struct view *v, int delta);

/* Finds v->help_query from line `from` on, wrapping around to the top:
 * the line found is shown and marked. Returns 0, or -1 when nothing
 * matches. */
int helpview_find(struct view *v, int from);

#endif
