/*
 * The bash tool (see bash.h).
 *
 * huddle is multi-threaded, so the shell is started with posix_spawn, never
 * fork(): every pipe is close-on-exec from birth, and the child's signal
 * mask and dispositions are reset by the spawn itself rather than by code
 * running between fork and exec.
 *
 * One poll() waits for everything at once: output on the pipe, the shell's
 * exit (a pidfd, where the kernel has them), the cancel token and the
 * deadline. The shell is detected as exited with waitid(WNOWAIT) and only
 * reaped at the very end, so its pid, which is also the process group id,
 * cannot be reused while we may still signal the group.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bash.h"
#include "tools/env.h"
#include "tools/landlock.h"
#include "util/cancel.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define BASH_CHUNK		16384		/* one read() */
#define BASH_WAKE_MAX		(1024 * 1024)	/* read per wake-up */
#define BASH_DRAIN_MAX		(1024 * 1024)	/* read after exit */
#define BASH_TICK_MS		50	/* exit checks without a pidfd */
#define BASH_REAP_MS		1000	/* wait for killed orphans */

/* The output kept: the first half of the cap and a rolling last half. */
struct bash_capture {
	char			*head;
	size_t			 head_len;
	size_t			 head_cap;
	char			*tail;
	size_t			 tail_len;
	size_t			 tail_cap;
	unsigned long long	 total;		/* bytes seen */
};

struct bash_child {
	pid_t			 pid;		/* = process group */
	int			 out;		/* pipe, non-blocking */
	int			 pidfd;		/* or -1 */
	int			 exited;	/* seen, not yet reaped */
	int			 eof;
	int			 status;	/* -1 when unknown */
	struct bash_capture	 cap;
};

enum bash_end {
	BASH_EXITED,
	BASH_TIMEOUT,
	BASH_CANCELLED
};

static void
bash_capture_add(struct bash_capture *c, const char *p, size_t n)
{
	size_t take = c->head_cap - c->head_len, drop;

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

/* Moves a descriptor of ours off 0-2, where a file action would
 * clobber it if huddle runs with a standard descriptor closed. */
static int
bash_high_fd(int fd)
{
	int hi;

	if (fd > 2)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return hi;
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
 * Sets up what posix_spawn does in the child (see bash.h). Every signal
 * sigfillset knows gets its default disposition; glibc's own two
 * internal signals (32 and 33, below SIGRTMIN) stay ignored in any
 * posix_spawn child, and no API reaches them.
 */
static void
bash_spawn_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *at,
    const char *workdir, int wfd)
{
	sigset_t none, all;

	posix_spawn_file_actions_init(fa);
	posix_spawn_file_actions_addchdir_np(fa, workdir);
	posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(fa, wfd, 1);
	posix_spawn_file_actions_adddup2(fa, wfd, 2);

	sigemptyset(&none);
	sigfillset(&all);
	sigdelset(&all, SIGKILL);
	sigdelset(&all, SIGSTOP);
	posix_spawnattr_init(at);
	posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(at, 0);
	posix_spawnattr_setsigmask(at, &none);
	posix_spawnattr_setsigdefault(at, &all);
}

/* A spawn made on a thread of its own, which enters the sandbox first:
 * the sandbox binds the thread for good, and what it starts. */
struct bash_sandboxed {
	const struct bash_options	*o;
	pid_t				*pid;
	posix_spawn_file_actions_t	*fa;
	posix_spawnattr_t		*at;
	char				**argv;
	char				**env;
	int				 rc;
};

static void *
bash_sandboxed_spawn(void *arg)
{
	struct bash_sandboxed *s = arg;

	if (landlock_enter(s->o->sandbox_fd) == -1)
		s->rc = errno;
	else
		s->rc = posix_spawn(s->pid, "/bin/sh", s->fa, s->at, s->argv,
		    s->env);
	return NULL;
}

/* posix_spawn of /bin/sh, in the sandbox when the options say so. */
static int
bash_posix_spawn(const struct bash_options *o, pid_t *pid,
    posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, char **argv,
    char **env)
{
	struct bash_sandboxed s = { o, pid, fa, at, argv, env, 0 };
	pthread_t th;
	int rc;

	if (!o->sandboxed)
		return posix_spawn(pid, "/bin/sh", fa, at, argv, env);
	if ((rc = pthread_create(&th, NULL, bash_sandboxed_spawn, &s)) != 0)
		return rc;
	pthread_join(th, NULL);
	return s.rc;
}

/* The environment for the command: tools/env.h's, with TMPDIR. */
static char **
bash_env(const struct bash_options *o, char **tmpvar)
{
	char **env = env_for_tools(), **p;
	size_t n;

	*tmpvar = NULL;
	if (o->tmpdir == NULL)
		return env;
	*tmpvar = xasprintf("TMPDIR=%s", o->tmpdir);
	for (p = env; *p != NULL; p++) {
		if (strncmp(*p, "TMPDIR=", 7) == 0) {
			*p = *tmpvar;
			return env;
		}
	}
	n = (size_t)(p - env);
	env = xrealloc(env, (n + 2) * sizeof *env);
	env[n] = *tmpvar;
	env[n + 1] = NULL;
	return env;
}

static int
bash_spawn(const char *command, const struct bash_options *o,
    struct bash_child *c, char **why)
{
	const char *workdir = o->workdir;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)command, NULL };
	char **env, *tmpvar;
	int p[2], rc;

	if (pipe2(p, O_CLOEXEC) == -1 || (p[0] = bash_high_fd(p[0])) == -1 ||
	    (p[1] = bash_high_fd(p[1])) == -1) {
		*why = xasprintf("cannot run the command: pipe: %s",
		    strerror(errno));
		return -1;
	}
	bash_spawn_setup(&fa, &at, workdir, p[1]);
	env = bash_env(o, &tmpvar);
	rc = bash_posix_spawn(o, &c->pid, &fa, &at, argv, env);
	free(env);
	free(tmpvar);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		*why = xasprintf("cannot run /bin/sh in %s: %s", workdir,
		    strerror(rc));
		return -1;
	}
	c->out = p[0];
	fcntl(c->out, F_SETFL, fcntl(c->out, F_GETFL) | O_NONBLOCK);
	c->pidfd = bash_pidfd(c->pid);
	return 0;
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

/*
 * Waits until the shell exits (and, with want_eof, the pipe is closed
 * too), the deadline passes or the token fires, capturing output all the
 * while.
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
		ms = left > 60000 ? 60000 : (int)left;
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
 * Stops the process group: SIGTERM, then up to the grace period for the
 * shell to exit and the output pipe to close, then SIGKILL for whatever
 * is left. Members that hold neither (background jobs that redirected
 * their output) therefore get SIGKILL as soon as the shell is gone.
 */
static void
bash_stop(struct bash_child *c)
{
	kill(-c->pid, SIGTERM);
	(void)bash_wait(c, clock_mono_ms() + BASH_GRACE_MS, NULL, 1);
	kill(-c->pid, SIGKILL);
}

/*
 * Reaps the shell (blocking: it has exited or been killed), then those
 * members of its group that are our children too — orphans, when we are
 * a subreaper — waiting a little for killed ones to die.
 */
static void
bash_reap(struct bash_child *c, int wait_for_killed)
{
	int64_t until = clock_mono_ms() + BASH_REAP_MS;
	int st;
	pid_t r;

	while ((r = waitpid(c->pid, &st, 0)) == -1 && errno == EINTR)
		;
	c->status = r == c->pid ? st : -1;
	for (;;) {
		r = waitpid(-c->pid, &st, WNOHANG);
		if (r > 0 || (r == -1 && errno == EINTR))
			continue;
		if (r == -1 || !wait_for_killed || clock_mono_ms() >= until)
			return;
		poll(NULL, 0, 5);
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
    struct tool_output *out)
{
	char *text = bash_capture_text(&c->cap), *status, *why;
	size_t len = strlen(text);

	status = bash_status(c->status);
	if (end == BASH_TIMEOUT)
		why = xasprintf("[timed out after %d s; the command and its "
		    "process group were killed]\n", timeout_s);
	else if (end == BASH_CANCELLED)
		why = xstrdup("[cancelled; the command and its process group "
		    "were killed]\n");
	else
		why = xstrdup("");
	tool_output_clear(out);
	out->is_error = end != BASH_EXITED;
	out->text = xasprintf("%s%s%s%s", text, len > 0 &&
	    text[len - 1] != '\n' ? "\n" : "", why, status);
	free(text);
	free(status);
	free(why);
	return out->is_error ? -1 : 0;
}

int
bash_run(const char *command, const struct bash_options *o,
    struct tool_output *out)
{
	struct bash_child c;
	enum bash_end end;
	size_t cap;
	char *why = NULL;
	int timeout_s, rc;

	if (command == NULL || command[0] == '\0')
		return tool_error(out, "the command is empty");
	if (o == NULL || o->workdir == NULL)
		return tool_error(out, "bash has no working directory");
	if (o->cancel != NULL && cancel_fired(o->cancel))
		return tool_error(out, "cancelled before it started");
	timeout_s = o->timeout_s > 0 ? o->timeout_s : BASH_TIMEOUT_S;
	cap = o->output_cap > 0 ? o->output_cap : BASH_OUTPUT_CAP;

	memset(&c, 0, sizeof c);
	c.cap.head_cap = cap - cap / 2;
	c.cap.tail_cap = cap / 2;
	c.cap.head = xmalloc(c.cap.head_cap);
	c.cap.tail = xmalloc(c.cap.tail_cap);
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
		bash_reap(&c, end != BASH_EXITED);
		rc = bash_report(&c, end, timeout_s, out);
		close(c.out);
		if (c.pidfd != -1)
			close(c.pidfd);
	}
	free(c.cap.head);
	free(c.cap.tail);
	return rc;
}
