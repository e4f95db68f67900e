/*
 * Whether the terminal can show huddle's screen at all, asked of terminfo
 * before anything starts.
 */
#ifndef HUDDLE_UI_TERMINAL_H
#define HUDDLE_UI_TERMINAL_H

/*
 * Whether this terminal ($TERM) can show the screen: known to terminfo,
 * with cursor addressing (TERM=dumb has none). Returns 0, or -1 with a
 * malloc'd sentence in *err that suggests --headless.
 */
int terminal_check(char **err);

#endif
