/*
 * The checks of tasks the person completes (teamtasks.c runs each in a
 * thread of its own) and the worktrees where a check runs now
 * (checking.c), kept by the team.
 */
#ifndef HUDDLE_AGENT_CHECKING_H
#define HUDDLE_AGENT_CHECKING_H

#include <pthread.h>
#include <stddef.h>

#include "util/cancel.h"

struct checker;
struct team;

/*
 * The team's running checks (struct team's checks): team_free cancels
 * and joins the checker threads (teamtasks.c); a check in a worktree is
 * marked while it runs (checking.c). check_lock guards everything but
 * check_cancel.
 */
struct checking {
	pthread_mutex_t		 check_lock;	/* what follows, to the
						 * cancel */
	struct checker		**checkers;
	size_t			 ncheckers, capcheckers;
	int			 checks_closed;	/* team_free: no new ones */
	char			**checking;	/* the worktree of each check
						 * running now */
	size_t			 nchecking, capchecking;
	struct cancel		 check_cancel;
};

/* Marks a check running at root, in a worktree, until checking_unmark: it
 * starts after any merge there and keeps one from starting. */
void checking_mark(struct team *t, const char *root);

/* The check at root (the same pointer) has ended. */
void checking_unmark(struct team *t, const char *root);

/* Whether a task's check runs in the worktree at root now (places_merge
 * asks under git_lock, under which a check in a worktree starts). */
int checking_at(struct team *t, const char *root);

#endif
