/*
 * The front ends' one main loop. The screen and --headless differ only in
 * what they read and how they show the team; the driver owns what they
 * share: a select() over the input, the team's event queue and a signal
 * pipe; the one-second tick; and the quit, graceful first and forced on a
 * second asking (F10, /quit, end of input, SIGINT, SIGTERM, SIGHUP).
 *
 * Each pass: signals, then input (so a key acts on what was drawn), then
 * every queued event at once, then the quit's progress; before sleeping,
 * the front end may draw and say how soon it wants to run again.
 */
#ifndef HUDDLE_DRIVER_H
#define HUDDLE_DRIVER_H

#include <stdint.h>

#include "agent/event.h"

struct team;
struct driver;

struct driver_ops {
	/* The input descriptor is readable. */
	void	(*input)(void *fe, struct driver *d);
	/* One pass's events, oldest first (freed by the driver). */
	void	(*events)(void *fe, struct event *list);
	/* A signal that is not a quit (SIGWINCH); may be NULL. */
	void	(*signal)(void *fe, int sig);
	/* Once a second, after the team's tick; may be NULL. */
	void	(*tick)(void *fe);
	/* Before each sleep: draw if due. Returns how many milliseconds
	 * the front end may sleep at most, or -1 for no limit. */
	int64_t	(*prepare)(void *fe, struct driver *d);
};

struct driver {
	struct team		*team;
	const struct driver_ops	*ops;
	void			*fe;
	int			 input_fd;	/* -1 once at its end */
	int			 forced;
};

/* Runs until the team has quit. Returns 0, or 1 when select() failed. */
int driver_run(struct team *t, int input_fd, const struct driver_ops *ops,
    void *fe);

/* Asks the team to quit: gracefully the first time, at once (the state
 * kept for --resume) the next. */
void driver_quit(struct driver *d);

/* The input has ended: stop reading it. */
void driver_input_done(struct driver *d);

#endif
