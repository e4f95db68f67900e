/*
 * A search in the focused pane (Ctrl-F): found as it is typed, newest
 * match first; n and Enter go to older matches, N to newer ones; every
 * match in sight is highlighted and the current one stands out. A match
 * in a folded tool output expands that output. Esc ends the search and
 * leaves the pane's selection on the last match, where Enter expands or
 * folds the output.
 */
#ifndef HUDDLE_UI_PANEFIND_H
#define HUDDLE_UI_PANEFIND_H

struct view;

/* Opens a search in the focused pane (the lead's from the table). */
void panefind_open(struct view *v);

/* Adds a character to the search, or takes the last one off; the
 * search runs again from the pane's newest line. */
void panefind_type(struct view *v, const char *utf8, size_t len);
void panefind_backspace(struct view *v);

/* The next match: dir -1 is older (n, Enter), +1 newer (N). Returns 0,
 * or -1 when there is none that way (a notice says so). */
int panefind_step(struct view *v, int dir);

/* Ends the search; the pane's selection stays on its match. */
void panefind_end(struct view *v);

/* What the input line's row shows during a search: "find in alice
 * (3/12): word" — the current match, newest first, of how many the pane
 * holds — or "(no match)", as it is typed. Free it. */
char *panefind_prompt(struct view *v);

#endif
