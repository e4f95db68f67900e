/*
 * The front ends' main loop (see driver.h). Signal handlers only write
 * the signal's number to a pipe.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "agent/team.h"
#include "driver.h"
#include "util/clock.h"

#define DRIVER_TICK_MS		1000
#define DRIVER_QUIT_POLL_MS	100	/* while quitting */

static int driver_sigpipe[2] = { -1, -1 };
static const int driver_handled[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };

static void
driver_on_signal(int sig)
{
	int saved = errno;
	char b = (char)sig;

	if (write(driver_sigpipe[1], &b, 1) == -1) {
	}
	errno = saved;
}

static void
driver_signals(void (*handler)(int))
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = handler;
	for (i = 0; i < sizeof driver_handled / sizeof *driver_handled; i++)
		sigaction(driver_handled[i], &sa, NULL);
}

void
driver_quit(struct driver *d)
{
	if (team_quitting(d->team))
		d->forced = 1;
	else
		team_quit_begin(d->team);
}

void
driver_input_done(struct driver *d)
{
	d->input_fd = -1;
}

static void
driver_take_events(struct driver *d)
{
	struct event *list = evq_take(team_events(d->team));

	d->ops->events(d->fe, list);
	event_free_list(list);
}

/* Reads the signals waiting in the pipe and acts on them. */
static void
driver_take_signals(struct driver *d)
{
	char sigs[16];
	ssize_t n, i;

	while ((n = read(driver_sigpipe[0], sigs, sizeof sigs)) > 0) {
		for (i = 0; i < n; i++) {
			if (sigs[i] != SIGWINCH)
				driver_quit(d);
			else if (d->ops->signal != NULL)
				d->ops->signal(d->fe, sigs[i]);
		}
	}
}

int
driver_run(struct team *t, int input_fd, const struct driver_ops *ops,
    void *fe)
{
	struct driver d = { t, ops, fe, input_fd, 0 };
	int64_t next_tick = clock_mono_ms() + DRIVER_TICK_MS;
	int evfd = evq_fd(team_events(t)), rc = 0;

	if (pipe2(driver_sigpipe, O_NONBLOCK | O_CLOEXEC) == -1)
		return 1;
	driver_signals(driver_on_signal);
	for (;;) {
		int64_t wait = next_tick - clock_mono_ms(), most;
		int top = evfd > driver_sigpipe[0] ? evfd : driver_sigpipe[0];
		struct timeval tv;
		fd_set rd;

		if (team_quitting(t) && wait > DRIVER_QUIT_POLL_MS)
			wait = DRIVER_QUIT_POLL_MS;
		most = ops->prepare(fe, &d);
		if (most >= 0 && most < wait)
			wait = most;
		if (wait < 0)
			wait = 0;
		tv.tv_sec = wait / 1000;
		tv.tv_usec = (wait % 1000) * 1000;
		FD_ZERO(&rd);
		FD_SET(evfd, &rd);
		FD_SET(driver_sigpipe[0], &rd);
		if (d.input_fd >= 0) {
			FD_SET(d.input_fd, &rd);
			if (d.input_fd > top)
				top = d.input_fd;
		}
		if (select(top + 1, &rd, NULL, NULL, &tv) == -1) {
			if (errno != EINTR) {
				rc = 1;
				break;
			}
			FD_ZERO(&rd);
		}
		if (FD_ISSET(driver_sigpipe[0], &rd))
			driver_take_signals(&d);
		if (d.input_fd >= 0 && FD_ISSET(d.input_fd, &rd))
			ops->input(fe, &d);
		driver_take_events(&d);
		if (clock_mono_ms() >= next_tick) {
			team_tick(t);
			next_tick = clock_mono_ms() + DRIVER_TICK_MS;
			if (ops->tick != NULL)
				ops->tick(fe);
		}
		if (d.forced) {
			team_quit_force(t);
			break;
		}
		if (team_quitting(t) && team_quit_poll(t))
			break;
	}
	driver_take_events(&d);
	driver_signals(SIG_DFL);
	close(driver_sigpipe[0]);
	close(driver_sigpipe[1]);
	driver_sigpipe[0] = driver_sigpipe[1] = -1;
	return rc;
}
