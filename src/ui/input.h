/*
 * The input line: a UTF-8 editor with a prompt ("lead> "), cursor
 * movement by character and by word, and a history of what was sent. Its
 * text may hold newlines (Alt-Enter, Ctrl-J, a paste): it is drawn on one
 * row, each newline as "↵" (a long paste as one piece), and sent as one
 * message.
 */
#ifndef HUDDLE_UI_INPUT_H
#define HUDDLE_UI_INPUT_H

#include <stddef.h>
#include <wchar.h>

#define INPUT_HISTORY 100

/* A paste of more than INPUT_FOLD_LINES lines is drawn as one piece,
 * "[Pasted 500 lines]", which the cursor steps over and Backspace or
 * Delete removes whole (the text is all there, and sent whole); at most
 * INPUT_FOLDS of them at once, later ones are drawn as text. */
#define INPUT_FOLD_LINES 5
#define INPUT_FOLDS 16

struct input_fold {
	size_t	 start, end;		/* bytes of buf */
	size_t	 lines;
};

struct input {
	char	*buf;
	size_t	 len, cap;
	size_t	 cursor;		/* byte offset */
	char	*history[INPUT_HISTORY];
	int	 nhistory;
	int	 browsing;		/* index into history, or -1 */
	struct input_fold folds[INPUT_FOLDS];
	int	 nfolds;
	int	 pasting;		/* a paste is coming in ... */
	size_t	 paste_from;		/* ... from this byte */
	int	 unfold;		/* draw pastes as their text (C-o) */
};

void input_init(struct input *in);
void input_free(struct input *in);

/* Inserts one character at the cursor; of the control characters only
 * a newline. */
void input_insert(struct input *in, wchar_t wc);

/* Editing keys: backspace, delete, left, right, home, end, kill line,
 * kill word (Ctrl-W). */
void input_backspace(struct input *in);
void input_delete(struct input *in);
void input_left(struct input *in);
void input_right(struct input *in);
void input_home(struct input *in);
void input_end(struct input *in);
void input_kill(struct input *in);
void input_kill_word(struct input *in);
void input_word_left(struct input *in);
void input_word_right(struct input *in);

/* A paste begins at the cursor, or ends there (input_insert took its
 * text); one of more than INPUT_FOLD_LINES lines is folded. */
void input_paste_begin(struct input *in);
void input_paste_end(struct input *in);

/* Steps through the history (-1 older, +1 newer). */
void input_history(struct input *in, int dir);

/* Puts text in the editor in place of what it held, the cursor at byte
 * cursor (at most its end). */
void input_set(struct input *in, const char *text, size_t cursor);

/* Returns the line (malloc'd) and empties the editor; remembers it. */
char *input_take(struct input *in);

/* Draws prompt and line at (y, x) in width columns, scrolling so that the
 * cursor shows; leaves the terminal cursor at the editing position. */
void input_draw(struct input *in, const char *prompt, int y, int x,
    int width);

#endif
