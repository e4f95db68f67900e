/*
 * The bash tool (see bash.h).
 *
 * huddle is multi-threaded, so the command is started with posix_spawn,
 * never fork(): every pipe is close-on-exec from birth, and the child's
 * signal mask and dispositions are reset by the spawn itself rather than
 * by code running between fork and exec. What is spawned is huddle's own
 * program as the command's reaper (tools/reaper.h), which starts the shell
 * beneath it and ends everything the shell left behind. Each reaper is
 * listed as kept (tools/kept.h) from its spawn until it is reaped, so
 * that a sweep for escaped processes spares it.
 *
 * One poll() waits for everything at once: output on the pipe, the
 * reaper's exit (a pidfd, where the kernel has them), the cancel token and
 * the deadline. The reaper is detected as exited with waitid(WNOWAIT) and
 * only reaped at the very end, so its pid, which is also the process group
 * id, cannot be reused while we may still signal the group.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bash.h"
#include "tools/confine.h"
#include "tools/env.h"
#include "tools/kept.h"
#include "tools/reaper.h"
#include "tools/ruleset.h"
#include "tools/sysfilter.h"
#include "tools/tmpuse.h"
#include "util/cancel.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define BASH_CHUNK		16384		/* one read() */
#define BASH_WAKE_MAX		(1024 * 1024)	/* read per wake-up */
#define BASH_DRAIN_MAX		(1024 * 1024)	/* read after exit */
#define BASH_TICK_MS		50	/* exit checks without a pidfd */
#define BASH_FD_MIN		10	/* our descriptors, while spawning */
#define BASH_SLACK_MS		500	/* beyond the reaper's own time */

/* The output kept: the first half of the cap and a rolling last half. */
struct bash_capture {
	char			*head;
	size_t			 head_len;
	size_t			 head_cap;
	char			*tail;
	size_t			 tail_len;
	size_t			 tail_cap;
	unsigned long long	 total;		/* bytes seen */
	/* The whole output, for keep_dir: written as it comes. */
	int			 keep_fd;	/* -1: none, or given up */
	unsigned long long	 lines;		/* line ends seen */
};

struct bash_child {
	pid_t			 pid;		/* the reaper = process group */
	int			 out;		/* pipe, non-blocking */
	int			 status_fd;	/* the reaper's report */
	int			 pidfd;		/* or -1 */
	int			 exited;	/* seen, not yet reaped */
	int			 eof;
	int			 status;	/* the shell's; -1 when unknown */
	int			 lost;		/* the reaper was killed */
	struct bash_capture	 cap;
	const char		*tmpdir;	/* watched (tools/tmpuse.h) */
	const struct tmpuse	*tmp_max;	/* ... or NULL */
	struct tmpuse		 tmp_start;	/* as the command started */
	struct tmpuse		 tmp_now;	/* last measured */
	int64_t			 tmp_next;	/* when to measure again */
};

enum bash_end {
	BASH_EXITED,
	BASH_TIMEOUT,
	BASH_CANCELLED,
	BASH_TMP_FULL		/* TMPDIR grew past its ceiling */
};

/* Writes all n bytes to fd; 0, or -1 with errno. */
static int
bash_write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
bash_capture_add(struct bash_capture *c, const char *p, size_t n)
{
	size_t take = c->head_cap - c->head_len, drop, room;
	const char *nl, *end = p + n;

	for (nl = p; (nl = memchr(nl, '\n', (size_t)(end - nl))) != NULL; nl++)
		c->lines++;
	if (c->keep_fd != -1 && c->total < (unsigned long long)BASH_KEEP_MAX) {
		room = (size_t)((unsigned long long)BASH_KEEP_MAX - c->total);
		if (bash_write_all(c->keep_fd, p, n < room ? n : room) == -1) {
			close(c->keep_fd);	/* a full disk: not kept */
			c->keep_fd = -1;
		}
	}
	c->total += n;
	if (take > n)
		take = n;
	memcpy(c->head + c->head_len, p, take);
	c->head_len += take;
	p += take;
	n -= take;
	if (n == 0)
		return;
	if (n >= c->tail_cap) {
		memcpy(c->tail, p + n - c->tail_cap, c->tail_cap);
		c->tail_len = c->tail_cap;
		return;
	}
	if (c->tail_len + n > c->tail_cap) {
		drop = c->tail_len + n - c->tail_cap;
		memmove(c->tail, c->tail + drop, c->tail_len - drop);
		c->tail_len -= drop;
	}
	memcpy(c->tail + c->tail_len, p, n);
	c->tail_len += n;
}

/* The captured text, repaired, with a line where output was cut. */
static char *
bash_capture_text(const struct bash_capture *c)
{
	unsigned long long left_out;
	size_t hl, skip = 0;
	char *head, *tail, *all;

	left_out = c->total - c->head_len - c->tail_len;
	if (left_out == 0) {
		all = xmalloc(c->head_len + c->tail_len + 1);
		memcpy(all, c->head, c->head_len);
		memcpy(all + c->head_len, c->tail, c->tail_len);
		head = tool_sanitize(all, c->head_len + c->tail_len, NULL);
		free(all);
		return head;
	}
	/* Cut between characters, not into them. */
	hl = tool_trim_partial(c->head, c->head_len);
	while (skip < 3 && skip < c->tail_len &&
	    ((unsigned char)c->tail[skip] & 0xc0) == 0x80)
		skip++;
	left_out += (c->head_len - hl) + skip;
	head = tool_sanitize(c->head, hl, NULL);
	tail = tool_sanitize(c->tail + skip, c->tail_len - skip, NULL);
	all = xasprintf("%s%s[... %llu bytes of output left out ...]\n%s",
	    head, hl > 0 && head[strlen(head) - 1] != '\n' ? "\n" : "",
	    left_out, tail);
	free(head);
	free(tail);
	return all;
}

/* Moves a descriptor of ours above the ones the reaper is given (0-4),
 * where a file action could clobber it before it is duplicated. */
static int
bash_high_fd(int fd)
{
	int hi;

	if (fd >= BASH_FD_MIN)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, BASH_FD_MIN);
	close(fd);
	return hi;
}

void
bash_sweep_orphans(int grace_ms)
{
	pid_t pids[KEPT_BATCH];
	int64_t term_until = clock_mono_ms() + grace_ms;
	int64_t kill_until = term_until + REAPER_KILL_MS;
	int64_t now;
	int n, i, sig = grace_ms > 0 ? SIGTERM : SIGKILL, sub = 0;

	/* Escapees become the children only of a subreaper; any other
	 * process's children are its own business (a fuzzer's
	 * symbolizer, say). */
	if (prctl(PR_GET_CHILD_SUBREAPER, &sub) == -1 || !sub)
		return;
	for (;;) {
		n = kept_signal_others(sig, pids);
		for (i = 0; i < n; i++)
			while (waitpid(pids[i], NULL, WNOHANG) == -1 &&
			    errno == EINTR)
				;
		if (n == 0 || (now = clock_mono_ms()) >= kill_until)
			return;
		if (now >= term_until)
			sig = SIGKILL;
		poll(NULL, 0, 10);
	}
}

static int
bash_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	return -1;
#endif
}

/*
 * Sets up what posix_spawn does in the child (see bash.h): stdin from rfd
 * (-1: /dev/null), stdout to wfd, stderr to efd (-1: wfd too). Every signal
 * sigfillset knows gets its default disposition; glibc's own two
 * internal signals (32 and 33, below SIGRTMIN) stay ignored in any
 * posix_spawn child, and no API reaches them.
 */
static void
bash_spawn_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *at,
    const char *workdir, int rfd, int wfd, int efd, int status_wfd)
{
	sigset_t none, all;

	posix_spawn_file_actions_init(fa);
	posix_spawn_file_actions_addchdir_np(fa, workdir);
	if (rfd == -1)
		posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY,
		    0);
	else
		posix_spawn_file_actions_adddup2(fa, rfd, 0);
	posix_spawn_file_actions_adddup2(fa, wfd, 1);
	posix_spawn_file_actions_adddup2(fa, efd != -1 ? efd : wfd, 2);
	posix_spawn_file_actions_adddup2(fa, status_wfd, REAPER_STATUS_FD);

	sigemptyset(&none);
	sigfillset(&all);
	sigdelset(&all, SIGKILL);
	sigdelset(&all, SIGSTOP);
	posix_spawnattr_init(at);
	/* A session of its own: no controlling terminal for anything
	 * beneath, and the reaper's pid is still its process group. */
	posix_spawnattr_setflags(at, POSIX_SPAWN_SETSID |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(at, &none);
	posix_spawnattr_setsigdefault(at, &all);
}

/* Sets entry "NAME=value" in env (a malloc'd array of borrowed
 * strings), replacing the entry of the same name. */
static char **
bash_env_set(char **env, char *entry)
{
	size_t len = strcspn(entry, "=") + 1, n;

	for (n = 0; env[n] != NULL; n++) {
		if (strncmp(env[n], entry, len) == 0) {
			env[n] = entry;
			return env;
		}
	}
	env = xrealloc(env, (n + 2) * sizeof *env);
	env[n] = entry;
	env[n + 1] = NULL;
	return env;
}

/* The environment for the command: tools/env.h's, with TMPDIR and the
 * extra entries. */
static char **
bash_env(const struct bash_options *o, char **tmpvar)
{
	char **env = env_for_tools();
	size_t i;

	*tmpvar = NULL;
	if (o->tmpdir != NULL) {
		*tmpvar = xasprintf("TMPDIR=%s", o->tmpdir);
		env = bash_env_set(env, *tmpvar);
	}
	for (i = 0; o->extra_env != NULL && o->extra_env[i] != NULL; i++)
		env = bash_env_set(env, (char *)o->extra_env[i]);
	return env;
}

/* Closes both ends of a pipe, where open. */
static void
bash_close_pipe(int p[2])
{
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	p[0] = p[1] = -1;
}

/* A close-on-exec pipe with both ends above BASH_FD_MIN; on failure
 * both are -1. */
static int
bash_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) == -1) {
		p[0] = p[1] = -1;
		return -1;
	}
	p[0] = bash_high_fd(p[0]);
	p[1] = bash_high_fd(p[1]);
	if (p[0] == -1 || p[1] == -1) {
		bash_close_pipe(p);
		return -1;
	}
	return 0;
}

/* Whether the command joins pinned namespaces (bash.h). */
static int
bash_pinned(const struct bash_options *o)
{
	return o->confine != NULL && o->pinned && o->pin_fd >= 0;
}

/* The confinement as the reaper's argument: o->confine's as JSON, or
 * "1" or "0" for the sandbox alone or nothing. *filter is the seccomp
 * program built for it (sysfilter_program: not to be closed), or -1
 * when the reaper's shell process is to build it. */
static char *
bash_confine(const struct bash_options *o, int *filter)
{
	struct confine c;
	char *err = NULL;

	*filter = -1;
	if (o->confine == NULL)
		return xstrdup(o->sandboxed ? "1" : "0");
	c = *o->confine;
	c.landlock = o->sandboxed != 0;
	c.pinned = bash_pinned(o);
	if ((*filter = sysfilter_program(&c, &err)) == -1)
		free(err);	/* the shell's process will say it */
	c.prebuilt = *filter != -1;
	return confine_to_json(&c);
}

/* Closes those of the three descriptors that are open. */
static void
bash_close_fds(int a, int b, int c)
{
	if (a != -1)
		close(a);
	if (b != -1)
		close(b);
	if (c != -1)
		close(c);
}

/* Starts the reaper, which starts the shell (see bash.h); with `piped`,
 * the shell's stdin is a pipe too (*in_fd: its writing end) and its
 * stderr /dev/null. */
static int
bash_spawn_io(const char *command, const struct bash_options *o,
    struct bash_child *c, int piped, int *in_fd, int *err_fd, char **why)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char grace[16], parent[16], *confine;
	char *argv[] = { (char *)"huddle", (char *)REAPER_ARG, grace, parent,
	    NULL, (char *)"/bin/sh", (char *)"-c", (char *)command, NULL };
	char **env, *tmpvar;
	int p[2] = { -1, -1 }, st[2] = { -1, -1 }, sfd = -1, pfd = -1, rc;
	int filter, ffd = -1, in[2] = { -1, -1 }, rfd = o->sandbox_fd;
	int ep[2] = { -1, -1 };

	/* A shared ruleset may still be being built: this command waits. */
	if (o->sandboxed && o->ruleset != NULL &&
	    (rfd = ruleset_fd(o->ruleset, why)) == -1)
		return -1;
	if (piped && (bash_pipe(in) == -1 || bash_pipe(ep) == -1)) {
		bash_close_pipe(in);
		*why = xasprintf("cannot start: %s", strerror(errno));
		return -1;
	}
	if (o->program == NULL) {
		bash_close_pipe(in);
		bash_close_pipe(ep);
		*why = xstrdup("cannot run the command: no reaper program");
		return -1;
	}
	argv[4] = confine = bash_confine(o, &filter);
	if (bash_pipe(p) == -1 || bash_pipe(st) == -1 || (o->sandboxed &&
	    (sfd = fcntl(rfd, F_DUPFD_CLOEXEC, BASH_FD_MIN)) == -1) ||
	    (bash_pinned(o) && (pfd = fcntl(o->pin_fd, F_DUPFD_CLOEXEC,
	    BASH_FD_MIN)) == -1) || (filter != -1 && (ffd = fcntl(filter,
	    F_DUPFD_CLOEXEC, BASH_FD_MIN)) == -1)) {
		*why = xasprintf("cannot run the command: %s",
		    strerror(errno));
		bash_close_pipe(p);
		bash_close_pipe(st);
		bash_close_pipe(in);
		bash_close_pipe(ep);
		bash_close_fds(sfd, pfd, ffd);
		free(confine);
		return -1;
	}
	snprintf(grace, sizeof grace, "%d", BASH_GRACE_MS);
	snprintf(parent, sizeof parent, "%ld", (long)getpid());
	bash_spawn_setup(&fa, &at, o->workdir, in[0], p[1], ep[1], st[1]);
	if (sfd != -1)
		posix_spawn_file_actions_adddup2(&fa, sfd, REAPER_SANDBOX_FD);
	if (pfd != -1)
		posix_spawn_file_actions_adddup2(&fa, pfd, REAPER_PIN_FD);
	if (ffd != -1)
		posix_spawn_file_actions_adddup2(&fa, ffd, REAPER_FILTER_FD);
	env = bash_env(o, &tmpvar);
	rc = kept_spawn(o->program, &c->pid, &fa, &at, argv, env);
	free(env);
	free(tmpvar);
	free(confine);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
	close(st[1]);
	if (in[0] != -1)
		close(in[0]);
	if (ep[1] != -1)
		close(ep[1]);
	bash_close_fds(sfd, pfd, ffd);
	if (rc != 0) {
		close(p[0]);
		close(st[0]);
		if (in[1] != -1)
			close(in[1]);
		if (ep[0] != -1)
			close(ep[0]);
		*why = xasprintf("cannot run the command in %s: %s",
		    o->workdir, strerror(rc));
		return -1;
	}
	c->out = p[0];
	c->status_fd = st[0];
	fcntl(c->out, F_SETFL, fcntl(c->out, F_GETFL) | O_NONBLOCK);
	fcntl(c->status_fd, F_SETFL, fcntl(c->status_fd, F_GETFL) |
	    O_NONBLOCK);
	c->pidfd = bash_pidfd(c->pid);
	if (in_fd != NULL)
		*in_fd = in[1];
	if (err_fd != NULL) {
		*err_fd = ep[0];
		fcntl(ep[0], F_SETFL, fcntl(ep[0], F_GETFL) | O_NONBLOCK);
	}
	return 0;
}

static int
bash_spawn(const char *command, const struct bash_options *o,
    struct bash_child *c, char **why)
{
	return bash_spawn_io(command, o, c, 0, NULL, NULL, why);
}

int
bash_start_piped(const char *command, const struct bash_options *o,
    struct bash_piped *p, char **why)
{
	struct bash_child c;

	memset(&c, 0, sizeof c);
	if (bash_spawn_io(command, o, &c, 1, &p->in, &p->err, why) == -1)
		return -1;
	p->pid = c.pid;
	p->out = c.out;
	p->status_fd = c.status_fd;
	if (c.pidfd != -1)
		close(c.pidfd);
	return 0;
}

void
bash_end_piped(struct bash_piped *p)
{
	int64_t until;

	if (p->pid <= 0)
		return;
	if (p->in != -1)
		close(p->in);
	if (p->out != -1)
		close(p->out);
	if (p->status_fd != -1)
		close(p->status_fd);
	p->in = p->out = p->status_fd = -1;
	/* p->err is the caller's: what is left in it is still read. */
	/* The reaper ends whatever is beneath it on SIGTERM. */
	kill(p->pid, SIGTERM);
	until = clock_mono_ms() + BASH_GRACE_MS + REAPER_KILL_MS + 500;
	while (waitpid(p->pid, NULL, WNOHANG) == 0) {
		if (clock_mono_ms() >= until) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, NULL, 0);
			break;
		}
		poll(NULL, 0, 10);
	}
	kept_end(p->pid);
	p->pid = 0;
}

/* Reads what the pipe holds now, up to max bytes; notes the end. */
static void
bash_read(struct bash_child *c, size_t max)
{
	char buf[BASH_CHUNK];
	size_t got = 0;
	ssize_t n;

	while (!c->eof && got < max) {
		n = read(c->out, buf, sizeof buf);
		if (n > 0) {
			bash_capture_add(&c->cap, buf, (size_t)n);
			got += (size_t)n;
		} else if (n == 0 || (errno != EINTR && errno != EAGAIN))
			c->eof = 1;
		else if (errno == EAGAIN)
			break;
	}
}

/* Notes whether the shell has exited, leaving it unreaped. */
static void
bash_check_exit(struct bash_child *c)
{
	siginfo_t si;
	int rc;

	if (c->exited)
		return;
	memset(&si, 0, sizeof si);
	rc = waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT);
	if (rc == 0 && si.si_pid == c->pid)
		c->exited = 1;
	else if (rc == -1 && errno == ECHILD)
		c->exited = 1;	/* reaped elsewhere; status unknown */
}

/* Whether TMPDIR is past max and holds more than when the command
 * started. The walk stops past the ceiling, which bounds its cost, unless
 * the start was already past it: then only a whole count measures
 * growth. */
static int
bash_tmp_past(struct bash_child *c, const struct tmpuse *max)
{
	tmpuse_measure(c->tmpdir, tmpuse_over(&c->tmp_start, max) ? NULL :
	    max, &c->tmp_now);
	return tmpuse_over(&c->tmp_now, max) &&
	    tmpuse_grew(&c->tmp_start, &c->tmp_now);
}

/* Whether the command, still running, made TMPDIR grow past its ceiling
 * (measured when due). */
static int
bash_tmp_full(struct bash_child *c)
{
	int64_t now = clock_mono_ms();

	if (c->tmp_max == NULL || c->exited || now < c->tmp_next)
		return 0;
	c->tmp_next = now + BASH_WATCH_MS;
	return bash_tmp_past(c, c->tmp_max);
}

/*
 * Waits until the reaper exits, which it does once the shell and all it
 * started are gone (with want_eof, until the pipe is closed too), the
 * deadline passes or the token fires, capturing output all the while.
 */
static enum bash_end
bash_wait(struct bash_child *c, int64_t deadline, struct cancel *cancel,
    int want_eof)
{
	struct pollfd pfd[3];
	int64_t left;
	nfds_t n;
	int ms;

	for (;;) {
		bash_check_exit(c);
		if (c->exited && (!want_eof || c->eof))
			return BASH_EXITED;
		if (cancel != NULL && cancel_fired(cancel))
			return BASH_CANCELLED;
		if ((left = deadline - clock_mono_ms()) <= 0)
			return BASH_TIMEOUT;
		if (bash_tmp_full(c))
			return BASH_TMP_FULL;
		ms = left > 60000 ? 60000 : (int)left;
		if (c->tmp_max != NULL && ms > BASH_WATCH_MS)
			ms = BASH_WATCH_MS;
		n = 0;
		if (!c->eof)
			pfd[n++] = (struct pollfd){ c->out, POLLIN, 0 };
		if (!c->exited && c->pidfd != -1)
			pfd[n++] = (struct pollfd){ c->pidfd, POLLIN, 0 };
		else if (!c->exited && ms > BASH_TICK_MS)
			ms = BASH_TICK_MS;
		if (cancel != NULL)
			pfd[n++] = (struct pollfd){ cancel_fd(cancel), POLLIN,
			    0 };
		if (poll(pfd, n, ms) == -1 && errno != EINTR)
			poll(NULL, 0, BASH_TICK_MS);	/* do not spin */
		bash_read(c, BASH_WAKE_MAX);
	}
}

/*
 * Stops the command: SIGTERM to its process group, the reaper included,
 * which then ends everything beneath it in its own time (the grace period,
 * then its SIGKILL passes). SIGKILL to the group only if the reaper has
 * not exited by then, or has not closed the output pipe.
 */
static void
bash_stop(struct bash_child *c)
{
	c->tmp_max = NULL;
	kill(-c->pid, SIGTERM);
	(void)bash_wait(c, clock_mono_ms() + BASH_GRACE_MS + REAPER_KILL_MS +
	    BASH_SLACK_MS, NULL, 1);
	kill(-c->pid, SIGKILL);
}

/*
 * Reaps the reaper (blocking: it has exited or been killed) and takes the
 * shell's status from its report. A reaper that ended without one was
 * killed, by the command itself or by bash_stop, and what it held may
 * have escaped to us: those are swept at once.
 */
static void
bash_reap(struct bash_child *c)
{
	int st, shell;
	pid_t r;

	while ((r = waitpid(c->pid, &st, 0)) == -1 && errno == EINTR)
		;
	kept_end(c->pid);
	if (read(c->status_fd, &shell, sizeof shell) == (ssize_t)sizeof shell)
		c->status = shell;
	else if (r == c->pid && WIFEXITED(st))
		c->status = st;		/* it could not start the shell */
	else {
		c->status = -1;
		c->lost = 1;
		bash_sweep_orphans(0);
	}
}

/* "[exit status N]", "[killed by signal SIGTERM]" or unknown. */
static char *
bash_status(int status)
{
	const char *name;

	if (status == -1)
		return xstrdup("[exit status unknown]");
	if (WIFEXITED(status))
		return xasprintf("[exit status %d]", WEXITSTATUS(status));
	if ((name = sigabbrev_np(WTERMSIG(status))) != NULL)
		return xasprintf("[killed by signal SIG%s%s]", name,
		    WCOREDUMP(status) ? ", core dumped" : "");
	return xasprintf("[killed by signal %d]", WTERMSIG(status));
}

static int
bash_report(struct bash_child *c, enum bash_end end, int timeout_s,
    const struct tmpuse *tmp_max, struct tool_output *out)
{
	char *text = bash_capture_text(&c->cap), *status, *why, *tmp = NULL;
	size_t len = strlen(text);

	status = bash_status(c->status);
	if (end == BASH_TIMEOUT)
		why = xasprintf("[timed out after %d s; the command and all "
		    "it started were stopped]\n", timeout_s);
	else if (end == BASH_CANCELLED)
		why = xstrdup("[cancelled; the command and all it started "
		    "were stopped]\n");
	else if (end == BASH_TMP_FULL) {
		tmp = tmpuse_text(c->tmpdir, &c->tmp_now, tmp_max);
		why = xasprintf("[stopped: %s; the command and all it started "
		    "were stopped]\n", tmp);
	} else if (c->lost)
		why = xstrdup("[the command's reaper was killed; all the "
		    "command started was stopped]\n");
	else if (tmp_max != NULL && bash_tmp_past(c, tmp_max)) {
		tmp = tmpuse_text(c->tmpdir, &c->tmp_now, tmp_max);
		why = xasprintf("[%s; the next command that adds to it is "
		    "stopped]\n", tmp);
	} else
		why = xstrdup("");
	free(tmp);
	tool_output_clear(out);
	out->is_error = end != BASH_EXITED;
	out->text = xasprintf("%s%s%s%s", text, len > 0 &&
	    text[len - 1] != '\n' ? "\n" : "", why, status);
	free(text);
	free(status);
	free(why);
	return out->is_error ? -1 : 0;
}

/* A new file in dir (NULL: none) for the whole output: its descriptor
 * and *path, or -1 (the output is then not kept). */
static int
bash_keep_open(const char *dir, char **path)
{
	int fd;

	*path = NULL;
	if (dir == NULL)
		return -1;
	*path = xasprintf("%s/out-XXXXXX", dir);
	if ((fd = mkostemp(*path, O_CLOEXEC)) == -1) {
		free(*path);
		*path = NULL;
	}
	return fd;
}

/* The whole output is kept (out->whole takes *path) when the model's
 * text is a cut of it or it has more than keep_lines lines, and was all
 * written; otherwise the file goes (the caller unlinks what is left). */
static void
bash_keep_end(struct bash_capture *c, size_t keep_lines, char **path,
    struct tool_output *out)
{
	int cut = c->total > c->head_len + c->tail_len;

	if (c->keep_fd == -1 || (!cut && c->lines <= keep_lines))
		return;
	if (c->total > (unsigned long long)BASH_KEEP_MAX) {
		char *note = xasprintf("\n[huddle kept the first %lld MiB of "
		    "%llu bytes]\n", BASH_KEEP_MAX >> 20, c->total);

		bash_write_all(c->keep_fd, note, strlen(note));
		free(note);
	}
	if (close(c->keep_fd) == 0) {
		out->whole = *path;
		*path = NULL;
	}
	c->keep_fd = -1;
}

int
bash_run(const char *command, const struct bash_options *o,
    struct tool_output *out)
{
	struct bash_child c;
	enum bash_end end;
	size_t cap;
	char *why = NULL, *keep = NULL;
	int timeout_s, rc;

	if (o != NULL && o->status_out != NULL)
		*o->status_out = -1;
	if (command == NULL || command[0] == '\0')
		return tool_error(out, "the command is empty");
	if (o == NULL || o->workdir == NULL)
		return tool_error(out, "bash has no working directory");
	if (o->cancel != NULL && cancel_fired(o->cancel))
		return tool_error(out, "cancelled before it started");
	timeout_s = o->timeout_s > 0 ? o->timeout_s : BASH_TIMEOUT_S;
	cap = o->output_cap > 0 ? o->output_cap : BASH_OUTPUT_CAP;

	memset(&c, 0, sizeof c);
	c.cap.keep_fd = bash_keep_open(o->keep_dir, &keep);
	c.cap.head_cap = cap - cap / 2;
	c.cap.tail_cap = cap / 2;
	c.cap.head = xmalloc(c.cap.head_cap);
	c.cap.tail = xmalloc(c.cap.tail_cap);
	if (o->tmpdir != NULL && o->tmp_max != NULL) {
		c.tmpdir = o->tmpdir;
		c.tmp_max = o->tmp_max;
		tmpuse_measure(c.tmpdir, NULL, &c.tmp_start);
		c.tmp_next = clock_mono_ms() + BASH_WATCH_MS;
	}
	if (bash_spawn(command, o, &c, &why) == -1) {
		rc = tool_error(out, "%s", why);
		free(why);
	} else {
		end = bash_wait(&c, clock_mono_ms() + timeout_s * 1000LL,
		    o->cancel, 0);
		if (end == BASH_EXITED)
			bash_read(&c, BASH_DRAIN_MAX);
		else
			bash_stop(&c);
		bash_reap(&c);
		if (o->status_out != NULL)
			*o->status_out = end == BASH_EXITED ? c.status : -1;
		rc = bash_report(&c, end, timeout_s, o->tmpdir != NULL ?
		    o->tmp_max : NULL, out);
		bash_keep_end(&c.cap, o->keep_lines, &keep, out);
		close(c.out);
		close(c.status_fd);
		if (c.pidfd != -1)
			close(c.pidfd);
	}
	if (c.cap.keep_fd != -1)
		close(c.cap.keep_fd);
	if (keep != NULL)
		unlink(keep);
	free(keep);
	free(c.cap.head);
	free(c.cap.tail);
	return rc;
}
