/*
 * The headless front end (--headless): the same team without a screen.
 * Lines on stdin are the input line; every event goes to stdout as one
 * JSON object per line.
 */
#ifndef HUDDLE_HEADLESS_H
#define HUDDLE_HEADLESS_H

struct team;

/*
 * Runs until /quit or the end of input, then quits the team gracefully.
 * Returns the exit status (0, or 1 when stdout failed).
 */
int headless_run(struct team *t);

#endif
