/*
 * A short list of callbacks told of one kind of change (a message, a
 * request, a task): added before threads start, never removed, told in
 * the order they were added.
 */
#ifndef HUDDLE_UTIL_LISTENERS_H
#define HUDDLE_UTIL_LISTENERS_H

/* How many one list holds: huddle's front end, the team and the network
 * gate are its listeners. */
#define LISTENERS_MAX 4

/* Told of `what`, a change valid only during the call. */
typedef void (*listener_fn)(void *ud, const void *what);

struct listeners {
	struct {
		listener_fn	 fn;
		void		*ud;
	}			 at[LISTENERS_MAX];
	int			 n;
};

/* Adds a listener; more than LISTENERS_MAX is a programming error and
 * aborts. */
void listeners_add(struct listeners *l, listener_fn fn, void *ud);

/* Tells every listener of what. */
void listeners_tell(const struct listeners *l, const void *what);

#endif
