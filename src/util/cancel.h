/*
 * A cancellation token: an atomic flag plus a self-pipe, so that a thread
 * blocked in poll() (waiting for HTTP, or sleeping before a retry) wakes
 * the moment another thread — or a signal handler — cancels.
 */
#ifndef HUDDLE_UTIL_CANCEL_H
#define HUDDLE_UTIL_CANCEL_H

#include <stdatomic.h>
#include <stdint.h>

struct cancel {
	atomic_int	fired;
	int		pipe[2];	/* non-blocking; [0] is polled */
};

/* Sets up the token. Aborts if no pipe can be made (out of descriptors
 * at start-up is not a condition we can work in). */
void cancel_init(struct cancel *c);
void cancel_destroy(struct cancel *c);

/* Fires the token. Async-signal-safe and callable from any thread. */
void cancel_fire(struct cancel *c);

/* Re-arms a fired token. Only the owning thread calls this. */
void cancel_reset(struct cancel *c);

/* Whether the token has fired. */
int cancel_fired(struct cancel *c);

/* The descriptor that becomes readable when the token fires. */
int cancel_fd(const struct cancel *c);

/* Sleeps ms milliseconds unless the token fires first. Returns 0 after a
 * full sleep, -1 when cancelled. */
int cancel_sleep(struct cancel *c, int64_t ms);

#endif
