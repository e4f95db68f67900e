/*
 * The orderly quit (see team.h): the permission requests that wait for
 * the person are withdrawn at once (teamwithdraw.c); every live teammate is asked by huddle itself to stop where it is; those
 * that approve stay members for --resume; at the deadline the rest are
 * stopped the same way and their requests withdrawn; the lead stops
 * last.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/internal.h"
#include "agent/teamwithdraw.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

int
team_quitting(struct team *t)
{
	return atomic_load(&t->quit.quitting);
}

/*
 * A copy of the list of agents. Only the main thread reaps agents, so on
 * the main thread the pointers stay valid without the lock — which must
 * not be held while calling the protocol engine (a drain holds the store
 * lock and then takes the team lock).
 */
static size_t
team_snapshot(struct team *t, struct agent ***out)
{
	size_t n;

	pthread_mutex_lock(&t->crew.lock);
	n = t->crew.nagents;
	*out = xcalloc(n ? n : 1, sizeof **out);
	memcpy(*out, t->crew.agents, n * sizeof **out);
	pthread_mutex_unlock(&t->crew.lock);
	return n;
}

void
team_quit_begin(struct team *t)
{
	struct agent **agents;
	size_t n, i, asked = 0;
	char *err = NULL;

	if (atomic_load(&t->quit.quitting))
		return;
	atomic_store(&t->quit.quitting, 1);
	t->quit.deadline = clock_mono_ms() + t->opts.quit_timeout_ms;
	team_withdraw_pending(t);
	n = team_snapshot(t, &agents);
	for (i = 0; i < n; i++) {
		struct agent *a = agents[i];

		if (a->is_lead || atomic_load(&a->run.finished))
			continue;
		if (protocol_request(t->core.proto, REQ_SHUTDOWN, MSG_SYSTEM,
		    a->name, TEAM_QUIT_REASON, a->run.quit_req, &err) == -1) {
			log_printf("quit: %s", err);
			free(err);
			err = NULL;
		} else
			asked++;
	}
	free(agents);
	event_notice_asked(&t->core.events, "quitting: asked every teammate to "
	    "shut down", (int)asked);
}

int64_t
team_quit_left_ms(struct team *t)
{
	int64_t left = t->quit.deadline - clock_mono_ms();

	return left > 0 ? left : 0;
}

void
team_quit_force(struct team *t)
{
	struct agent **agents;
	size_t n, i;

	team_quit_begin(t);
	t->quit.deadline = clock_mono_ms();
	(void)team_quit_poll(t);
	/* The lead too, whatever the teammates are doing. */
	n = team_snapshot(t, &agents);
	for (i = 0; i < n; i++)
		if (!atomic_load(&agents[i]->run.stop))
			team_stop_agent(t, agents[i], 0);
	free(agents);
}

int
team_quit_poll(struct team *t)
{
	struct agent **agents, *lead = NULL;
	size_t n, i, running = 0;
	int late = clock_mono_ms() >= t->quit.deadline;
	char *err = NULL;

	team_tick(t);
	n = team_snapshot(t, &agents);
	for (i = 0; i < n; i++) {
		struct agent *a = agents[i];

		if (a->is_lead) {
			lead = a;
			continue;
		}
		running++;
		if (late && !atomic_load(&a->run.stop)) {
			/* Out of time: stop it, keeping it for --resume, and
			 * withdraw the request it did not answer. */
			team_stop_agent(t, a, 0);
			if (*a->run.quit_req != '\0' &&
			    protocol_cancel(t->core.proto,
			    a->run.quit_req, "huddle quit first", &err) == -1) {
				free(err);
				err = NULL;
			}
		}
	}
	if (running == 0 && lead != NULL && !t->quit.lead_stopping) {
		t->quit.lead_stopping = 1;
		team_stop_agent(t, lead, 0);
	}
	free(agents);
	return running == 0 && lead == NULL;
}
