/*
 * The children a sweep spares (see kept.h).
 *
 * A child is added under the lock in the same breath as it is spawned,
 * so no sweep can see it unlisted, and removed only once reaped, so its
 * pid is never reused while listed. The lock is held across a spawn and
 * a read of /proc, which never block for long, and never across a wait.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <unistd.h>

#include "tools/children.h"
#include "tools/kept.h"
#include "util/xmalloc.h"

static pthread_mutex_t	 kept_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t		*kept_pids;
static size_t		 kept_n;
static size_t		 kept_cap;
/* Sessions whose members are all spared (kept_spawn_session). */
static pid_t		*kept_sids;
static size_t		 kept_nsids;

/* Whether pid is listed; the lock is held. */
static int
kept_listed(pid_t pid)
{
	size_t i;

	for (i = 0; i < kept_n; i++)
		if (kept_pids[i] == pid)
			return 1;
	return 0;
}

/* Whether pid is in a spared session; the lock is held. */
static int
kept_in_session(pid_t pid)
{
	pid_t sid;
	size_t i;

	if (kept_nsids == 0 || (sid = getsid(pid)) == -1)
		return 0;
	for (i = 0; i < kept_nsids; i++)
		if (kept_sids[i] == sid)
			return 1;
	return 0;
}

/* posix_spawn, the child noted as kept (and its session as spared, with
 * session), under the lock, so no sweep can meet it unnoted. */
static int
kept_spawn_as(const char *program, pid_t *pid,
    posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, char **argv,
    char **env, int session)
{
	int rc;

	pthread_mutex_lock(&kept_lock);
	rc = posix_spawn(pid, program, fa, at, argv, env);
	if (rc == 0) {
		if (kept_n == kept_cap) {
			kept_cap = kept_cap ? kept_cap * 2 : 16;
			kept_pids = xrealloc(kept_pids,
			    kept_cap * sizeof *kept_pids);
		}
		kept_pids[kept_n++] = *pid;
	}
	if (rc == 0 && session) {
		/* Its session is named by its pid (POSIX_SPAWN_SETSID). */
		kept_sids = xrealloc(kept_sids, (kept_nsids + 1) *
		    sizeof *kept_sids);
		kept_sids[kept_nsids++] = *pid;
	}
	pthread_mutex_unlock(&kept_lock);
	return rc;
}

int
kept_spawn_session(const char *program, pid_t *pid,
    posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, char **argv,
    char **env)
{
	return kept_spawn_as(program, pid, fa, at, argv, env, 1);
}

int
kept_spawn(const char *program, pid_t *pid,
    posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, char **argv,
    char **env)
{
	return kept_spawn_as(program, pid, fa, at, argv, env, 0);
}

void
kept_end(pid_t pid)
{
	size_t i;

	pthread_mutex_lock(&kept_lock);
	for (i = 0; i < kept_n; i++) {
		if (kept_pids[i] == pid) {
			kept_pids[i] = kept_pids[--kept_n];
			break;
		}
	}
	if (kept_n == 0) {
		free(kept_pids);
		kept_pids = NULL;
		kept_cap = 0;
	}
	pthread_mutex_unlock(&kept_lock);
}

int
kept_signal_others(int sig, pid_t *pids)
{
	pid_t all[KEPT_BATCH];
	int n, i, m = 0;

	pthread_mutex_lock(&kept_lock);
	n = children_list(getpid(), all, KEPT_BATCH);
	for (i = 0; i < n && i < KEPT_BATCH; i++) {
		if (kept_listed(all[i]) || kept_in_session(all[i]))
			continue;
		kill(all[i], sig);
		if (sig != SIGKILL)
			kill(all[i], SIGCONT);
		pids[m++] = all[i];
	}
	pthread_mutex_unlock(&kept_lock);
	return m;
}
