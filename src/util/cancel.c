/*
 * Cancellation tokens (see cancel.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/cancel.h"
#include "util/clock.h"

void
cancel_init(struct cancel *c)
{
	atomic_init(&c->fired, 0);
	if (pipe2(c->pipe, O_NONBLOCK | O_CLOEXEC) == -1) {
		perror("huddle: pipe2");
		abort();
	}
}

void
cancel_destroy(struct cancel *c)
{
	close(c->pipe[0]);
	close(c->pipe[1]);
}

void
cancel_fire(struct cancel *c)
{
	int saved = errno;
	char b = 1;

	atomic_store(&c->fired, 1);
	/* A full pipe already wakes the reader; nothing more to do. */
	if (write(c->pipe[1], &b, 1) == -1) {
		/* EAGAIN: already readable. */
	}
	errno = saved;
}

void
cancel_reset(struct cancel *c)
{
	char buf[64];

	atomic_store(&c->fired, 0);
	while (read(c->pipe[0], buf, sizeof buf) > 0)
		;
}

int
cancel_fired(struct cancel *c)
{
	return atomic_load(&c->fired);
}

int
cancel_fd(const struct cancel *c)
{
	return c->pipe[0];
}

int
cancel_sleep(struct cancel *c, int64_t ms)
{
	int64_t deadline = clock_mono_ms() + ms, left;
	struct pollfd pfd = { .fd = c->pipe[0], .events = POLLIN };

	while (!cancel_fired(c)) {
		left = deadline - clock_mono_ms();
		if (left <= 0)
			return 0;
		if (poll(&pfd, 1, (int)(left > 60000 ? 60000 : left)) > 0 &&
		    cancel_fired(c))
			return -1;
	}
	return -1;
}
