/*
 * What the team's parts read of it (see teamstate.h and team.h): its
 * agents by name, its stores, its budget and spend, the options of its
 * commands, the lead's waits. Below everything else of the team: these
 * call only the core layers.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent/internal.h"
#include "agent/netgate.h"
#include "agent/teamstate.h"
#include "tools/bash.h"
#include "tools/profile.h"
#include "util/log.h"
#include "util/xmalloc.h"

struct evq *
team_events(struct team *t)
{
	return &t->core.events;
}

struct store *
team_store(struct team *t)
{
	return t->core.store;
}

struct bus *
team_bus(struct team *t)
{
	return t->core.bus;
}

int64_t
team_epoch_us(struct team *t)
{
	return t->home.epoch_us;
}

struct protocol *
team_protocol(struct team *t)
{
	return t->core.proto;
}

struct agent *
team_find(struct team *t, const char *name)
{
	struct agent *a = NULL;
	size_t i;

	pthread_mutex_lock(&t->crew.lock);
	for (i = 0; i < t->crew.nagents; i++) {
		if (strcmp(t->crew.agents[i]->name, name) == 0 &&
		    !atomic_load(&t->crew.agents[i]->run.finished))
			a = t->crew.agents[i];
	}
	pthread_mutex_unlock(&t->crew.lock);
	return a;
}

void
team_set_budget(struct team *t, double max_cost)
{
	struct member *m;
	size_t n, i;

	pthread_mutex_lock(&t->budget.lock);
	t->budget.max_cost = max_cost > 0 ? max_cost : 0;
	pthread_mutex_unlock(&t->budget.lock);
	/* Whoever waits on the old limit looks again. */
	n = roster_list(t->core.store, &m);
	for (i = 0; i < n; i++)
		bus_wake(t->core.bus, m[i].name);
	member_free_array(m, n);
}

double
team_budget(struct team *t)
{
	double max;

	pthread_mutex_lock(&t->budget.lock);
	max = t->budget.max_cost;
	pthread_mutex_unlock(&t->budget.lock);
	return max;
}

double
team_cost(struct team *t)
{
	return roster_team_cost(t->core.store);
}

const char *
team_lead_model(struct team *t)
{
	return t->opts.llm.model;
}

void
team_lead_waits(struct team *t, const char *name)
{
	char *err = NULL;

	if (roster_set_awaited(t->core.store, name, 1, &err) == -1) {
		log_printf("lead waits for %s: %s", name, err);
		free(err);
	}
}

void
team_bash_options(struct team *t, const struct profile *p,
    struct cancel *cancel, struct bash_options *bo)
{
	memset(bo, 0, sizeof *bo);
	bo->program = t->home.program;
	bo->timeout_s = t->opts.bash_timeout_s;
	bo->cancel = cancel;
	profile_bash_options(p, bo);
}

int
team_proxy_port(struct team *t)
{
	return netgate_port(t->netgate);
}

const char *
team_workdir(struct team *t)
{
	return t->home.workdir;
}

const char *
team_state_dir(struct team *t)
{
	return t->home.state;
}

void
team_on_notice(void *ud, const char *text)
{
	struct team *t = ud;

	evq_notice(&t->core.events, text);
}
