/*
 * The person's task commands (see team.h): /task add, assign, move and
 * done. A check the person starts runs in a thread of its own, which
 * team_free cancels and joins; the check itself is tasks.c's.
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "agent/internal.h"
#include "agent/places.h"
#include "agent/tasks.h"
#include "agent/teamtasks.h"
#include "core/taskboard.h"
#include "util/log.h"
#include "util/xmalloc.h"

struct taskboard *
team_taskboard(struct team *t)
{
	return t->core.tasks;
}

int
team_task_add(struct team *t, const char *subject, const char *const *after,
    size_t nafter, const char *worktree, char **msg)
{
	struct task_new n = { subject, NULL, after, nafter, NULL, worktree };
	struct task k;

	if (worktree != NULL && places_for_tasks(t, msg) == -1)
		return -1;
	if (taskboard_create(t->core.tasks, MSG_USER, &n, &k, msg) == -1)
		return -1;
	/* In the board's words (ready, or waiting), not the store's
	 * "pending". */
	*msg = xasprintf("added %s, %s on the board: %s", k.id, k.blocked ?
	    "waiting" : k.worktree_busy ? "waiting for its worktree" :
	    "ready", k.subject);
	task_clear(&k);
	return 0;
}

int
team_task_assign(struct team *t, const char *id, const char *teammate,
    char **msg)
{
	struct task k;

	if (taskboard_assign(t->core.tasks, MSG_USER, id, teammate, &k,
	    msg) == -1)
		return -1;
	*msg = xasprintf("%s is %s's now%s", k.id, teammate, k.blocked ?
	    "; it starts when what it waits for is done" : "");
	task_clear(&k);
	return 0;
}

int
team_task_move(struct team *t, const char *id, enum task_status status,
    char **msg)
{
	struct task_change c = TASK_CHANGE_NONE;
	struct task k;

	c.status = status;
	if (taskboard_update(t->core.tasks, MSG_USER, id, &c, &k, msg) == -1)
		return -1;
	*msg = xasprintf("%s is %s", k.id, task_status_name(k.status));
	task_clear(&k);
	return 0;
}

/* A check the person started, in a thread of its own. */
struct checker {
	struct team	*team;
	char		*id;
	pthread_t	 thread;
	atomic_int	 done;
};

static void *
team_checker_main(void *arg)
{
	struct checker *c = arg;
	char *msg = NULL;

	tasks_complete(c->team, NULL, c->id, NULL,
	    &c->team->checks.check_cancel, &msg);
	event_notice(&c->team->core.events, NULL, "%s", msg ? msg : "");
	free(msg);
	atomic_store(&c->done, 1);
	return NULL;
}

void
team_reap_checkers(struct team *t, int all)
{
	struct checker **ended = NULL;
	size_t n = 0, keep = 0, cap = 0, i;
	struct checking *ck = &t->checks;

	if (all) {
		cancel_fire(&ck->check_cancel);
		/* A check that waits for the person's permission waits on
		 * the person's inbox (permit.c); a team that failed to open
		 * has no bus. */
		if (t->core.bus != NULL)
			bus_wake(t->core.bus, MSG_USER);
	}
	pthread_mutex_lock(&ck->check_lock);
	for (i = 0; i < ck->ncheckers; i++) {
		if (all || atomic_load(&ck->checkers[i]->done)) {
			ended = xgrow(ended, &cap, n + 1, sizeof *ended);
			ended[n++] = ck->checkers[i];
		} else
			ck->checkers[keep++] = ck->checkers[i];
	}
	ck->ncheckers = keep;
	pthread_mutex_unlock(&ck->check_lock);
	for (i = 0; i < n; i++) {
		pthread_join(ended[i]->thread, NULL);
		free(ended[i]->id);
		free(ended[i]);
	}
	free(ended);
}

int
team_task_done(struct team *t, const char *id, char **msg)
{
	struct checking *ck = &t->checks;
	struct checker *c;
	struct task k;
	int rc;

	if (taskboard_get(t->core.tasks, id, &k) == -1) {
		*msg = xasprintf("there is no task '%s'", id);
		return -1;
	}
	if (tasks_check_command(t, &k) == NULL) {
		task_clear(&k);
		return team_task_move(t, id, TASK_COMPLETED, msg);
	}
	if (taskboard_may_move(t->core.tasks, MSG_USER, k.id, TASK_COMPLETED,
	    msg) == -1) {
		task_clear(&k);
		return -1;
	}
	/* The check may take a while: the screen does not wait for it. */
	c = xcalloc(1, sizeof *c);
	c->team = t;
	c->id = xstrdup(k.id);
	pthread_mutex_lock(&ck->check_lock);
	rc = ck->checks_closed ? -1 : pthread_create(&c->thread, NULL,
	    team_checker_main, c);
	if (rc == 0) {
		ck->checkers = xgrow(ck->checkers, &ck->capcheckers,
		    ck->ncheckers + 1, sizeof *ck->checkers);
		ck->checkers[ck->ncheckers++] = c;
	}
	pthread_mutex_unlock(&ck->check_lock);
	if (rc != 0) {
		free(c->id);
		free(c);
		*msg = xstrdup("cannot start the check");
		task_clear(&k);
		return -1;
	}
	*msg = xasprintf("checking %s before it is completed: %s", k.id,
	    tasks_check_command(t, &k));
	task_clear(&k);
	return 0;
}
