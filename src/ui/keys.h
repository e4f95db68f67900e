/*
 * What the keys do (keys.c): a key is looked up in the key table
 * (keymap.c), which names its action, and the action's function here
 * changes the view and returns KEY_* flags (view.h). The input line's
 * commands run here too, as some keys stand for one (F7 is /diff).
 */
#ifndef HUDDLE_UI_KEYS_H
#define HUDDLE_UI_KEYS_H

#include <curses.h>
#include <stddef.h>
#include <wchar.h>

struct view;
struct pane;

/* Handles a key from wget_wch (is_key: a KEY_* code). Returns KEY_*
 * flags. */
int keys_press(struct view *v, int is_key, wint_t wc);

/* The mouse events keys_press understands (for mousemask). */
mmask_t keys_mouse_mask(void);

/* The live teammates, in pane order (the F9 menu). Returns the count. */
size_t keys_menu_items(struct view *v, struct pane **items, size_t max);

/* Whether the newest shutdown request to name expired unanswered (the F9
 * menu then offers a forced stop). */
int keys_shutdown_expired(struct view *v, const char *name);

#endif
