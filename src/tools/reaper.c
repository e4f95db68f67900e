/*
 * The reaper (see reaper.h).
 *
 * It is a single-threaded program of its own, so it can wait for signals
 * synchronously: SIGCHLD and the signals that ask it to stop are blocked
 * and read from a signalfd, and no handler ever runs. The same poll()
 * waits on the seccomp listener, whose connect() notifications the
 * reaper answers while the command runs (tools/sockgate.h).
 *
 * Before it starts the shell it makes the command's cgroup when it runs
 * as root (tools/cgroup.h), and a socket pair on which the shell's
 * process hands it the listener; the shell's process applies the rest of
 * the confinement (tools/confine.h) just before exec, each step from the
 * file that holds it, in the order reaper_apply keeps.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/caps.h"
#include "tools/cgroup.h"
#include "tools/children.h"
#include "tools/confine.h"
#include "tools/keyring.h"
#include "tools/landlock.h"
#include "tools/limits.h"
#include "tools/mountns.h"
#include "tools/reaper.h"
#include "tools/sockgate.h"
#include "tools/sysfilter.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define REAPER_BATCH		256	/* children signalled per pass */
#define REAPER_KILL_TICK_MS	10	/* between SIGKILL passes */

struct reaper {
	sigset_t	 signals;	/* SIGCHLD and the stop signals */
	int		 sigfd;		/* a signalfd of them */
	struct sockgate	*gate;		/* judges connect, or NULL */
	pid_t		 shell;
	int		 shell_done;
	int		 status;	/* the shell's wait status */
};

/* Reaps every child that has ended, noting the shell's status. Returns
 * whether any child is left. */
static int
reaper_reap(struct reaper *r)
{
	pid_t p;
	int st;

	for (;;) {
		p = waitpid(-1, &st, WNOHANG);
		if (p > 0) {
			if (p == r->shell) {
				r->status = st;
				r->shell_done = 1;
			}
		} else if (p == 0)
			return 1;
		else if (errno != EINTR)
			return 0;	/* ECHILD: none left */
	}
}

/* Waits for one of our signals for up to ms (forever when negative),
 * answering connect() notifications meanwhile; returns the signal, or 0
 * when the time ran out. */
static int
reaper_wait(struct reaper *r, int64_t ms)
{
	struct signalfd_siginfo si;
	struct pollfd pfd[2];
	int64_t until = clock_mono_ms() + ms, left;
	nfds_t n;
	int rc;

	for (;;) {
		left = ms < 0 ? -1 : until - clock_mono_ms();
		if (left < 0 && ms >= 0)
			left = 0;
		n = 0;
		pfd[n++] = (struct pollfd){ r->sigfd, POLLIN, 0 };
		if (r->gate != NULL)
			pfd[n++] = (struct pollfd){ sockgate_fd(r->gate),
			    POLLIN, 0 };
		rc = poll(pfd, n, left > INT32_MAX ? INT32_MAX : (int)left);
		if (rc == -1 && errno != EINTR)
			return 0;
		if (n > 1 && (pfd[1].revents & POLLIN))
			sockgate_handle(r->gate);
		else if (n > 1 && pfd[1].revents != 0) {
			/* No process uses the filter any more. */
			sockgate_free(r->gate);
			r->gate = NULL;
		}
		if ((pfd[0].revents & POLLIN) &&
		    read(r->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
			return (int)si.ssi_signo;
		/* A signalfd gone bad would wake this loop for ever: stop,
		 * and sweep, rather than spin. */
		if (rc == 0 || (pfd[0].revents & (POLLNVAL | POLLERR)))
			return 0;
	}
}

/* Sends sig to every child; a stopped one is woken to take a SIGTERM. */
static void
reaper_signal_all(int sig)
{
	pid_t pids[REAPER_BATCH];
	int n, i;

	n = children_list(getpid(), pids, REAPER_BATCH);
	for (i = 0; i < n && i < REAPER_BATCH; i++) {
		kill(pids[i], sig);
		if (sig != SIGKILL)
			kill(pids[i], SIGCONT);
	}
}

/*
 * Ends everything beneath us: SIGTERM to each child, again whenever one
 * dies (its own children are ours then), for up to grace_ms; then SIGKILL
 * passes until none is left, for up to REAPER_KILL_MS. Returns whether
 * none is left.
 */
static int
reaper_sweep(struct reaper *r, int grace_ms)
{
	int64_t until = clock_mono_ms() + grace_ms, left;

	while (reaper_reap(r)) {
		if ((left = until - clock_mono_ms()) <= 0)
			break;
		reaper_signal_all(SIGTERM);
		(void)reaper_wait(r, left);
	}
	until = clock_mono_ms() + REAPER_KILL_MS;
	while (reaper_reap(r)) {
		if (clock_mono_ms() >= until)
			return 0;
		reaper_signal_all(SIGKILL);
		(void)reaper_wait(r, REAPER_KILL_TICK_MS);
	}
	return 1;
}

/* Closes every descriptor from fd up: huddle's that were not
 * close-on-exec must not reach the command. */
static void
reaper_close_from(int fd)
{
	long max, i;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)fd, ~0U, 0) == 0)
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (i = fd; i < max; i++)
		close((int)i);
}

/*
 * In the shell's process, just before exec, in this order: a session
 * keyring of its own, resource limits (and joining cg, when not NULL),
 * the read-only paths in a mount namespace of its own, every capability
 * dropped, the Landlock ruleset on REAPER_SANDBOX_FD when c->landlock, the seccomp filter (its
 * listener sent over notify_sock when sysfilter_supervised), and last
 * the data limit, past which nothing more can be mapped. The order
 * matters: the mounts need the capabilities that are dropped next, and
 * the seccomp filter comes last but for the data limit, so that nothing
 * before it is refused. Returns 0, or -1 with *err: the command must
 * then not run.
 */
static int
reaper_apply(const struct confine *c, const struct cgroup *cg,
    int notify_sock, char **err)
{
	int own_user = 0, joined = -1;

	if (keyring_leave(err) == -1 || limits_apply(c, err) == -1 ||
	    (cg != NULL && cgroup_join(cg, err) == -1))
		return -1;
	/* Where the namespaces cannot be joined — a sanitizer's runtime
	 * keeps a thread of its own even here, and setns wants one; or the
	 * holder is gone — they are made here, as without a holder. */
	if (c->pinned && (joined = mountns_join(REAPER_PIN_FD, err)) == -1) {
		free(*err);
		*err = NULL;
	}
	if (joined == 0)
		own_user = geteuid() != 0;
	else if (c->readonly != NULL && c->readonly[0] != NULL) {
		if (mountns_readonly(c->readonly, err) == -1)
			return -1;
		own_user = geteuid() != 0;
	} else if (geteuid() != 0 && c->max_procs > 0)
		own_user = mountns_own_user() == 0;
	/* Without a user namespace the looser count of limits_apply
	 * stands. */
	if (own_user && limits_procs_exact(c, err) == -1)
		return -1;
	if (caps_drop_all(err) == -1)
		return -1;
	if (c->landlock && landlock_enter(REAPER_SANDBOX_FD) == -1) {
		*err = xasprintf("cannot enter the sandbox: %s",
		    strerror(errno));
		return -1;
	}
	if (sysfilter_load(c, REAPER_FILTER_FD, notify_sock, err) == -1)
		return -1;
	return limits_memory(c, err);
}

/* In the shell's process: the confinement, then the command. */
static void
reaper_exec(char **command, const struct confine *c,
    const struct cgroup *cg, int notify_sock, const sigset_t *mask)
{
	char *err = NULL;

	sigprocmask(SIG_SETMASK, mask, NULL);
	if (c->only_landlock) {
		if (c->landlock && landlock_enter(REAPER_SANDBOX_FD) == -1) {
			dprintf(2, "huddle: cannot enter the sandbox: %s\n",
			    strerror(errno));
			_exit(126);
		}
	} else if (reaper_apply(c, cg, notify_sock, &err) == -1) {
		dprintf(2, "huddle: %s\n", err);
		_exit(126);
	}
	close(REAPER_STATUS_FD);
	close(REAPER_SANDBOX_FD);
	close(REAPER_PIN_FD);
	close(REAPER_FILTER_FD);
	execv(command[0], command);
	dprintf(2, "huddle: cannot run %s: %s\n", command[0], strerror(errno));
	_exit(127);
}

/*
 * Starts the shell: the command's cgroup first when root has limits to
 * keep, and the socket pair for the listener when connect is judged.
 * Returns 0, or -1 with a message printed.
 */
static int
reaper_start(struct reaper *r, char **command, const struct confine *c,
    struct cgroup *cg, const sigset_t *mask)
{
	char *err = NULL;
	int sp[2] = { -1, -1 }, listener;

	if (!c->only_landlock && geteuid() == 0 &&
	    (c->max_procs > 0 || c->max_memory > 0) &&
	    cgroup_make(cg, c->max_procs, c->max_memory, &err) == -1) {
		/* confine_limits_hold() tells huddle so. */
		free(err);
		memset(cg, 0, sizeof *cg);
	}
	if (sysfilter_supervised(c) && socketpair(AF_UNIX, SOCK_SEQPACKET |
	    SOCK_CLOEXEC, 0, sp) == -1) {
		fprintf(stderr, "huddle: cannot start the command: %s\n",
		    strerror(errno));
		return -1;
	}
	if ((r->shell = fork()) == -1) {
		fprintf(stderr, "huddle: cannot start the command: %s\n",
		    strerror(errno));
		return -1;
	}
	if (r->shell == 0)
		reaper_exec(command, c, cg->n > 0 ? cg : NULL, sp[1], mask);
	if (sp[0] != -1) {
		close(sp[1]);
		/* Sent before exec; none when it could not start. */
		if ((listener = sysfilter_receive(sp[0])) != -1)
			r->gate = sockgate_new(c, listener);
		close(sp[0]);
	}
	return 0;
}

/* Keeps descriptor fd taken (by /dev/null when it is free), so that no
 * descriptor made later lands there: it is closed after the fork. */
static void
reaper_hold_fd(int fd)
{
	int null;

	if (fcntl(fd, F_GETFD) != -1 ||
	    (null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return;
	if (null != fd) {
		dup2(null, fd);
		close(null);
	}
}

static int
reaper_number(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *v >= min &&
	    *v <= max ? 0 : -1;
}

/* The confinement argument: JSON, or "1" or "0" for the Landlock
 * sandbox alone or nothing (c->only set). */
static int
reaper_confine(const char *arg, struct confine *c, char **err)
{
	if (strcmp(arg, "0") == 0 || strcmp(arg, "1") == 0) {
		memset(c, 0, sizeof *c);
		c->landlock = arg[0] == '1';
		c->only_landlock = 1;
		return 0;
	}
	return confine_from_json(arg, c, err);
}

int
reaper_main(int argc, char **argv)
{
	struct reaper r;
	struct confine c;
	struct cgroup cg;
	sigset_t old;
	long grace, parent;
	char *err = NULL;
	int stop = 0;

	if (argc < 6 || strcmp(argv[1], REAPER_ARG) != 0 ||
	    reaper_number(argv[2], 0, 600000, &grace) == -1 ||
	    reaper_number(argv[3], 1, INT_MAX, &parent) == -1 ||
	    reaper_confine(argv[4], &c, &err) == -1) {
		fprintf(stderr, "usage: huddle %s GRACE_MS PARENT_PID "
		    "CONFINE_JSON COMMAND...%s%s\n", REAPER_ARG,
		    err != NULL ? "\n" : "", err != NULL ? err : "");
		free(err);
		return 2;
	}
	memset(&r, 0, sizeof r);
	memset(&cg, 0, sizeof cg);
	sigemptyset(&r.signals);
	sigaddset(&r.signals, SIGCHLD);
	sigaddset(&r.signals, SIGTERM);
	sigaddset(&r.signals, SIGINT);
	sigaddset(&r.signals, SIGHUP);
	sigaddset(&r.signals, SIGQUIT);
	sigprocmask(SIG_BLOCK, &r.signals, &old);
	reaper_close_from(REAPER_FILTER_FD + 1);
	reaper_hold_fd(REAPER_SANDBOX_FD);
	reaper_hold_fd(REAPER_PIN_FD);
	reaper_hold_fd(REAPER_FILTER_FD);
	if ((r.sigfd = signalfd(-1, &r.signals, SFD_CLOEXEC)) == -1) {
		fprintf(stderr, "huddle: cannot start the command: %s\n",
		    strerror(errno));
		return 127;
	}

	/* Orphans beneath us become ours; huddle's death is a stop. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != (pid_t)parent)
		stop = 1;	/* huddle died before the line above */

	if (!stop && reaper_start(&r, argv + 5, &c, &cg, &old) == -1) {
		cgroup_remove(&cg);
		return 127;
	}
	close(REAPER_SANDBOX_FD);
	close(REAPER_PIN_FD);
	close(REAPER_FILTER_FD);
	while (!stop && !r.shell_done) {
		if (reaper_wait(&r, -1) == SIGCHLD)
			(void)reaper_reap(&r);
		else
			stop = 1;
	}
	(void)reaper_sweep(&r, (int)grace);
	sockgate_free(r.gate);
	cgroup_remove(&cg);
	if (r.shell_done && write(REAPER_STATUS_FD, &r.status,
	    sizeof r.status) != (ssize_t)sizeof r.status)
		_exit(1);
	_exit(r.shell_done ? 0 : 1);
}
