/*
 * The worktrees where a task's check runs now (see checking.h): the task
 * code marks one while its check runs, and the worktree code will not
 * merge or remove it meanwhile. Below both, so neither calls the other
 * for it.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "agent/checking.h"
#include "agent/internal.h"
#include "util/xmalloc.h"

int
checking_at(struct team *t, const char *root)
{
	struct checking *ck = &t->checks;
	size_t i;
	int found = 0;

	pthread_mutex_lock(&ck->check_lock);
	for (i = 0; i < ck->nchecking && !found; i++)
		found = strcmp(ck->checking[i], root) == 0;
	pthread_mutex_unlock(&ck->check_lock);
	return found;
}

void
checking_mark(struct team *t, const char *root)
{
	struct checking *ck = &t->checks;

	if (strcmp(root, t->home.workdir) == 0)
		return;
	pthread_mutex_lock(&t->places.git_lock);
	pthread_mutex_lock(&ck->check_lock);
	ck->checking = xgrow(ck->checking, &ck->capchecking,
	    ck->nchecking + 1, sizeof *ck->checking);
	ck->checking[ck->nchecking++] = (char *)root;
	pthread_mutex_unlock(&ck->check_lock);
	pthread_mutex_unlock(&t->places.git_lock);
}

void
checking_unmark(struct team *t, const char *root)
{
	struct checking *ck = &t->checks;
	size_t i;

	pthread_mutex_lock(&ck->check_lock);
	for (i = 0; i < ck->nchecking; i++) {
		if (ck->checking[i] == root) {
			ck->checking[i] = ck->checking[--ck->nchecking];
			break;
		}
	}
	pthread_mutex_unlock(&ck->check_lock);
}
