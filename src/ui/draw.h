/*
 * Putting text on the screen. Every string the screen draws goes through
 * here, so that a terminal whose locale is not UTF-8 (LANG=C) gets ASCII
 * of the same widths instead of bytes it would show as garbage.
 */
#ifndef HUDDLE_UI_DRAW_H
#define HUDDLE_UI_DRAW_H

#include <stddef.h>

/* Chooses UTF-8 or ASCII from the locale's character set (call after
 * setlocale). */
void draw_init(void);

/* Draws len bytes of clean text at the cursor, or at y, x. */
void draw_text(const char *s, size_t len);
void draw_text_at(int y, int x, const char *s, size_t len);

/* Draws s (clean text) at y, x in width columns: cut with text_cut, so a
 * cut ends in "…", when it does not fit. */
void draw_cut_at(int y, int x, const char *s, int width);

#endif
