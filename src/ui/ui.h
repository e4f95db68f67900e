/*
 * The full-screen front end: the main thread's select() loop over the
 * keyboard, the team's event queue and a signal pipe, with a one-second
 * tick. It is the only code that calls curses.
 */
#ifndef HUDDLE_UI_UI_H
#define HUDDLE_UI_UI_H

struct team;

/*
 * Runs the screen until the person quits and the team has shut down.
 * `hint`, when not NULL, is shown first (the demo's guide); `resumed`
 * fills the panes with the stored conversations first. Returns the exit
 * status.
 */
int ui_run(struct team *t, const char *hint, int resumed);

#endif
