/*
 * The person's pager (see pager.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/kept.h"
#include "ui/pager.h"
#include "util/xmalloc.h"

extern char **environ;

/* How often the team's tick runs while the pager has the terminal. */
#define PAGER_TICK_MS 1000

/* Opens path for reading if it is a regular file: the descriptor, or
 * -1. */
static int
pager_open(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, 0) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Waits for the pager, calling tick between; one that stops itself (C-z)
 * is ended: huddle is no shell to bring it back. Returns its status, or
 * -1 when it could not be waited for. */
static int
pager_wait(pid_t pid, void (*tick)(void *), void *ud)
{
	int status, pfd = -1;
	pid_t got;

#ifdef SYS_pidfd_open
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	for (;;) {
		got = waitpid(pid, &status, WNOHANG | WUNTRACED);
		if (got == -1 && errno != EINTR)
			break;
		if (got == pid && WIFSTOPPED(status)) {
			kill(-pid, SIGTERM);
			kill(-pid, SIGCONT);
			continue;
		}
		if (got == pid)
			break;
		if (pfd != -1) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };

			if (poll(&p, 1, PAGER_TICK_MS) == 0 && tick != NULL)
				tick(ud);
		} else {
			usleep(50 * 1000);
			if (tick != NULL)
				tick(ud);
		}
	}
	if (pfd != -1)
		close(pfd);
	kept_end(pid);
	return got == pid ? status : -1;
}

const char *
pager_show(const char *path, void (*tick)(void *), void *ud)
{
	const char *pager = getenv("PAGER"), *why = NULL;
	char *cmd, *dir, *slash, *argv[4];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, deflt, ttou, old;
	pid_t pid, front = tcgetpgrp(STDIN_FILENO);
	int fd, status;

	if ((fd = pager_open(path)) == -1)
		return "that output cannot be read as a plain file";
	if (pager == NULL || *pager == '\0')
		pager = "less";
	cmd = xasprintf("exec %s", pager);
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = cmd;
	argv[3] = NULL;
	sigemptyset(&none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGINT);
	sigaddset(&deflt, SIGQUIT);
	sigaddset(&deflt, SIGTSTP);
	sigaddset(&deflt, SIGTTIN);
	sigaddset(&deflt, SIGTTOU);
	sigaddset(&deflt, SIGPIPE);
	sigaddset(&deflt, SIGCHLD);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &deflt);
	/* In order: the terminal to its group (while stdin is the
	 * terminal), the file as its stdin, the file's folder as its
	 * place. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addtcsetpgrp_np(&fa, STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, fd, STDIN_FILENO);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	/* Handing the terminal over and back is done from the background:
	 * SIGTTOU would stop us. */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	pthread_sigmask(SIG_BLOCK, &ttou, &old);
	if (kept_spawn("/bin/sh", &pid, &fa, &at, argv, environ) != 0)
		why = "the pager could not be started";
	else {
		tcsetpgrp(STDIN_FILENO, pid);
		status = pager_wait(pid, tick, ud);
		if (status != -1 && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 127)
			why = "the pager could not be started: check $PAGER";
	}
	tcsetpgrp(STDIN_FILENO, front != -1 ? front : getpgrp());
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(fd);
	free(dir);
	free(cmd);
	return why;
}
