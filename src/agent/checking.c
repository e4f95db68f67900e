/*
 * The worktrees where a task's check runs now (see internal.h): the task
 * code marks one while its check runs, and the worktree code will not
 * merge or remove it meanwhile. Below both, so neither calls the other
 * for it.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "agent/internal.h"
#include "util/xmalloc.h"

int
checking_at(struct team *t, const char *root)
{
	size_t i;
	int found = 0;

	pthread_mutex_lock(&t->check_lock);
	for (i = 0; i < t->nchecking && !found; i++)
		found = strcmp(t->checking[i], root) == 0;
	pthread_mutex_unlock(&t->check_lock);
	return found;
}

void
checking_mark(struct team *t, const char *root)
{
	if (strcmp(root, t->workdir) == 0)
		return;
	pthread_mutex_lock(&t->git_lock);
	pthread_mutex_lock(&t->check_lock);
	t->checking = xgrow(t->checking, &t->capchecking, t->nchecking + 1,
	    sizeof *t->checking);
	t->checking[t->nchecking++] = (char *)root;
	pthread_mutex_unlock(&t->check_lock);
	pthread_mutex_unlock(&t->git_lock);
}

void
checking_unmark(struct team *t, const char *root)
{
	size_t i;

	pthread_mutex_lock(&t->check_lock);
	for (i = 0; i < t->nchecking; i++) {
		if (t->checking[i] == root) {
			t->checking[i] = t->checking[--t->nchecking];
			break;
		}
	}
	pthread_mutex_unlock(&t->check_lock);
}
